"""Every Django app of the web layer has a facade, and an import-linter contract that makes it the only
way in from another app.

`lint-imports` (in `make lint`) checks the contracts; this test checks that they exist, so a new app
cannot be added without one. It reads files only (no Django), so it runs in the library pass.
"""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WEB_APPS = sorted(p.parent.name for p in (ROOT / "mase_web").glob("*/apps.py"))


def _contracts() -> list[dict]:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["tool"]["importlinter"]["contracts"]


def test_the_web_apps_are_found():
    assert {"accounts", "core", "deployments", "feedback", "realtime", "runs", "workflows"} <= set(WEB_APPS)


def test_every_web_app_has_a_facade_and_a_contract_protecting_the_rest():
    protected = {tuple(c["protected_modules"]): c for c in _contracts() if c.get("type") == "protected"}
    missing = []
    for app in WEB_APPS:
        contract = protected.get((f"mase_web.{app}",))
        if not (ROOT / "mase_web" / app / "facade.py").is_file():
            missing.append(f"{app}: no facade.py")
        elif contract is None:
            missing.append(f"{app}: no protected contract")
        elif contract.get("ignore_imports") != [f"mase_web.** -> mase_web.{app}.facade"]:
            missing.append(
                f"{app}: the contract lets in more than the facade: {contract.get('ignore_imports')}"
            )
    assert missing == []
