# The README's two commands: `make run` and `make test`. Both set up .venv/ first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat requirements.lock | sha256sum | cut -c1-12)

.PHONY: setup test bench validate clean

setup: $(STAMP)

$(STAMP): requirements.lock
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "Python 3.11 or newer is needed (found: $$($(PYTHON) --version))"; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.lock
	rm -f $(VENV)/.installed-*
	touch $@

test: setup
	$(PY) -m pytest

validate: setup
	$(PY) -m judge validate problems/*/

bench: setup
	$(PY) -m judge bench

clean:
	rm -rf $(VENV) .pytest_cache
