# No Magic Boxes: every target sets up .venv first (quick when requirements.txt is unchanged).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# Debian's Chromium (`make packages`), for the browser tests
CHROMIUM ?= /usr/bin/chromium
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
export NO_MKDOCS_2_WARNING := 1
# Bytecode goes to .cache/pycache, never beside the sources; nothing is compiled at install, so each
# module is compiled the first time something imports it.
unexport PYTHONDONTWRITEBYTECODE
export PYTHONPYCACHEPREFIX := $(CURDIR)/.cache/pycache
export NMB_CHROMIUM := $(CHROMIUM)
# pip installs uv (the version requirements.txt pins), and uv installs requirements.txt (DECISIONS.md
# says why). The venv is made without pip of its own: the system's pip (22.3 or later: --python)
# installs uv into it, and `.venv/bin/uv pip` adds packages later. uv reads no pip configuration, so the folders pip finds wheels in (where a machine
# may keep its torch wheel) are passed on. Its cache is .cache/uv, on the venv's disk: installed files
# are hard links to it, not copies.
UV := $(shell grep -m1 '^uv==' requirements.txt)
export UV_CACHE_DIR ?= $(CURDIR)/.cache/uv
FIND_LINKS = $(foreach link,$(sort $(shell $(PYTHON) -m pip config list 2>/dev/null \
               | sed -n "s/.*find-links='\(.*\)'/\1/p")),--find-links $(link))

.PHONY: setup packages serve build test check screenshots bench record clean

$(STAMP): requirements.txt
	test -x $(PY) || $(PYTHON) -m venv --without-pip $(VENV)
	$(PYTHON) -m pip --python $(PY) install --quiet --disable-pip-version-check --no-compile $(UV)
	$(VENV)/bin/uv pip install --quiet --python $(PY) $(FIND_LINKS) -r requirements.txt
	touch $(STAMP)

setup: $(STAMP)

# Debian's packages for the tests, those missing in one apt-get (as root, or through sudo): Chromium and
# a font for the browser tests, driven by Playwright's Python API (Playwright's own browser download is
# never used; CHROMIUM=... points at another binary), and hunspell with Spain's Spanish and US English
# dictionaries for the tests of the Spanish prose (tests/language/).
SPELLING_FILES := /usr/bin/hunspell /usr/share/hunspell/es_ES.dic /usr/share/hunspell/en_US.dic
MISSING_PACKAGES = $(strip $(if $(wildcard $(CHROMIUM)),,chromium fonts-liberation) \
  $(if $(filter-out $(wildcard $(SPELLING_FILES)),$(SPELLING_FILES)),hunspell hunspell-es hunspell-en-us))

packages:
	$(if $(MISSING_PACKAGES),$(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive \
	  apt-get install -y -qq --no-install-recommends $(MISSING_PACKAGES),@true)

serve: setup
	$(PY) -m mkdocs serve --dirty --dev-addr 127.0.0.1:8000 --livereload

build: setup
	$(PY) -m mkdocs build --strict --site-dir site

# The venv and Debian's packages install side by side (one waits on the disk and the network while the
# other unpacks): a sub-make with two jobs.
test:
	@$(MAKE) --no-print-directory --jobs=2 setup packages
	$(PY) -m pytest

# The learner's workbench: `make check LAB=phase25/lab01` writes the lab's starters into mywork/ (those
# missing) and grades them against the course's code; `make check` lists the labs and their tasks.
# `make check LAB=phase25/lab01 DELIVERABLE=experiments/25-autograd-by-hand` validates the learner's deliverable folder.
# `make check LAB=phase25/lab01 NOTEBOOK=1` writes the lab's workspace notebook and its solutions into mywork/.
check: setup
	$(PY) -m workbench $(LAB) $(if $(DELIVERABLE),--deliverable $(DELIVERABLE)) $(if $(NOTEBOOK),--notebook)

# Full-page screenshots of the home page and every lab page, both languages, light and dark, into
# artifacts/screenshots/ (pictures for authors: `make test` leaves them out).
screenshots: setup packages
	$(PY) -m pytest -m screenshots tests/website/test_browser.py

# A cold build, rebuilds and `mkdocs serve` timed on a copy of the project, written to BENCHMARKS.md.
bench: setup
	$(PY) -m engine.bench

# On a machine with an NVIDIA GPU and a CUDA build of torch (no venv needed there).
# `make record ARGS=--all` re-records every recording; ARGS also takes --only TEXT, --jobs N, --dry-run.
record:
	$(PYTHON) -m engine.gpu.record $(ARGS)

clean:
	rm -rf site .cache artifacts
