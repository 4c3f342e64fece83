"""number_guess environment: PettingZoo API, exact clues, template splits, determinism, fast path."""

from __future__ import annotations

import re

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test, parallel_seed_test

from agents.envs import make_env
from agents.envs.number_guess import HELD_OUT, NumberGuessEnv, number_to_words
from agents.spec import SpecValidationError

N64 = {"n": 64, "informative": 3, "distractors": 4, "clue_kinds": ["ranges", "remainders"]}


@pytest.mark.parametrize(
    "params",
    [
        {},
        N64,
        {**N64, "templates": "heldout", "numbers": "words"},
        {
            "n": 16,
            "informative": 4,
            "distractors": 2,
            "numbers": "words",
            "templates": "all",
            "max_rounds": 3,
        },
        {"n": 2, "informative": 1, "distractors": 0},
    ],
)
def test_passes_pettingzoo_parallel_api_test(params):
    env = make_env("number_guess", params)
    parallel_api_test(env, num_cycles=20)


def test_passes_pettingzoo_seed_test():
    parallel_seed_test(lambda: NumberGuessEnv(max_rounds=3), num_cycles=50)
    parallel_seed_test(lambda: make_env("number_guess", N64), num_cycles=50)


def play(env: NumberGuessEnv, seed: int, episodes: int) -> list:
    """A full trajectory: observations, rewards, dones and infos of several episodes, actions seeded."""
    trace = []
    obs, infos = env.reset(seed=seed)
    for agent in env.possible_agents:
        env.action_space(agent).seed(seed)
    for _ in range(episodes):
        trace.append(("reset", obs, infos, env.state()))
        while env.agents:
            actions = {a: env.action_space(a).sample() for a in env.agents}
            step = env.step(actions)
            trace.append(("step", actions, *step))
        obs, infos = env.reset()
    return trace


def test_same_seed_gives_identical_full_trajectories():
    params = {"n": 16, "informative": 4, "distractors": 2, "max_rounds": 3}
    a = play(make_env("number_guess", params), seed=7, episodes=30)
    b = play(make_env("number_guess", params), seed=7, episodes=30)
    c = play(make_env("number_guess", params), seed=8, episodes=30)
    assert repr(a) == repr(b)
    assert repr(a) != repr(c)
    # and the trajectory really covers many secrets, not a constant episode
    secrets = {i["guesser"].get("secret") for kind, *rest in a if kind == "step" for i in [rest[-1]]}
    assert len(secrets - {None}) >= 8


def test_bit_clues_determine_the_number_for_every_secret_and_template():
    env = NumberGuessEnv(n=16, informative=4, distractors=2, templates="all")
    T = env.templates_per_clue()
    assert T == 12
    for secret in range(16):
        for t in range(T):
            texts = {
                f"clue_{j}": env.vocabulary(f"clue_{j}")[env.digit_of(f"clue_{j}", secret) * T + t]
                for j in range(4)
            }
            assert env.decode(texts) == secret
    # the phrasings the benchmark relies on
    vocab0, vocab3 = env.vocabulary("clue_0"), env.vocabulary("clue_3")
    assert "The number is even." in vocab0[:T] and "The number is odd." in vocab0[T:]
    assert "The number is below 8." in vocab3[:T] and "The number is at least 8." in vocab3[T:]


def test_range_and_remainder_clues_are_exact_for_n64():
    env = NumberGuessEnv(**N64, templates="all")
    batch = env.sample_batch(2000, np.random.default_rng(0))
    for b in range(2000):
        texts = {a: batch.texts[a][b] for a in env.possible_agents}
        assert env.decode(texts) == batch.secrets[b]
        assert env.check_episode(int(batch.secrets[b]), texts) == []
    obs, _ = env.reset(seed=0, options={"secret": 45})  # 45 = 2*16 + 3*4 + 1
    assert env.decode(obs) == 45
    block = [t for t in env.vocabulary("clue_2") if "32" in t and "47" in t]
    assert block, "the top informant names the block of 16 as a range"
    assert any("4" in t and "1" in t for t in env.vocabulary("clue_0"))


