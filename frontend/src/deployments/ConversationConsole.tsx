import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { ApiError } from "../api";
import { awaitingText, conversationsApi, endedText, storageKey, type Conversation, type TurnBody } from "./conversation";
import { ConversationTurns } from "./ConversationTurns";
import { deploymentQueries } from "./queries";
import { apiErrorLines } from "./format";
import { ErrorList } from "./ErrorList";

function rememberedId(deploymentId: number): number | null {
  const stored = window.localStorage.getItem(storageKey(deploymentId));
  return stored ? Number(stored) : null;
}

/** Talk to a conversational team as its customer: each message is one turn; the team asks, answers or hands
 * over to a person. The conversation lives on the server; the page remembers which one it shows, so a
 * reload carries on with it. */
export function ConversationConsole({ deploymentId, canReview = true }: { deploymentId: number; canReview?: boolean }) {
  const queryClient = useQueryClient();
  const [conversationId, setConversationId] = useState<number | null>(() => rememberedId(deploymentId));
  const [text, setText] = useState("");
  const key = ["conversation", conversationId] as const;
  const current = useQuery({
    queryKey: key,
    queryFn: () => conversationsApi.get(conversationId ?? 0),
    enabled: conversationId !== null,
    retry: false,
  });
  // A remembered conversation that is gone (or not yours to see) is forgotten: start a new one.
  useEffect(() => {
    if (current.error instanceof ApiError && current.error.status === 404) choose(null);
  });

  function choose(id: number | null) {
    if (id === null) window.localStorage.removeItem(storageKey(deploymentId));
    else window.localStorage.setItem(storageKey(deploymentId), String(id));
    setConversationId(id);
  }

  const sending = useMutation({
    mutationFn: (body: TurnBody) =>
      conversationId === null ? conversationsApi.start(deploymentId, body.text) : conversationsApi.say(conversationId, body),
    onSuccess: (conversation: Conversation) => {
      queryClient.setQueryData(["conversation", conversation.id], conversation);
      choose(conversation.id);
      setText("");
      void queryClient.invalidateQueries({ queryKey: deploymentQueries.detail(deploymentId).queryKey, exact: true });
    },
  });
  const conversation = conversationId === null ? null : (current.data ?? null);
  const ended = conversation ? endedText(conversation) : null;
  const busy = sending.isPending;
  const send = (body: TurnBody) => sending.mutate(body);

  return (
    <section className="card" aria-label="Conversation with the team">
      <div className="card-head">
        <h2>Conversation</h2>
        {conversation && (
          <span className="badge" data-testid="conversation-status">
            {conversation.status}
          </span>
        )}
      </div>
      <p className="small muted">
        You are the customer: each message is one turn. The agents decide whether to ask, search, answer, review or hand
        you to a person.
      </p>
      {conversation && <ConversationTurns turns={conversation.turn_list} reviewLinks={canReview} />}
      {ended ? (
        <div className="conversation-ended">
          <p data-testid="conversation-ended">{ended}</p>
          <button type="button" onClick={() => choose(null)}>
            Start a new conversation
          </button>
        </div>
      ) : (
        <form
          className="ticket-form"
          onSubmit={(e) => {
            e.preventDefault();
            send({ text: text.trim() });
          }}
        >
          {conversation && <p className="small muted" data-testid="conversation-awaiting">{awaitingText(conversation.awaiting)}</p>}
          <label className="field column">
            {conversation ? "Your reply" : "Your first message"}
            <textarea rows={2} value={text} onChange={(e) => setText(e.target.value)} placeholder={conversation ? undefined : "Hi, I have a problem with my order"} />
          </label>
          <div className="actions conversation-actions">
            <button type="submit" disabled={busy}>
              {busy ? "The team is working…" : "Send"}
            </button>
            {conversation?.awaiting === "feedback" && (
              <>
                <button type="button" className="secondary" disabled={busy} onClick={() => send({ text: text.trim(), accepted: true })}>
                  That solved it
                </button>
                <button type="button" className="secondary" disabled={busy} onClick={() => send({ text: text.trim(), accepted: false })}>
                  It did not
                </button>
              </>
            )}
          </div>
        </form>
      )}
      <ErrorList lines={apiErrorLines(sending.error)} />
    </section>
  );
}
