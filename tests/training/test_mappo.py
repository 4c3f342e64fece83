"""MAPPO pieces (GAE, clipping, value normalisation, counterfactual baseline) and short training runs."""

import json
import math

import gymnasium
import numpy as np
import pytest
import torch

from training.events import EventStream
from training.mappo import (
    CentralCritic,
    CheckpointError,
    MappoConfig,
    MappoTeam,
    MappoTrainer,
    ValueNorm,
    compute_gae,
    counterfactual_advantage,
    explained_variance,
    ppo_clip_loss,
)

torch.set_num_threads(1)


class MatrixGame:
    """A one-step two-agent cooperative matrix game (PettingZoo ParallelEnv API): both get payoff[a_row, a_col]."""

    metadata = {"name": "matrix_game"}

    def __init__(self, payoff):
        self.payoff = np.asarray(payoff, dtype=np.float32)
        self.possible_agents = ["row", "col"]
        self.agents = []

    def action_space(self, agent):
        return gymnasium.spaces.Discrete(self.payoff.shape[self.possible_agents.index(agent)])

    def _obs(self):
        return {a: np.eye(2, dtype=np.float32)[i] for i, a in enumerate(self.possible_agents)}

    def reset(self, seed=None, options=None):
        self.agents = list(self.possible_agents)
        return self._obs(), {a: {} for a in self.agents}

    def state(self):
        return np.ones(2, dtype=np.float32)

    def step(self, actions):
        r = float(self.payoff[actions["row"], actions["col"]])
        self.agents = []
        info = {"success": r == float(self.payoff.max())}
        return (
            self._obs(),
            {a: r for a in actions},
            {a: True for a in actions},
            {a: False for a in actions},
            {a: info for a in actions},
        )


def test_gae_matches_a_hand_computed_case():
    # one episode of 3 steps, then a 1-step episode; gamma 0.9, lambda 0.8
    rewards = torch.tensor([1.0, 0.0, 2.0, 5.0])
    values = torch.tensor([0.5, 1.0, 1.5, 4.0])
    dones = torch.tensor([0.0, 0.0, 1.0, 1.0])
    adv, ret = compute_gae(rewards, values, dones, gamma=0.9, lam=0.8)
    d2 = 2.0 - 1.5  # terminal: no bootstrap
    d1 = 0.0 + 0.9 * 1.5 - 1.0
    d0 = 1.0 + 0.9 * 1.0 - 0.5
    a2 = d2
    a1 = d1 + 0.72 * a2
    a0 = d0 + 0.72 * a1
    assert adv.tolist() == pytest.approx([a0, a1, a2, 1.0])
    assert ret.tolist() == pytest.approx([a0 + 0.5, a1 + 1.0, a2 + 1.5, 5.0])
    # per-agent columns are handled independently
    adv2, _ = compute_gae(rewards[:, None].repeat(1, 2), values[:, None].repeat(1, 2), dones, 0.9, 0.8)
    assert adv2[:, 1].tolist() == pytest.approx(adv.tolist())


def test_explained_variance_scores_how_much_of_the_returns_the_critic_predicts():
    returns = torch.tensor([0.0, 1.0, 2.0, 3.0])
    assert explained_variance(returns.clone(), returns) == pytest.approx(1.0)
    assert explained_variance(torch.full((4,), 1.5), returns) == pytest.approx(0.0)  # just the mean
    assert explained_variance(returns.flip(0), returns) == pytest.approx(-3.0)  # worse than the mean
    assert math.isnan(explained_variance(torch.zeros(3), torch.ones(3)))  # constant returns: undefined


def test_ppo_clipping_stops_the_gradient_outside_the_trust_region():
    old = torch.zeros(4)
    new = torch.log(torch.tensor([1.5, 0.5, 1.1, 0.9])).requires_grad_()
    adv = torch.tensor([1.0, -1.0, 1.0, -1.0])
    loss = ppo_clip_loss(new, old, adv, clip=0.2)
    loss.backward()
    # ratio 1.5 with A>0 and 0.5 with A<0 are clipped: no gradient; inside the region the gradient is -A·ρ/4
    assert new.grad[0] == 0 and new.grad[1] == 0
    assert new.grad[2] == pytest.approx(-1.1 / 4) and new.grad[3] == pytest.approx(0.9 / 4)
    expected = -(1.2 * 1 + (-1.0) * 0.8 + 1.1 - 0.9) / 4  # min picks the pessimistic term
    assert float(loss.detach()) == pytest.approx(expected)


