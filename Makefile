# Ridgepoint: every target sets itself up on a fresh clone.
#   make serve   set up, build, serve on http://127.0.0.1:8000 (rebuilds on save; PORT=8001)
#   make build   validate content and write site/ (for this machine: http://127.0.0.1:8000/)
#   (build, serve and publish take BUILDER=mkdocs|zensical; MkDocs is the default)
#   make publish SITE_URL=https://...   the same, for publication at that address
#   make check   validate content only (fast)
#   make new     KIND=term|reading|hub|explainer|article|gpu|model|calibration SLUG=... [SIM=...]: a new content file
#   make test    set up and run every test (lint, type check, pytest)
#   make typecheck  type-check the browser JavaScript (TypeScript's checker, no output)
#   make bench   run the benchmarks
#   make golden  rewrite the pipeline's golden files after an intended change
#   make lock    re-resolve requirements.lock from pyproject.toml (needs network)

PYTHON ?= python3
BUILDER ?= mkdocs
PORT ?= 8000
VENV := .venv
PY := $(VENV)/bin/python
SETUP := $(VENV)/.installed node_modules/.installed

# Material prints an end-of-life notice on every run; it is known and tracked.
export NO_MKDOCS_2_WARNING := 1
# Bytecode is cached (in __pycache__/, ignored by git): without it every `make build` compiled
# the pipeline and the sims again, about 70 ms of each rebuild.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: setup serve build publish check new test typecheck bench experiments golden lint lock clean

setup: $(SETUP)

# The venv gets a .pth file so that `ridgepoint` (scripts/) and `sims` (repo root)
# import from anywhere: mkdocs hooks, pytest, the CLI.
$(VENV)/.installed: requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --require-hashes -r requirements.lock
	$(PY) -c "import pathlib, sysconfig; pathlib.Path(sysconfig.get_paths()['purelib'], 'ridgepoint.pth').write_text('$(CURDIR)\n$(CURDIR)/scripts\n')"
	touch $@

node_modules/.installed: package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

check: $(VENV)/.installed
	$(PY) scripts/check.py

new: $(VENV)/.installed
	@$(PY) scripts/new.py "$(KIND)" "$(SLUG)" "$(SIM)"

# A local build ignores SITE_URL: the publication address comes in only through `make publish`,
# which checks it (feed ids are made from it and are permanent).
build: $(SETUP)
	env -u SITE_URL $(PY) scripts/build.py --builder $(BUILDER)

publish: $(SETUP)
	$(PY) scripts/publish.py --site-url "$(SITE_URL)" --builder $(BUILDER)

serve: $(SETUP)
	$(PY) scripts/serve.py --dev-addr 127.0.0.1:$(PORT) --builder $(BUILDER)

# The page's scripts and the workers' have different global scopes: one checker run each.
TYPECHECK := node_modules/.bin/tsc -p tsconfig.json && node_modules/.bin/tsc -p tsconfig.workers.json

test: $(SETUP)
	$(PY) -m ruff check .
	$(VENV)/bin/lint-imports --no-cache
	$(TYPECHECK)
	$(PY) -m pytest

typecheck: node_modules/.installed
	$(TYPECHECK)

# Lighthouse (the bench's lighthouse group) has its own package folder: make test never needs it.
LIGHTHOUSE := scripts/bench/node/node_modules/.installed

bench: $(SETUP) $(LIGHTHOUSE)
	$(PY) scripts/bench.py

$(LIGHTHOUSE): scripts/bench/node/package-lock.json
	npm ci --prefix scripts/bench/node --no-audit --no-fund --loglevel=error
	touch $@

# Reruns every experiment and rewrites content/data/experiments/*.json (takes minutes).
# Experiment-only packages come from their own lock, installed exactly as listed (--no-deps:
# see requirements-experiments.in); the tests that need them run before the measurements.
experiments: $(VENV)/.experiments-installed
	$(PY) -m pytest -q -m experiments tests/experiments/test_routing_encoder.py
	$(PY) scripts/run_experiments.py

$(VENV)/.experiments-installed: requirements-experiments.lock $(VENV)/.installed
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --require-hashes -r requirements-experiments.lock
	touch $@

# Accept intended changes to generated pages and feeds; review `git diff tests/pipeline/golden`.
golden: $(VENV)/.installed
	UPDATE_GOLDEN=1 $(PY) -m pytest -q tests/pipeline/test_golden.py

lint: $(VENV)/.installed
	$(PY) -m ruff check .
	$(VENV)/bin/lint-imports --no-cache

lock:
	$(PYTHON) -m pip install --quiet uv
	$(PYTHON) -m uv pip compile pyproject.toml --extra test --generate-hashes --python-version 3.11 -o requirements.lock
	$(PYTHON) -m uv pip compile requirements-experiments.in --no-deps --generate-hashes --python-version 3.11 -o requirements-experiments.lock

clean:
	rm -rf site site.new-* site.old build .pytest_cache
