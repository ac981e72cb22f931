# The two Quickstart commands: `make run` (the main job) and `make test` (the suite).
# Each creates .venv and installs what it needs on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test bench

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[vision,examples,tensorboard]'
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

run: $(VENV)/.installed
	$(BIN)/python examples/mnist.py

test: $(VENV)/.installed-test
	$(BIN)/python -m pytest -q -n 2 -p no:cacheprovider tests

# OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE work around old OpenBLAS builds on some machines and
# slow a current NumPy's GEMM; the benchmark unsets them for its own run only.
bench: $(VENV)/.installed-test
	env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE $(BIN)/python -m bench
