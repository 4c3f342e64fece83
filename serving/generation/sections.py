"""The writing workflows: a deployed team's report or post written section by section through the
generation layer.

The team's decisions end in a draft made of blocks, which the environment puts in the episode's
``info["draft"]``: for a research report (`ReportWriter`) the sources it picked, the facts it adopted and
in which sections and order, the framework, structure and detail, the issues its reviewers flagged; for a
collaborative post (`PostWriter`) the sections the planner chose, in order, the block the writer picked for
each and the polisher's fixes. Each section becomes one part: the writer agent's prompt is its system
prompt, and the task, the team's choices, what was fixed and the section's blocks are its context. The
parts are written at once under the breaker (`GuardedWriter`): the template backend (`SectionTemplate`)
writes each section from its blocks word for word, so by default the text is the draft's own; a language
model writes free text, and a section whose answer faults is written by the template instead (that section
only). The judge then scores the written text (`agents.envs.research_report.reading.judge_text`,
`agents.envs.collaborative_writing.briefs.judge_text`), not the blocks the team chose.

A request the team cannot do (status ``out_of_scope``, `serving.requests`) is not written at all: the
reply says so, names what the team can do instead, and carries an ``out_of_scope`` fault for review.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from agents.envs.code_generation.tasks import Task, load_tasks
from agents.envs.collaborative_writing.briefs import Brief, load_briefs
from agents.envs.collaborative_writing.briefs import judge_text as judge_post
from agents.envs.research_report.corpus import Document, Topic, load_corpus
from agents.envs.research_report.judge import FRAMEWORK_NAMES
from agents.envs.research_report.reading import judge_text
from serving.breaker import BreakerConfig, CircuitBreaker
from serving.generation import GenerationConfig, Reach, make_generator
from serving.generation.base import Generation, cut_at_stop, usage
from serving.generation.guard import GuardedWriter, PartRequest, summarise
from serving.generation.template import TemplateGenerator
from serving.requests import OUT_OF_SCOPE

WRITER_ROLE = "writer"
DEFAULT_PROMPT = "You are the writer of a research report. Write clear, factual report prose."
NO_TEXT = "The team did not write anything for this request."
BLOCK = "Block: "


def _line(text: Any) -> str:
    return " ".join(str(text).split())


def section_context(
    question: str,
    section: str,
    blocks: Sequence[str],
    choices: str = "",
    sources: Sequence[str] = (),
    fixes: Sequence[str] = (),
    asked: str = "Report question",
) -> str:
    """The user message a section is written from (one ``Key: value`` per line; a ``Block:`` line per
    paragraph the team chose for it, in order)."""
    lines = [f"{asked}: {_line(question)}", f"Section: {_line(section)}"]
    if choices:
        lines.append(f"Team decisions: {_line(choices)}")
    if sources:
        lines.append(f"Sources: {'; '.join(_line(s) for s in sources)}")
    if fixes:
        lines.append(f"Reviewers asked to fix: {', '.join(fixes)}")
    lines += [BLOCK + _line(b) for b in blocks]
    lines.append(
        "Write this section from the blocks: one plain paragraph per block, one per line, "
        "keep every figure as given, no heading."
    )
    return "\n".join(lines)


def blocks_of(text: str) -> list[str]:
    """The ``Block:`` lines of a `section_context` message."""
    return [line[len(BLOCK) :] for line in text.splitlines() if line.startswith(BLOCK)]


class SectionTemplate(TemplateGenerator):
    """The template backend of the writing workflows: a section is its blocks, one paragraph a line (the
    draft's own text). A message without blocks is a customer-service context (the settings page's test
    call): the ticket template answers it."""

    def generate(
        self,
        system: str,
        messages: Sequence[Mapping[str, str]],
        max_tokens: int = 160,
        stop: Sequence[str] | None = None,
    ) -> Generation:
        last = next((m["content"] for m in reversed(messages) if m.get("role") == "user"), "")
        blocks = blocks_of(last)
        if not blocks:
            return super().generate(system, messages, max_tokens, stop)
        started = time.perf_counter()
        text = cut_at_stop("\n".join(blocks), stop)
        prompt_words = len(system.split()) + sum(len(str(m.get("content", "")).split()) for m in messages)
        return Generation(
            text=text,
            usage=usage(prompt_words, len(text.split())),
            latency_ms=(time.perf_counter() - started) * 1000.0,
            backend=self.name,
            model=self.model,
        )

    def stream(self, system, messages, max_tokens=160, stop=None) -> Iterator[str | Generation]:
        generation = self.generate(system, messages, max_tokens, stop)
        yield from (line + "\n" for line in generation.text.split("\n") if line)
        yield generation


class SectionWriter:
    """Writes a played writing episode section by section (`answer`); thread-safe. Subclasses say what
    the sections are (`plan`) and how the written text is judged (`judge`)."""

    role, default_prompt = WRITER_ROLE, DEFAULT_PROMPT
    """The role of the agent that writes (its first agent writes, its prompt the system prompt), and the
    prompt used when the spec gives none."""
    offers_as = "write about"
    """What the team does with its items, in words (``It can {offers_as}: …`` when it declines)."""
    team = ""
    """Who signs the text: the deployed team's name (the spec's ``name``; `build` sets it)."""

    def __init__(self, writer: GuardedWriter, agents: Sequence[Mapping[str, Any]] = ()):
        self.writer = writer
        writers = [a for a in agents if str(a.get("role") or a.get("id")) == self.role]
        chosen = writers[0] if writers else {"id": self.role}
        self.agent = str(chosen["id"])
        self.prompt = str(chosen.get("prompt") or self.default_prompt)

    @classmethod
    def build(
        cls,
        config: GenerationConfig,
        agents: Sequence[Mapping[str, Any]] = (),
        api_key: str | None = None,
        name: str = "writer",
        data: Any = None,
        reach: Reach | None = None,
        team: str = "",
    ) -> SectionWriter:
        """A writer for ``config``'s backend with its own breaker; the section template is its fallback.
        ``data``: the environment's data file or directory (None: the shipped one); ``reach``: what a server
        allows the backend to connect to (`make_generator`); ``team``: who signs the text."""
        breaker = CircuitBreaker(BreakerConfig(cooldown_s=config.cooldown_s), name=name)
        template = SectionTemplate()
        generator = (
            template
            if config.backend == "template"
            else make_generator(config, api_key=api_key, reach=reach)
        )
        guarded = GuardedWriter(generator, config, breaker, secrets=[api_key or ""], template=template)
        writer = cls(guarded, agents, data)
        writer.team = team
        return writer

    def plan(self, result: Mapping[str, Any]) -> tuple[list[str], list[PartRequest]]:
        """The sections in order, and one part per section."""
        raise NotImplementedError

    def judge(self, text: str, result: Mapping[str, Any]) -> dict[str, float]:
        """The judge's scores of the written ``text`` of the episode ``result``."""
        raise NotImplementedError

    def compose(self, sections: Sequence[str], texts: Sequence[str], result: Mapping[str, Any]) -> str:
        """The whole text from the written sections: a ``##`` heading each."""
        return "\n".join(f"## {name}\n{text}" for name, text in zip(sections, texts, strict=True))

    def _part(self, section: str, context: str) -> PartRequest:
        return PartRequest(self.agent, (section,), self.prompt, [{"role": "user", "content": context}])

    def answer(self, request: str, result: Mapping[str, Any], on_part=None, on_chunk=None) -> dict[str, Any]:
        """The text: ``{"text", "sections", "parts", "scores", "backend", "model", "usage", "cost",
        "latency_ms", "faults", "fallback", "approved", "breaker"}`` (plain JSON; the shape of a ticket's
        reply plus the section names and the judge's scores of the text). Never raises for a backend
        fault: the template writes that section. ``request``: the task text (the episode says the rest)."""
        if result.get("status") == OUT_OF_SCOPE:
            return self.decline(result)
        started = time.perf_counter()
        sections, requests = self.plan(result)
        hear = None if on_part is None else (lambda i, part: on_part(i, part.to_dict()))
        parts = self.writer.write(requests, on_part=hear, on_chunk=on_chunk)
        text = self.compose(sections, [p.text for p in parts], result)
        config = self.writer.config
        return {
            "text": text or NO_TEXT,
            "sections": sections,
            "parts": [p.to_dict() for p in parts],
            "scores": self.judge(text, result) if text else {},
            **summarise(parts, config.backend, config.model or config.backend),
            "latency_ms": round((time.perf_counter() - started) * 1000.0, 3),
            "approved": bool((result.get("info") or {}).get("accepted", False)),
            "breaker": self.writer.breaker.state,
            "signature": self.team,
        }

    def decline(self, result: Mapping[str, Any]) -> dict[str, Any]:
        """The reply to a request the team cannot do: says so and what it can do; nothing is written."""
        match = result.get("request") or {}
        offered = list(match.get("offers") or ())
        more = int(match.get("items") or 0) - len(offered)
        who = f"the {self.team} team" if self.team else "this team"
        score, floor = float(match.get("score") or 0), float(match.get("floor") or 0)
        text = (
            f"Sorry, {who} cannot do this request: nothing it can {self.offers_as} is close enough to it "
            f"(the nearest scores {score:.2f}; a request must score above {floor:.2f})."
        )
        if offered:
            text += f" It can {self.offers_as}: {', '.join(offered)}"
            text += f" and {more} more." if more > 0 else "."
        faults = [f for f in result.get("faults") or () if f.get("kind") == OUT_OF_SCOPE]
        detail = str(faults[0].get("detail", "")) if faults else ""
        config = self.writer.config
        return {
            "text": text,
            "sections": [],
            "parts": [],
            "scores": {},
            **summarise([], config.backend, config.model or config.backend),
            "faults": [{"agent": None, "kind": OUT_OF_SCOPE, "detail": detail}],
            "latency_ms": 0.0,
            "approved": False,
            "breaker": self.writer.breaker.state,
            "signature": self.team,
        }

    def close(self) -> None:
        self.writer.close()


