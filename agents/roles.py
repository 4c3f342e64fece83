"""The roles an agent in a team spec can take, and the reward terms a spec can weigh.

Roles come from the shipped workflows (docs/design.md#environments): the number-guessing starter task,
e-commerce customer service, the research-report workflow, collaborative writing and code generation.
Each role carries a one-line description and a
default system prompt (the designer pre-fills it when a node is dropped on the canvas), plus two
numbers the complexity advisor (`agents.advisor`) reads:

- `decision_weight` (0–1): how much non-trivial choosing the role does (a guesser picks one of N
  answers: 1.0; an informant only relays what it holds: 0.1);
- `external_uncertainty` (0–1): how unpredictable the role's inputs are (customer messages and search
  results are; a fixed clue is not).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from types import MappingProxyType


@dataclass(frozen=True)
class RoleInfo:
    """One known role: what it does, its default prompt, and its advisor weights."""

    name: str
    description: str
    default_prompt: str
    decision_weight: float
    external_uncertainty: float

    def to_dict(self) -> dict:
        """Plain-JSON form (the web designer lists roles from it)."""
        return {
            "name": self.name,
            "description": self.description,
            "default_prompt": self.default_prompt,
            "decision_weight": self.decision_weight,
            "external_uncertainty": self.external_uncertainty,
        }


def _role(name: str, description: str, prompt: str, decision: float, uncertainty: float) -> RoleInfo:
    return RoleInfo(name, description, prompt, decision, uncertainty)


_ROLE_LIST = (
    # Number guessing (docs/design.md#number-guessing): the clues are spread over agents; only communication solves it.
    _role(
        "informant",
        "Holds one private clue about the secret and shares it with the team.",
        "You hold one private clue about the secret number. Tell your teammates what your clue says, "
        "clearly and briefly.",
        0.1,
        0.1,
    ),
    _role(
        "distractor",
        "Holds information that is irrelevant to the task; the team must learn to ignore it.",
        "You hold a sentence that may have nothing to do with the task. Share it only if it helps.",
        0.0,
        0.1,
    ),
    _role(
        "guesser",
        "Combines the clues it receives from teammates and names the answer.",
        "You combine the clues you receive and name the number.",
        1.0,
        0.3,
    ),
    # E-commerce customer service (docs/design.md#customer-service).
    _role(
        "shopping_guide",
        "Recommends and compares products for the customer.",
        "You are the shopping guide. Understand what the customer wants, recommend suitable products and "
        "compare them honestly. Hand delivery questions to logistics and complaints to the dispute mediator.",
        0.8,
        0.8,
    ),
    _role(
        "logistics",
        "Looks up real-time shipping and delivery status and explains it to the customer.",
        "You are the logistics agent. Look up the real-time status of the customer's order and shipment, "
        "explain delays plainly, and give a realistic delivery estimate.",
        0.4,
        0.7,
    ),
    _role(
        "dispute_mediator",
        "Detects conflicts (refunds, returns, complaints) and proposes fair resolutions.",
        "You are the dispute mediator. Detect the conflict in the customer's request, check the order facts "
        "with logistics, and propose a fair resolution such as a refund, a replacement or a return.",
        0.9,
        0.8,
    ),
    _role(
        "quality_supervisor",
        "Evaluates the quality of the service conversation; its reward includes human review feedback.",
        "You are the quality supervisor. Read the conversation, judge whether the customer's problem was "
        "solved correctly and politely, and flag answers that need correction.",
        0.6,
        0.5,
    ),
    # Research report (docs/design.md#research-report).
    _role(
        "researcher",
        "Searches for and selects the latest relevant sources on the topic.",
        "You are the researcher. Choose search keywords for the topic, pick the most relevant recent "
        "sources, and decide when the material is sufficient.",
        0.8,
        0.8,
    ),
    _role(
        "analyst",
        "Extracts the key data, trends and arguments from the sources.",
        "You are the analyst. Extract the key data points, trends and arguments from the researcher's "
        "sources, choose an analysis framework (for example PEST or SWOT), and judge whether the analysis "
        "is deep enough.",
        0.8,
        0.5,
    ),
    _role(
        "writer",
        "Writes clearly structured, well-argued text from the material it receives.",
        "You are the writer. Turn the analysis into a clearly structured, well-argued text: choose the "
        "structure, decide how much detail each part gets, and cite the data where it supports a claim.",
        0.7,
        0.4,
    ),
    _role(
        "reviewer",
        "Checks logical consistency, data accuracy and language quality, and proposes revisions.",
        "You are the reviewer. Check the text for factual errors, logical leaps and redundant language, "
        "propose specific revisions, and decide whether the text meets the bar to finish.",
        0.8,
        0.4,
    ),
    # Collaborative writing (docs/design.md#design-only-templates).
    _role(
        "planner",
        "Plans the structure, core arguments and subheadings of a piece of writing.",
        "You are a technical blog planning expert. Plan the structure, core arguments and subheadings for "
        "the topic. Agree the outline with the writer and check the logical flow with the polisher.",
        0.8,
        0.4,
    ),
    _role(
        "polisher",
        "Improves fluency, technical accuracy and readability of a draft.",
        "You are a text polishing expert. Improve the fluency, technical accuracy and readability of the "
        "draft you get from the writer, propose edits, and confirm the overall style with the planner.",
        0.5,
        0.3,
    ),
    # Code generation (docs/design.md#design-only-templates).
    _role(
        "architect",
        "Designs the solution: modules, interfaces and a UML-style sketch.",
        "You are the software architect. Turn the requirement into a design sketch: the modules, their "
        "interfaces and the order in which they should be built.",
        0.9,
        0.5,
    ),
    _role(
        "implementer",
        "Writes the code from the architect's design.",
        "You are the implementer. Write clean, working code that follows the architect's design and "
        "interfaces; ask the architect when the design is unclear.",
        0.7,
        0.4,
    ),
    _role(
        "tester",
        "Writes unit tests for the code and reports failures.",
        "You are the tester. Write unit tests that exercise the implementer's code, including edge cases, "
        "and report failures with the smallest input that reproduces them.",
        0.6,
        0.4,
    ),
    _role(
        "code_reviewer",
        "Reviews the code, flags defects and proposes improvements.",
        "You are the code reviewer. Review the code and tests for defects, unclear names and missing cases, "
        "and propose concrete improvements before the change is accepted.",
        0.7,
        0.3,
    ),
    _role(
        "custom",
        "A role you define yourself; its prompt must be written in the spec.",
        "",
        0.5,
        0.5,
    ),
)

ROLES: MappingProxyType[str, RoleInfo] = MappingProxyType({r.name: r for r in _ROLE_LIST})
"""Known roles by name (read-only). `custom` has no default prompt: a custom agent must bring its own."""

INFORMATION_ONLY_WEIGHT = 0.2
"""Roles deciding less than this only hold and share information (informant, distractor)."""


def deciding_agents(role_names: Iterable[object]) -> int:
    """How many agents make choices the team must coordinate: every agent but those whose role only
    holds and shares information (the number-guessing informants and distractors, which that task adds
    on purpose). Unknown and custom roles count."""

    def shares_only(name: object) -> bool:
        role = ROLES.get(name) if isinstance(name, str) else None
        return role is not None and role.decision_weight < INFORMATION_ONLY_WEIGHT

    return sum(1 for name in role_names if not shares_only(name))


@dataclass(frozen=True)
class RewardTermInfo:
    """One reward term a spec can weigh, with the properties the complexity advisor reads."""

    name: str
    description: str
    delayed: bool  # paid at the end of an episode (long-term) rather than per step
    penalty: bool  # a cost: its natural weight is negative

    def to_dict(self) -> dict:
        """Plain-JSON form."""
        return {
            "name": self.name,
            "description": self.description,
            "delayed": self.delayed,
            "penalty": self.penalty,
        }


_TERM_LIST = (
    RewardTermInfo(
        "task",
        "Task reward: the episode's score (1.0 for a correct answer, a judge's score ...).",
        True,
        False,
    ),
    RewardTermInfo(
        "entropy_bonus",
        "Bonus for diverse behaviour (policy / attention entropy), used while exploring.",
        False,
        False,
    ),
    RewardTermInfo(
        "coherence_penalty",
        "Penalty for incoherent or off-task behaviour of an agent.",
        False,
        True,
    ),
    RewardTermInfo(
        "collaboration_bonus", "Bonus when an agent's output is used by a teammate.", False, False
    ),
    RewardTermInfo("communication_cost", "Cost proportional to the messages sent.", False, True),
    RewardTermInfo(
        "novelty",
        "Bonus for receiving information that differs from what the agent already has.",
        False,
        False,
    ),
    RewardTermInfo("consensus", "Bonus for agents reaching agreement quickly.", False, False),
    RewardTermInfo(
        "shaping",
        "The environment's own shaping rewards (e.g. +0.1 per relevant source in the research report).",
        False,
        False,
    ),
    RewardTermInfo(
        "human_feedback",
        "Annotators' ratings, directly or through a reward model trained on them.",
        True,
        False,
    ),
    RewardTermInfo("transfer_score", "Score on the transfer task or domain (transfer phase).", True, False),
    RewardTermInfo("domain_performance", "Performance in the new domain (transfer phase).", True, False),
)

REWARD_TERMS: MappingProxyType[str, RewardTermInfo] = MappingProxyType({t.name: t for t in _TERM_LIST})
"""Reward terms a spec may weigh, by name (read-only). Weights multiply the term: reward = Σ w·term."""
