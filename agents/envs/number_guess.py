"""Number guessing (docs/design.md#number-guessing): the clues are spread over agents; only communication solves it.

A secret integer x in [0, n) is drawn. Informative agents ("clue_0", "clue_1", …) each hold one
natural-language clue; distractor agents ("distractor_0", …) hold irrelevant sentences; the
"guesser" sees only its fixed prompt and must name x (Discrete(n)). Every agent gets the team reward
1.0 when the guess is right, else 0.0. One step per episode by default (`max_rounds` > 1 lets the
guesser try again; the episode ends at the first right guess or after `max_rounds` guesses).

How the clues determine x exactly: x is written with k = `informative` digits, informant `clue_j`
stating digit d_j of base r_j, x = Σ_j d_j · r_0 · … · r_{j-1} (`number_guess_digits.py`). The digits
determine x and every x has exactly one digit tuple, so the clues together pin the number down.

- A bit clue: r = 2. The lowest tells parity ("The number is even/odd"), the highest a threshold ("The
  number is below 8 / at least 8" for n = 16), the middle ones a remainder threshold ("Divided by 8, the
  number leaves a remainder of at least 4").
- A range clue: the range informants share what the bits leave, r = (n / 2**bits) ** (1/ranges). The
  highest is a range of x ("The number lies between 16 and 31"), middle ones a range of a remainder
  ("Divided by 16, the number leaves a remainder between 12 and 15"), the lowest a remainder ("Divided
  by 4 it leaves 3"). n = 64 with three range informants: block of 16, quarter within it, remainder mod 4.
- `clue_kinds` ["bits"] gives every informant a bit clue (n = 2**k), ["ranges", "remainders"] a range
  clue (n = r**k, k ≥ 2); a list of one "bit" / "range" per informant mixes them (n = 2**bits · r**ranges),
  which is what a canvas builds whose informant nodes name their clue kind.

Each clue family has 12 paraphrase templates: the first 10 are the training split, the last 2 are held
out (`templates`: "train" | "heldout" | "all") for generalisation tests; distractor templates are
split the same way. `numbers`: "digits" ("at least 8") or "words" ("at least eight"). `augment` adds
that many re-worded copies of every training clue template (`agents/envs/rewording.py`: lead-ins,
adverbs, synonyms; slots and meaning kept) to the training split only.

The team is the canvas's (`number_guess_team.py`): built with ``team=`` (the spec's agents), the
informant, distractor and guesser nodes are the players under their own ids, informants stating digits in
the order they are drawn, and the counts come from the canvas, not from `informative`/`distractors`; an
informant node's ``clue`` ("bit" / "range") overrides `clue_kinds` for that digit.

Fast path for trainers: `sample_batch(batch_size, rng)` draws many episodes at once as arrays, and
`vocabulary(agent)` lists every text an agent can show under the current split (so embeddings are
computed once); `text_ids` index into it. Informant ids are laid out as `digit * T + template`
(T = templates in the split), so `text_id // T` is the digit the clue states.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from agents.envs.number_guess_digits import (
    DEFAULT_CLUE_KINDS,
    UNIFORM_KINDS,
    SplitError,
    informant_kinds,
    place_values,
    radices,
)
from agents.envs.number_guess_team import GuessTeam, team_problems
from agents.envs.number_guess_text import (
    CHARSET,
    DISTRACTORS,
    MID_BIT,
    MID_RANGE,
    PARITY,
    RANGE,
    REMAINDER,
    SMALL_NAMES,
    THRESHOLD,
    number_to_words,
)
from agents.envs.params import EnvParams, param
from agents.envs.rewording import reworded_family
from agents.errors import SpecError, SpecValidationError

__all__ = ["NumberGuessEnv", "NumberGuessBatch", "number_to_words", "PARAM_DEFAULTS"]

SPLITS = ("train", "heldout", "all")
NUMBER_STYLES = ("digits", "words")
CLUE_KIND_SETS = tuple(UNIFORM_KINDS)
HELD_OUT = 2  # the last two templates of every family are never shown in training


@dataclass(frozen=True)
class NumberGuessParams(EnvParams):
    """The environment's parameters (the spec's ``environment.params``), each declared once."""

    n: int = param(16, "Size of the number range [0, n); with bit clues a power of two.", low=2, high=4096)
    informative: int = param(
        4,
        "Agents holding a clue (one digit of the number each): the canvas's informant nodes.",
        low=1,
        high=16,
    )
    distractors: int = param(
        2, "Agents holding irrelevant sentences: the canvas's distractor nodes.", low=0, high=32
    )
    clue_kinds: list[str] = param(
        list(DEFAULT_CLUE_KINDS),
        "Bit clues (parity, thresholds), or ranges and remainders; an informant node's own clue kind overrides it.",
        choices=[list(kinds) for kinds in CLUE_KIND_SETS],
        checked=False,  # the choices are the form's; one kind per informant is accepted too
    )
    templates: str = param(
        "train", "Clue phrasings: the training templates, the held-out ones, or all.", choices=SPLITS
    )
    numbers: str = param("digits", "Write numbers in clues as digits or as words.", choices=NUMBER_STYLES)
    max_rounds: int = param(1, "Guesses the guesser gets.", low=1, high=100)
    augment: int = param(0, "Re-worded copies of every training clue template.", low=0, high=50)

    @classmethod
    def related_problems(cls, p: Mapping[str, Any], bad: set[str]) -> list[SpecError]:
        """The clue kinds, the team's size and the number range must fit together."""
        errors: list[SpecError] = []
        ok_n, ok_k, ok_d = "n" not in bad, "informative" not in bad, "distractors" not in bad
        kinds = informant_kinds(p["clue_kinds"], p["informative"] if ok_k else 1)
        if kinds is None:
            errors.append(
                SpecError(
                    "$.clue_kinds",
                    'must be ["bits"] or ["ranges", "remainders"], or one of "bit" / "range" per informant',
                )
            )
        if ok_k and ok_d and p["informative"] + p["distractors"] + 1 > 64:
            errors.append(
                SpecError("$.distractors", "at most 64 agents in all (informative + distractors + guesser)")
            )
        if ok_n and ok_k and kinds is not None:
            try:
                radices(p["n"], kinds)
            except SplitError as exc:
                errors.append(SpecError(f"$.{exc.param}", str(exc)))
        if ok_n and "numbers" not in bad and p["numbers"] == "words" and p["n"] > 9999:
            errors.append(SpecError("$.numbers", "numbers in words support n up to 9999"))
        return errors


