# The README's two commands: `make run` and `make test`. Both set up .venv/ first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
CLIENT := clients/python
STAMP := $(VENV)/.installed-$(shell cat requirements.lock $(CLIENT)/pyproject.toml | sha256sum | cut -c1-12)

.PHONY: setup system-deps system-deps-test system-deps-bench run test bench validate assets clean

setup: $(STAMP)

$(STAMP): requirements.lock $(CLIENT)/pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "Python 3.11 or newer is needed (found: $$($(PYTHON) --version))"; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.lock
	# The `arena` client (its dependency, httpx, is pinned above), editable: the tests use this copy.
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e $(CLIENT)
	rm -f $(VENV)/.installed-*
	touch $@

# Debian packages: redis-server for `make run`; also Chromium and docker-compose for the tests.
system-deps:
	@scripts/system-deps.sh run

system-deps-test:
	@scripts/system-deps.sh test

system-deps-bench:
	@scripts/system-deps.sh bench

# The site on http://127.0.0.1:8000 with its own redis-server, a Celery worker and beat (Ctrl-C stops all).
run: setup system-deps
	$(PY) -m devstack run

test: setup system-deps-test
	$(PY) -m pytest

# Grading latency and throughput (judge: warm zygote beside a fresh interpreter per child), then
# the pages under concurrent load: a seeded database (2000 learners, 100,000 submissions, in
# var/bench/), served as `make run` serves it and by the ASGI worker alone, side by side, wrk at 8
# connections; medians of rounds of p50/p95 and CPU per request (see devstack/bench.py); then
# a burst of 300 submissions over HTTP to the stack `make run` starts, without and with faults, on
# SQLite and on PostgreSQL when one is reachable: drains, p50/p95, stalls (see devstack/burst.py);
# then learners waiting for verdicts on event streams, 250 to 2000 at once, and Submit to verdict in
# Chromium, pushed and polled (see devstack/waiting.py).
bench: setup system-deps-bench
	$(PY) -m judge bench
	$(PY) -m devstack bench
	$(PY) -m devstack bench --burst
	$(PY) -m devstack bench --waiting

validate: setup
	$(PY) -m judge validate problems/*/

# Rebuilds the committed editor and KaTeX files in webplatform/static/vendor/ (needs npm).
assets:
	cd frontend && npm ci --no-audit --no-fund && npm run build

clean:
	rm -rf $(VENV) .pytest_cache
