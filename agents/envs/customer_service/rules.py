"""Keyword/rule baseline for the customer-service workflow (docs/design.md#sim-to-real) and rule-scripted agents.

`KeywordRouter` is the router a competent engineer would write: normalise chat spelling, split the
ticket into clauses, match hand-written patterns per intent, skip matches under a negation ("no need
to refund"), then *tune on the training split* by mining high-precision word n-grams per intent (the
thresholds are chosen by exact match on train). `ScriptedTeam` turns the router into one rule-scripted
policy per role of `CustomerServiceEnv`; it is used for pre-training (docs/design.md#sim-to-real) and
as the runtime's rule fallback.

CLI (reports exact match and intent F1 of the tuned router on every split)::

    python -m agents.envs.customer_service [--tickets FILE]
"""

from __future__ import annotations

import itertools
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from agents.envs.customer_service.catalogue import SHIPPED, Catalogue, make_catalogue
from agents.envs.customer_service.roster import DEFAULT_ROSTER, Roster
from agents.envs.customer_service.tickets import HIDDEN_TICKET, IDLE_STEP, INTENTS, Ticket, load_tickets

# Chat spelling back to dictionary words, so one pattern covers "ur"/"your", "pls"/"please".
NORMALISE = {
    "u": "you",
    "ur": "your",
    "pls": "please",
    "plz": "please",
    "thx": "thanks",
    "cuz": "because",
    "r": "are",
    "w/": "with",
    "addy": "address",
    "addr": "address",
    "asap": "soon",
    "$$": "money",
}

HAND_PATTERNS: dict[str, list[str]] = {
    "product_question": [
        r"\bdoes the \w+",
        r"\bis the \w+ (waterproof|compatible|in stock|dishwasher)",
        r"\bwarranty\b",
        r"\bdimensions?\b",
        r"\bbattery\b",
        r"\bmade of\b",
        r"\bmaterial\b",
        r"\bcompatible\b",
        r"\bspecs?\b",
        r"\bspecifications?\b",
        r"\bhow (heavy|big|loud|long does)\b",
        r"\bcome in\b",
        r"\bwork(s)? with\b",
        r"\bin stock\b",
    ],
    "recommendation": [
        r"\brecommend",
        r"\bsuggest",
        r"\bbest\b",
        r"\bgift\b",
        r"\bideas?\b",
        r"\bwhat should i (get|buy|look)",
        r"\bwhich one would you\b",
        r"\bsimilar to\b",
        r"\bwhat would you pick\b",
        r"\badvi[cs]e\b",
    ],
    "order_tracking": [
        r"\bwhere is (my|it|the)\b",
        r"\btracking number\b",
        r"\btrack\b",
        r"\bstatus\b",
        r"\beta\b",
        r"\bshipped\b",
        r"\bwhen will\b",
        r"\bwhere it is\b",
        r"\bwhere my\b",
        r"\bwhere\W+s my\b",
        r"\bwhich (courier|van|truck)\b",
        r"\bwhereabouts\b",
    ],
    "delivery_delay": [
        r"\blate\b",
        r"\bdelay",
        r"\boverdue\b",
        r"\bstill (nothing|waiting|no|isn)",
        r"\btaking (so long|forever)",
        r"\bnever (showed|arrived|came)",
        r"\bhasn't moved\b",
        r"\bpostponed\b",
        r"\bnot yet been delivered\b",
        r"\bbusiness days\b",
    ],
    "address_change": [
        r"\baddress\b",
        r"\bredirect",
        r"\bi (just )?moved\b",
        r"\bmoved last\b",
        r"\brelocat",
        r"\bwrong street\b",
        r"\bsend it to\b",
        r"\bship (order \S+ )?to\b",
        r"\binstead\b",
    ],
    "return_refund": [
        r"\brefund",
        r"\breturn\b",
        r"\bmoney back\b",
        r"\bsend (it|this thing)? ?back\b",
        r"\bsend back\b",
        r"\breimburs",
        r"\bcancel\b",
        r"\bcash back\b",
        r"\breversed\b",
        r"\bundo the purchase\b",
    ],
    "damaged_item": [
        r"\bdamaged?\b",
        r"\bbroken\b",
        r"\bcracked?\b",
        r"\bsmashed\b",
        r"\bshattered\b",
        r"\bbusted\b",
        r"\bdent\b",
        r"\bin pieces\b",
        r"\bsnapped\b",
        r"\bleaking\b",
        r"\bscratch",
        r"\bdefective\b",
        r"\bbanged up\b",
    ],
    "complaint": [
        r"\bcomplain",
        r"\bworst\b",
        r"\brude\b",
        r"\bunhappy\b",
        r"\bmanager\b",
        r"\bescalat",
        r"\bnever ordering\b",
        r"\bjoke\b",
        r"\bdone with\b",
        r"\bdissatisf",
        r"\bhung up\b",
        r"\bnobody (has )?(helped|answered)\b",
    ],
}

