"""CustomerServiceEnv: the e-commerce customer-service workflow (docs/design.md#customer-service) as a PettingZoo ParallelEnv.

The team is data (`roster.Roster`: the spec's agents, ``team=``; by default the shipped four below): any
number of specialists, each owning a set of intents, and one or more reviewers. Every step each agent acts
at once:

- ``shopping_guide``, ``logistics``, ``dispute_mediator`` choose ``pass`` or one of their role's actions
  (one action per intent they own, `ROLE_ACTIONS`). A non-pass action is a message to the customer and
  adds its intent to the team's *draft answer*.
- ``quality_supervisor`` reviews the draft it observed at the start of the step: ``continue``,
  ``approve`` (finish with that draft; role actions of the same step come too late) or ``send_back``
  (clear the draft so the roles redo it; costs a message).

Team reward (the same for every agent): potential-based credit for the draft (+``correct_reward`` per
intent of the ticket in the draft, −``wrong_penalty`` per action on an intent the ticket does not have),
−``step_cost`` per step, −``message_cost`` per message, −``duplicate_penalty`` per repeated action,
+``approve_bonus`` when the supervisor approves the exact answer, −``bad_approve_penalty`` when it approves
anything else, −``timeout_penalty`` when ``max_steps`` pass without approval (truncation). With
``delayed_reward`` the whole episode's team reward is paid at its last step and nothing before — the same
(undiscounted) return, but the signal a real ticket gives (the customer's verdict at the end), so each agent
must work out which earlier steps earned it: the credit-assignment problem a centralised critic is for.

Observations (a Dict per agent): ``ticket`` (text), ``status`` (text: step, draft, review so far — what a
backbone embeds next to the ticket), ``draft`` (multi-hot over the catalogue's intents, `catalogue`; by default `INTENTS`), ``step``. With
``supervisor_view="draft"`` the supervisor's ``ticket`` is `HIDDEN_TICKET`: it reviews the outgoing answer
without the customer's text (a privacy split, and the partial observability of a real workflow), so it must
learn from the roles' messages when an answer is complete. With ``role_view="triage"`` each specialist's
``ticket`` is only its queue: the requests a keyword triage desk filed with it (`triage.triage`), so a
misfiled request reaches its owner only through a teammate's message. With ``mask_invalid`` every observation also holds
``action_mask`` (`CustomerServiceEnv.action_mask`): no approving or sending back an empty draft, no repeating
an answer already in it — what lets a team learn from scratch instead of settling into silence. `state()` is the
global state for a centralised critic: the ticket text and a vector of draft / correct / true intents
(privileged, training-time only) and progress. ``info`` carries exact match, per-intent correctness,
tp/fp/fn, steps and messages so trainers need no internals.
"""

from __future__ import annotations

import functools
import json
import string
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from agents.envs.customer_service.catalogue import SHIPPED, Catalogue, make_catalogue
from agents.envs.customer_service.oversample import training_tickets
from agents.envs.customer_service.owned_prompt import owned_intents_prompt
from agents.envs.customer_service.owned_prompt import unmentioned_intents as _unmentioned
from agents.envs.customer_service.params import (
    CLAUSE_READERS,
    DEFAULTS,
    PARAMETERS,
    READERS,
    CustomerServiceParams,
    team_start,
)
from agents.envs.customer_service.restyle import with_styles
from agents.envs.customer_service.roster import (
    DEFAULT_ROSTER,
    Roster,
    roster_problems,
)
from agents.envs.customer_service.tickets import (
    DEFAULT_DATA_DIR,
    DIFFICULTY_LEVELS,
    HIDDEN_TICKET,
    IDLE_STEP,
    INTENTS,
    ROLE_ACTIONS,
    SUPERVISOR_VIEWS,
    Ticket,
    TicketFileError,
    load_tickets,
)
from agents.envs.customer_service.triage import EMPTY_QUEUE, ROLE_VIEWS, triage, triage_team
from agents.errors import SpecError

AGENTS: tuple[str, ...] = tuple(DEFAULT_ROSTER.ids)
"""The shipped team's agents (`roster.DEFAULT_ROSTER`); a spec's drawn team replaces them (``team=``)."""


