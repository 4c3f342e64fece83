"""MAPPO for agent teams: clipped PPO with GAE, a centralised critic, learned communication (docs/design.md#mappo).

Read top to bottom, one module each:

1. `config` — `MappoConfig`, every hyper-parameter.
2. `losses` — the PPO pieces, small and pure: `compute_gae`, `ppo_clip_loss`, `ValueNorm`,
   `counterfactual_advantage`.
3. `networks` — `TeamActor` (decentralised actors: each agent's observation embedding plus the messages it
   receives through `CommAttention`; three policy-sharing modes), `CentralCritic` (V_i(s) over the global
   state `env.state()`), `IndependentCritic` (V_i(o_i), for independent PPO), `CounterfactualCritic`
   (COMA's Q_i(s, a_-i, ·) for credit assignment).
4. `featurizer` — observations and states as vectors (text through the frozen backbone, cached).
5. `team` — `MappoTeam`: what a run trains besides its hyper-parameters (environment, featurizer, links,
   reward, teacher, companions); `MappoTrainer(config, team)` takes the two.
6. `trainer` — `MappoTrainer`: the update (PPO's loss in it, the optional terms as named hooks:
   `_q_critic_loss`, `_teacher_loss`, `_updating_agents`, `_self_imitation`), evaluation, the loop; with
   one mixin, `rollout` (episodes on a PettingZoo `ParallelEnv`, each step a named `Step`, stacked into a
   `Batch`); the functions of `learning_aids` (the teacher's fading weight, self-imitation); and one part
   it holds, `data_parallel` (what a group of ranks shares: minibatches, gradients, statistics, the start,
   the stop, metrics).
7. `checkpoint` — the one checkpoint format (safetensors + JSON) and resuming from it.
8. `policy` — `TeamPolicy`, the trained team as inference needs it (reader, actors, link, calibration).
9. `from_spec` — a team spec to the trainer's parts (config, links, featurizer, reward, schedule, teacher);
   `load_policy`, a spec's checkpoint as the `TeamPolicy` a runtime serves.
10. `build` — `build_trainer`, what `training.api.train` calls (through training.algorithms): the spec's
   `MappoTrainer`, which is itself the `training.trainer.Trainer` (`resume`, `run`); `run_spec`, the same
   in one call.

Algorithms (`algorithm`):
- "mappo": centralised critic V_i(s) over `env.state()`, actors over o_i plus received messages.
- "ippo": independent PPO, the comparison baseline: each agent learns alone from its own observation
  with its own critic V_i(o_i), its own parameters, and no communication (docs/design.md#mappo).
With `counterfactual=True` the advantage of agent i is COMA's: Q_i(s, a) − Σ_a' π_i(a'|o_i) Q_i(s, (a_-i, a')),
"how much better was my action than my average action, the others' actions held fixed" (docs/design.md#counterfactual-baseline).
With `self_imitation` > 0 every training step also goes into the dual replay and, after the PPO epochs,
replayed steps whose return beat the critic are imitated (`training.self_imitation`).

Policy sharing (`sharing`, docs/design.md#policy-sharing): "independent" (each agent its own actor network), "lora"
(default: one shared actor trunk plus a per-agent low-rank adapter on each trunk layer and a per-agent
head — the same idea as the backbone's per-agent PEFT LoRA, applied to the policy network), "shared"
(one network for everyone, told apart by a learned role embedding).

Observations may be text (embedded by the frozen shared backbone, cached) or numeric vectors; the global
state likewise. Agents' action spaces must be `Discrete`; smaller ones are padded and masked.
"""

from training.mappo.build import build_trainer, run_spec
from training.mappo.checkpoint import CheckpointError
from training.mappo.config import MappoConfig
from training.mappo.featurizer import CLAUSE_SLOTS, Featurizer, clause_featurizer, featurizer_from_spec
from training.mappo.from_spec import config_from_spec, links_from_spec, load_policy, trained_team
from training.mappo.losses import (
    ValueNorm,
    compute_gae,
    counterfactual_advantage,
    explained_variance,
    ppo_clip_loss,
)
from training.mappo.networks import CentralCritic, CounterfactualCritic, IndependentCritic, TeamActor
from training.mappo.policy import TeamPolicy
from training.mappo.team import MappoTeam
from training.mappo.trainer import Batch, EpisodeResult, MappoTrainer

__all__ = [
    "CLAUSE_SLOTS", "Batch", "build_trainer", "CentralCritic", "CheckpointError", "CounterfactualCritic", "EpisodeResult",
    "Featurizer", "IndependentCritic", "MappoConfig", "MappoTeam", "MappoTrainer", "TeamActor", "TeamPolicy", "ValueNorm",
    "clause_featurizer", "compute_gae", "config_from_spec", "counterfactual_advantage", "explained_variance",
    "featurizer_from_spec", "links_from_spec", "load_policy", "ppo_clip_loss", "run_spec", "trained_team",
]  # fmt: skip
