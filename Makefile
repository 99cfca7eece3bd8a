# Quick start: `make docs` and `make test`. Each creates .venv on first use.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: docs test lint typecheck unit clean fuzz bench locale matrix dist

$(STAMP): pyproject.toml
	@echo "make: creating $(VENV) and installing sphinx-rlresources with its test and docs tools (about a minute, once)"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --progress-bar on -e '.[test,docs]'
	touch $(STAMP)
	@echo "make: $(VENV) is ready"

## docs: build the project's site with -W into docs/_build/html
docs: $(STAMP)
	$(BIN)/sphinx-build -W --keep-going -n -b html docs docs/_build/html

## dist: the wheel and the sdist into dist/ (DIST=folder to change), built from this checkout
##   with the build tools of .venv, offline; `pip install dist/sphinx_rlresources-*.whl` installs it
DIST ?= dist
dist: $(STAMP)
	$(BIN)/python -m build --no-isolation --outdir $(DIST) .

## lint: ruff (lint, complexity and format), dead code (vulture, [tool.vulture]) and the project's own data
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/vulture
	$(BIN)/rlresources lint

## typecheck: mypy --strict over the package
typecheck: $(STAMP)
	$(BIN)/mypy

## unit: the test suite (it builds the docs with -W too)
unit: $(STAMP)
	$(BIN)/python -m pytest

## fuzz: the long fuzz run (5,000 examples per property; FUZZ_EXAMPLES=N to change)
FUZZ_EXAMPLES ?= 5000
fuzz: $(STAMP)
	RLRESOURCES_FUZZ=long RLRESOURCES_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/python -m pytest tests/test_fuzz.py -q --hypothesis-show-statistics

## test: everything CI runs
test: lint typecheck unit

## bench: the performance benchmark, directive vs hand-written tables (a few minutes; docs/performance.rst)
bench: $(STAMP)
	$(BIN)/python benchmarks/bench.py

## locale: extract the translatable strings into the .pot, update each .po, compile the .mo
LOCALE := sphinx_rlresources/locale
locale: $(STAMP)
	$(BIN)/pybabel extract --project=sphinx-rlresources --copyright-holder="sphinx-rlresources developers" \
		--no-wrap --sort-output -o $(LOCALE)/sphinx_rlresources.pot sphinx_rlresources
	$(BIN)/pybabel update --no-fuzzy-matching --no-wrap -D sphinx_rlresources -i $(LOCALE)/sphinx_rlresources.pot -d $(LOCALE)
	$(BIN)/pybabel compile --statistics -D sphinx_rlresources -d $(LOCALE)

## matrix: the tests on the oldest and the newest supported Python/Sphinx (.venv-oldest, .venv-newest)
matrix:
	.ci/matrix

clean:
	rm -rf $(VENV) dist docs/_build .pytest_cache .mypy_cache .ruff_cache .hypothesis
