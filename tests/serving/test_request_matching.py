"""A typed request reaches the writing workflows' item it asks for (`serving.requests`), and a request
the team cannot do falls under the similarity floor measured on another team's shipped requests.

The requests below are written for this test in other words than the topics' questions and keywords (a
reader asking in their own way); they are used nowhere else, so the accuracy measured on them is an
out-of-distribution check of the matcher, not a score it was tuned on."""

from __future__ import annotations

import pytest
import torch

from agents.envs import make_env
from serving.requests import RequestMatcher, similarity_floor

# one request per shipped report topic, phrased the way a user might ask
PARAPHRASES = {
    "ev_market": "Are people actually switching to battery cars, and why not faster?",
    "heat_pumps": "Should I replace my gas boiler with a heat pump, and why are installs so slow?",
    "offshore_wind": "What is happening with wind farms built out at sea?",
    "rooftop_solar": "Is it worth putting photovoltaic panels on my house roof?",
    "grid_batteries": "How much big lithium storage is being connected to the electricity network?",
    "green_hydrogen": "Can electrolysers make clean hydrogen cheaply enough to matter?",
    "ebikes": "Are electric bicycles replacing cars for the commute?",
    "energy_poverty": "How many families cannot afford to heat their homes?",
    "ai_health": "Can machine learning read scans and help doctors diagnose patients?",
    "antibiotic_resistance": "Superbugs: are our medicines against bacterial infections stopping working?",
    "telemedicine": "Do video appointments with a GP work as well as seeing them in person?",
    "obesity_drugs": "What about the new weight-loss injections like the GLP-1 medicines?",
    "nurse_shortage": "Why can't hospitals hire enough nursing staff?",
    "mental_health_apps": "Do therapy apps on your phone really help with anxiety and depression?",
    "vaccine_hesitancy": "Why do some parents refuse to get their children jabbed against measles?",
    "dementia_care": "How are families coping with relatives who have Alzheimer's?",
    "chip_supply": "Why was there a shortage of microchips and how are foundries responding?",
    "cloud_costs": "Our AWS and server bills keep going up; what are companies doing about it?",
    "open_source_security": "How safe are the free software libraries everyone depends on?",
    "quantum_computing": "When will qubit machines become useful?",
    "satellite_internet": "Is broadband from low-orbit constellations like Starlink taking off?",
    "ransomware": "Hackers encrypting company files and demanding payment: how bad is it?",
    "smartphone_repair": "Is it getting easier to fix a broken phone instead of buying a new one?",
    "data_centre_power": "How much electricity do the server farms behind AI consume?",
    "remote_work": "Does working from home make staff less productive, and what happens to offices?",
    "plant_protein": "Are vegan burgers and meat substitutes still selling?",
    "gig_work": "What do delivery riders and ride-hailing drivers earn on app platforms?",
    "housing_costs": "Why can't young people afford to rent or buy a home?",
    "four_day_week": "What happens when companies let employees work 32 hours instead of 40?",
    "online_retail": "Is shopping on the internet killing high-street stores?",
    "minimum_wage": "Does raising the lowest legal pay cost jobs?",
    "tourism_recovery": "Are travellers back in cities like Venice and Barcelona after the pandemic?",
    "urban_heat": "Why are cities so much hotter than the countryside in summer, and do trees help?",
    "plastic_recycling": "What actually happens to the bottles and packaging I put in the recycling bin?",
    "insect_decline": "Where have all the bees and butterflies gone?",
    "coral_reefs": "Is ocean warming bleaching the Great Barrier Reef to death?",
    "urban_flooding": "Why do streets flood after heavy rain and what are sponge cities?",
    "food_waste": "How much of the food we buy ends up in the bin?",
    "wildfire_smoke": "Is breathing the haze from forest fires dangerous?",
    "groundwater": "Are farmers pumping aquifers dry with irrigation wells?",
}


# the issue's requests that a writing team answered with something else; in no dev set
ISSUE_REQUESTS = {
    "research_report": [
        "Write a report on intermittent fasting",
        "intermittent fasting: does it help you lose weight and what are the risks?",
    ],
    "collaborative_writing": ["Write an announcement for the launch of our new garden lamp"],
    "code_generation": ["Translate this letter into German"],
}
# the shares measured on each held-out scope test set (in-scope accepted, off-topic declined) with the
# default backbone; a change of score or rule must not fall below them
HELD_OUT = {
    "research_report": (18 / 20, 15 / 16),
    "collaborative_writing": (15 / 16, 15 / 16),
    "code_generation": (12 / 14, 14 / 14),
}


@pytest.fixture(scope="module")
def minilm():
    """The default backbone's unit vectors (what a deployed team built on it matches with)."""
    from agents.backbone import Backbone

    torch.set_num_threads(1)
    backbone = Backbone.load("default")

    def embed(texts):
        with torch.no_grad():
            return torch.nn.functional.normalize(backbone.encode(list(texts)).float(), dim=-1)

    return embed


@pytest.fixture(scope="module")
def report_env():
    return make_env("research_report", {})


def accuracy(matcher: RequestMatcher) -> float:
    hits = [matcher.match(text)["item"] == topic for topic, text in PARAPHRASES.items()]
    return sum(hits) / len(hits)


def test_every_shipped_topic_has_a_paraphrase(report_env):
    assert set(report_env.request_items()) == set(PARAPHRASES)


