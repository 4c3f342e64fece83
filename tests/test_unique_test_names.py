"""The library's test folders are not packages: pytest imports each test module by its basename, so two
of one name stop the whole suite's collection. Caught here, by name, before collection fails."""

from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_no_two_library_test_modules_share_a_name():
    names = Counter(p.name for p in TESTS.rglob("test_*.py"))
    assert [name for name, n in names.items() if n > 1] == []
