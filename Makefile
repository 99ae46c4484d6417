# The README's two commands: `make run` and `make test`. Both set up .venv/ first.
# `make docs` builds the documentation site (docs/, mkdocs.yml) into var/docs-site; `make test` does it first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
CLIENT := clients/python
STAMP := $(VENV)/.installed-$(shell cat requirements.lock $(CLIENT)/pyproject.toml | sha256sum | cut -c1-12)

.PHONY: setup system-deps system-deps-test system-deps-bench run test lint docs bench validate assets clean

setup: $(STAMP)

$(STAMP): requirements.lock $(CLIENT)/pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "Python 3.11 or newer is needed (found: $$($(PYTHON) --version))"; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	# Installed without compiling, then compiled on every core at once: pip compiles one file at a
	# time, half of the set-up's time on two cores.
	$(PY) -m pip install --quiet --disable-pip-version-check --no-compile -r requirements.lock
	$(PY) -m compileall -q -j 0 $$($(PY) -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])') > /dev/null
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

# The suite on TEST_PROCESSES processes (pytest-xdist; tests/conftest.py keeps what is set up once on
# one of them), after the lint and the docs; beside it, the site's tests again on PostgreSQL, as a
# pass of its own on POSTGRES_PROCESSES, when one is reachable (tests/postgres_pass.py says how to
# name one; tests/passes.py runs the two and prints the second's output after the first's).
# Each pass has a temporary folder of its own: pytest keeps only its last three sessions' folders
# under /tmp/pytest-of-$$USER, so another pytest run meanwhile would delete this one's (its Redis,
# its site's database) under it.
TEST_PROCESSES ?= 2
POSTGRES_PROCESSES ?= 1
test: setup system-deps-test lint docs
	@tmp=$$(mktemp -d -t remat-arena-tests.XXXXXX) && \
	$(PY) -m tests.passes -n $(TEST_PROCESSES) --postgres-processes $(POSTGRES_PROCESSES) --basetemp=$$tmp; \
	status=$$?; rm -rf $$tmp; exit $$status

# Ruff, configured in pyproject.toml: the lint, and the format checked (`.venv/bin/ruff format .` applies it).
lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# The documentation site, offline, with every link and anchor checked (--strict: a warning fails).
# NO_MKDOCS_2_WARNING keeps out the theme's banner about its end of life (printed, not a build warning).
docs: setup
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict --quiet --site-dir var/docs-site

# Grading latency and throughput (judge: warm zygote beside a fresh interpreter per child), then
# the pages under concurrent load: a seeded database (2000 learners, 100,000 submissions, in
# var/bench/), served as `make run` serves it and by the ASGI worker alone, side by side, wrk at 8
# connections; medians of rounds of p50/p95 and CPU per request (see devstack/bench.py); then
# a burst of 300 submissions over HTTP to the stack `make run` starts, without and with faults, on
# SQLite and on PostgreSQL when one is reachable: drains, p50/p95, stalls (see devstack/burst.py);
# then learners waiting for verdicts on event streams, 250 to 2000 at once, and Submit to verdict in
# Chromium, pushed and polled (see devstack/waiting.py); then an assignment's similarity check on
# 300 learners and five problems (see devstack/similarity_bench.py); then one long-lived grading
# parent on the whole bank, both remats at once, several rounds, counting internal errors (devstack/soak.py).
bench: setup system-deps-bench
	$(PY) -m judge bench
	$(PY) -m judge bench --explorer
	$(PY) -m devstack bench
	$(PY) -m devstack bench --burst
	$(PY) -m devstack bench --waiting
	$(PY) -m devstack bench --similarity
	$(PY) -m devstack bench --soak

validate: setup
	$(PY) -m judge validate problems/*/

# Rebuilds the committed editor and KaTeX files in webplatform/static/vendor/ (needs npm).
assets:
	cd frontend && npm ci --no-audit --no-fund && npm run build

clean:
	rm -rf $(VENV) .pytest_cache