def test_template_splits_are_disjoint_and_heldout_is_never_in_training():
    train = NumberGuessEnv(**N64, templates="train")
    held = NumberGuessEnv(**N64, templates="heldout")
    full = NumberGuessEnv(**N64, templates="all")
    for agent in train.possible_agents:
        if agent == "guesser":
            continue
        t, h, a = set(train.vocabulary(agent)), set(held.vocabulary(agent)), set(full.vocabulary(agent))
        assert t and h and not (t & h), agent
        assert t | h == a
    assert train.templates_per_clue() >= 4 and held.templates_per_clue() == HELD_OUT
    # episodes drawn in the held-out split only ever show held-out texts
    for seed in range(20):
        obs, _ = held.reset(seed=seed)
        for agent, text in obs.items():
            if agent != "guesser":
                assert text not in set(train.vocabulary(agent))


@pytest.mark.parametrize("params", [N64, {}])
def test_augment_adds_reworded_training_phrasings_that_state_the_same_digit(params):
    plain = NumberGuessEnv(**params)
    grown = NumberGuessEnv(**params, augment=3)
    held = NumberGuessEnv(**params, augment=3, templates="heldout")
    T = plain.templates_per_clue()
    assert grown.templates_per_clue() == 4 * T and held.templates_per_clue() == HELD_OUT  # held out: never
    assert set(held.vocabulary("clue_0")) == set(
        NumberGuessEnv(**params, templates="heldout").vocabulary("clue_0")
    )
    for agent in plain.possible_agents[: plain.informative]:
        vocab, base = grown.vocabulary(agent), plain.vocabulary(agent)
        assert len(set(vocab)) == len(vocab) and set(base) <= set(vocab)
        assert not set(vocab) & set(held.vocabulary(agent))
        for secret in range(plain.n):
            digit = int(plain.digit_of(agent, secret))
            numbers = {tuple(sorted(re.findall(r"\d+", t))) for t in base[digit * T : (digit + 1) * T]}
            for text in vocab[digit * 4 * T : (digit + 1) * 4 * T]:  # every copy keeps its digit's numbers
                assert tuple(sorted(re.findall(r"\d+", text))) in numbers, text
    assert grown.vocabulary("clue_1") == NumberGuessEnv(**params, augment=3).vocabulary("clue_1")  # fixed
    assert [e.path for e in NumberGuessEnv.validate_params({"augment": -1})] == ["$.augment"]


def test_every_clue_family_has_enough_paraphrases():
    from agents.envs import number_guess as ng

    for family in (ng.PARITY, ng.THRESHOLD, ng.MID_BIT, ng.RANGE, ng.MID_RANGE, ng.REMAINDER, ng.DISTRACTORS):
        assert len(family) >= 6 and len(family) - HELD_OUT >= 4
        assert len(set(map(str, family))) == len(family)  # no duplicated template


def test_episode_self_check_catches_texts_from_the_wrong_table():
    env = NumberGuessEnv()
    obs, _ = env.reset(seed=3, options={"secret": 5})  # 5 = 0b0101: odd, bit1 = 0, bit2 = 1, below 8
    assert env.check_episode(5, obs) == []
    wrong_digit = dict(obs, clue_0=env.vocabulary("clue_0")[0])  # "even" for an odd number
    assert any("clue_0 states digit 0" in p for p in env.check_episode(5, wrong_digit))
    swapped = dict(obs, distractor_0=obs["clue_1"])
    assert any("distractor_0" in p and "distractor table" in p for p in env.check_episode(5, swapped))
    leaked = dict(obs, guesser=obs["clue_3"])
    assert any("guesser" in p for p in env.check_episode(5, leaked))
    assert env.check_episode(6, obs) != []  # the same texts do not fit another secret


