# sigtracker: two commands for a fresh clone, `make demo` and `make test`.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8000
# The first Python >= 3.11 on PATH builds the virtualenv.
PYTHON ?= $(shell for p in python3.13 python3.12 python3.11 python3; do \
	command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null && { echo $$p; break; }; done)

.PHONY: install lock demo test test-fast lint format bench clean

install: $(VENV)/.installed

# Installs exactly what requirements-dev.lock pins (hash-checked), then the project itself without resolving
# anything; re-installs only when the lock or pyproject.toml changes.
$(VENV)/.installed: requirements-dev.lock pyproject.toml
	@test -n "$(PYTHON)" || { echo "error: Python >= 3.11 not found on PATH" >&2; exit 2; }
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --require-hashes -r requirements-dev.lock
	$(PY) -m pip install --quiet --no-deps -e .
	@touch $@

# Re-resolves both locks from pyproject.toml: run after adding or changing a dependency there. Pins that still
# satisfy pyproject.toml are kept; `make lock UPGRADE=1` takes the newest versions allowed, and
# `make lock UPGRADE=django` only that package's. The dev lock is constrained by the runtime lock, so both agree.
LOCK_OPTS = --quiet --generate-hashes --allow-unsafe --strip-extras --no-emit-index-url --no-emit-find-links \
	$(if $(filter 1,$(UPGRADE)),--upgrade,$(if $(UPGRADE),--upgrade-package $(UPGRADE)))
lock:
	@test -n "$(PYTHON)" || { echo "error: Python >= 3.11 not found on PATH" >&2; exit 2; }
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@$(PY) -c 'import piptools' 2>/dev/null || $(PY) -m pip install --quiet 'pip-tools>=7.4,<8'
	$(PY) -m piptools compile $(LOCK_OPTS) --output-file requirements.lock pyproject.toml
	$(PY) -m piptools compile $(LOCK_OPTS) --extra dev --constraint requirements.lock \
		--output-file requirements-dev.lock pyproject.toml

demo: install
	$(PY) manage.py demo --port $(PORT)

# On $(TEST_WORKERS) pytest-xdist workers; no test stops or restarts a service it did not start itself, so every
# test may run beside any other. Work stealing, not xdist's default batches: 499 s against 583 s for the same suite
# on this 2-core machine (3 Dec 2026); a third worker was slower (529 s), the tests being CPU-bound.
TEST_WORKERS ?= 2
test: install
	$(PY) -m pytest -n $(TEST_WORKERS) --dist worksteal --durations=15 $(PYTEST_ARGS)

# The edit loop: no browser, no PostgreSQL or Redis (SQLite in memory, eager Celery), in parallel.
test-fast: install
	env -u DATABASE_URL -u SIGTRACKER_REQUIRE_SERVICES $(PY) -m pytest -n $(TEST_WORKERS) \
		-m "not services and not browser" $(PYTEST_ARGS)

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports --no-cache
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/hadolint Containerfile

format: install
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

bench: install
	$(PY) -m bench $(BENCH)

clean:
	rm -rf $(VENV) db.sqlite3 .pytest_cache
