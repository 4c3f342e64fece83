import { type Reply, type ReplyPart, replyFacts } from "./reply";

/** The reply the customer reads, one paragraph per agent, each labelled with who wrote it and how. */
export function ReplyView({ reply, parts }: { reply?: Reply; parts?: ReplyPart[] }) {
  const shown = reply?.parts ?? parts ?? [];
  if (!shown.length) return null;
  return (
    <div className="reply" data-testid="reply">
      <p className="small muted">
        <b>Reply</b>
        {reply ? ` · ${replyFacts(reply)}` : " · being written…"}
        {reply?.fallback && " · the template wrote part of it"}
      </p>
      <p className="reply-greeting">Hello,</p>
      {shown.map((part, i) => (
        <div key={`${part.agent}-${i}`} className={`reply-part reply-${part.source}`} data-testid="reply-part">
          <p className="reply-author small">
            <b>{part.agent.replace(/_/g, " ")}</b>
            {part.intents.length > 0 && <span className="muted"> · {part.intents.join(", ").replace(/_/g, " ")}</span>}{" "}
            <span className={`source-badge source-${part.source}`}>{part.source === "fallback" ? "template" : part.backend}</span>
            {part.fault && (
              <span className="reply-fault" data-testid="reply-fault" title={part.fault_detail}>
                {" "}
                fault: {part.fault.replace(/_/g, " ")}
              </span>
            )}
          </p>
          <p className="reply-text">{part.text}</p>
        </div>
      ))}
      {reply && <p className="reply-greeting">Kind regards, Customer service</p>}
    </div>
  );
}
