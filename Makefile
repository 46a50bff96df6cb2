# One command sets up and runs the main job, one sets up and runs the tests. `make prove`
# installs only what proving needs; `make test` adds the test, RTL and documentation tools.
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: prove test setup docs angr lint typecheck format FORCE

# An editable install in setuptools' strict mode: a tree of links, one per file, under build/
# on the path (no import hook), so editors, jedi, grimp and the type checker find every module.
# A link tree does not see a file added or removed until the next install: the install depends
# on the list of the package's files, rewritten only when it changes (`make setup` reinstalls).
STRICT := --config-settings editable_mode=strict
PACKAGE_FILES := $(shell find vredmax spec impl proofs platforms presentation -type f \
	! -path '*/__pycache__/*' ! -name '*.pyc' | LC_ALL=C sort)

$(VENV)/.package-files: FORCE
	@mkdir -p $(VENV)
	@printf '%s\n' $(PACKAGE_FILES) > $@.new
	@if cmp -s $@.new $@; then rm $@.new; else mv $@.new $@; fi

$(VENV)/.installed: pyproject.toml $(VENV)/.package-files
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet -e . $(STRICT)
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed
	$(PY) -m pip install --quiet -e '.[test,rtl]' $(STRICT)
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

# The checks tests/test_tooling.py runs too: ruff, the type checker (docs/contributing.md)
lint: $(VENV)/.installed-test
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: $(VENV)/.installed-test
	$(VENV)/bin/mypy

format: $(VENV)/.installed-test
	$(VENV)/bin/ruff format .

# The documentation site in site/ (tests/test_docs_site.py builds it too)
docs: $(VENV)/.installed-test
	$(VENV)/bin/mkdocs build --strict
