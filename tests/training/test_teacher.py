"""Teacher–student augmentation: diff steps on the same task, and more useful samples with a teacher."""

import torch
from test_mappo import COORDINATION, MatrixGame, make_trainer

from training.mappo import MappoConfig, MappoTrainer
from training.teacher import PolicyTeacher, ScriptedTeacher, compare_trajectories

torch.set_num_threads(1)


class Expert:
    """Knows the coordinated optimum of COORDINATION: both play 0."""

    def act(self, agent, observation):
        return 0


def test_compare_trajectories_returns_the_steps_where_actions_differ():
    env = MatrixGame(COORDINATION)
    diffs, t_info, s_info = compare_trajectories(
        env, teacher=lambda obs: {a: 0 for a in obs}, student=lambda obs: {"row": 1, "col": 0}, seed=3
    )
    assert [(d.step, d.agent, d.student_action, d.teacher_action) for d in diffs] == [(0, "row", 1, 0)]
    assert t_info["success"] and not s_info["success"]


def test_teachers_answer_per_agent():
    assert ScriptedTeacher(Expert()).act("row", None, {}) == 0
    assert PolicyTeacher(lambda obs: {a: 2 for a in obs}).act("col", [0, 1], {}) == 2


def test_teacher_samples_raise_the_useful_share_and_speed_learning():
    plain = make_trainer(COORDINATION, updates=3, lr=0.003)
    taught = MappoTrainer(
        lambda split: MatrixGame(COORDINATION),
        MappoConfig(
            updates=3,
            episodes_per_update=32,
            epochs=4,
            minibatches=2,
            lr=0.003,
            eval_every=0,
            checkpoint_every=0,
            teacher_coef=1.0,
            seed=0,
        ),
        teacher=ScriptedTeacher(Expert()),
        success_fn=lambda info: info.get("success", False),
    )
    plain.train()
    taught.train()
    share_plain = sum(m["useful_share"] for m in plain.history) / 3
    share_taught = sum(m["useful_share"] for m in taught.history) / 3
    assert share_taught > share_plain + 0.1
    assert taught.history[-1]["teacher_samples"] < taught.history[0]["teacher_samples"]  # fewer corrections
    assert taught.evaluate(episodes=1)["success"] == 1.0