def test_a_request_that_names_the_item_gets_it_whatever_the_rest_says(report_env):
    matcher = RequestMatcher.for_env(report_env)
    found = matcher.match("Please write a report on heat pumps, not on boilers or ev market hype")
    assert found["by"] == "words"  # two names: neither wins by name
    found = matcher.match("A report on Heat_Pumps please")
    assert found | {"floor": None} == {
        "item": "heat_pumps", "score": 1.0, "runner_up": None, "by": "name", "floor": None, "in_scope": True
    }  # fmt: skip


def test_without_a_backbone_shared_rare_words_decide(report_env):
    matcher = RequestMatcher.for_env(report_env)
    found = matcher.match("coral bleaching")
    assert found["item"] == "coral_reefs" and found["by"] == "words" and 0 < found["score"] <= 1
    assert matcher.match("xylophone lessons")["score"] == 0  # no shared word: no evidence


def test_the_backbone_reads_paraphrases_better_than_shared_words(report_env):
    """Measured here on 40 requests in other words: meaning ≥ 0.9 and above words alone."""
    from agents.backbone import Backbone

    torch.set_num_threads(1)
    backbone = Backbone.load("default")

    def embed(texts):
        with torch.no_grad():
            return torch.nn.functional.normalize(backbone.encode(list(texts)).float(), dim=-1)

    by_meaning = accuracy(RequestMatcher.for_env(report_env, embed))
    by_words = accuracy(RequestMatcher.for_env(report_env))
    assert by_meaning >= 0.9 and by_meaning >= by_words, (by_meaning, by_words)


def test_environments_that_read_their_request_themselves_get_no_matcher():
    assert RequestMatcher.for_env(make_env("customer_service", {})) is None
    writing = RequestMatcher.for_env(make_env("collaborative_writing", {}))
    code = RequestMatcher.for_env(make_env("code_generation", {}))
    assert writing.option == "brief" and code.option == "task"
    assert code.match("a function that returns the arithmetic mean of a list")["item"] == "cg01"


def test_the_floor_has_the_best_balanced_accuracy_in_the_widest_gap():
    """The docstring's hand-worked example, and the edge cases."""
    assert similarity_floor([0.5, 0.7], [0.2, 0.3, 0.6]) == pytest.approx(0.4)
    assert similarity_floor([0.8, 0.9], [0.1, 0.2]) == pytest.approx(0.5)  # widest gap between the kinds
    assert similarity_floor([], [0.3, 0.2]) == 0.3 and similarity_floor([], []) == 0.0
    assert similarity_floor([0.4, 0.6], []) < 0.4  # nothing to decline: everything is accepted


@pytest.mark.parametrize("name", sorted(HELD_OUT))
def test_the_scope_sets_are_disjoint_and_hold_both_kinds(name):
    cls = type(make_env(name, {}))
    dev, test = cls.scope_requests("dev"), cls.scope_requests("test")
    assert not {t.lower() for t, _ in dev} & {t.lower() for t, _ in test}
    assert not {t.lower() for t in ISSUE_REQUESTS[name]} & {t.lower() for t, _ in dev}
    for rows in (dev, test):
        assert sum(k for _, k in rows) >= 14 and sum(not k for _, k in rows) >= 14


@pytest.mark.parametrize("name", sorted(HELD_OUT))
def test_the_floor_chosen_on_dev_holds_on_the_held_out_requests(name, minilm):
    """The floor comes from the scope dev set and the shipped customer-service tickets; the scope test set,
    written in other voices, and the issue's requests were never used to choose it."""
    from agents.envs.customer_service.env import CustomerServiceEnv

    env = make_env(name, {})
    matcher = RequestMatcher.for_env(env, minilm)
    assert 0 < matcher.floor < 1
    assert not any(matcher.match(t)["in_scope"] for t in CustomerServiceEnv.example_requests())
    test = type(env).scope_requests("test")
    accepted = [matcher.match(t)["in_scope"] for t, wanted in test if wanted]
    declined = [not matcher.match(t)["in_scope"] for t, wanted in test if not wanted]
    shares = (sum(accepted) / len(accepted), sum(declined) / len(declined))
    assert shares[0] >= HELD_OUT[name][0] - 1e-9 and shares[1] >= HELD_OUT[name][1] - 1e-9, shares
    for text in ISSUE_REQUESTS[name]:
        found = matcher.match(text)
        assert not found["in_scope"] and found["score"] <= found["floor"], (text, found)


def test_the_floor_is_chosen_from_the_environments_scope_set(report_env, minilm):
    """Not a number typed anywhere: the same items with no scope set get another floor (the tickets')."""
    with_scope = RequestMatcher.for_env(report_env, minilm)
    items = report_env.request_items()
    from serving.requests import foreign_requests

    tickets_only = RequestMatcher("topic", items, minilm, foreign_requests(type(report_env)))
    assert with_scope.floor > tickets_only.floor


def test_most_paraphrased_report_requests_are_above_the_floor(report_env, minilm):
    """The 40 requests in other words than their topics' (never used to set the floor): 36 are in scope
    (measured; the four declined ask in words far from their topic's, e.g. "jabbed against measles")."""
    matcher = RequestMatcher.for_env(report_env, minilm)
    verdicts = [matcher.match(text)["in_scope"] for text in PARAPHRASES.values()]
    assert sum(verdicts) >= 36, sum(verdicts)


def test_without_foreign_requests_everything_is_in_scope():
    matcher = RequestMatcher("topic", {"a": "apples: fruit", "b": "bees: insects"})
    assert matcher.floor == 0.0 and matcher.match("apples")["in_scope"]
    assert not matcher.match("xylophone")["in_scope"]  # no shared word scores 0: nothing to answer
