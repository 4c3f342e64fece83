"""The validator's checks of how the team runs: its environment (and the environment's own checks of
params and team), training settings and resources, with their cross-checks."""

from __future__ import annotations

import logging
from dataclasses import MISSING
from typing import Any

from agents import places
from agents.envs import REGISTRY, EnvironmentUnavailableError, env_class, episode_limit
from agents.envs.routing import ROUTING_ENVIRONMENTS
from agents.envs.scripted import SCRIPTED_ENVIRONMENTS
from agents.errors import SpecError, reroot
from agents.spec.algorithms import DEFAULT_ALGORITHM, either, has_centralised_critic, supports_data_parallel
from agents.spec.checks import _BAD, _Checks, _quote_list, json_type_name
from agents.spec.nodes import CommonTraining, CurriculumSpec, EnvironmentSpec, ResourcesSpec
from agents.spec.training_section import training_errors

log = logging.getLogger(__name__)


class _RunChecks(_Checks):
    """Checks of the sections that say how the team trains and runs."""

    def environment(self, top: dict, ids: list[str] | None, require_environment: bool) -> None:
        sec = self.section(top, "environment", EnvironmentSpec)
        if sec is None:
            return
        p = "$.environment"
        name = self.string(sec, p, "name", max_len=100, choices=sorted(REGISTRY), nullable=True, default=None)
        params = sec.get("params", {})
        if not isinstance(params, dict):
            self.err(f"{p}.params", f"must be an object, got {json_type_name(params)}")
            return
        if name is None:
            if require_environment:
                self.err(
                    f"{p}.name",
                    "this is a design-only spec (no environment); choose an environment to train it",
                )
            if params:
                self.err(
                    f"{p}.params", "parameters need an environment; set $.environment.name or remove them"
                )
            return
        if not isinstance(name, str):
            return
        try:
            cls = env_class(name)
        except EnvironmentUnavailableError as exc:
            self.err(f"{p}.name", str(exc))
            return
        self.curriculum_levels(top, name, cls)
        self.breaker_step_limit(top, name, cls, sec.get("params"))
        n_before = len(self.errors) + self.dropped
        validate = getattr(cls, "validate_params", None)
        drawn_params = getattr(cls, "team_params", None)  # counts an environment takes from the canvas
        built = dict(params)  # the params the environment is built with
        if drawn_params is not None and ids is not None:
            try:
                built = dict(drawn_params(top["agents"], dict(params)))
            except Exception:  # validate_team below reports what is wrong with the team
                log.exception("team_params of environment %s failed", name)
        if validate is not None:
            try:
                found = list(validate(built))
            except Exception as exc:  # a bug in an environment's validator must not crash the web API
                log.exception("validate_params of environment %s failed", name)
                found = [
                    SpecError(
                        "$",
                        f"environment {name!r} could not check its parameters: {type(exc).__name__}: {exc}",
                    )
                ]
            for e in found:
                self.err(reroot(getattr(e, "path", "$"), f"{p}.params"), str(getattr(e, "message", e)))
        if ids is not None:
            for i, agent in enumerate(top["agents"]):
                if agent.get("intents") and not getattr(cls, "intent_catalogue", None):
                    message = f"agents of environment {name!r} own no intents: clear them"
                    self.err(f"$.agents[{i}].intents", message)
                if agent.get("clue") is not None and not getattr(cls, "informant_clues", False):
                    self.err(
                        f"$.agents[{i}].clue", f"agents of environment {name!r} hold no clue kind: clear it"
                    )
        team_check = getattr(cls, "validate_team", None)
        if team_check is not None:
            if ids is not None:
                edges = top.get("edges") if getattr(cls, "takes_edges", False) else None
                self.team(name, team_check, top["agents"], params, edges)
            return
        expected = getattr(cls, "expected_agents", None)
        if expected is not None and ids is not None and len(self.errors) + self.dropped == n_before:
            try:
                want = list(expected(dict(params)))
            except Exception as exc:
                log.exception("expected_agents of environment %s failed", name)
                self.err(
                    f"{p}.params",
                    f"environment {name!r} could not list its agents: {type(exc).__name__}: {exc}",
                )
                return
            missing = [a for a in want if a not in ids]
            extra = [a for a in ids if a not in want]
            if missing or extra:
                parts = []
                if missing:
                    parts.append(f"add agents {_quote_list(missing)}")
                if extra:
                    parts.append(f"remove agents {_quote_list(extra)}")
                self.err(
                    "$.agents",
                    f"environment {name!r} with these params has agents {_quote_list(want)}: "
                    + " and ".join(parts),
                )

    def team(self, name: str, check: Any, agents: list, params: dict, edges: Any = None) -> None:
        """An environment that builds its team from the agents says, in words, what the drawn team lacks
        (and, when it orders its team by the dependency edges, what is wrong with that order)."""
        try:
            found = list(
                check(agents, dict(params), edges=edges) if edges is not None else check(agents, dict(params))
            )
        except Exception as exc:  # a bug in an environment's check must not crash the web API
            log.exception("validate_team of environment %s failed", name)
            found = [SpecError("$.agents", f"environment {name!r} could not check the team: {exc}")]
        said_about_edges = any(str(e.path).startswith("$.edges") for e in self.errors)
        for e in found:
            path = str(getattr(e, "path", "$.agents"))
            if said_about_edges and path.startswith("$.edges"):
                continue  # the edges' own check (a cycle, an unknown agent) has spoken already
            self.err(path, str(getattr(e, "message", e)))

    def breaker_step_limit(self, top: dict, name: str, cls: type, params: Any) -> None:
        """The breaker's step limit is at least the environment's longest episode (`episode_limit`): a
        lower one trips on requests the team is still allowed to finish, so a long task never gets its
        answer from the team."""
        longest = episode_limit(cls, params if isinstance(params, dict) else {})
        sec = top.get("circuit_breaker")
        limit = (sec if isinstance(sec, dict) else {}).get(
            "step_limit"
        )  # unset: derived, `breaker_step_limit`
        if longest is None or not isinstance(limit, int) or isinstance(limit, bool) or limit >= longest:
            return
        self.err(
            "$.circuit_breaker.step_limit",
            f"{limit} is below the longest episode of environment {name!r} ({longest} steps, its max_steps): "
            f"the breaker would trip on requests the team may still finish; set it to {longest} or more, or leave "
            "it unset for the environment's own",
        )

    def curriculum_levels(self, top: dict, name: str, cls: type) -> None:
        """An enabled curriculum needs an environment with difficulty levels (`difficulty_levels`), within them."""
        sec = top.get("curriculum")
        if not isinstance(sec, dict) or sec.get("enabled") is not True:
            return
        levels = getattr(cls, "difficulty_levels", None)
        if not levels:
            self.err(
                "$.curriculum.enabled",
                f"environment {name!r} has no difficulty levels for a curriculum to move; set enabled to false",
            )
            return
        top_level = sec.get("max_level", CurriculumSpec.max_level)
        if isinstance(top_level, int) and not isinstance(top_level, bool) and top_level > levels - 1:
            self.err(
                "$.curriculum.max_level",
                f"environment {name!r} has difficulty levels 0..{levels - 1}; max_level must be at most {levels - 1}",
            )

    def training(self, top: dict) -> None:
        if "training" not in top:
            return
        sec, p = top["training"], "$.training"
        if not isinstance(sec, dict):
            self.err(p, f"must be an object, got {json_type_name(sec)}")
            return
        v = training_errors(self, sec, p)  # the algorithm's section, as pydantic checks it, in today's words
        if v["token_attention"] is True and v["train_adapters"] is True:
            self.err(
                f"{p}.token_attention", "pools the bare backbone's token states: not with train_adapters"
            )
        env = top.get("environment")
        env_name = env.get("name") if isinstance(env, dict) else None
        self.ppo_options(sec, p, env_name, v)
        if v["paraphrase_consistency"] not in (MISSING, _BAD, 0) and _cannot_paraphrase(env_name):
            self.err(
                f"{p}.paraphrase_consistency",
                "needs an environment that can re-phrase its clues (paraphrase_ids), e.g. number_guess",
            )
        if v["teacher"] == "expert" and env_name is not None and env_name not in ROUTING_ENVIRONMENTS:
            names = ", ".join(ROUTING_ENVIRONMENTS)
            self.err(f"{p}.teacher", f"needs labelled tickets: only a routing environment ({names}) has them")

    def resources(self, top: dict) -> None:
        sec = self.section(top, "resources", ResourcesSpec)
        if sec is None:
            return
        p = "$.resources"
        v = self.declared(sec, p, ResourcesSpec)
        processes, devices = v["processes"], v["devices"]
        training = top.get("training") if isinstance(top.get("training"), dict) else {}
        if isinstance(processes, int) and processes > 1:
            algorithm = training.get("algorithm", DEFAULT_ALGORITHM)
            if not supports_data_parallel(algorithm):
                self.err(
                    f"{p}.processes",
                    f"data-parallel training (processes > 1) runs {either('data_parallel')} teams; {algorithm!r} trains "
                    "in one process: set processes to 1",
                )
            comm = top.get("communication") if isinstance(top.get("communication"), dict) else {}
            if comm.get("protocol") == "hcp":
                self.err(
                    f"{p}.processes",
                    "the hcp protocol fits its codebook on one process's messages: set processes to 1 "
                    "or communication.protocol to null",
                )
        if isinstance(devices, int) and devices > 0:
            if isinstance(processes, int) and processes != devices:
                self.err(
                    f"{p}.devices", f"each process trains on its own GPU: set processes to {devices} too"
                )
            if training.get("device", CommonTraining.device) in ("cpu", "mps"):
                self.err(f"{p}.devices", 'GPUs need training.device "cuda" or "auto"')

    def ppo_options(self, sec: dict, p: str, env_name: Any, v: dict[str, Any]) -> None:
        """MAPPO/IPPO settings (`v`: the checked values): their cross-field rules, each at its own path."""
        algorithm = sec.get("algorithm", DEFAULT_ALGORITHM)
        teacher = v["teacher"]
        for key, what in (("teacher_fade_episodes", "fades"), ("teacher_clone_episodes", "clones")):
            if v[key] not in (MISSING, _BAD, 0) and teacher in (MISSING, "none"):
                self.err(f"{p}.{key}", f"{what} a teacher: set training.teacher first")
        if v["clone_kl"] not in (MISSING, _BAD, 0) and v["teacher_clone_episodes"] in (MISSING, _BAD, 0):
            self.err(
                f"{p}.clone_kl", "anchors to the teacher's clone: set training.teacher_clone_episodes first"
            )
        self.teacher_checkpoint(sec, p, teacher, v["teacher_checkpoint"])
        if v["counterfactual"] is True and not has_centralised_critic(algorithm):
            self.err(
                f"{p}.counterfactual",
                "the counterfactual baseline needs MAPPO's centralised critic: set algorithm to "
                f"{either('centralised_critic')}, not {algorithm!r}",
            )
        if teacher == "rules" and env_name is not None and env_name not in _scripted_environments():
            self.err(
                f"{p}.teacher",
                f"environment {env_name!r} ships no rule-scripted team; rules teachers exist for "
                + ", ".join(_scripted_environments()),
            )

    def teacher_checkpoint(self, sec: dict, p: str, teacher: Any, path: Any) -> None:
        """A checkpoint teacher names a directory holding a MAPPO checkpoint; other teachers name none."""
        if path in (MISSING, _BAD):
            path = ""
        if teacher != "checkpoint":
            if path:
                self.err(f"{p}.teacher_checkpoint", 'only read when teacher is "checkpoint"')
            return
        if not path:
            self.err(f"{p}.teacher_checkpoint", "name the teacher's run or checkpoint directory")
        elif not self.confined and places.find_checkpoint(path) is None:
            # On a server the web layer checks the teacher is one of the project's own runs instead.
            self.err(
                f"{p}.teacher_checkpoint",
                f"no MAPPO checkpoint at {path!r} (nor in its checkpoints/mappo/best or last)",
            )


def _scripted_environments() -> tuple[str, ...]:
    return SCRIPTED_ENVIRONMENTS


def _cannot_paraphrase(env_name: Any) -> bool:
    """Whether `env_name` is a registered environment without `paraphrase_ids`. A design-only spec (no
    environment) or an unknown or unimportable one is not judged here: $.environment reports those."""
    if not isinstance(env_name, str) or env_name not in REGISTRY:
        return False
    try:
        return not hasattr(env_class(env_name), "paraphrase_ids")
    except EnvironmentUnavailableError:
        return False