PARAM_DEFAULTS: dict[str, Any] = NumberGuessParams.defaults()
PARAMETERS = NumberGuessParams.describe()
"""The parameters as the designer's Environment tab shows them."""


@dataclass(frozen=True)
class NumberGuessBatch:
    """Many episodes drawn at once. `text_ids[agent][b]` indexes `env.vocabulary(agent)`."""

    secrets: np.ndarray  # (B,) int64
    texts: dict[str, list[str]]  # agent -> B texts (empty lists when drawn with with_texts=False)
    text_ids: dict[str, np.ndarray]  # agent -> (B,) int64


class NumberGuessEnv(ParallelEnv):
    """PettingZoo ParallelEnv of the number-guessing starter task (see the module docstring)."""

    parameters = PARAMETERS
    metadata = {"name": "number_guess_v0", "render_modes": ["ansi"], "is_parallelizable": True}
    takes_team = True  # make_env(..., team=the spec's agents): the canvas's nodes are the players
    informant_clues = True  # an informant node may name its clue kind (agent field ``clue``)

    @staticmethod
    def validate_team(agents: Sequence[Any], params: Mapping[str, Any]) -> list[SpecError]:
        """What a drawn team lacks, in words (number_guess_team.team_problems), paths rooted at the spec."""
        return [SpecError(path, message) for path, message in team_problems(agents, params)]

    @staticmethod
    def team_params(agents: Sequence[Any], params: Mapping[str, Any]) -> dict[str, Any]:
        """``params`` with the informant and distractor counts the canvas draws (unchanged when the team
        cannot play: `validate_team` says why)."""
        try:
            return GuessTeam.from_team(agents).params(params)
        except ValueError:
            return dict(params)

    def __init__(
        self,
        *,
        render_mode: str | None = None,
        team: Sequence[Mapping[str, Any]] | None = None,
        **params: Any,
    ):
        """``params``: `NumberGuessParams`; ``team``: the canvas's nodes, which set the counts and ids."""
        given = {**PARAM_DEFAULTS, **params}
        drawn = None
        if team is not None:  # the canvas's nodes: they set the counts and the agent ids
            try:
                drawn = GuessTeam.from_team(team)
            except ValueError as exc:
                raise SpecValidationError([SpecError("$.agents", str(exc))]) from None
            stray = [
                SpecError(path, message) for path, message in team_problems(team) if path.endswith(".clue")
            ]
            if stray:
                raise SpecValidationError(stray)
            given["informative"], given["distractors"] = len(drawn.informants), len(drawn.distractors)
            given["clue_kinds"] = drawn.clue_kinds(given["clue_kinds"])
        if isinstance(given["clue_kinds"], tuple):
            given["clue_kinds"] = list(given["clue_kinds"])
        errors = self.validate_params(given)
        if errors:
            raise SpecValidationError(
                [SpecError("$.environment.params" + e.path[1:], e.message) for e in errors]
            )
        params = given
        n, informative, distractors, clue_kinds = (
            given["n"],
            given["informative"],
            given["distractors"],
            given["clue_kinds"],
        )
        templates, numbers, max_rounds, augment = (
            given["templates"],
            given["numbers"],
            given["max_rounds"],
            given["augment"],
        )
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.n, self.informative, self.distractors = n, informative, distractors
        self.clue_kinds = tuple(clue_kinds)
        self.templates, self.numbers, self.max_rounds = templates, numbers, max_rounds
        self.augment = augment if templates == "train" else 0  # held-out phrasings are never re-worded
        self.render_mode = render_mode
        kinds = informant_kinds(clue_kinds, informative)
        assert kinds is not None  # validate_params above refused anything else
        self.kinds = kinds
        self.radices = radices(n, kinds)
        self._places = place_values(self.radices)

        self.possible_agents = list(drawn.order) if drawn else self.expected_agents(params)
        self.agents: list[str] = []
        self._informants = list(drawn.informants) if drawn else [f"clue_{j}" for j in range(informative)]
        self._distractor_ids = (
            list(drawn.distractors) if drawn else [f"distractor_{j}" for j in range(distractors)]
        )
        self.guesser = drawn.guesser if drawn else "guesser"
        self._digit = {agent: j for j, agent in enumerate(self._informants)}  # informant -> digit it states

        # Every table is built once; all episodes draw indexes into it.
        self._clue_family: dict[str, list[list[str]]] = {}  # informant -> per template -> per digit text
        self._vocab: dict[str, list[str]] = {}
        for j, agent in enumerate(self._informants):
            family = self._render_clue_family(j)
            self._clue_family[agent] = family
            # id = digit * T + template, so id // T is the digit the text states.
            self._vocab[agent] = [family[t][d] for d in range(self.radices[j]) for t in range(len(family))]
        self._distractor_tables = self._render_distractors()
        distractor_vocab = [text for table in self._distractor_tables for text in table]
        for agent in self._distractor_ids:
            self._vocab[agent] = distractor_vocab
        self.guesser_prompt = (
            f"You are the guesser. The secret is a whole number from {self._num(0)} to {self._num(n - 1)}. "
            "Listen to your teammates and name it."
        )
        self._vocab[self.guesser] = [self.guesser_prompt]
        self._text_index = {a: {t: i for i, t in enumerate(v)} for a, v in self._vocab.items()}
        self._check_tables()

        longest = max(len(t) for v in self._vocab.values() for t in v)
        self._obs_space = spaces.Text(max_length=max(longest, 1), min_length=1, charset=CHARSET)
        self.state_space = spaces.Text(
            max_length=sum(len(a) + 2 + longest + 1 for a in self.possible_agents),
            min_length=1,
            charset=CHARSET + "\n",
        )
        self._act_spaces = {a: spaces.Discrete(n if a == self.guesser else 1) for a in self.possible_agents}
        self._rng = np.random.default_rng()
        self._secret = 0
        self._ids: dict[str, int] = {}
        self._round = 0

    # -- params (the team-spec validator calls these) ------------------------------------------------

    validate_params = staticmethod(NumberGuessParams.problems)
    """Every problem in `params`, paths rooted at the params object ("$.n"); never raises."""

    @staticmethod
    def expected_agents(params: Mapping[str, Any]) -> list[str]:
        """Agent names for valid params: clue_0.., distractor_0.., guesser."""
        p = {**PARAM_DEFAULTS, **params}
        return (
            [f"clue_{j}" for j in range(p["informative"])]
            + [f"distractor_{j}" for j in range(p["distractors"])]
            + ["guesser"]
        )

    # -- tables ------------------------------------------------------------------------------------

    def _num(self, k: int) -> str:
        return number_to_words(k) if self.numbers == "words" else str(k)

    def _small(self) -> dict[str, str]:
        return {name: self._num(i) for i, name in enumerate(SMALL_NAMES)}

    def _split(self, family: Sequence[Any]) -> Sequence[Any]:
        if self.templates == "train":
            return family[:-HELD_OUT]
        if self.templates == "heldout":
            return family[-HELD_OUT:]
        return family

    def _clue_templates(self, family: Sequence[Any], j: int) -> Sequence[Any]:
        """The split's templates of a clue family, plus `augment` re-worded copies of each (train only)."""
        templates = self._split(family)
        return reworded_family(templates, self.augment, seed=j) if self.augment else templates

    def _render_clue_family(self, j: int) -> list[list[str]]:
        """Texts of informant j: [template][digit]. The phrasing follows its kind and its place: the lowest
        digit is a parity or remainder, the highest a threshold or range of the number, the others a
        threshold or range of a remainder."""
        r, w, small = self.radices[j], self._places[j], self._small()
        top = j == self.informative - 1
        if self.kinds[j] == "bit":
            if j == 0:
                fam, slots = PARITY, {}
            elif top:
                fam, slots = THRESHOLD, {"h": self._num(w)}
            else:
                fam, slots = MID_BIT, {"m": self._num(2 * w), "w": self._num(w)}
            return [
                [pair[d].format(**small, **slots) for d in range(2)] for pair in self._clue_templates(fam, j)
            ]
        if j == 0:
            return [
                [t.format(m=self._num(r), d=self._num(d)) for d in range(r)]
                for t in self._clue_templates(REMAINDER, j)
            ]
        fam = RANGE if top else MID_RANGE
        return [
            [t.format(m=self._num(w * r), lo=self._num(d * w), hi=self._num(d * w + w - 1)) for d in range(r)]
            for t in self._clue_templates(fam, j)
        ]

    def _render_distractors(self) -> list[list[str]]:
        small = self._small() | {"ten": self._num(10), "eleven": self._num(11), "twelve": self._num(12)}
        return [
            [template.format(x=filler.format(**small)) for filler in fillers]
            for template, fillers in self._split(DISTRACTORS)
        ]

    def _check_tables(self) -> None:
        """Every informant's texts name one digit each; no text is shared between kinds of agent."""
        for agent in self._informants:
            vocab = self._vocab[agent]
            if len(set(vocab)) != len(vocab):
                raise RuntimeError(f"number_guess: {agent} has a clue text that states two different digits")
            if set(vocab) & set(self._vocab[self._distractor_ids[0]] if self._distractor_ids else ()):
                raise RuntimeError(f"number_guess: {agent} shares a text with the distractors")

    # -- PettingZoo API ------------------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Text:
        """A `Text` space: each agent observes one sentence (the same object on every call)."""
        self._require_agent(agent)
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Discrete:
        """guesser: Discrete(n), the guess; every other agent: Discrete(1), a no-op."""
        self._require_agent(agent)
        return self._act_spaces[agent]

    def reset(
        self, seed: int | None = None, options: dict | None = None
    ) -> tuple[dict[str, str], dict[str, dict]]:
        """Draw a new secret and the agents' sentences. `options={"secret": x}` fixes the secret."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        secret = None
        if options and "secret" in options:
            secret = options["secret"]
            if (
                isinstance(secret, bool)
                or not isinstance(secret, (int, np.integer))
                or not 0 <= secret < self.n
            ):
                raise ValueError(f"options['secret'] must be an integer in [0, {self.n}), got {secret!r}")
        batch = self.sample_batch(1, self._rng, secrets=None if secret is None else [int(secret)])
        self._secret = int(batch.secrets[0])
        self._ids = {a: int(ids[0]) for a, ids in batch.text_ids.items()}
        self._round = 0
        self.agents = list(self.possible_agents)
        problems = self.check_episode(self._secret, self._observations())
        if problems:  # a table bug, not a user error: fail loudly
            raise RuntimeError("number_guess produced an inconsistent episode: " + "; ".join(problems))
        return self._observations(), {a: self._info(a) for a in self.agents}

    def step(
        self, actions: Mapping[str, Any]
    ) -> tuple[dict[str, str], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict]]:
        """The guesser's action is its guess; the team reward is 1.0 for the right number, else 0.0."""
        if not self.agents:
            raise RuntimeError("step() called on a finished episode; call reset() first")
        if self.guesser not in actions:
            raise ValueError(f"actions must include the guesser's ({self.guesser}) guess")
        guess = actions[self.guesser]
        if isinstance(guess, np.ndarray) and guess.shape == ():
            guess = guess.item()
        if isinstance(guess, bool) or not isinstance(guess, (int, np.integer)) or not 0 <= guess < self.n:
            raise ValueError(f"the guess must be an integer in [0, {self.n}), got {guess!r}")
        self._round += 1
        correct = int(guess) == self._secret
        done = correct or self._round >= self.max_rounds
        live = list(self.agents)
        obs = {a: self._vocab[a][self._ids[a]] for a in live}
        rewards = dict.fromkeys(live, 1.0 if correct else 0.0)
        terminated = dict.fromkeys(live, done)
        truncated = dict.fromkeys(live, False)
        infos = {
            a: {**self._info(a), "correct": correct, **({"secret": self._secret} if done else {})}
            for a in live
        }
        if done:
            self.agents = []
        return obs, rewards, terminated, truncated, infos

    def state(self) -> str:
        """Global state for a centralised critic: every agent's sentence, one "agent: text" per line."""
        return (
            "\n".join(f"{a}: {self._vocab[a][self._ids[a]]}" for a in self.possible_agents)
            if self._ids
            else ""
        )

    def render(self) -> str | None:
        """ansi: the state plus the secret (for people, never for agents)."""
        if self.render_mode != "ansi":
            return None
        return f"secret: {self._secret} (round {self._round}/{self.max_rounds})\n{self.state()}"

    def close(self) -> None:
        """Nothing to release."""

    # -- fast path for trainers ----------------------------------------------------------------------

    def agent_kind(self, agent: str) -> str:
        """ "informative" | "distractor" | "guesser"."""
        self._require_agent(agent)
        if agent == self.guesser:
            return "guesser"
        return "informative" if agent in self._digit else "distractor"

    def vocabulary(self, agent: str) -> list[str]:
        """Every text `agent` can show under the current template split, in text-id order."""
        self._require_agent(agent)
        return list(self._vocab[agent])

    def templates_per_clue(self) -> int:
        """T: paraphrase templates per clue in the current split (informant text_id = digit * T + template)."""
        return len(next(iter(self._clue_family.values())))

    def digit_of(self, agent: str, secret: int | np.ndarray) -> int | np.ndarray:
        """The digit informant `agent` states for `secret` (vectorised over arrays)."""
        j = self._digit[self._require_agent(agent)]
        return (secret // self._places[j]) % self.radices[j]

    def paraphrase_ids(self, agent: str, text_ids: np.ndarray, rng: np.random.Generator) -> np.ndarray | None:
        """The same clues re-phrased: for each of informant `agent`'s `text_ids`, the id of the text that
        states the same digit in another template of this env's split, drawn at random (a training env
        only ever yields training templates). None for agents that state no digit (distractors, guesser).

        Trainers use it to ask that a message depend on what a clue says, not on how it is phrased.
        """
        if self.agent_kind(agent) != "informative":
            return None
        n_templates = self.templates_per_clue()
        ids = np.asarray(text_ids, dtype=np.int64)
        if n_templates < 2:
            return ids.copy()
        digit, template = np.divmod(ids, n_templates)
        other = (template + rng.integers(1, n_templates, size=ids.shape, dtype=np.int64)) % n_templates
        return digit * n_templates + other

    def sample_batch(
        self,
        batch_size: int,
        rng: np.random.Generator | int | None = None,
        *,
        secrets: Sequence[int] | np.ndarray | None = None,
        with_texts: bool = True,
    ) -> NumberGuessBatch:
        """`batch_size` independent episodes as arrays, drawn exactly as `reset` draws one.

        Cost is a few numpy calls per agent (plus one list lookup per text when `with_texts`).
        """
        if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
        rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        if secrets is None:
            xs = rng.integers(0, self.n, size=batch_size, dtype=np.int64)
        else:
            xs = np.asarray(secrets, dtype=np.int64).reshape(-1)
            if xs.shape[0] != batch_size or xs.min() < 0 or xs.max() >= self.n:
                raise ValueError(f"secrets must be {batch_size} integers in [0, {self.n})")
        ids: dict[str, np.ndarray] = {}
        n_templates = self.templates_per_clue()
        for agent in self._informants:
            template = rng.integers(0, n_templates, size=batch_size, dtype=np.int64)
            ids[agent] = self.digit_of(agent, xs) * n_templates + template
        sizes = np.array([len(t) for t in self._distractor_tables], dtype=np.int64)
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        for agent in self._distractor_ids:
            template = rng.integers(0, len(sizes), size=batch_size, dtype=np.int64)
            filler = np.floor(rng.random(batch_size) * sizes[template]).astype(np.int64)
            ids[agent] = offsets[template] + filler
        ids[self.guesser] = np.zeros(batch_size, dtype=np.int64)
        texts = {
            a: ([self._vocab[a][i] for i in ids[a].tolist()] if with_texts else [])
            for a in self.possible_agents
        }
        return NumberGuessBatch(secrets=xs, texts=texts, text_ids={a: ids[a] for a in self.possible_agents})

    def decode(self, texts: Mapping[str, str]) -> int:
        """The number the informants' texts determine (an oracle: the ceiling a team can reach)."""
        n_templates = self.templates_per_clue()
        x = 0
        for j, agent in enumerate(self._informants):
            text_id = self._text_index[agent].get(texts.get(agent, ""))
            if text_id is None:
                raise ValueError(f"{agent}'s text is not one of its clues: {texts.get(agent)!r}")
            x += (text_id // n_templates) * self._places[j]
        return x

    def check_episode(self, secret: int, texts: Mapping[str, str]) -> list[str]:
        """Problems with an episode: every text must come from its agent's table, clues must state
        the secret's digits, and the guesser must see only its prompt. [] when consistent."""
        problems = []
        n_templates = self.templates_per_clue()
        for agent in self.possible_agents:
            text = texts.get(agent)
            idx = self._text_index[agent].get(text) if isinstance(text, str) else None
            if idx is None:
                problems.append(f"{agent}'s text {text!r} is not in its {self.agent_kind(agent)} table")
            elif agent in self._digit and idx // n_templates != self.digit_of(agent, secret):
                problems.append(
                    f"{agent} states digit {idx // n_templates}, but the secret {secret} has {self.digit_of(agent, secret)}"
                )
        return problems

    # -- internals -----------------------------------------------------------------------------------

    def _require_agent(self, agent: str) -> str:
        if agent not in self.possible_agents:
            raise KeyError(f"unknown agent {agent!r}; agents: {', '.join(self.possible_agents)}")
        return agent

    def _observations(self) -> dict[str, str]:
        return {a: self._vocab[a][self._ids[a]] for a in self.agents}

    def _info(self, agent: str) -> dict[str, Any]:
        return {"kind": self.agent_kind(agent), "text_id": self._ids[agent], "round": self._round}
