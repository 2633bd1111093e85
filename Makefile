# Two commands on a fresh machine:  `make demo` (the main job)  and  `make test`.
# Each creates the virtual environment and installs what is missing by itself.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.groundqa-installed

.PHONY: demo test lint bench install clean

install: $(STAMP)

# torch==2.13.0 (CPU build) goes in first: an unpinned torch pulled in by
# sentence-transformers would bring several GB of CUDA packages.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet "torch==2.13.0"
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/groundqa demo

test: $(STAMP)
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check .

bench: $(STAMP)
	$(BIN)/python -m benchmarks run --quick

clean:
	rm -rf $(VENV) .groundqa build *.egg-info
