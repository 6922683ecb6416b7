# The two commands a new user needs: `make demo` and `make test`.
# Both bootstrap .venv on first use and are safe to run again.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: demo test lint bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	# torch first and pinned: 2.13.0 is the CPU build; an unpinned torch pulls a multi-GB CUDA build.
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	PAPERBRIEF_HOME=$(CURDIR)/out/.state $(BIN)/paperbrief run \
		--listing examples/listings/2026-05-22.jsonl.gz \
		--profile examples/profile.toml --out out --offline

test: $(STAMP)
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python benchmarks/pipeline_bench.py

clean:
	rm -rf out test-artifacts
