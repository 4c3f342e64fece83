import { type Reply, type ReplyPart, replyFacts, textBlocks } from "./reply";
import type { StreamingPart } from "./replyStream";

/** The reply the customer reads, one paragraph per agent, each labelled with who wrote it and how, signed
 * by the deployed team; while it is being written (``live``), each part grows as its agent's text streams
 * in. A writing team's text (a report, a post, code) is shown whole (`WrittenText`). */
export function ReplyView({ reply, parts, live }: { reply?: Reply; parts?: ReplyPart[]; live?: StreamingPart[] }) {
  if (!reply && live?.length) return <LiveReply parts={live} />;
  // a writing team's text, or the words of a ticket handed to a person (no agent wrote a part)
  if (reply?.sections || (reply && !reply.parts.length && reply.text)) return <WrittenText reply={reply} />;
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
          <PartAuthor part={part} />
          <p className="reply-text">{part.text}</p>
        </div>
      ))}
      {reply && <p className="reply-greeting">Kind regards,{reply.signature ? ` ${reply.signature}` : ""}</p>}
    </div>
  );
}

/** A writing team's text as it composed it: section headings, paragraphs and the code it wrote as code
 * (or, for a request the team cannot do, its words saying so), signed by the team. */
function WrittenText({ reply }: { reply: Reply }) {
  const declined = reply.faults.some((f) => f.kind === "out_of_scope");
  return (
    <div className={`reply${declined ? " reply-declined" : ""}`} data-testid="reply">
      <p className="small muted">
        <b>{declined ? "Declined" : "Text"}</b> · {replyFacts(reply)}
        {reply.fallback && " · the template wrote part of it"}
      </p>
      {textBlocks(reply.text).map((block, i) =>
        block.kind === "heading" ? (
          <h4 key={i}>{block.text}</h4>
        ) : block.kind === "code" ? (
          <pre key={i} className="reply-code" data-testid="reply-code">
            <code>{block.text}</code>
          </pre>
        ) : (
          <p key={i} className="reply-text">
            {block.text}
          </p>
        ),
      )}
      {reply.signature && <p className="reply-greeting">— {reply.signature}</p>}
    </div>
  );
}

function PartAuthor({ part }: { part: ReplyPart }) {
  return (
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
  );
}

/** Parts as they stream in: the agent's text so far with a cursor, then the settled part; a part the
 * template replaced mid-stream keeps what had been shown, struck through, and says why. */
function LiveReply({ parts }: { parts: StreamingPart[] }) {
  return (
    <div className="reply" data-testid="reply" aria-live="polite">
      <p className="small muted">
        <b>Reply</b> · being written…
      </p>
      <p className="reply-greeting">Hello,</p>
      {parts.map((p) => (
        <div
          key={p.index}
          className={`reply-part ${p.part ? `reply-${p.part.source}` : "reply-streaming"}`}
          data-testid="reply-part"
          data-agent={p.agent}
        >
          {p.part ? (
            <PartAuthor part={p.part} />
          ) : (
            <p className="reply-author small">
              <b>{p.agent.replace(/_/g, " ")}</b> <span className="muted">writing…</span>
            </p>
          )}
          {p.replaced && (
            <p className="reply-replaced small muted" data-testid="reply-replaced">
              replaced by the template{p.part?.fault ? ` (fault: ${p.part.fault.replace(/_/g, " ")})` : ""}: <del>{p.discarded}</del>
            </p>
          )}
          <p className="reply-text">
            {p.text}
            {!p.done && <span className="reply-cursor" aria-hidden="true">▍</span>}
          </p>
        </div>
      ))}
    </div>
  );
}
