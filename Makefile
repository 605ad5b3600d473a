# sigtracker: two commands for a fresh clone, `make demo` and `make test`.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8000
# The first Python >= 3.11 on PATH builds the virtualenv.
PYTHON ?= $(shell for p in python3.13 python3.12 python3.11 python3; do \
	command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null && { echo $$p; break; }; done)

.PHONY: install demo test lint format bench clean

install: $(VENV)/.installed

# Re-installs only when pyproject.toml changes.
$(VENV)/.installed: pyproject.toml
	@test -n "$(PYTHON)" || { echo "error: Python >= 3.11 not found on PATH" >&2; exit 2; }
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	@touch $@

demo: install
	$(PY) manage.py demo --port $(PORT)

test: install
	$(PY) -m pytest $(PYTEST_ARGS)

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/hadolint Containerfile

format: install
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

bench: install
	$(PY) -m bench $(BENCH)

clean:
	rm -rf $(VENV) db.sqlite3 .pytest_cache