NEGATION = re.compile(
    r"\b(no need to|no|not|don't|dont|do not|isn't|isnt|nothing's|nothing|never mind|without|already)\b"
)
CLAUSE_SPLIT = re.compile(r"[.?!;|,]+|\b(?:btw|also|plus|oh and)\b")


def normalise(text: str) -> str:
    """Lower-case, undo chat spelling and stretched letters ("foreverrr"), keep clause punctuation."""
    text = text.lower().replace("’", "'")
    text = re.sub(r"(\w)\1{2,}", r"\1", text)
    words = [NORMALISE.get(word, word) for word in text.split()]
    return " ".join(words)


def clauses(text: str) -> list[str]:
    """The normalised ticket split into clauses, each matched on its own so a negation stays local."""
    return [part.strip() for part in CLAUSE_SPLIT.split(normalise(text)) if part and part.strip()]


def _negated(clause: str, start: int) -> bool:
    """A match is negated when a negation cue appears up to six words before it in the same clause."""
    before = clause[:start].split()[-6:]
    return bool(NEGATION.search(" ".join(before)))


def _ngrams(words: Sequence[str], n_max: int = 3) -> set[str]:
    return {" ".join(words[i : i + n]) for n in range(1, n_max + 1) for i in range(len(words) - n + 1)}


def _words(clause: str) -> list[str]:
    return re.findall(r"[a-z0-9$']+", clause)


def keyword_evidence(clause: str) -> list[float]:
    """What the hand-written patterns say of one clause: 1.0 per intent (in `INTENTS` order) whose pattern
    matches outside a negation, else 0.0. Fixed code, fitted on nothing, so a reader given it as an input
    (training reader "clause_keywords") can lean on keywords where sentence vectors say little."""
    found = set().union(*(_HAND_ROUTER.hand_matches(part) for part in clauses(clause)))
    return [1.0 if intent in found else 0.0 for intent in INTENTS]


