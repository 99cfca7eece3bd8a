# Quick start: `make docs` and `make test`. Each creates .venv on first use.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: docs test lint typecheck unit clean fuzz bench

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,docs]'
	touch $(STAMP)

## docs: build the project's site with -W into docs/_build/html
docs: $(STAMP)
	$(BIN)/sphinx-build -W --keep-going -n -b html docs docs/_build/html

## lint: ruff (lint and format) and the project's own data
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

## typecheck: mypy --strict over the package
typecheck: $(STAMP)
	$(BIN)/mypy

## unit: the test suite (it builds the docs with -W too)
unit: $(STAMP)
	$(BIN)/python -m pytest

## test: everything CI runs
test: lint typecheck unit

clean:
	rm -rf $(VENV) docs/_build .pytest_cache .mypy_cache .ruff_cache .hypothesis