def test_rewards_spaces_and_guesser_sees_only_its_prompt():
    env = NumberGuessEnv(max_rounds=2)
    assert env.action_space("guesser").n == 16 and env.action_space("clue_0").n == 1
    obs, infos = env.reset(seed=1, options={"secret": 9})
    assert obs["guesser"] == env.guesser_prompt and "9" not in obs["guesser"].replace("15", "")
    for agent, text in obs.items():
        assert env.observation_space(agent).contains(text)
    assert infos["clue_0"]["kind"] == "informative" and infos["distractor_1"]["kind"] == "distractor"
    _, rew, term, trunc, info = env.step({a: 0 for a in env.agents} | {"guesser": 3})
    assert set(rew.values()) == {0.0} and not any(term.values()) and env.agents
    _, rew, term, trunc, info = env.step({a: 0 for a in env.agents} | {"guesser": 9})
    assert set(rew.values()) == {1.0} and all(term.values()) and not any(trunc.values())
    assert info["guesser"]["secret"] == 9 and env.agents == []
    with pytest.raises(RuntimeError):
        env.step({"guesser": 9})
    env.reset(seed=1)
    with pytest.raises(ValueError, match="guess"):
        env.step({"guesser": 16})
    with pytest.raises(ValueError, match="guesser"):
        env.step({"clue_0": 0})
    assert env.state().count("\n") == len(env.possible_agents) - 1


def test_distractors_are_varied_and_uninformative():
    env = NumberGuessEnv()
    batch = env.sample_batch(4000, 0)
    ids = batch.text_ids["distractor_0"]
    assert len(np.unique(ids)) > 40
    # distractor text is independent of the secret: its mean id barely moves between halves
    low, high = ids[batch.secrets < 8], ids[batch.secrets >= 8]
    assert abs(low.mean() - high.mean()) < 3.0
    assert all(t in env.vocabulary("distractor_0") for t in batch.texts["distractor_0"][:100])


def test_sample_batch_matches_reset_and_is_fast():
    env = NumberGuessEnv()
    batch = env.sample_batch(1, np.random.default_rng(11))
    obs, infos = env.reset(seed=11)
    assert {a: batch.texts[a][0] for a in env.possible_agents} == obs
    assert {a: int(batch.text_ids[a][0]) for a in env.possible_agents} == {
        a: i["text_id"] for a, i in infos.items()
    }
    big = env.sample_batch(8192, 0, with_texts=False)
    T = env.templates_per_clue()
    assert np.array_equal(big.text_ids["clue_0"] // T, big.secrets % 2)
    assert np.array_equal(big.text_ids["clue_3"] // T, big.secrets // 8)
    assert big.texts["clue_0"] == []
    assert set(np.unique(big.secrets)) == set(range(16))
    for agent in env.possible_agents:
        assert big.text_ids[agent].max() < len(env.vocabulary(agent))
        assert env.agent_kind(agent) in {"informative", "distractor", "guesser"}


def test_bad_params_raise_clear_value_errors():
    with pytest.raises(SpecValidationError, match=r"invalid team spec: \$\.environment\.params\.n:"):
        make_env("number_guess", {"n": 64, "informative": 4})
    with pytest.raises(SpecValidationError, match="r\\*\\*3"):
        NumberGuessEnv(n=60, informative=3, clue_kinds=["ranges", "remainders"])
    errors = NumberGuessEnv.validate_params(
        {"clue_kinds": ["bits", "ranges"], "templates": "test", "max_rounds": 0}
    )
    assert {e.path for e in errors} == {"$.clue_kinds", "$.templates", "$.max_rounds"}
    assert NumberGuessEnv.validate_params("nope")[0].path == "$"
    assert NumberGuessEnv.expected_agents({"informative": 2, "distractors": 1}) == [
        "clue_0",
        "clue_1",
        "distractor_0",
        "guesser",
    ]
    with pytest.raises(ValueError, match="secret"):
        NumberGuessEnv().reset(options={"secret": 99})


def test_number_words():
    assert [number_to_words(k) for k in (0, 7, 16, 31, 40, 105, 1000, 1234)] == [
        "zero",
        "seven",
        "sixteen",
        "thirty-one",
        "forty",
        "one hundred and five",
        "one thousand",
        "one thousand two hundred and thirty-four",
    ]
    env = NumberGuessEnv(numbers="words")
    assert not any(ch.isdigit() for agent in env.possible_agents for t in env.vocabulary(agent) for ch in t)
