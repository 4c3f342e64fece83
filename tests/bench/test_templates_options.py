"""bench/templates.py's options: several `--also-tickets` files keep `also` for the first, and `--backbone`."""

from bench.templates import also_keys, parse_args


def test_several_also_ticket_files_keep_also_for_the_first():
    args = parse_args(["--out", "x.json", "--also-tickets", "a.jsonl", "b.jsonl", "c.jsonl"])
    assert also_keys(args.also_tickets) == {"also": "a.jsonl", "also_2": "b.jsonl", "also_3": "c.jsonl"}
    one = parse_args(["--out", "x.json", "--also-tickets", "a.jsonl"])
    assert also_keys(one.also_tickets) == {"also": "a.jsonl"}
    assert also_keys(parse_args(["--out", "x.json"]).also_tickets) == {}


def test_backbone_defaults_to_the_default_and_takes_a_name():
    assert parse_args(["--out", "x.json"]).backbone == "default"
    assert parse_args(["--out", "x.json", "--backbone", "all-mpnet-base-v2"]).backbone == "all-mpnet-base-v2"
