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
	$(BIN)/orquestra eval --dataset evals/datasets/project.jsonl --out evals/out/project
	$(BIN)/orquestra eval --dataset evals/datasets/heldout.jsonl --out evals/out/heldout
	$(BIN)/orquestra eval --dataset evals/datasets/paraphrases.jsonl --out evals/out/paraphrases
	$(BIN)/orquestra --deployment clinics eval --dataset evals/datasets/clinics.jsonl --out evals/out/clinics
	$(BIN)/orquestra --deployment clinics eval --dataset evals/datasets/clinics_heldout.jsonl --out evals/out/clinics_heldout
	$(BIN)/orquestra eval --dataset evals/datasets/paraphrases_dev.jsonl --out evals/out/paraphrases_dev
	$(BIN)/orquestra --deployment clinics eval --dataset evals/datasets/clinics_paraphrases_dev.jsonl --out evals/out/clinics_paraphrases_dev
	$(BIN)/orquestra eval --dataset evals/datasets/paraphrases_dev2.jsonl --out evals/out/paraphrases_dev2
	$(BIN)/orquestra --deployment clinics eval --dataset evals/datasets/clinics_paraphrases_dev2.jsonl --out evals/out/clinics_paraphrases_dev2
	$(BIN)/orquestra eval --dataset evals/datasets/paraphrases_dev3.jsonl --out evals/out/paraphrases_dev3
	$(BIN)/orquestra --deployment clinics eval --dataset evals/datasets/clinics_paraphrases_dev3.jsonl --out evals/out/clinics_paraphrases_dev3
	$(BIN)/orquestra eval --dataset evals/datasets/paraphrases_dev4.jsonl --out evals/out/paraphrases_dev4
	$(BIN)/orquestra --deployment clinics eval --dataset evals/datasets/clinics_paraphrases_dev4.jsonl --out evals/out/clinics_paraphrases_dev4
	$(BIN)/orquestra eval --dataset evals/datasets/paraphrases_dev5.jsonl --out evals/out/paraphrases_dev5
	$(BIN)/orquestra --deployment clinics eval --dataset evals/datasets/clinics_paraphrases_dev5.jsonl --out evals/out/clinics_paraphrases_dev5
	$(BIN)/orquestra eval --dataset evals/datasets/paraphrases_dev6.jsonl --out evals/out/paraphrases_dev6
	$(BIN)/orquestra --deployment clinics eval --dataset evals/datasets/clinics_paraphrases_dev6.jsonl --out evals/out/clinics_paraphrases_dev6
	$(BIN)/orquestra eval --dataset evals/datasets/paraphrases_dev7.jsonl --out evals/out/paraphrases_dev7
	$(BIN)/orquestra --deployment clinics eval --dataset evals/datasets/clinics_paraphrases_dev7.jsonl --out evals/out/clinics_paraphrases_dev7
	$(BIN)/orquestra eval --dataset evals/datasets/paraphrases_dev8.jsonl --out evals/out/paraphrases_dev8
	$(BIN)/orquestra --deployment clinics eval --dataset evals/datasets/clinics_paraphrases_dev8.jsonl --out evals/out/clinics_paraphrases_dev8
	$(BIN)/orquestra eval --dataset evals/datasets/paraphrases_dev9.jsonl --out evals/out/paraphrases_dev9
	$(BIN)/orquestra --deployment clinics eval --dataset evals/datasets/clinics_paraphrases_dev9.jsonl --out evals/out/clinics_paraphrases_dev9
	$(BIN)/orquestra eval --dataset evals/datasets/paraphrases_dev10.jsonl --out evals/out/paraphrases_dev10
	$(BIN)/orquestra --deployment clinics eval --dataset evals/datasets/clinics_paraphrases_dev10.jsonl --out evals/out/clinics_paraphrases_dev10
	$(BIN)/orquestra eval --dataset evals/datasets/paraphrases_dev11.jsonl --out evals/out/paraphrases_dev11
	$(BIN)/orquestra --deployment clinics eval --dataset evals/datasets/clinics_paraphrases_dev11.jsonl --out evals/out/clinics_paraphrases_dev11
	$(BIN)/orquestra eval --dataset evals/datasets/paraphrases_dev12.jsonl --out evals/out/paraphrases_dev12
	$(BIN)/orquestra --deployment clinics eval --dataset evals/datasets/clinics_paraphrases_dev12.jsonl --out evals/out/clinics_paraphrases_dev12
	$(BIN)/orquestra eval --dataset evals/datasets/paraphrases_dev13.jsonl --out evals/out/paraphrases_dev13
	$(BIN)/orquestra --deployment clinics eval --dataset evals/datasets/clinics_paraphrases_dev13.jsonl --out evals/out/clinics_paraphrases_dev13
	$(BIN)/orquestra eval --dataset evals/datasets/paraphrases_dev14.jsonl --out evals/out/paraphrases_dev14
	$(BIN)/orquestra --deployment clinics eval --dataset evals/datasets/clinics_paraphrases_dev14.jsonl --out evals/out/clinics_paraphrases_dev14
	$(BIN)/orquestra eval --dataset evals/datasets/paraphrases_dev15.jsonl --out evals/out/paraphrases_dev15
	$(BIN)/orquestra --deployment clinics eval --dataset evals/datasets/clinics_paraphrases_dev15.jsonl --out evals/out/clinics_paraphrases_dev15
	$(BIN)/orquestra eval --dataset evals/datasets/paraphrases_dev16.jsonl --out evals/out/paraphrases_dev16
	$(BIN)/orquestra --deployment clinics eval --dataset evals/datasets/clinics_paraphrases_dev16.jsonl --out evals/out/clinics_paraphrases_dev16
	$(BIN)/orquestra eval --dataset evals/datasets/paraphrases_dev17.jsonl --out evals/out/paraphrases_dev17
	$(BIN)/orquestra --deployment clinics eval --dataset evals/datasets/clinics_paraphrases_dev17.jsonl --out evals/out/clinics_paraphrases_dev17
	$(BIN)/orquestra eval --dataset evals/datasets/paraphrases_dev18.jsonl --out evals/out/paraphrases_dev18
	$(BIN)/orquestra --deployment clinics eval --dataset evals/datasets/clinics_paraphrases_dev18.jsonl --out evals/out/clinics_paraphrases_dev18
	$(BIN)/orquestra eval --dataset evals/datasets/paraphrases_dev19.jsonl --out evals/out/paraphrases_dev19
	$(BIN)/orquestra --deployment clinics eval --dataset evals/datasets/clinics_paraphrases_dev19.jsonl --out evals/out/clinics_paraphrases_dev19
	$(BIN)/orquestra eval --dataset evals/datasets/paraphrases_dev20.jsonl --out evals/out/paraphrases_dev20
	$(BIN)/orquestra --deployment clinics eval --dataset evals/datasets/clinics_paraphrases_dev20.jsonl --out evals/out/clinics_paraphrases_dev20
	$(BIN)/orquestra eval --dataset evals/datasets/paraphrases_heldout2.jsonl --out evals/out/paraphrases_heldout2
