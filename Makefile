# `make run` and `make test` work on a fresh machine with Python 3.11 and pip: each runs `setup` first.
PYTHON ?= python3.11
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip --disable-pip-version-check
STAMP  := $(VENV)/.csreply-installed

.PHONY: setup run test test-all bench lint clean-venv

setup: $(STAMP)
	$(VENV)/bin/csreply prepare

# torch first and pinned: the local CPU wheel (an unpinned torch pulls a multi-GB CUDA build).
$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "need $(PYTHON) (Python 3.11); set PYTHON=..." >&2; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q torch==2.13.0
	$(PIP) install -q -e '.[dev]'
	touch $(STAMP)

run: setup
	$(VENV)/bin/csreply run

test: setup
	$(PY) -m pytest -q

# ruff (style and likely bugs) and mypy (types) over the two packages; .ci/run calls it before the tests.
lint: $(STAMP)
	$(VENV)/bin/ruff check serve checkpoints
	$(VENV)/bin/mypy serve checkpoints

bench: setup
	$(PY) bench/generation.py

clean-venv:
	rm -rf $(VENV)
