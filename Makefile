# `make run` and `make test` work on a fresh machine with Python 3.10-3.12 and pip: each runs `setup` first.
PYTHON ?= python3.11
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip --disable-pip-version-check
STAMP  := $(VENV)/.csreply-installed

.PHONY: setup setup-quick run test test-all bench lint clean-venv

# Everything, the BERT router included (about 5 minutes on a CPU with native bfloat16, 15-20 without).
setup: $(STAMP)
	$(VENV)/bin/csreply prepare

# The models and the quick lexical router only (seconds): `make run` serves at once and builds the BERT router
# in the background, swapping it in when it is done (/ready shows the build's progress).
setup-quick: $(STAMP)
	$(VENV)/bin/csreply prepare --quick

# torch first and pinned: the local CPU wheel (an unpinned torch pulls a multi-GB CUDA build).
$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "need $(PYTHON) (Python 3.10-3.12); set PYTHON=..." >&2; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q torch==2.13.0
	$(PIP) install -q -e '.[dev]'
	touch $(STAMP)

run: setup-quick
	CSREPLY_ROUTER__BUILD_IN_BACKGROUND=true $(VENV)/bin/csreply run

test: setup
	$(PY) -m pytest -q

# ruff (the rules pyproject.toml selects) and its formatter over the whole tree, mypy (types) over the two
# packages, the tests and the benchmarks; .ci/run calls it before the tests.
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy serve checkpoints tests bench

bench: setup
	$(PY) bench/generation.py

clean-venv:
	rm -rf $(VENV)
