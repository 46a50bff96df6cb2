# One command sets up and runs the main job, one sets up and runs the tests. `make prove`
# installs only what proving needs; `make test` adds the test, RTL and documentation tools.
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: prove test setup docs angr

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed
	$(PY) -m pip install --quiet -e '.[test,rtl]'
	touch $@

setup: $(VENV)/.installed-test

# check-c's symbolic engine, angr, in an environment of its own (proofs/c/angr-requirements.txt)
ANGR_VENV ?= .venv-angr
$(ANGR_VENV)/.installed: proofs/c/angr-requirements.txt
	python3 -m venv $(ANGR_VENV)
	$(ANGR_VENV)/bin/python -m pip install --quiet -r proofs/c/angr-requirements.txt
	touch $@

angr: $(ANGR_VENV)/.installed

prove: $(VENV)/.installed
	$(VENV)/bin/vredmax prove

test: $(VENV)/.installed-test angr
	$(PY) -m pytest -q -n auto --dist loadgroup

# The documentation site in site/ (tests/test_docs_site.py builds it too)
docs: $(VENV)/.installed-test
	$(VENV)/bin/mkdocs build --strict