def action_name(agent: str, actions: Mapping[str, Any]) -> str:
    """The name of ``agent``'s action in ``actions`` (0 when absent); a clear error when out of range."""
    index = int(actions.get(agent, 0))
    names = ROLE_ACTIONS[agent]
    if not 0 <= index < len(names):
        raise ValueError(f"{agent}: action {index} is out of range 0..{len(names) - 1} ({', '.join(names)})")
    return names[index]


STATE_SIZE = 3 * len(INTENTS) + 3
VIEWS = {"supervisor_view": SUPERVISOR_VIEWS, "role_view": ROLE_VIEWS}
"""The parameters that choose what an agent observes, and their values."""

__all__ = [
    "AGENTS", "CLAUSE_READERS", "DEFAULTS", "PARAMETERS", "READERS", "ROLE_ACTIONS", "STATE_SIZE", "VIEWS",
    "CustomerServiceEnv", "CustomerServiceParams", "action_name", "evaluate", "team_start",
]  # fmt: skip


class CustomerServiceEnv(ParallelEnv):
    """A team of specialists and reviewers resolves customer tickets (by default the shipped four: shopping
    guide, logistics, dispute mediator, quality supervisor; ``team=`` the spec's drawn agents, `roster`)."""

    metadata = {"name": "customer_service_v0", "render_modes": ["ansi", "human"], "is_parallelizable": True}
    parameters = PARAMETERS
    takes_team = True  # make_env(..., team=the spec's agents) builds the drawn team (`team_kwargs`)
    intent_catalogue = SHIPPED.listing()
    """The intents an agent may own (``agents[].intents``) by default, with what each means; a spec's own
    catalogue (``environment.params.intents``) replaces them (`catalogue_for`)."""

    @staticmethod
    def catalogue_for(params: Mapping[str, Any] | None) -> Catalogue:
        """The intent catalogue of ``params`` (the shipped one when they declare none or a bad one)."""
        try:
            return make_catalogue((params or {}).get("intents"))
        except ValueError:
            return SHIPPED

    default_prompt = staticmethod(owned_intents_prompt)
    """A specialist's prompt when its spec leaves it out, under a catalogue of one's own: the intents it owns
    in words (None: the role's default prompt, as for the shipped catalogue)."""
    unmentioned_intents = staticmethod(_unmentioned)
    """The owned intents a prompt of the user's own does not name (it may be out of date: a warning)."""

    prompt_routing = "deal_roles"
    """Each agent's observation holds its prompt (as its similarity to each intent's description); with this
    parameter on, training deals jobs to random seats, so the policy takes its work from its prompt. Without
    the attribute an environment's policy never reads prompts (only the reply writer does)."""

    routing = "agents.envs.customer_service.interface"
    """What training, serving and the web ask of this routing environment (`agents.envs.routing`), named
    like the registry names the class: imported by name when asked."""

    @staticmethod
    def example_requests() -> list[str]:
        """What customers write to this team: the shipped hand-written tickets' texts (a writing team's
        matcher reads them as requests that are not its kind, `serving.requests.foreign_requests`)."""
        path = DEFAULT_DATA_DIR / "handwritten.jsonl"
        return [json.loads(line)["text"] for line in path.read_text(encoding="utf-8").splitlines() if line]

    difficulty_levels = DIFFICULTY_LEVELS  # reset(options={"difficulty": level}) follows the curriculum

    def __init__(
        self,
        tickets: str | Path | Sequence[Ticket] | None = None,
        *,
        render_mode: str | None = None,
        team: Sequence[Any] | Roster | None = None,
        **params: Any,
    ) -> None:
        """Build the env over ``tickets``: a split name or JSONL path (the ``tickets`` parameter; None: its
        default) or a list of `Ticket`; ``params``: the other parameters (`CustomerServiceParams`).

        ``team``: the agents (spec agents or mappings with id, role, intents, prompt) or a `Roster`; each
        agent then also observes its own ``prompt``. None = the shipped team, without prompts.
        """
        given = (
            params
            if tickets is None or not isinstance(tickets, str | Path)
            else {**params, "tickets": tickets}
        )
        p = CustomerServiceParams.build("customer_service", given)
        source = p.tickets if tickets is None or isinstance(tickets, str | Path) else tickets
        self.catalogue = team.catalogue if isinstance(team, Roster) else make_catalogue(p.intents)
        self.tickets: list[Ticket] = (
            with_styles(
                training_tickets(load_tickets(source, self.catalogue), source, p.min_rows_per_intent),
                source,
                p.augment_styles,
            )
            if isinstance(source, str | Path)
            else list(source)
        )
        if not self.tickets:
            raise TicketFileError("customer_service: no tickets given")
        self.max_steps = p.max_steps
        self.correct_reward, self.wrong_penalty = float(p.correct_reward), float(p.wrong_penalty)
        self.duplicate_penalty, self.step_cost = float(p.duplicate_penalty), float(p.step_cost)
        self.message_cost, self.approve_bonus = float(p.message_cost), float(p.approve_bonus)
        self.bad_approve_penalty, self.timeout_penalty = (
            float(p.bad_approve_penalty),
            float(p.timeout_penalty),
        )
        self.shuffle = p.shuffle
        self.supervisor_view = p.supervisor_view
        self.role_view = p.role_view
        self.mask_invalid = p.mask_invalid
        self.privileged_state = p.privileged_state
        self.delayed_reward = p.delayed_reward
        self.render_mode = render_mode
        if not self.catalogue.shipped and team is None:
            raise ValueError("customer_service: a catalogue of one's own needs a team (team=) to answer it")
        self.roster = (
            team
            if isinstance(team, Roster)
            else DEFAULT_ROSTER
            if team is None
            else Roster.from_agents(team, self.catalogue)
        )
        self._intents = self.catalogue.names
        self._action_intent = self.catalogue.action_intents
        self.deal_roles = p.deal_roles
        self.show_prompts = team is not None or self.deal_roles  # dealt jobs are read from the prompts
        if self.deal_roles:
            self.roster = Roster(self.roster.members, catalogue_actions=True)
        self.drawn = self.roster  # the team as drawn; `roster` is this episode's deal of its jobs
        self.possible_agents = list(self.roster.ids)
        self.agents: list[str] = []
        prompts = "".join(m.prompt for m in self.roster.members)
        charset = set(string.printable) | {c for t in self.tickets for c in t.text + HIDDEN_TICKET + prompts}
        self._charset = "".join(sorted(charset))
        self._max_text = max(len(HIDDEN_TICKET), *(len(t) for t in self._texts_seen()))
        self._difficulties = np.array([ticket.difficulty for ticket in self.tickets])
        self._rng = np.random.default_rng()
        self._cursor = 0
        self.ticket: Ticket = self.tickets[0]
        self._reset_episode()

    # ---------------------------------------------------------------------------------------- spec hook

    @staticmethod
    def expected_agents(params: Mapping[str, Any] | None = None) -> list[str]:
        """The shipped team's agent names (any team `validate_team` accepts plays too)."""
        return list(AGENTS)

    @staticmethod
    def validate_team(agents: Sequence[Any], params: Mapping[str, Any] | None = None) -> list[SpecError]:
        """What a drawn team lacks to answer the catalogue of ``params``, in words, paths rooted at the spec
        (`roster.roster_problems`)."""
        catalogue = CustomerServiceEnv.catalogue_for(params)
        return [SpecError(path, message) for path, message in roster_problems(agents, catalogue)]

    validate_params = staticmethod(CustomerServiceParams.problems)
    """Every problem with ``environment.params`` for this env, paths rooted at params (never raises)."""

    # ------------------------------------------------------------------------------------------ spaces

    @functools.cache  # noqa: B019 - PettingZoo requires the same space object each call
    def observation_space(self, agent: str) -> spaces.Dict:
        """Dict space: ticket text, status text, draft multi-hot, step index (and the action mask)."""
        fields: dict[str, spaces.Space] = {
            "ticket": spaces.Text(max_length=self._max_text, min_length=1, charset=self._charset),
            "status": spaces.Text(max_length=400, min_length=1, charset=self._charset),
            "draft": spaces.MultiBinary(len(self._intents)),
            "step": spaces.Discrete(self.max_steps + 1),
        }
        if self.show_prompts:
            longest = max(1, *(len(m.prompt) for m in self.roster.members))
            fields["prompt"] = spaces.Text(max_length=longest, min_length=0, charset=self._charset)
        if self.mask_invalid:
            fields["action_mask"] = spaces.MultiBinary(len(self.roster.role_actions[agent]))
        return spaces.Dict(fields)

    @functools.cache  # noqa: B019
    def action_space(self, agent: str) -> spaces.Discrete:
        """Discrete over the agent's actions (`Member.actions`: ``ROLE_ACTIONS[agent]`` for the shipped team)."""
        return spaces.Discrete(len(self.roster.role_actions[agent]))

    def action_names(self, agent: str) -> tuple[str, ...]:
        """The names of ``agent``'s actions, in action-index order."""
        return self.roster.role_actions[agent]

    def _action(self, agent: str, actions: Mapping[str, Any]) -> str:
        index, names = int(actions.get(agent, 0)), self.roster.role_actions[agent]
        if not 0 <= index < len(names):
            raise ValueError(
                f"{agent}: action {index} is out of range 0..{len(names) - 1} ({', '.join(names)})"
            )
        return names[index]

    @functools.cached_property
    def state_space(self) -> spaces.Dict:
        """Global state space: ticket text and a float vector (see `state`)."""
        return spaces.Dict(
            {
                "ticket": spaces.Text(max_length=self._max_text, min_length=1, charset=self._charset),
                "vector": spaces.Box(0.0, 1.0, shape=(3 * len(self._intents) + 3,), dtype=np.float32),
            }
        )

    # --------------------------------------------------------------------------------------- episodes

    def _reset_episode(self) -> None:
        self._draft: set[str] = set()
        self._step = 0
        self._messages = 0
        self._send_backs = 0
        self._wrong_actions = 0
        self._duplicates = 0
        self._approved = False
        self._history: list[str] = []
        self._unpaid = 0.0  # the team reward earned so far but, with `delayed_reward`, not yet paid

    def reset(
        self, seed: int | None = None, options: dict | None = None
    ) -> tuple[dict[str, dict], dict[str, dict]]:
        """Start a ticket. ``options``: ``{"ticket_index": i}`` or ``{"ticket": Ticket}`` picks it;
        ``{"difficulty": level}`` (the adaptive curriculum's) draws one of difficulty ≤ level at random."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self._cursor = 0
            for i, agent in enumerate(self.possible_agents):
                self.action_space(agent).seed(seed + i)
        options = options or {}
        if isinstance(options.get("ticket"), Ticket):
            self.ticket = options["ticket"]
        elif "ticket_index" in options:
            self.ticket = self.tickets[int(options["ticket_index"]) % len(self.tickets)]
        elif options.get("difficulty") is not None:
            self.ticket = self._ticket_up_to(options["difficulty"])
        elif self.shuffle:
            self.ticket = self.tickets[int(self._rng.integers(len(self.tickets)))]
        else:
            self.ticket = self.tickets[self._cursor % len(self.tickets)]
            self._cursor += 1
        self.agents = list(self.possible_agents)
        # the env drew the ticket itself (training): deal the jobs; a chosen ticket is played as drawn
        chosen = isinstance(options.get("ticket"), Ticket) or "ticket_index" in options
        self.roster = self._deal() if self.deal_roles and not chosen else self.drawn
        self._reset_episode()
        info = self._info()
        return self._observations(), {agent: dict(info) for agent in self.agents}

    def _deal(self) -> Roster:
        """The drawn team with its specialists' jobs dealt to random seats (`Roster.dealt`)."""
        return self.drawn.dealt(self._rng.permutation(len(self.drawn.specialists)).tolist())

    def _ticket_up_to(self, level: Any) -> Ticket:
        """A random ticket of difficulty ≤ ``level`` (the easiest there are when the file has none that easy)."""
        if isinstance(level, bool) or not isinstance(level, int | np.integer) or level < 0:
            raise ValueError(f"options['difficulty'] must be a non-negative integer, got {level!r}")
        level = max(int(level), int(self._difficulties.min()))
        candidates = np.flatnonzero(self._difficulties <= level)
        return self.tickets[int(candidates[self._rng.integers(len(candidates))])]

    def _potential(self, draft: set[str]) -> float:
        truth = set(self.ticket.intents)
        return self.correct_reward * len(draft & truth) - self.wrong_penalty * len(draft - truth)

    def step(self, actions: Mapping[str, int]) -> tuple[dict, dict, dict, dict, dict]:
        """Apply every live agent's action at once (missing agents pass / continue)."""
        if not self.agents:
            return {}, {}, {}, {}, {}
        self._step += 1
        before = self._potential(self._draft)
        reviews = [self._action(agent, actions) for agent in self.roster.reviewers]
        messages, duplicates, events = 0, 0, []
        if "send_back" in reviews:
            messages += reviews.count("send_back")
            self._send_backs += 1
            self._draft = set()
            events.append("supervisor sent the draft back")
        elif "approve" in reviews:
            self._approved = True
            events.append("supervisor approved")
        for agent in self.roster.specialists:
            name = self._action(agent, actions)
            if name == "pass":
                continue
            messages += 1
            intent = self._action_intent[name]
            if self._approved:  # the answer already went out; this message is wasted
                continue
            if intent in self._draft:
                duplicates += 1
            else:
                self._draft.add(intent)
                if intent not in self.ticket.intents:
                    self._wrong_actions += 1
            events.append(f"{agent}: {name}")
        self._messages += messages
        self._duplicates += duplicates
        self._history.append("; ".join(events) if events else IDLE_STEP)
        reward = self._potential(self._draft) - before
        reward -= self.step_cost + self.message_cost * messages + self.duplicate_penalty * duplicates
        terminated = truncated = False
        if self._approved:
            terminated = True
            reward += self.approve_bonus if self._exact() else -self.bad_approve_penalty
        elif self._step >= self.max_steps:
            truncated = True
            reward -= self.timeout_penalty
        if self.delayed_reward:
            self._unpaid += reward
            reward = self._unpaid if terminated or truncated else 0.0
        observations = self._observations()
        info = self._info()
        live = list(self.agents)
        if terminated or truncated:
            self.agents = []
        return (
            observations,
            dict.fromkeys(live, float(reward)),
            dict.fromkeys(live, terminated),
            dict.fromkeys(live, truncated),
            {agent: dict(info) for agent in live},
        )

    # ------------------------------------------------------------------------------------ observations

    def _exact(self) -> bool:
        return self._draft == set(self.ticket.intents)

    def status_text(self) -> str:
        """The compact, text form of progress that every agent sees (no ground truth in it)."""
        draft = ", ".join(sorted(self._draft, key=self._intents.index)) or "nothing yet"
        last = self._history[-1] if self._history else "start"
        return (
            f"step {self._step}/{self.max_steps}; answered: {draft}; messages {self._messages}; "
            f"sent back {self._send_backs}x; last: {last}"
        )[:400]

    def _observations(self) -> dict[str, dict]:
        draft = np.array([intent in self._draft for intent in self._intents], dtype=np.int8)
        status = self.status_text()
        observations = {
            agent: {
                "ticket": self.ticket_seen_by(agent),
                "status": status,
                "draft": draft.copy(),
                "step": self._step,
                **({"prompt": self.roster.prompt(agent)} if self.show_prompts else {}),
            }
            for agent in self.possible_agents
            if agent in self.agents
        }
        if self.mask_invalid:
            for agent, obs in observations.items():
                obs["action_mask"] = self.action_mask(agent)
        return observations

    def action_mask(self, agent: str) -> np.ndarray:
        """Which of ``agent``'s actions make sense now: nobody approves or sends back an empty draft, and a
        role does not repeat an answer already in it (``mask_invalid`` puts this in the observations)."""
        names = self.roster.role_actions[agent]
        if self.roster.by_id[agent].reviewer:
            return np.array([name == "continue" or bool(self._draft) for name in names], dtype=np.int8)
        return np.array(
            [name == "pass" or self._action_intent[name] not in self._draft for name in names], dtype=np.int8
        )

    def ticket_seen_by(self, agent: str) -> str:
        """The ticket text in ``agent``'s observation: hidden from a draft-only supervisor, and under
        ``role_view="triage"`` a specialist's own queue of requests (`triage.triage`)."""
        if self.roster.by_id[agent].reviewer:
            return HIDDEN_TICKET if self.supervisor_view == "draft" else self.ticket.text
        if self.role_view != "triage":
            return self.ticket.text
        return self._queues(self.ticket.text).get(agent, EMPTY_QUEUE)

    def _queues(self, text: str) -> dict[str, str]:
        """The triage desk's queue per specialist (the shipped team's `triage`, or the drawn team's)."""
        if self.roster.owners == DEFAULT_ROSTER.owners:
            return triage(text)
        owners = tuple((intent, self.roster.owner(intent)) for intent in self._intents)
        return triage_team(text, owners, self.roster.owner("product_question"))

    def _texts_seen(self) -> list[str]:
        """Every ticket text an agent may observe (sizes the text spaces)."""
        texts = [t.text for t in self.tickets]
        if self.role_view == "triage":
            texts += [queue for t in self.tickets for queue in self._queues(t.text).values()]
        return texts

    def state(self) -> dict[str, Any]:
        """Global state for a centralised critic.

        ``vector`` = draft multi-hot (8) ‖ correctly-handled multi-hot (8) ‖ true intents (8, privileged:
        training-time only) ‖ step/max_steps ‖ messages/(3·max_steps) ‖ send-backs/max_steps. With
        `privileged_state` false the two label blocks are zeros: the critic knows what the agents together
        observe, no more (a state critic that knows hidden labels can mislead actors that cannot see them).
        """
        truth = set(self.ticket.intents) if self.privileged_state else set()
        draft = [float(i in self._draft) for i in self._intents]
        correct = [float(i in self._draft and i in truth) for i in self._intents]
        true = [float(i in truth) for i in self._intents]
        progress = [
            self._step / self.max_steps,
            min(1.0, self._messages / (3 * self.max_steps)),
            min(1.0, self._send_backs / self.max_steps),
        ]
        return {"ticket": self.ticket.text, "vector": np.array(draft + correct + true + progress, np.float32)}

    def _info(self) -> dict[str, Any]:
        truth = set(self.ticket.intents)
        return {
            "ticket_id": self.ticket.id,
            "step": self._step,
            "steps": self._step,
            "messages": self._messages,
            "predicted_intents": [i for i in self._intents if i in self._draft],
            "true_intents": list(self.ticket.intents),
            "intent_correct": {i: i in self._draft for i in self.ticket.intents},
            "tp": len(self._draft & truth),
            "fp": len(self._draft - truth),
            "fn": len(truth - self._draft),
            "wrong_actions": self._wrong_actions,
            "duplicates": self._duplicates,
            "approved": self._approved,
            "exact_match": self._approved and self._exact(),
            # this episode's owners (jobs dealt to other seats): what an expert teacher follows
            **(
                {"owners": {i: list(self.roster.owners[i]) for i in self._intents}} if self.deal_roles else {}
            ),
        }

    def render(self) -> str | None:
        """Text view of the ticket and progress (``ansi`` returns it, ``human`` prints it)."""
        text = f"[{self.ticket.id}] {self.ticket.text}\n  {self.status_text()}"
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""