def test_value_norm_tracks_mean_and_std_and_inverts():
    torch.manual_seed(0)
    norm = ValueNorm((2,), beta=0.99)
    data = torch.randn(4000, 2) * torch.tensor([3.0, 0.5]) + torch.tensor([10.0, -2.0])
    for chunk in data.chunk(40):
        norm.update(chunk)
    mean, std = norm.stats()
    assert mean.tolist() == pytest.approx([10.0, -2.0], abs=0.3)
    assert std.tolist() == pytest.approx([3.0, 0.5], rel=0.15)
    x = torch.tensor([[4.0, 1.0]])
    assert norm.denormalize(norm.normalize(x))[0].tolist() == pytest.approx([4.0, 1.0])


def test_counterfactual_baseline_removes_the_other_agents_noise():
    """R = f(a_row) + g(a_col): the row agent's COMA advantage must not depend on what col did."""
    f = torch.tensor([1.0, 0.0, 0.0])
    g = torch.tensor([0.0, 0.0, 5.0])
    payoff = f[:, None] + g[None, :]
    pi_row = torch.tensor([0.2, 0.5, 0.3])
    pi_col = torch.tensor([0.4, 0.3, 0.3])
    torch.manual_seed(0)
    a_row = torch.multinomial(pi_row, 2000, replacement=True)
    a_col = torch.multinomial(pi_col, 2000, replacement=True)
    q_row = payoff[:, a_col].T  # exact Q_row(s, a_col, ·): [B, 3]
    adv = counterfactual_advantage(q_row, pi_row.expand(2000, 3), a_row)
    assert torch.allclose(adv, f[a_row] - (pi_row * f).sum())
    # against a state-value baseline the row agent's advantage carries col's variance
    v = (pi_row[:, None] * pi_col[None, :] * payoff).sum()
    adv_v = payoff[a_row, a_col] - v
    assert adv.var() < 0.1 * adv_v.var()


def make_trainer(payoff, events=None, **cfg):
    base = dict(
        updates=30,
        episodes_per_update=32,
        epochs=4,
        minibatches=2,
        lr=0.01,
        eval_every=0,
        checkpoint_every=0,
        entropy_coef=0.01,
        seed=0,
    )
    base.update(cfg)
    return MappoTrainer(
        MappoConfig(**base),
        MappoTeam(
            lambda split: MatrixGame(payoff),
            events=events,
            success_fn=lambda info: info.get("success", False),
        ),
    )


COORDINATION = [[1.0, 0.0, 0.0], [0.0, 0.3, 0.0], [0.0, 0.0, 0.3]]
ADDITIVE = [[0.0, 0.2, 1.0], [0.5, 0.7, 1.5], [0.1, 0.3, 1.1]]  # f(row) + g(col): best is (1, 2)


@pytest.mark.parametrize(
    "game, cfg",
    [
        (COORDINATION, {"algorithm": "mappo"}),
        (COORDINATION, {"algorithm": "mappo", "counterfactual": True}),
        (COORDINATION, {"algorithm": "mappo", "sharing": "shared"}),
        (COORDINATION, {"algorithm": "mappo", "sharing": "independent"}),
        (ADDITIVE, {"algorithm": "ippo"}),
        (ADDITIVE, {"algorithm": "mappo", "counterfactual": True}),
    ],
)
def test_matrix_game_is_learned(game, cfg):
    trainer = make_trainer(game, updates=20, **cfg)
    before = trainer.evaluate(episodes=1)["return"]
    trainer.train()
    after = trainer.evaluate(episodes=1)
    assert after["success"] == 1.0, (cfg, before, after)


