# Sluice: `make serve` and `make test` each bootstrap .venv on a fresh machine.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
HOST   ?= 127.0.0.1
PORT   ?= 8080
DATA   ?= ./data

.PHONY: serve test test-fast lint bench clean system-deps

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e '.[test,dev]'
	touch $(STAMP)

# System packages the tests need (the README tour runs curl). Installed through apt when missing.
SYSTEM_TOOLS := curl
system-deps:
	@missing=""; for t in $(SYSTEM_TOOLS); do command -v $$t >/dev/null || missing="$$missing $$t"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq $$missing; \
	fi

serve: $(STAMP)
	$(PY) -m app serve --host $(HOST) --port $(PORT) --data-dir $(DATA)

test: $(STAMP) system-deps
	$(PY) -m pytest --cov

test-fast: $(STAMP)
	$(PY) -m pytest -m "not slow"

lint: $(STAMP)
	$(VENV)/bin/ruff format --check app tests benchmarks
	$(VENV)/bin/ruff check app tests benchmarks
	$(VENV)/bin/mypy

bench: $(STAMP)
	$(PY) -m benchmarks.run_all

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
