# One command sets up and runs the main job, one sets up and runs the tests.
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: prove test setup

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,rtl]'
	touch $@

setup: $(VENV)/.installed

prove: setup
	$(VENV)/bin/vredmax prove

test: setup
	$(PY) -m pytest -q
