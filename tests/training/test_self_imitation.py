"""Self-imitation from the dual replay: returns, the clipped loss, what the replay keeps, the trainer's use."""

import pytest
import torch

from training.mappo import Batch
from training.replay import DualReplay, ReplayConfig
from training.self_imitation import discounted_returns, remember, self_imitation_loss

torch.set_num_threads(1)


def test_discounted_returns_restart_at_every_episode_end():
    rewards = torch.tensor([[1.0], [2.0], [4.0], [8.0]])
    dones = torch.tensor([False, True, False, True])
    got = discounted_returns(rewards, dones, gamma=0.5)
    assert got.squeeze(-1).tolist() == [1.0 + 0.5 * 2.0, 2.0, 4.0 + 0.5 * 8.0, 8.0]


def test_only_steps_that_beat_the_critic_are_imitated():
    logits = torch.zeros(3, 2, requires_grad=True)
    chosen = torch.log_softmax(logits, -1)[:, :1]  # log π(a = 0): three steps × one agent
    returns = torch.tensor([[2.0], [0.0], [5.0]])
    values = torch.ones(3, 1)
    mask = torch.tensor([[True], [True], [False]])  # the third step is absent: its big gap must not count
    loss, better = self_imitation_loss(chosen, values, returns, mask, value_coef=0.0)
    loss.backward()
    assert better == pytest.approx(0.5)  # of the two present steps, one did better than expected
    assert logits.grad[0, 0] < 0  # descending the loss raises log π(a = 0) where the return beat V
    assert torch.all(logits.grad[1:] == 0)  # a worse return and an absent step pull nothing
    assert float(loss.detach()) == pytest.approx(-(1.0 * torch.log(torch.tensor(0.5))) / 2)


def one_step_batch(rewards: list[float]) -> Batch:
    T, N = len(rewards), 2
    return Batch(
        obs=torch.arange(T, dtype=torch.float32).reshape(T, 1, 1).expand(T, N, 1).clone(),
        state=torch.zeros(T, 1),
        present=torch.ones(T, N, dtype=torch.bool),
        valid=torch.ones(T, N, 3, dtype=torch.bool),
        actions=torch.zeros(T, N, dtype=torch.long),
        logp=torch.zeros(T, N),
        noise=torch.zeros(T, N, N),
        beta=torch.zeros(T),
        rewards=torch.tensor(rewards).unsqueeze(-1).expand(T, N).clone(),
        dones=torch.ones(T, dtype=torch.bool),
        teacher_actions=torch.full((T, N), -1),
    )


def test_the_elite_buffer_keeps_the_best_episodes_steps():
    replay = DualReplay(ReplayConfig(recent_capacity=3, elite_capacity=2))
    rewards = [0.1, 0.9, 0.2, 0.8, 0.0]
    remember(replay, one_step_batch(rewards), rewards, gamma=0.99)
    assert [int(s.obs[0, 0]) for s in replay.recent] == [2, 3, 4]  # the last three steps
    assert sorted(int(s.obs[0, 0]) for s in replay.elite) == [1, 3]  # the two best episodes
    assert sorted(float(s.returns[0]) for s in replay.elite) == pytest.approx([0.8, 0.9])


def test_trainer_replays_every_step_and_reports_self_imitation():
    from tests.training.test_mappo import COORDINATION, make_trainer

    trainer = make_trainer(COORDINATION, updates=2, self_imitation=1.0, replay_capacity=40)
    trainer.train()
    assert len(trainer.replay) == 40 and len(trainer.replay.elite) == 10  # 64 one-step episodes, capped
    metrics = trainer.history[-1]
    assert metrics["sil_loss"] > 0 and 0 < metrics["sil_better_share"] <= 1
    assert "sil_loss" not in make_trainer(COORDINATION, updates=1).update(
        make_trainer(COORDINATION).collect()[0]
    )
    with pytest.raises(ValueError, match="self_imitation"):
        make_trainer(COORDINATION, self_imitation=-1.0)


def test_a_team_spec_turns_self_imitation_on():
    import json
    from pathlib import Path

    from agents.spec import load_spec
    from training.mappo import config_from_spec

    doc = json.loads((Path(__file__).resolve().parents[2] / "examples" / "customer_service.json").read_text())
    assert config_from_spec(load_spec(doc)).self_imitation == 0.0
    doc["training"]["self_imitation"] = 0.5
    assert config_from_spec(load_spec(doc)).self_imitation == 0.5
