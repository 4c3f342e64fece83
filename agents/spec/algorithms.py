"""The training algorithms a spec may name (`training.algorithm`), each with what it can do.

This table is the one place an algorithm's capabilities are declared; the validator, the trainers, the
runtime and the web layer ask the predicates below instead of naming algorithms themselves:

    is_ppo("ippo")                     # trained by training.mappo; takes the PPO settings
    readers("teacher")                 # ("mappo", "ippo"): the algorithms whose options model has it
    is_deployable("reinforce_comm")    # False: serving.runtime cannot serve its checkpoints
    names_with("data_parallel")        # ("reinforce_comm", "mappo", "ippo")
    either("ppo")                      # "mappo or ippo", for messages

`options` is the options model the algorithm reads beyond the common ones (agents.spec.algorithm_options):
who reads an option is declared there and nowhere else. Each algorithm's builder is registered by its
package in `training.algorithms` (the library's layers keep agents below training); a test checks the two
tables name the same algorithms. The algorithms are explained in docs/design.md#reinforce-communication
and docs/design.md#mappo.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from agents.spec.algorithm_options import PpoOptions, ReinforceCommOptions

__all__ = [
    "AlgorithmInfo",
    "ALGORITHM_TABLE",
    "ALGORITHMS",
    "DEFAULT_ALGORITHM",
    "CAPABILITIES",
    "algorithm_info",
    "algorithm_catalog",
    "options_model",
    "readers",
    "reads",
    "names_with",
    "either",
    "is_ppo",
    "is_deployable",
    "supports_data_parallel",
    "has_centralised_critic",
    "sends_messages",
]


@dataclass(frozen=True)
class AlgorithmInfo:
    """One training algorithm and its declared capabilities."""

    name: str
    options: type  # the options model it reads beyond the common training options
    ppo: bool  # trained by training.mappo: the PPO settings (self_imitation, policy_sharing, teacher) apply
    deployable: bool  # serving.runtime.TeamRuntime.from_spec_checkpoint serves its checkpoints
    data_parallel: bool  # trains over resources.processes > 1 ranks (training.distributed)
    centralised_critic: bool  # one critic sees the whole state (the counterfactual baseline needs it)
    messages: bool  # agents send learned messages to each other (ippo's agents act alone)
    description: str

    def to_dict(self) -> dict[str, Any]:
        """This algorithm as plain JSON values (for the designer's catalogue): its capabilities and the
        names of the options only it and its kind read."""
        row = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "options"}
        return {**row, "options": [f.name for f in fields(self.options)]}


ALGORITHM_TABLE: tuple[AlgorithmInfo, ...] = (
    AlgorithmInfo(
        name="reinforce_comm",
        options=ReinforceCommOptions,
        ppo=False,
        deployable=False,
        data_parallel=True,
        centralised_critic=False,
        messages=True,
        description="REINFORCE with learned attention communication (the default)",
    ),
    AlgorithmInfo(
        name="mappo",
        options=PpoOptions,
        ppo=True,
        deployable=True,
        data_parallel=True,
        centralised_critic=True,
        messages=True,
        description="multi-agent PPO: per-agent actors, one centralised critic, learned communication",
    ),
    AlgorithmInfo(
        name="ippo",
        options=PpoOptions,
        ppo=True,
        deployable=True,
        data_parallel=True,
        centralised_critic=False,
        messages=False,
        description="independent PPO: each agent learns with its own critic and no communication",
    ),
)
"""Every algorithm `training.algorithm` accepts, in the order the designer lists them."""

ALGORITHMS: tuple[str, ...] = tuple(a.name for a in ALGORITHM_TABLE)
"""The names `training.algorithm` accepts."""

DEFAULT_ALGORITHM = "reinforce_comm"
"""The algorithm of a spec whose training section names none."""

CAPABILITIES: tuple[str, ...] = tuple(
    f.name for f in fields(AlgorithmInfo) if f.name not in ("name", "options", "description")
)
"""The boolean capability fields of AlgorithmInfo."""

_BY_NAME = {a.name: a for a in ALGORITHM_TABLE}


def algorithm_info(name: str) -> AlgorithmInfo:
    """The table's entry for `name` (KeyError for an unknown algorithm)."""
    return _BY_NAME[name]


def _has(name: Any, capability: str) -> bool:
    """Whether `name` is a known algorithm with `capability`; False for anything else, whatever its type."""
    info = _BY_NAME.get(name) if isinstance(name, str) else None
    return info is not None and bool(getattr(info, capability))


def names_with(capability: str) -> tuple[str, ...]:
    """The algorithms with `capability` (one of CAPABILITIES), in table order."""
    if capability not in CAPABILITIES:
        raise ValueError(f"unknown capability {capability!r}; choose one of {', '.join(CAPABILITIES)}")
    return tuple(a.name for a in ALGORITHM_TABLE if getattr(a, capability))


def either(capability: str, *, quoted: bool = False) -> str:
    """The algorithms with `capability` as a message names them: "mappo or ippo" ("'mappo' or 'ippo'")."""
    return " or ".join(repr(n) if quoted else n for n in names_with(capability))


def options_model(name: str) -> type:
    """The options model algorithm `name` reads beyond the common options (KeyError for an unknown one)."""
    return _BY_NAME[name].options


def readers(option: str) -> tuple[str, ...]:
    """The algorithms that read `option`, in table order, when an options model declares it; () for a
    common option, which every algorithm reads."""
    return tuple(a.name for a in ALGORITHM_TABLE if option in {f.name for f in fields(a.options)})


def reads(name: str, option: str) -> bool:
    """Whether algorithm `name` reads training option `option` (a common option or one of its model's)."""
    found = readers(option)
    return not found or name in found


def is_ppo(name: Any) -> bool:
    """Trained by the PPO trainer (training.mappo), so the PPO settings apply."""
    return _has(name, "ppo")


def is_deployable(name: Any) -> bool:
    """The runtime (serving.runtime) can serve a team trained with it."""
    return _has(name, "deployable")


def supports_data_parallel(name: Any) -> bool:
    """It trains over several data-parallel processes (resources.processes > 1)."""
    return _has(name, "data_parallel")


def has_centralised_critic(name: Any) -> bool:
    """Its critic sees the whole state (what the counterfactual baseline needs)."""
    return _has(name, "centralised_critic")


def algorithm_catalog() -> list[dict[str, Any]]:
    """The table as plain JSON, for the designer."""
    return [a.to_dict() for a in ALGORITHM_TABLE]


def sends_messages(name: Any) -> bool:
    """Its agents exchange learned messages (the communication layer applies)."""
    return _has(name, "messages")
