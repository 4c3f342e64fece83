"""REINFORCE with a baseline for a team that learns whom to listen to (docs/design.md#reinforce-communication).

The team (agents.policy.TeamPolicy) sits on one frozen backbone; each training update plays
`batch_size` parallel one-step episodes, e.g. of the number-guessing task (docs/design.md#number-guessing).

Read top to bottom, one module each:

1. `config` — `ReinforceCommConfig`, every hyper-parameter, read from a team spec.
2. `episodes` — batches of episodes from the environment's fast path, as embeddings.
3. `update` — one REINFORCE step (the loss, written out) and its schedules; `UpdateStats`.
4. `loop` — `run`: sample → update → metrics → evaluation → checkpoint, with its events; `evaluate`.
5. `checkpointing` — save and resume bit-for-bit.
6. `trainer` — `ReinforceCommTrainer`, which builds the state the parts above share (it is a
   `training.trainer.Trainer`; `TrainResult` and `TrainingError` come from there), and `build_trainer`,
   which training.algorithms registers for "reinforce_comm".
"""

from training.reinforce_comm.config import ReinforceCommConfig
from training.reinforce_comm.trainer import ReinforceCommTrainer, build_trainer
from training.reinforce_comm.update import UpdateStats
from training.trainer import TrainingError, TrainResult

__all__ = [
    "ReinforceCommConfig",
    "ReinforceCommTrainer",
    "build_trainer",
    "TrainResult",
    "TrainingError",
    "UpdateStats",
]