def evaluate(
    env: CustomerServiceEnv,
    policy: Callable[[dict[str, dict]], dict[str, int]],
    limit: int | None = None,
) -> dict[str, float]:
    """Run ``policy`` (observations -> actions) once on each ticket of ``env`` in file order.

    Returns exact_match, intent_f1 (micro), mean steps and messages per ticket, wasted messages per ticket
    (every message beyond one per intent handled right: wrong actions, duplicates, send-backs, messages after
    the approval), and the ticket count.
    """
    tickets = env.unwrapped.tickets  # `env` may be wrapped (e.g. in DomainRandomisation)
    n = len(tickets) if limit is None else min(limit, len(tickets))
    exact = tp = fp = fn = steps = messages = 0
    for index in range(n):
        observations, _ = env.reset(seed=index, options={"ticket_index": index})
        info: dict[str, Any] = {}
        while env.agents:
            observations, _, _, _, infos = env.step(policy(observations))
            info = next(iter(infos.values()))
        exact += info["exact_match"]
        tp, fp, fn = tp + info["tp"], fp + info["fp"], fn + info["fn"]
        steps, messages = steps + info["steps"], messages + info["messages"]
    return {
        "exact_match": exact / n,
        "intent_f1": 2 * tp / max(1, 2 * tp + fp + fn),
        "steps_per_ticket": steps / n,
        "messages_per_ticket": messages / n,
        "wasted_messages_per_ticket": (messages - tp) / n,
        "tickets": n,
    }