def _flags(result: Mapping[str, Any], agents: set[str], prefix: str = "") -> list[str]:
    """The actions of ``agents`` in the episode that start with ``prefix`` (without it), first use first."""
    actions = (
        str(r.get("action", ""))
        for r in result.get("decisions") or ()
        if r.get("agent") in agents and str(r.get("action", "")).startswith(prefix)
    )
    return list(dict.fromkeys(a[len(prefix) :] for a in actions))


def _role(agents: Sequence[Mapping[str, Any]], role: str) -> set[str]:
    return {str(a["id"]) for a in agents if str(a.get("role") or a.get("id")) == role} or {role}


class ReportWriter(SectionWriter):
    """Research report: one section per heading of the draft (``data``: the corpus directory)."""

    offers_as = "write reports on"

    def __init__(self, writer: GuardedWriter, agents: Sequence[Mapping[str, Any]] = (), data: Any = None):
        super().__init__(writer, agents)
        self.reviewers = _role(agents, "reviewer")
        topics, documents = load_corpus(data)
        self.topics: dict[str, Topic] = topics
        self.documents: dict[str, list[Document]] = documents

    def plan(self, result: Mapping[str, Any]) -> tuple[list[str], list[PartRequest]]:
        info = result.get("info") or {}
        draft = info.get("draft") or {}
        topic = self.topics.get(str(info.get("topic")))
        if not draft.get("paragraphs") or topic is None:
            return [], []
        by_id = {d.id: d for d in self.documents.get(topic.topic, [])}
        sources = [f"{by_id[i].title} ({by_id[i].source})" for i in info.get("sources") or () if i in by_id]
        lens = FRAMEWORK_NAMES.get(draft.get("framework") or "", "no particular framework")
        choices = f"structure {draft.get('structure')}, {draft.get('detail')} detail, {lens}"
        fixes = _flags(result, self.reviewers, "flag_")
        sections: dict[str, list[str]] = {}
        for paragraph in draft["paragraphs"]:
            sections.setdefault(str(paragraph["section"]), []).append(str(paragraph["text"]))
        parts = [
            self._part(name, section_context(topic.question, name, blocks, choices, sources, fixes))
            for name, blocks in sections.items()
        ]
        return list(sections), parts

    def judge(self, text: str, result: Mapping[str, Any]) -> dict[str, float]:
        name = str((result.get("info") or {})["topic"])
        facts = [f for d in self.documents.get(name, []) for f in d.facts]
        key_claims = sorted({f.claim for f in facts if f.key and f.correct})
        return judge_text(text, self.topics[name], facts, key_claims)


