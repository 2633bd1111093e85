# Two commands on a fresh machine:  `make demo` (the main job)  and  `make test`.
# Each creates the virtual environment and installs what is missing by itself.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.groundqa-installed

.PHONY: demo test lint bench install lock clean

install: $(STAMP)

# The tested environment comes from requirements.lock: every file pinned by sha256 (`make lock`
# rewrites it from the current environment). It holds torch==2.13.0+cpu: an unpinned torch pulled in
# by sentence-transformers would bring several GB of CUDA packages. The project itself goes on top,
# editable and without dependencies; `pip check` then fails the install if the lock misses one.
# UNLOCKED=1 installs from pyproject.toml's ranges instead (another platform or Python).
$(STAMP): pyproject.toml requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
ifeq ($(UNLOCKED),1)
	$(BIN)/python -m pip install --quiet "torch==2.13.0"
	$(BIN)/python -m pip install --quiet -e ".[dev]"
else
	$(BIN)/python -m pip install --quiet --require-hashes -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps -e .
	$(BIN)/python -m pip check
endif
	touch $(STAMP)

lock: $(STAMP)
	$(BIN)/python scripts/lock.py

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
