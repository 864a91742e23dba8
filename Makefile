# Every target bootstraps .venv from pyproject.toml when it is missing or stale.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

DEMO_DB    ?= .citeloop/langgraph.db
DEMO_TASK  ?= How does StateGraph.compile produce a CompiledStateGraph, and where do add_node and add_edge fit in?
# A real chat model when a provider key is set, otherwise the recorded answers in
# examples/. The extra of the model's provider (openai, anthropic, ollama) is installed
# for the demo, whoever chose the model (DEMO_MODEL=openai:gpt-4o on the command line too).
ifdef OPENAI_API_KEY
DEMO_MODEL ?= openai:gpt-4o-mini
else ifdef ANTHROPIC_API_KEY
DEMO_MODEL ?= anthropic:claude-3-5-haiku-latest
else
DEMO_MODEL ?= replay:examples/langgraph_demo.jsonl
endif
DEMO_EXTRA ?= $(filter openai anthropic ollama,$(firstword $(subst :, ,$(DEMO_MODEL))))

.PHONY: demo test bench constraints clean

$(STAMP): pyproject.toml constraints.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev]'
	@touch $(STAMP)

demo: $(STAMP)
ifneq ($(DEMO_EXTRA),)
	$(BIN)/python -m pip install --quiet -e '.[$(DEMO_EXTRA)]'
endif
	$(BIN)/citeloop index "$$($(BIN)/python -c 'import langgraph.graph, pathlib; print(pathlib.Path(langgraph.graph.__file__).parents[1])')" --db $(DEMO_DB)
	$(BIN)/citeloop run --db $(DEMO_DB) --model $(DEMO_MODEL) --task "$(DEMO_TASK)"

test: $(STAMP)
	$(BIN)/ruff check citeloop tests benchmarks notebooks scripts
	$(BIN)/ruff format --check citeloop tests benchmarks notebooks scripts
	$(BIN)/python -m pytest

# Every benchmarks/bench_*.py with its target; a summary table; exit 1 naming any missed.
bench: $(STAMP)
	$(BIN)/python benchmarks/run_all.py

constraints:
	rm -rf .constraints-venv && $(PYTHON) -m venv .constraints-venv
	.constraints-venv/bin/python -m pip install --quiet -e '.[dev]'
	{ sed -n '1,3p' constraints.txt; .constraints-venv/bin/python -m pip freeze --exclude-editable; } > constraints.new
	mv constraints.new constraints.txt && rm -rf .constraints-venv

clean:
	rm -rf $(VENV) .citeloop .langgraph_api .pytest_cache .hypothesis