class PostWriter(SectionWriter):
    """Collaborative writing: one section per row of the draft (``data``: the brief file)."""

    offers_as = "write posts on"

    def __init__(self, writer: GuardedWriter, agents: Sequence[Mapping[str, Any]] = (), data: Any = None):
        super().__init__(writer, agents)
        self.polishers = _role(agents, "polisher")
        self.briefs: dict[str, Brief] = {b.id: b for b in load_briefs(data, "all")}

    def plan(self, result: Mapping[str, Any]) -> tuple[list[str], list[PartRequest]]:
        info = result.get("info") or {}
        brief = self.briefs.get(str(info.get("brief")))
        rows = info.get("draft") or []
        if not rows or brief is None:
            return [], []
        choices = f"a {brief.tone} post in {len(rows)} sections: " + ", ".join(
            str(r["heading"]) for r in rows
        )
        fixes = [
            f.replace("_", " ") for f in _flags(result, self.polishers) if f in ("fix_tone", "cut_redundant")
        ]
        parts = [
            self._part(
                str(r["heading"]),
                section_context(brief.text, str(r["heading"]), [str(r["text"])], choices, (), fixes),
            )
            for r in rows
        ]
        return [str(r["heading"]) for r in rows], parts

    def judge(self, text: str, result: Mapping[str, Any]) -> dict[str, float]:
        info = result.get("info") or {}
        fixed = [str(r["heading"]) for r in info.get("draft") or () if r.get("fixed")]
        return judge_post(self.briefs[str(info["brief"])], text, fixed)


