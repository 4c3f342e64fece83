"""Writes data/collaborative_writing/briefs.jsonl: `python data/collaborative_writing/generate.py data/collaborative_writing/briefs.jsonl`
(seeded: the same file every time; the jsonl is the shipped data)."""

import json
import random
import sys

rng = random.Random(7)
TOPICS = [
    "remote work",
    "home composting",
    "electric bikes",
    "password managers",
    "container gardening",
    "open source licensing",
    "sourdough baking",
    "solar panels",
    "code review",
    "trail running",
    "heat pumps",
    "language learning",
    "podcast production",
    "rainwater harvesting",
    "unit testing",
    "budget travel",
    "indoor climbing",
    "home networking",
    "meal planning",
    "battery storage",
    "urban beekeeping",
    "data backups",
    "public speaking",
    "cold brew coffee",
    "team retrospectives",
    "bike commuting",
    "smart thermostats",
    "houseplant care",
    "API design",
    "night photography",
    "board game design",
    "minimalist packing",
    "community radio",
    "vertical farming",
    "accessibility audits",
    "time blocking",
    "home recording",
    "second-hand fashion",
    "wildlife gardening",
    "database indexing",
    "sleep hygiene",
    "kayak touring",
]
ASPECTS = {
    "costs": ("spend", "saves about {n} dollars a month"),
    "safety": ("risk", "cuts reported incidents by {n} percent"),
    "setup": ("start", "takes roughly {n} minutes to get going"),
    "maintenance": ("upkeep", "needs about {n} minutes of care a week"),
    "benefits": ("gain", "improves satisfaction by {n} percent"),
    "mistakes": ("error", "goes wrong in {n} percent of first attempts"),
    "tools": ("kit", "works with {n} common tools"),
    "history": ("origin", "grew {n} fold over the last decade"),
    "community": ("group", "has about {n} local clubs per region"),
    "regulation": ("rule", "is covered by {n} national rules"),
    "future": ("trend", "is expected to grow {n} percent a year"),
    "myths": ("belief", "is misunderstood by {n} percent of newcomers"),
}
AUDIENCES = ["beginners", "small teams", "families", "students", "hobbyists", "busy professionals"]
FORMAL = ["Notably, ", "In practice, ", "Evidence suggests that ", "Measured carefully, "]
CASUAL = ["Honestly, ", "Good news: ", "Fun fact, ", "Heads up, "]


def on_sentence(topic, aspect, tone, n, aud):
    word, effect = ASPECTS[aspect]
    body = f"{topic} {effect.format(n=n)} for {aud}, which is the core {word} to plan {aspect} around"
    if tone == "formal":
        return rng.choice(FORMAL) + body + "."
    return rng.choice(CASUAL) + body + ", pretty neat!"


def stuffed(topic, aspect, tone):
    if rng.random() < 0.5:
        body = f"There is a lot to say about {aspect} when it comes to {topic}, and it depends"
        return (
            (rng.choice(FORMAL) + body + ".")
            if tone == "formal"
            else (rng.choice(CASUAL) + body + ", really!")
        )
    body = f"{aspect.capitalize()} in {topic} is about {topic} {aspect}, and {aspect} shapes {topic} in many {aspect} ways"
    return (
        (rng.choice(FORMAL) + body + ".") if tone == "formal" else (rng.choice(CASUAL) + body + ", really!")
    )


briefs = []
for i, topic in enumerate(TOPICS):
    tone = "formal" if i % 2 == 0 else "casual"
    other = "casual" if tone == "formal" else "formal"
    length = 3 if (i // 2) % 2 == 0 else 4
    names = rng.sample(sorted(ASPECTS), 6)
    wanted, off = names[:length], names[length:]
    aud = rng.choice(AUDIENCES)
    facts = {a: on_sentence(topic, a, tone, rng.randint(3, 90), aud) for a in names}
    sections = []
    for a in names:
        blocks = [
            {"text": facts[a], "kind": "on"},
            {"text": on_sentence(topic, a, other, rng.randint(3, 90), aud), "kind": "wrong_tone"},
            {"text": stuffed(topic, a, tone), "kind": "off"},
        ]
        donor = rng.choice([b for b in names if b != a])
        blocks.append({"text": facts[donor].rstrip(".!") + f" (as with {a}).", "kind": "redundant"})
        rng.shuffle(blocks)
        sections.append(
            {
                "heading": f"{a.capitalize()} of {topic}",
                "aspect": a,
                "on_brief": a in wanted,
                "blocks": blocks,
            }
        )
    rng.shuffle(sections)
    aspects_text = ", ".join(wanted[:-1]) + " and " + wanted[-1]
    brief = f"Write a {tone} {'short' if length == 3 else 'longer'} post on {topic} for {aud}, covering {aspects_text}."
    briefs.append(
        {
            "id": f"cw{i + 1:02d}",
            "split": "test" if i % 4 == 3 else "train",
            "topic": topic,
            "tone": tone,
            "sections_wanted": length,
            "aspects": wanted,
            "brief": brief,
            "sections": sections,
        }
    )
with open(sys.argv[1], "w") as f:
    for b in briefs:
        f.write(json.dumps(b) + "\n")
print(len(briefs), sum(b["split"] == "test" for b in briefs))