@dataclass
class KeywordRouter:
    """Intent detection by patterns: hand-written regexes plus n-grams mined on the training split."""

    patterns: dict[str, list[str]] = field(
        default_factory=lambda: {k: list(v) for k, v in HAND_PATTERNS.items()}
    )
    mined: dict[str, set[str]] = field(default_factory=lambda: {intent: set() for intent in INTENTS})
    exceptions: dict[str, set[str]] = field(default_factory=lambda: {intent: set() for intent in INTENTS})
    fallback: str = "product_question"
    order: tuple[str, ...] = INTENTS  # the catalogue's intents: the order predictions come in

    def __post_init__(self) -> None:
        self._compiled = {intent: [re.compile(p) for p in pats] for intent, pats in self.patterns.items()}

    def features(self, text: str) -> list[tuple[set[str], set[str], set[str]]]:
        """Per clause: intents of the hand patterns, all word 1–3-grams, and the non-negated n-grams."""
        result = []
        for clause in clauses(text):
            words = _words(clause)
            joined = " ".join(words)
            free = {
                " ".join(words[i : i + n])
                for n in range(1, 4)
                for i in range(len(words) - n + 1)
                if not _negated(joined, len(" ".join(words[:i])))
            }
            result.append((self.hand_matches(clause), _ngrams(words), free))
        return result

    def predict(self, text: str, fallback: bool = True) -> tuple[str, ...]:
        """The intents the rules find in ``text`` (in `INTENTS` order); when they find none, the fallback
        intent (a ticket always asks something), or nothing with ``fallback=False``."""
        return self._decide(
            self.features(text), self.mined, self.exceptions, self.fallback if fallback else None, self.order
        )

    @staticmethod
    def _decide(
        features: list[tuple[set[str], set[str], set[str]]],
        mined: dict[str, set[str]],
        exceptions: dict[str, set[str]],
        fallback: str | None,
        order: Sequence[str] = INTENTS,
    ) -> tuple[str, ...]:
        found: set[str] = set()
        for hand, grams, free in features:
            found |= {intent for intent in hand if not grams & exceptions.get(intent, set())}
            found |= {intent for intent, keywords in mined.items() if free & keywords}
        if not found and fallback is not None:
            found.add(fallback)
        return tuple(intent for intent in order if intent in found)

    def hand_matches(self, clause: str) -> set[str]:
        """Intents whose hand-written patterns match ``clause`` outside a negation."""
        found = set()
        for intent, regexes in self._compiled.items():
            for regex in regexes:
                match = regex.search(clause)
                if match and not _negated(clause, match.start()):
                    found.add(intent)
                    break
        return found

    @classmethod
    def tuned(
        cls,
        tickets: Iterable[Ticket] | None = None,
        catalogue: Catalogue = SHIPPED,
        hand: bool = True,
    ) -> KeywordRouter:
        """The hand rules tuned on ``tickets`` (default: the training split).

        ``catalogue``: the intents to find. Its starting patterns are the hand-written ones of the shipped
        intents it holds (``hand``; off: none) plus, for every intent, its declared keywords and — for an
        intent with no hand-written patterns — the content words of its description (`catalogue_patterns`):
        so a catalogue the rules were never written for starts from what its author said of each intent.

        Two passes a rule engineer would do by reading the training logs, done systematically:
        *exceptions* — word 1–3-grams of clauses where a hand pattern fires but the intent is (almost)
        never true ("best for me", "this was a gift") switch that pattern off; *mined keywords* —
        n-grams whose training precision for one intent is high are added. Thresholds (and the fallback
        intent) are chosen by exact match on the same training tickets.
        """
        tickets = list(tickets) if tickets is not None else load_tickets("train")
        names = catalogue.names
        patterns = catalogue_patterns(catalogue, hand)
        router = cls(patterns=patterns, order=names)
        featured = [(ticket, router.features(ticket.text)) for ticket in tickets]
        fired: dict[str, Counter[str]] = defaultdict(Counter)
        right: dict[str, Counter[str]] = defaultdict(Counter)
        counts: dict[str, Counter[str]] = defaultdict(Counter)
        totals: Counter[str] = Counter()
        for ticket, features in featured:
            for hand, grams, _ in features:
                for intent in hand:
                    fired[intent].update(grams)
                    if intent in ticket.intents:
                        right[intent].update(grams)
            for gram in set().union(*(grams for _, grams, _ in features)):
                totals[gram] += 1
                for intent in ticket.intents:
                    counts[gram][intent] += 1
        fallback = Counter(i for t in tickets for i in t.intents).most_common(1)[0][0]
        best: tuple[int, KeywordRouter] | None = None
        exception_sets = {
            support: {
                intent: {
                    gram
                    for gram, n in fired[intent].items()
                    if n >= support and len(gram) >= 3 and right[intent][gram] <= 0.05 * n
                }
                for intent in names
            }
            for support in (4, 8)
        }
        for min_precision, min_support, ex_support in itertools.product(
            (0.85, 0.9, 0.95, 0.99), (3, 5, 8, 12), (4, 8)
        ):
            mined: dict[str, set[str]] = {intent: set() for intent in names}
            for gram, total in totals.items():
                if total < min_support or len(gram) < 3:
                    continue
                intent, hits = counts[gram].most_common(1)[0]
                if hits / total >= min_precision:
                    mined[intent].add(gram)
            exceptions = exception_sets[ex_support]
            score = sum(cls._decide(f, mined, exceptions, fallback, names) == t.intents for t, f in featured)
            if best is None or score > best[0]:
                best = (score, cls(patterns, mined, exceptions, fallback, names))
        assert best is not None
        return best[1]