class CodeWriter(SectionWriter):
    """Code generation: the answer is the snippet the team tested and its reviewers accepted, shown as code
    and never rewritten (only code from the task file is ever run, so a model's rewrite would be untested),
    followed by notes for the reader written by the implementer: what the function does, which suites it
    passed, what the review decided (``data``: the task file), and the hidden tests' verdict.
    """

    role, offers_as = "implementer", "write functions such as"
    default_prompt = "You are the implementer of a small Python function. Explain your code to a reader."

    def __init__(self, writer: GuardedWriter, agents: Sequence[Mapping[str, Any]] = (), data: Any = None):
        super().__init__(writer, agents)
        self.tasks: dict[str, Task] = {t.id: t for t in load_tasks(data, "all")}

    def plan(self, result: Mapping[str, Any]) -> tuple[list[str], list[PartRequest]]:
        info = result.get("info") or {}
        task = self.tasks.get(str(info.get("task")))
        if task is None or not info.get("code"):
            return [], []
        tests = info.get("tests") or {}
        ran = [f"the {suite} tests {'passed' if ok else 'failed'}" for suite, ok in sorted(tests.items())]
        review = "the reviewers accepted it" if info.get("accepted") else "the review did not finish"
        blocks = [
            f"{task.name}: {task.spec}",
            f"Before review {', '.join(ran) if ran else 'no tests were run'}; {review}"
            + (f" after {info['send_backs']} send-backs." if info.get("send_backs") else "."),
        ]
        choices = f"design {info.get('plan') or 'none'}"
        return ["Notes"], [
            self._part("Notes", section_context(task.spec, "Notes", blocks, choices, asked="Task"))
        ]

    def compose(self, sections: Sequence[str], texts: Sequence[str], result: Mapping[str, Any]) -> str:
        info = result.get("info") or {}
        code = str(info.get("code") or "").rstrip()
        notes = super().compose(sections, texts, result)
        return f"## Code\n```python\n{code}\n```\n{notes}\n## Tests\n{hidden_verdict(info)}"

    def judge(self, text: str, result: Mapping[str, Any]) -> dict[str, float]:
        """The environment's verdict on the snippet the text shows (the task's hidden tests, in its sandbox)."""
        info = result.get("info") or {}
        return {"score": float(info.get("score") or 0.0), "success": float(info.get("success") or 0.0)}


def hidden_verdict(info: Mapping[str, Any]) -> str:
    """The hidden tests' outcome of a code-generation episode in words (they run once, on acceptance)."""
    hidden = info.get("hidden_tests")
    if not hidden:
        return "The hidden tests did not run: the reviewers did not accept the code."
    passed, total = int(hidden[0]), int(hidden[1])
    return f"The hidden tests: {passed} of {total} passed" + (" (all)." if passed == total else ".")
