import { useQuery } from "@tanstack/react-query";
import { formatTime } from "../runs/format";
import { conversationsApi } from "./conversation";
import { ConversationTurns } from "./ConversationTurns";

/** The decision log of conversational teams, one conversation at a time: each turn's message, the agents'
 * decisions and the reply, in order. Nothing is shown where no conversation was held. */
export function ConversationLog({ deployment }: { deployment: string }) {
  const { data } = useQuery({
    queryKey: ["conversations", deployment],
    queryFn: () => (deployment ? conversationsApi.ofDeployment(Number(deployment)) : conversationsApi.all()),
  });
  const conversations = data ?? [];
  if (conversations.length === 0) return null;
  return (
    <section className="card" aria-label="Conversations">
      <h2>
        Conversations <span className="badge">{conversations.length}</span>
      </h2>
      {conversations.map((c) => (
        <details key={c.id} className="conversation" data-testid={`conversation-${c.id}`}>
          <summary>
            Conversation {c.id} · deployment {c.deployment} · {c.status} · {c.turns} turns · {c.created_by ?? "–"} ·{" "}
            {formatTime(c.updated_at)}
          </summary>
          <ConversationTurns turns={c.turn_list} />
        </details>
      ))}
    </section>
  );
}
