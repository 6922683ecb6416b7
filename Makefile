# The two commands a new user needs: `make demo` and `make test`.
# Both bootstrap .venv on first use and are safe to run again.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
RUNTIME := $(VENV)/.runtime-stamp
# Where `make minilm` gets torch's CPU build when no local wheel is at hand (pip's
# find-links); the registry's plain `torch` is a multi-GB CUDA build on Linux x86_64.
TORCH_CPU_INDEX ?= https://download.pytorch.org/whl/cpu

.PHONY: demo test test-fast lint bench minilm clean

# The default install has no torch: the embedding model runs on onnxruntime. `make demo`
# installs what a run needs (~300 MB); the test and lint tools (the dev extra, ~330 MB
# more: browser driver, linters, mypy) come with the first `make test` or `make lint`.
$(RUNTIME): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -e .
	touch $(RUNTIME)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP) $(RUNTIME)

demo: $(RUNTIME)
	PAPERBRIEF_HOME=$(CURDIR)/out/.state $(BIN)/paperbrief demo --out out

test: $(STAMP)
	$(BIN)/python -m pytest -q

# The inner loop: everything but the browser tests and the wheel build (CI runs `make test`).
test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -m "not browser and not wheel"

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks scripts
	$(BIN)/ruff format --check src tests benchmarks scripts
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python benchmarks/pipeline_bench.py --venv $(VENV)

# Optional: the same model on torch (fp32, `embedding_model = "all-MiniLM-L6-v2"`).
# torch's CPU build first (a local wheel if pip finds one, else the CPU index, which also
# serves torch's dependencies), then the extra; its resolver adds what torch needs.
minilm: $(STAMP)
	$(BIN)/python -m pip install --quiet --no-deps --no-index torch \
		|| $(BIN)/python -m pip install --quiet --index-url $(TORCH_CPU_INDEX) torch
	$(BIN)/python -m pip install --quiet -e '.[dev,minilm]'

clean:
	rm -rf out test-artifacts dist