def test_update_periods_keep_resting_agents_parameters():
    trainer = make_trainer(COORDINATION, updates=1, sharing="independent")
    trainer.update_periods = {"col": 2}
    trainer.update_index = 1  # col rests on odd updates
    head = trainer.actor.head.weight.detach().clone()
    batch, _ = trainer.collect()
    trainer.update(batch)
    after = trainer.actor.head.weight.detach()
    assert torch.equal(after[1], head[1])
    assert not torch.equal(after[0], head[0])


def test_checkpoint_resume_and_corruption(tmp_path):
    got = []
    trainer = make_trainer(COORDINATION, updates=4, events=EventStream([got.append]), checkpoint_every=2)
    stops = iter([False, False, True])
    result = trainer.train(should_stop=lambda: next(stops, True), checkpoint_dir=tmp_path)
    assert result["status"] == "cancelled" and trainer.update_index == 2
    assert [e.payload["status"] for e in got if e.type == "finished"] == ["cancelled"]
    resumed = make_trainer(COORDINATION, updates=4)
    assert resumed.load_checkpoint(tmp_path / "last") == 2
    for p, q in zip(trainer.actor.parameters(), resumed.actor.parameters(), strict=True):
        assert torch.equal(p, q)
    resumed.train(checkpoint_dir=tmp_path)
    assert resumed.update_index == 4
    (tmp_path / "last" / "model.safetensors").write_bytes(b"not a safetensors file")
    with pytest.raises(CheckpointError, match="corrupted"):
        make_trainer(COORDINATION).load_checkpoint(tmp_path / "last")
    with pytest.raises(CheckpointError, match="counterfactual"):
        make_trainer(COORDINATION, counterfactual=True).load_checkpoint(
            tmp_path / "best_missing"
        ) if False else make_trainer(COORDINATION, counterfactual=True).load_checkpoint(_fresh_ckpt(tmp_path))


def _fresh_ckpt(tmp_path):
    t = make_trainer(COORDINATION, updates=1)
    return t.save_checkpoint(tmp_path / "fresh")


def test_agent_specific_critic_reads_each_agents_own_observation():
    torch.manual_seed(0)
    critic = CentralCritic(state_dim=5, n_agents=3, hidden=16, obs_dim=4)
    state, obs = torch.randn(2, 5), torch.randn(2, 3, 4)
    v = critic(state, obs)
    assert v.shape == (2, 3)
    cut = obs.clone()
    cut[:, 1] = 0.0  # agent 1 saw less; the others saw the same
    w = critic(state, cut)
    assert not torch.allclose(v[:, 1], w[:, 1])
    assert torch.allclose(v[:, [0, 2]], w[:, [0, 2]])
    # the state-only critic ignores observations altogether
    plain = CentralCritic(state_dim=5, n_agents=3, hidden=16)
    assert torch.equal(plain(state, obs), plain(state, cut))


def test_unknown_settings_are_named():
    with pytest.raises(ValueError, match="sharing"):
        MappoConfig(sharing="partial")
    with pytest.raises(ValueError, match="critic_input"):
        MappoConfig(critic_input="obs")
    with pytest.raises(ValueError, match=r"unknown MAPPO setting\(s\) \['lr_'\]"):
        MappoConfig.from_dict({"lr_": 0.1})


@pytest.mark.slow
def test_run_spec_trains_a_team_spec_with_events_and_resumes(tmp_path):
    import json
    from pathlib import Path

    from agents.spec import load_spec
    from training.mappo import run_spec

    doc = json.loads((Path(__file__).resolve().parents[2] / "examples" / "number_guessing.json").read_text())
    doc["training"].update(
        {"algorithm": "mappo", "episodes": 48, "batch_size": 16, "eval_every": 0, "checkpoint_every": 32}
    )
    doc["reward"] = {"preset": "hierarchical", "terms": []}
    team = load_spec(doc)
    got = []
    result = run_spec(team, tmp_path, events=EventStream([got.append]))
    assert result["status"] == "succeeded"
    kinds = [e.type for e in got if e.type != "progress"]  # preparing the team reports before "started"
    assert kinds[0] == "started" and kinds[-1] == "finished" and kinds.count("metrics") >= 3
    assert (tmp_path / "checkpoints" / "mappo" / "last" / "model.safetensors").is_file()
    again = []
    run_spec(team, tmp_path, events=EventStream([again.append]))
    assert next(e for e in again if e.type == "started").payload["resumed_from"] == 3
    assert [e.type for e in again if e.type == "metrics"] == []  # nothing left to train


