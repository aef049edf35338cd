# Ridgepoint: every target sets itself up on a fresh clone.
#   make serve   set up, build, serve on http://127.0.0.1:8000 (rebuilds on save; PORT=8001)
#   make build   validate content and write site/ (for this machine: http://127.0.0.1:8000/)
#   (build, serve and publish take BUILDER=mkdocs|zensical; MkDocs is the default)
#   make publish SITE_URL=https://...   the same, for publication at that address
#   make check   validate content only (fast)
#   make new     KIND=term|reading|hub|explainer|article|gpu|model|kernels|engine|calibration SLUG=... [SIM=...]: a new content file
#   make model-from-config CONFIG=path/to/config.json SLUG=...: a model file from its Hugging Face config.json
#   make test    set up (Chromium and Java too, with apt, if missing) and run every test
#   make typecheck  type-check the browser JavaScript (TypeScript's checker, no output)
#   make bench   run the benchmarks
#   make calibration  the physics against every measurement: errors per category, training
#                and held-out sets side by side (a few seconds)
#   make fit     refit the kernel profiles (content/catalogue/kernels/) to the training points
#   make golden  rewrite the pipeline's golden files after an intended change
#   make lock    re-resolve requirements.lock from pyproject.toml (needs network)
#   make transcribe AIC=/path/to/aiconfigurator [AIC_COMMIT=<sha>]   rewrite the calibration
#                points transcribed from aiconfigurator's profiles (a checkout of it)

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

.PHONY: system setup serve build publish check new model-from-config test typecheck bench calibration fit experiments transcribe golden lint lock clean

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

model-from-config: $(VENV)/.installed
	@$(PY) scripts/new.py model "$(SLUG)" --from-config "$(CONFIG)"

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

# The system packages first: vnu-jar's install step (npm ci) looks for the Java they bring.
test: system $(SETUP)
	$(PY) -m ruff check .
	$(VENV)/bin/lint-imports --no-cache
	$(TYPECHECK)
	$(PY) -m pytest

# Chromium for the browser tests, Java for the Nu Html Checker: installed when missing, or
# one line saying what to install (scripts/system_packages.sh).
system:
	@scripts/system_packages.sh

typecheck: node_modules/.installed
	$(TYPECHECK)

# Lighthouse (the bench's lighthouse group) has its own package folder: make test never needs it.
LIGHTHOUSE := scripts/bench/node/node_modules/.installed

bench: $(SETUP) $(LIGHTHOUSE)
	$(PY) scripts/bench.py

$(LIGHTHOUSE): scripts/bench/node/package-lock.json
	npm ci --prefix scripts/bench/node --no-audit --no-fund --loglevel=error
	touch $@

calibration: $(VENV)/.installed
	$(PY) scripts/calibration.py

# Fits each profile's constants to its training points alone and writes them with the errors
# they make (tests/sims/test_kernel_fit.py fails while the committed profiles are not a fit's).
fit: $(VENV)/.installed
	$(PY) scripts/calibration.py --fit

# Reruns every experiment and rewrites content/data/experiments/*.json (takes minutes).
# Experiment-only packages come from their own lock, installed exactly as listed (--no-deps:
# see requirements-experiments.in); the tests that need them run before the measurements.
experiments: $(VENV)/.experiments-installed
	$(PY) -m pytest -q -m experiments tests/experiments/test_routing_encoder.py
	$(PY) scripts/run_experiments.py

# Rewrites content/catalogue/calibration/aiconfigurator-*.yaml from a checkout of
# ai-dynamo/aiconfigurator (AIC_COMMIT names its commit when the folder has no .git).
transcribe: $(VENV)/.experiments-installed
	@test -n "$(AIC)" || { echo "make transcribe AIC=/path/to/aiconfigurator"; exit 2; }
	$(PY) scripts/transcribe/aiconfigurator.py "$(AIC)" $(if $(AIC_COMMIT),--commit $(AIC_COMMIT))

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
