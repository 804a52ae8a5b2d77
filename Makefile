# No Magic Boxes: every target sets up .venv first (quick when requirements.txt is unchanged).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# Headless Chromium for the browser tests: Debian's package, driven by Playwright's Python API
# (Playwright's own browser download is never used). CHROMIUM=... points at another binary.
CHROMIUM ?= /usr/bin/chromium
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
export NO_MKDOCS_2_WARNING := 1
# Bytecode goes to .cache/pycache, never beside the sources; pip compiles none at install (40 s instead
# of 90 s into an empty venv), so each module is compiled the first time something imports it.
unexport PYTHONDONTWRITEBYTECODE
export PYTHONPYCACHEPREFIX := $(CURDIR)/.cache/pycache
export NMB_CHROMIUM := $(CHROMIUM)

.PHONY: setup browser spelling serve build test screenshots bench record clean

$(STAMP): requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --no-compile -r requirements.txt
	touch $(STAMP)

setup: $(STAMP)

$(CHROMIUM):
	$(SUDO) apt-get update -qq
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-liberation

browser: $(CHROMIUM)

# hunspell with Spain's Spanish and US English dictionaries, for the tests of the Spanish prose
# (tests/language/): Debian's packages.
HUNSPELL_DICTIONARIES := /usr/share/hunspell/es_ES.dic /usr/share/hunspell/en_US.dic

spelling:
	@test -x /usr/bin/hunspell $(foreach d,$(HUNSPELL_DICTIONARIES),-a -f $(d)) || { \
	  $(SUDO) apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends hunspell hunspell-es hunspell-en-us; }

serve: setup
	$(PY) -m mkdocs serve --dirty --dev-addr 127.0.0.1:8000 --livereload

build: setup
	$(PY) -m mkdocs build --strict --site-dir site

test: setup browser spelling
	$(PY) -m pytest

# Full-page screenshots of the home page and every lab page, both languages, light and dark, into
# artifacts/screenshots/ (pictures for authors: `make test` leaves them out).
screenshots: setup browser
	$(PY) -m pytest -m screenshots tests/website/test_browser.py

bench: setup
	$(PY) -m engine.bench

# On a machine with an NVIDIA GPU and a CUDA build of torch (no venv needed there).
# `make record ARGS=--all` re-records every recording; ARGS also takes --only TEXT, --jobs N, --dry-run.
record:
	$(PYTHON) -m engine.record $(ARGS)

clean:
	rm -rf site .cache artifacts
