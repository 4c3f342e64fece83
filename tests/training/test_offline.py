"""Offline pre-training: log a policy's episodes, clone them, and reject malformed logs clearly."""

import json

import pytest
import torch
from test_mappo import COORDINATION, MatrixGame, make_trainer

from training.offline import OfflineDataError, load_episodes, log_episodes, pretrain

torch.set_num_threads(1)


def test_logged_expert_is_cloned_before_any_online_update(tmp_path):
    path = log_episodes(
        MatrixGame(COORDINATION), lambda obs: {a: 0 for a in obs}, 20, tmp_path / "logs.jsonl"
    )
    episodes = load_episodes(path)
    assert len(episodes) == 20 and episodes[0]["steps"][0]["actions"] == {"row": 0, "col": 0}
    trainer = make_trainer(COORDINATION, updates=1)
    assert trainer.evaluate(episodes=1)["success"] == 0.0  # the untrained team miscoordinates
    stats = pretrain(trainer, episodes, epochs=30, batch_size=8, lr=0.01)
    assert stats["imitation_accuracy"] == 1.0
    assert trainer.evaluate(episodes=1)["success"] == 1.0


def test_malformed_logs_name_the_line(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"steps": [{"observations": {}, "actions": {}}]}) + "\n")
    with pytest.raises(OfflineDataError, match=r"bad.jsonl:1: step 0 needs"):
        load_episodes(bad)
    bad.write_text("{oops\n")
    with pytest.raises(OfflineDataError, match="not valid JSON"):
        load_episodes(bad)
    with pytest.raises(OfflineDataError, match="does not exist"):
        load_episodes(tmp_path / "missing.jsonl")
    good = log_episodes(MatrixGame(COORDINATION), lambda obs: {"row": 0, "col": 2}, 2, tmp_path / "ok.jsonl")
    rows = load_episodes(good)
    rows[0]["steps"][0]["actions"]["col"] = 7
    with pytest.raises(OfflineDataError, match="outside the agents' action spaces"):
        pretrain(make_trainer(COORDINATION, updates=1), rows)


def test_clause_readers_learn_single_requests_and_read_a_two_request_ticket():
    """Readers pre-trained on one-request tickets find both requests of a ticket that joins two:
    each clause is scored alone and the agent takes the max per intent."""
    from agents.backbone import Backbone
    from agents.envs.customer_service.env import CustomerServiceEnv
    from agents.envs.customer_service.tickets import INTENTS, Ticket
    from training.mappo import Featurizer, MappoConfig, MappoTeam, MappoTrainer
    from training.offline import pretrain_reader

    singles = {
        "where is my parcel right now": "order_tracking",
        "can you track my order please": "order_tracking",
        "the mug arrived broken": "damaged_item",
        "my lamp came smashed in the box": "damaged_item",
        "i want my money back for the shoes": "return_refund",
        "please refund the jacket": "return_refund",
    }
    tickets = [Ticket(f"t{i}", text, (intent,)) for i, (text, intent) in enumerate(singles.items())]
    featurizer = Featurizer(Backbone.load("default"), skip=("status", "action_mask"), clause_slots=4)
    cfg = MappoConfig(updates=1, hidden=16, eval_every=0, checkpoint_every=0)
    trainer = MappoTrainer(
        cfg, MappoTeam(lambda split: CustomerServiceEnv(tickets=tickets), featurizer=featurizer)
    )
    labels = torch.tensor([[i in t.intents for i in INTENTS] for t in tickets], dtype=torch.float32)
    stats = pretrain_reader(trainer, [t.text for t in tickets], labels, epochs=200)
    assert stats["reader_exact_match"] == 1.0
    block = featurizer.text(["where is my parcel, also the mug arrived broken"])
    scores = trainer.actor.reader(block.expand(trainer.n, -1).unsqueeze(0))[0]  # [N agents, 8]
    found = {INTENTS[j] for j in range(len(INTENTS)) if bool((scores[:, j] > 0.5).all())}
    assert found == {"order_tracking", "damaged_item"}
    with pytest.raises(ValueError, match="labels must be"):
        pretrain_reader(trainer, ["one text"], labels, epochs=1)


def test_expert_logs_are_privileged_but_record_the_agents_own_view(tmp_path):
    from agents.envs.customer_service.env import ROLE_ACTIONS, CustomerServiceEnv
    from agents.envs.customer_service.tickets import HIDDEN_TICKET, INTENT_ROLE, SUPERVISOR, load_tickets
    from training.offline import log_expert_episodes

    tickets = load_tickets("validation")[:40]
    env = CustomerServiceEnv(tickets, supervisor_view="draft")
    episodes = log_expert_episodes(env, tickets, 40, tmp_path / "logs.jsonl", seed=0)
    approve = ROLE_ACTIONS[SUPERVISOR].index("approve")
    one_round = 0
    for episode in episodes:
        first, last = episode["steps"][0], episode["steps"][-1]
        assert first["observations"][SUPERVISOR]["ticket"] == HIDDEN_TICKET
        assert last["actions"][SUPERVISOR] == approve and episode["info"]["exact_match"]
        intents = episode["info"]["true_intents"]
        if len({INTENT_ROLE[i] for i in intents}) == len(intents):  # every role owns at most one intent
            one_round += 1
            assert len(episode["steps"]) == 2  # approved as soon as the draft was complete, no idle step
    assert one_round > 20