STOPWORDS = frozenset(
    "about after again also another asks because been before being between both could does doing down "
    "each from further have having into itself just more most once only other over same should some "
    "such than that their them then there these they this those through under until very what when "
    "where which while whom with would your wants want".split()
)


def catalogue_patterns(catalogue: Catalogue, hand: bool = True) -> dict[str, list[str]]:
    """The starting patterns per intent of ``catalogue``: the hand-written ones of a shipped intent (with
    ``hand``), its declared keywords as whole words or phrases, and — where no hand pattern exists — the
    content words (4+ letters, not stop words) of its description."""
    patterns: dict[str, list[str]] = {}
    for intent in catalogue.intents:
        own = list(HAND_PATTERNS.get(intent.name, ())) if hand else []
        words = [rf"\b{re.escape(normalise(k))}\b" for k in intent.keywords]
        if not own:
            described = dict.fromkeys(w for w in _words(intent.description.lower()) if len(w) >= 4)
            words += [rf"\b{re.escape(w)}" for w in described if w not in STOPWORDS]
        patterns[intent.name] = own + list(dict.fromkeys(words))
    return patterns


def exact_match(router: KeywordRouter, tickets: Sequence[Ticket]) -> float:
    """Share of tickets whose predicted intent set equals the true one."""
    return sum(router.predict(t.text) == t.intents for t in tickets) / max(1, len(tickets))


def intent_f1(router: KeywordRouter, tickets: Sequence[Ticket]) -> float:
    """Micro-averaged F1 of predicted intents over ``tickets``."""
    tp = fp = fn = 0
    for ticket in tickets:
        predicted, truth = set(router.predict(ticket.text)), set(ticket.intents)
        tp, fp, fn = tp + len(predicted & truth), fp + len(predicted - truth), fn + len(truth - predicted)
    return 2 * tp / max(1, 2 * tp + fp + fn)


def fallback_rules(router: KeywordRouter, per_role: int = 40, roster: Roster | None = None) -> list[dict]:
    """The router as team-spec fallback rules ``[{"keywords": [...], "route_to": agent}]``.

    Plain keywords only (the spec's keyword router has no regexes or negation): each specialist of
    ``roster`` (default: the shipped team) gets its intents' mined keywords, single words first, at most
    ``per_role``.
    """
    roster = roster or DEFAULT_ROSTER
    rules = []
    for agent in roster.specialists:
        owned = set(roster.by_id[agent].intents)
        words = sorted(
            {gram for intent, grams in router.mined.items() if intent in owned for gram in grams},
            key=lambda gram: (len(gram.split()), gram),
        )
        rules.append({"keywords": words[:per_role], "route_to": agent})
    return rules


# --------------------------------------------------------------------------------------------------
# Rule-scripted agents for CustomerServiceEnv
# --------------------------------------------------------------------------------------------------


class LabelledRouter:
    """The labelled intents of known tickets, looked up by text: a privileged router for training only.

    With `ScriptedTeam` it makes the expert team of the training split (offline logs to clone, the
    teacher of teacher–student augmentation); it knows nothing about tickets outside `tickets`.
    """

    def __init__(self, tickets: Sequence[Ticket]) -> None:
        self.labels = {t.text: tuple(t.intents) for t in tickets}

    def predict(self, text: str, fallback: bool = True) -> tuple[str, ...]:
        """The ticket's labelled intents (empty for an unknown text; labels need no fallback)."""
        return self.labels.get(text, ())


