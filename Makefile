# The README's commands. `make demo` and `make test` work on a fresh machine with only
# Python 3.11, 3.12 or 3.13: they create .venv and install the project into it when needed.
# Another Python: `PYTHON=python3.13 make test` (.venv is made anew for it).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# The interpreter $(1) names (python3.13), or nothing; a pyenv shim of a version pyenv has
# but has not selected (`pyenv: python3.13: command not found`) is found in pyenv's folder.
find_python = $(shell $(1) -c 'import sys; print(sys.executable)' 2>/dev/null || \
	ls -d $$(pyenv root 2>/dev/null)/versions/*/bin/$(1) 2>/dev/null | tail -n 1)
FOUND := $(call find_python,$(PYTHON))
VERSION := $(shell $(or $(FOUND),false) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
STAMP := $(VENV)/.installed-$(VERSION)
# The other Pythons `make test-pythons` installs the project on and runs the unit tests with.
OTHER_PYTHONS ?= 3.12 3.13
OTHER_VENVS ?= $(or $(TMPDIR),/tmp)/orquestra-venvs

.PHONY: demo test test-unit test-pythons lint format bench eval clean docs docs-build reference

$(STAMP): pyproject.toml $(wildcard */__init__.py)
	@$(or $(FOUND),false) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "Orquestra needs Python 3.11, 3.12 or 3.13; PYTHON=$(PYTHON) is $(or $(VERSION),not found)"; exit 1; }
	$(BIN)/python -c 'import sys; sys.exit("%d.%d" % sys.version_info[:2] != "$(VERSION)")' 2>/dev/null || \
		$(FOUND) -m venv --clear $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	rm -f $(VENV)/.installed*
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/orquestra demo

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python tests/typecheck.py
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet --site-dir $(SITE_DIR)
	$(BIN)/python -m pytest -n auto --maxprocesses=4 --dist loadfile

# The documentation site (mkdocs.yml, docs/). `make docs` serves it with live reload on
# DOCS_ADDR (8001: the demo has 8000); `make test` builds it with --strict, so a broken link,
# a missing anchor or a page left out of the nav fails. Nothing is fetched: the Material theme
# bundles its assets and the search is local.
DOCS_ADDR ?= 127.0.0.1:8001
SITE_DIR ?= site
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve --strict --dev-addr $(DOCS_ADDR)

docs-build: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet --site-dir $(SITE_DIR)

# The reference pages (docs/reference/*.md) written from the code: the parsers, Settings, the
# OpenAPI document, the event models, the error codes, the deployment files' models.
# `make test` fails while a committed page differs (tests/unit/test_reference_pages.py).
reference: $(STAMP)
	$(BIN)/python docs/gen_reference.py

# The unit tests on PYTHON; `make test-pythons` leaves out UNIT_SLOW (70% of their time on two
# cores: the demo's rows generated, source selection's and the offline model's golden cases),
# which `make test` runs.
UNIT_SLOW := ddl_catalog/test_demo_data ddl_catalog/test_selection offline/test_readings \
	offline/test_spanish_pack
test-unit: $(STAMP)
	$(BIN)/python -m pytest -q -p no:cacheprovider -n 2 tests/unit \
		$(if $(QUICK),$(UNIT_SLOW:%=--ignore=tests/unit/%.py))

# CI runs the whole suite on one Python (`make test`); this installs the project on each of
# OTHER_PYTHONS found, in a virtual environment of its own, and runs the unit tests there.
test-pythons:
	@$(foreach v,$(OTHER_PYTHONS),$(call other_python,$(v)) &&) true

# For Python $(1) of OTHER_PYTHONS: its unit tests, or a line saying it is not on this machine.
other_python = $(if $(call find_python,python$(1)),$(MAKE) --no-print-directory \
	PYTHON=python$(1) VENV=$(OTHER_VENVS)/$(1) QUICK=1 test-unit,echo "Python $(1): not found; \
	its unit tests were not run")

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python tests/typecheck.py

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: $(STAMP)
	$(BIN)/python bench/db_init.py --repeat 1
	$(BIN)/python bench/guard.py
	$(BIN)/python bench/sql_feedback.py
	$(BIN)/python bench/agent_graph.py
	$(BIN)/python bench/turn_cost.py
	$(BIN)/python bench/offline_model.py
	$(BIN)/python bench/analyzer.py
	$(BIN)/python bench/http_server.py
	$(BIN)/python bench/schema_scale.py
	$(BIN)/python bench/init_scale.py
	$(BIN)/python bench/db_policies.py
	$(BIN)/python bench/guardrails.py
	$(BIN)/python bench/providers.py
	$(BIN)/python bench/hardening.py
	$(BIN)/python bench/load.py
	$(BIN)/python bench/soak.py
	$(BIN)/python bench/thread_prune.py

clean:
	rm -rf $(VENV) .orquestra .pytest_cache $(SITE_DIR)

eval: $(STAMP)
	$(BIN)/orquestra eval --suite logistics --out evals/out
	$(BIN)/orquestra eval --suite clinics --out evals/out
