"""The template writer: deterministic replies, one sentence group per intent — the routing environment's
templates (customer service: slots filled from the ticket, order number, product, dates, address), else a
plain sentence naming the request. It needs no model, so it is the default
backend, what the tests run, and the fallback that answers whenever another backend faults.

Every backend reads the same context (`ticket_context`): a few ``Key: value`` lines the composer writes
for each agent (the ticket, the intents the agent handles, the team's decisions, whom it heard from). The
template backend reads the ``Ticket:`` and ``Handle:`` lines back (`parse_context`); a language model
reads all of them as plain text.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Mapping, Sequence

from agents.envs.routing import intent_reply, rows_intents
from serving.generation.base import Generation, Generator, cut_at_stop, usage

# ---- context: what every backend is given ----------------------------------------------------------


def ticket_context(
    ticket: str,
    intents: Sequence[str],
    decisions: Sequence[str] = (),
    heard: Sequence[str] = (),
) -> str:
    """The user message an agent writes its part from (one ``Key: value`` per line)."""
    lines = [f"Ticket: {' '.join(ticket.split())}", f"Handle: {', '.join(intents) or 'none'}"]
    if decisions:
        lines.append(f"Team decisions: {'; '.join(decisions)}")
    if heard:
        lines.append(f"Heard from: {', '.join(heard)}")
    lines.append("Write your part of the reply to the customer: plain sentences, no greeting, no signature.")
    return "\n".join(lines)


_INTENT_NAME = re.compile(r"[a-z][a-z0-9_]{0,47}")


def parse_context(text: str) -> tuple[str, tuple[str, ...]]:
    """(ticket, intents) from a `ticket_context` message; what is no intent name is dropped."""
    ticket, intents = "", ()
    for line in text.splitlines():
        if line.startswith("Ticket:"):
            ticket = line[len("Ticket:") :].strip()
        elif line.startswith("Handle:"):
            names = [n.strip() for n in line[len("Handle:") :].split(",")]
            intents = tuple(n for n in names if _INTENT_NAME.fullmatch(n) and n != "none")
    return ticket, intents


# ---- the sentences: the routing environment's templates, else a plain one from the intent's name -----


def intent_sentence(intent: str, ticket: str) -> str:
    """The reply to one intent: the routing environment's template (`agents.envs.routing.intent_reply`),
    else a plain sentence naming the request (an intent of a catalogue the templates were not written for)."""
    sentence = intent_reply(intent, ticket)
    if sentence is not None:
        return sentence
    return (
        f"Thanks for your message about {intent.replace('_', ' ')}. I've picked up your request and will "
        "follow up with what I find, or with the next step, within one business day."
    )


NOTHING_TO_ANSWER = (
    "Thanks for your message. I've passed it to the colleague who can help, and they will get back to you "
    "within one business day."
)
GREETING, SIGN_OFF = "Hello,", "Kind regards,"
"""A reply's first line, and its sign-off's first line (the team's name follows it: `join_reply`)."""


def write_part(ticket: str, intents: Sequence[str]) -> str:
    """One agent's part: the sentences of its intents (deterministic): the shipped catalogue's in its order,
    then any others as given."""
    shipped = rows_intents()
    given = list(dict.fromkeys(intents))
    ordered = [i for i in shipped if i in given] + [i for i in given if i not in shipped]
    if not ordered:
        return NOTHING_TO_ANSWER
    return " ".join(intent_sentence(i, ticket) for i in ordered)


def join_reply(parts: Sequence[str], team: str = "") -> str:
    """The parts as one reply the customer reads: a greeting, one paragraph per part, a sign-off signed
    with the deployed team's name (``team``: the spec's name; none, the sign-off alone)."""
    body = [p.strip() for p in parts if p and p.strip()] or [NOTHING_TO_ANSWER]
    return "\n\n".join([GREETING, *body, f"{SIGN_OFF}\n{team}" if team.strip() else SIGN_OFF])


class TemplateGenerator(Generator):
    """The template backend: reads the ``Ticket:`` and ``Handle:`` lines of the last user message.

    Usage counts words (there is no tokenizer); cost is 0. It streams its answer a sentence at a time.
    """

    name = "template"
    model = "template"

    def generate(
        self,
        system: str,
        messages: Sequence[Mapping[str, str]],
        max_tokens: int = 160,
        stop: Sequence[str] | None = None,
    ) -> Generation:
        started = time.perf_counter()
        last = next((m["content"] for m in reversed(messages) if m.get("role") == "user"), "")
        ticket, intents = parse_context(last)
        text = cut_at_stop(write_part(ticket, intents), stop)
        prompt_words = len(system.split()) + sum(len(str(m.get("content", "")).split()) for m in messages)
        return Generation(
            text=text,
            usage=usage(prompt_words, len(text.split())),
            latency_ms=(time.perf_counter() - started) * 1000.0,
            backend=self.name,
            model=self.model,
        )

    def stream(
        self,
        system: str,
        messages: Sequence[Mapping[str, str]],
        max_tokens: int = 160,
        stop: Sequence[str] | None = None,
    ) -> Iterator[str | Generation]:
        generation = self.generate(system, messages, max_tokens, stop)
        yield from (m.group(0) for m in _SENTENCE.finditer(generation.text))
        yield generation


_SENTENCE = re.compile(r".+?(?:[.!?;:](?=\s)\s*|$)", re.S)
"""A sentence and the spaces after it (every character of the text is in exactly one match)."""
