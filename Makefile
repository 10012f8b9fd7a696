# The README's commands. `make demo` and `make test` work on a fresh machine with only
# Python 3.11+: they create .venv and install the project into it when needed.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint format bench eval clean

$(STAMP): pyproject.toml $(wildcard */__init__.py)
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "Orquestra needs Python 3.11 or newer (found: $$($(PYTHON) --version))"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/orquestra demo

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python tests/typecheck.py
	$(BIN)/python -m pytest -n auto --maxprocesses=4 --dist loadfile

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

clean:
	rm -rf $(VENV) .orquestra .pytest_cache

eval: $(STAMP)
	$(BIN)/orquestra eval --suite logistics --out evals/out
	$(BIN)/orquestra eval --suite clinics --out evals/out