class ScriptedTeam:
    """One rule-scripted policy per role: handle the router's intents one per step, then approve.

    Role agents take the action of the first predicted intent they own that is not yet in the draft
    answer; the supervisor approves once every predicted intent is in the draft (and sends back a draft
    holding actions for intents the router did not find). Works on raw or randomised observations. With
    ``queues`` the roles read triage queues (``role_view="triage"``), not whole tickets: a queue where the
    rules find no request asks nothing, so the router's fallback intent does not apply there.
    """

    def __init__(
        self,
        router: KeywordRouter | LabelledRouter | None = None,
        queues: bool = False,
        roster: Roster | None = None,
    ) -> None:
        self.router = router if router is not None else KeywordRouter.tuned()  # shipped: its own rules
        self.queues = queues
        self.roster = roster or DEFAULT_ROSTER  # the drawn team: an intent is answered by its first owner
        self._cache: dict[tuple[str, bool], tuple[str, ...]] = {}

    def intents_for(self, text: str, fallback: bool = True) -> tuple[str, ...]:
        """Router prediction for a ticket text (cached: every agent asks every step)."""
        key = (text, fallback)
        if key not in self._cache:
            self._cache[key] = self.router.predict(text, fallback=fallback)
        return self._cache[key]

    def act(self, agent: str, observation: dict, owners: Mapping[str, Sequence[str]] | None = None) -> int:
        """The scripted action index for ``agent`` given its observation from `CustomerServiceEnv`;
        ``owners`` (intent → agents, the env's info under ``deal_roles``) overrides the roster's owners."""
        catalogue = self.roster.catalogue
        drafted = {catalogue.names[i] for i, flag in enumerate(observation["draft"]) if flag}
        reviewer = self.roster.by_id[agent].reviewer
        names = self.roster.role_actions[agent]
        if reviewer and observation["ticket"] == HIDDEN_TICKET:
            # a draft-only reviewer: approve once the roles stop adding to a non-empty draft
            idle = str(observation.get("status", "")).endswith(f"last: {IDLE_STEP}")
            return names.index("approve" if drafted and idle else "continue")
        predicted = self.intents_for(str(observation["ticket"]), fallback=reviewer or not self.queues)
        if reviewer:
            if drafted - set(predicted):
                return names.index("send_back")
            if set(predicted) <= drafted:
                return names.index("approve")
            return names.index("continue")
        for intent in predicted:
            owner = owners[intent][0] if owners is not None else self.roster.owner(intent)
            if owner == agent and intent not in drafted:
                return names.index(catalogue.actions[intent])
        return names.index("pass")

    def actions(self, observations: dict[str, dict]) -> dict[str, int]:
        """Scripted actions for every agent that has an observation."""
        return {agent: self.act(agent, obs) for agent, obs in observations.items()}


class ExpertTeam(ScriptedTeam):
    """The scripted team reading the labels of known tickets, each agent the whole ticket whatever the env
    shows it (a draft-only supervisor, triage queues): privileged like the critic's state, for offline logs
    and the teacher only. It finds the ticket by the ``ticket_id`` the env puts in every info."""

    def __init__(self, tickets: Sequence[Ticket], roster: Roster | None = None) -> None:
        super().__init__(LabelledRouter(tickets), roster=roster)
        self.texts = {t.id: t.text for t in tickets}

    def act_on_ticket(
        self,
        agent: str,
        observation: dict,
        ticket_id: str | None,
        owners: Mapping[str, Sequence[str]] | None = None,
    ) -> int:
        """The expert's action for ``agent`` with the whole text of ticket ``ticket_id`` in view."""
        text = self.texts.get(str(ticket_id))
        return self.act(agent, observation if text is None else {**observation, "ticket": text}, owners)


_HAND_ROUTER = KeywordRouter()  # the hand patterns alone (nothing mined): `keyword_evidence`


def rules_router(params: Mapping[str, object] | None = None) -> KeywordRouter:
    """The rule router for environment ``params``: the shipped catalogue's hand rules tuned on the shipped
    training split; a catalogue of the spec's own (``intents``) gets rules built from its intents'
    keywords and descriptions, tuned on the environment's own labelled tickets (``tickets``)."""
    params = params or {}
    catalogue = make_catalogue(params.get("intents"))
    if catalogue.shipped:
        return KeywordRouter.tuned()
    return KeywordRouter.tuned(load_tickets(str(params.get("tickets", "train")), catalogue), catalogue)