@pytest.mark.slow
def test_short_mappo_run_on_customer_service_beats_random(tmp_path):
    """Fixed seed, 60 tickets, surface text features (no backbone): warm start from logged rule-team
    episodes, then PPO updates; the team must stay far above a random team."""
    from agents.envs.customer_service.env import CustomerServiceEnv, evaluate
    from agents.envs.customer_service.rules import KeywordRouter, ScriptedTeam
    from agents.envs.customer_service.tickets import load_tickets
    from training.mappo import Featurizer
    from training.offline import load_episodes, log_episodes, pretrain

    tickets = load_tickets("train")[:60]
    featurizer = Featurizer(None, skip=("status", "action_mask"), char_ngrams=512)
    cfg = MappoConfig(
        updates=4,
        episodes_per_update=16,
        epochs=2,
        minibatches=2,
        lr=3e-4,
        hidden=64,
        explore_share=0.0,
        eval_every=0,
        checkpoint_every=0,
        seed=0,
    )
    trainer = MappoTrainer(
        cfg,
        MappoTeam(
            lambda split: CustomerServiceEnv(tickets=tickets),
            featurizer=featurizer,
            success_fn=lambda info: info["exact_match"],
        ),
    )
    team = ScriptedTeam(KeywordRouter())
    logs = log_episodes(CustomerServiceEnv(tickets=tickets), team.actions, 120, tmp_path / "rules.jsonl")
    pretrain(trainer, load_episodes(logs), epochs=30, lr=3e-3, batch_size=64)
    trainer.train()
    env = CustomerServiceEnv(tickets=tickets, shuffle=False)
    rng = np.random.default_rng(0)
    random_team = evaluate(env, lambda obs: {a: int(rng.integers(env.action_space(a).n)) for a in obs})
    learned = evaluate(env, trainer.policy())
    assert learned["intent_f1"] > random_team["intent_f1"] + 0.25, (learned, random_team)
    assert learned["exact_match"] > random_team["exact_match"] + 0.25, (learned, random_team)


def test_a_rollout_batch_stacks_named_steps_field_by_field():
    from training.mappo.rollout import Batch, Step

    trainer = make_trainer(COORDINATION, updates=1)
    record: list = []
    for seed in range(3):
        trainer.run_episode(seed=seed, record=record)
    assert [type(step) for step in record] == [Step] * 3  # one step per episode of the matrix game
    batch = Batch.from_steps(record, with_heard=False)
    assert batch.obs.shape[:2] == (3, 2) and batch.actions.shape == (3, 2)
    assert torch.equal(batch.actions[1], record[1].actions) and torch.equal(batch.logp[2], record[2].logp)
    assert batch.dones.tolist() == [1.0, 1.0, 1.0] and batch.beta.dtype == torch.float32
    assert batch.heard is None and (batch.teacher_actions == -1).all()  # no link, no teacher


def test_masked_customer_service_actions_are_never_sampled():
    """With `mask_invalid`, an untrained (near-uniform) team never approves an empty draft nor repeats an
    answer: the env's action mask reaches the sampling."""
    from agents.envs.customer_service.env import CustomerServiceEnv
    from agents.envs.customer_service.tickets import load_tickets
    from training.mappo import Featurizer

    tickets = load_tickets("train")[:20]
    cfg = MappoConfig(updates=1, episodes_per_update=4, hidden=16, eval_every=0, checkpoint_every=0, seed=0)
    trainer = MappoTrainer(
        cfg,
        MappoTeam(
            lambda split: CustomerServiceEnv(tickets=tickets, mask_invalid=True),
            featurizer=Featurizer(None, skip=("status", "action_mask"), char_ngrams=64),
        ),
    )
    for seed in range(30):
        result = trainer.run_episode(seed=seed)
        assert result.steps >= 2  # approving at step 1 would approve the empty draft
        assert result.info["duplicates"] == 0


def test_curriculum_level_decides_which_customer_service_tickets_are_trained_on():
    from agents.envs.customer_service.env import CustomerServiceEnv
    from agents.envs.customer_service.tickets import load_tickets
    from training.curriculum import AdaptiveCurriculum, CurriculumConfig
    from training.mappo import Featurizer

    tickets = load_tickets("train")[:80]
    difficulty = {t.id: t.difficulty for t in tickets}
    cfg = MappoConfig(updates=1, episodes_per_update=24, hidden=16, eval_every=0, checkpoint_every=0, seed=0)
    curriculum = AdaptiveCurriculum(CurriculumConfig(window=1000))
    trainer = MappoTrainer(
        cfg,
        MappoTeam(
            lambda split: CustomerServiceEnv(tickets=tickets, mask_invalid=True),
            featurizer=Featurizer(None, skip=("status", "action_mask"), char_ngrams=64),
            success_fn=lambda info: info["exact_match"],
            curriculum=curriculum,
        ),
    )
    _, easy = trainer.collect()
    assert {difficulty[r.info["ticket_id"]] for r in easy} == {0}
    curriculum.level = 3
    _, all_levels = trainer.collect()
    assert max(difficulty[r.info["ticket_id"]] for r in all_levels) > 0
    trainer.train()
    assert trainer.history[-1]["curriculum_level"] == 3  # every update's metrics show the level


def test_the_starting_policy_is_the_first_best_candidate(tmp_path):
    # validation rewards every joint action but the one training converges to: learning makes the run
    # worse on held-out episodes, so `best` must stay the policy it started from (update 0)
    anti = [[0.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
    trainer = make_trainer(COORDINATION, updates=12, eval_every=4)
    trainer.env_fn = lambda split: MatrixGame(anti if split == "validation" else COORDINATION)
    assert trainer.evaluate("validation", episodes=1)["success"] == 1.0  # the start does not play (0, 0)
    trainer.train(checkpoint_dir=tmp_path)
    assert trainer.evaluate("validation", episodes=1)["success"] == 0.0  # training learned (0, 0)
    best = json.loads((tmp_path / "best" / "state.json").read_text())
    assert best["update_index"] == 0 and best["metrics"]["val_success"] == 1.0
    resumed = make_trainer(COORDINATION, updates=12, eval_every=4)
    resumed.load_checkpoint(tmp_path / "best")
    assert resumed.best_score == 1.0


def test_critic_warmup_updates_fit_the_critic_and_leave_the_actors_as_they_started():
    def moved(updates):
        trainer = make_trainer(COORDINATION, updates=updates, critic_warmup_updates=2)
        actor = [p.detach().clone() for p in trainer.actor.parameters()]
        critic = [p.detach().clone() for p in trainer.critic.parameters()]
        trainer.train()
        changed = [not torch.equal(p, q) for p, q in zip(actor, trainer.actor.parameters(), strict=True)]
        fitted = [not torch.equal(p, q) for p, q in zip(critic, trainer.critic.parameters(), strict=True)]
        return any(changed), any(fitted)

    assert moved(2) == (False, True)  # two warm-up updates: the critic learns, the actors stay
    assert moved(3) == (True, True)  # the third update is PPO's
    with pytest.raises(ValueError, match="critic_warmup_updates"):
        make_trainer(COORDINATION, critic_warmup_updates=-1)


def test_a_checkpoint_with_other_action_spaces_is_refused_naming_the_agents_that_changed(tmp_path):
    from training.mappo.checkpoint import check_fits

    state = {"agents": ["a", "b"], "n_actions": [4, 3], "config": {}}
    with pytest.raises(CheckpointError, match=r"trained for agents \['a', 'b'\], not \['a', 'c'\]"):
        check_fits(tmp_path, state, ["a", "c"], [4, 3], None)
    with pytest.raises(CheckpointError, match=r"other action spaces \(b 3 → 9 actions\).*deal_roles.*retrain"):
        check_fits(tmp_path, state, ["a", "b"], [4, 9], None)
