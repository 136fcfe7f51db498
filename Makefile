# Hearth: `make run` and `make test` work on a fresh machine.
VENV   ?= .venv
PYTHON ?= python3
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.installed-stamp
DEMO   ?= demo

.PHONY: run stop test test-deploy test-failover test-console heat-functional lint unit venv postgres-deps graphviz-deps chromium-deps sshd-deps sample-config docs bench bench-fleet bench-takeover bench-failover clean

$(STAMP): setup.cfg setup.py pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test,postgres,cloud,bench]'
	touch $(STAMP)

venv: $(STAMP)

## run: install the demo's cloud profile and pillar configuration in Hearth's default places,
## start the demo's hearth-master in the background on Hearth's defaults (once; reused), create
## or update the stack $(DEMO) from templates/demo.yaml (three local servers, their pillar,
## execution modules on them) and print what each server did (tools/demo.py); a plain
## stackctl then reaches all of it
run: venv graphviz-deps
	@$(BIN)/python tools/demo.py run $(DEMO)

## stop: delete the demo stack (its agents), stop the demo's hearth-master, remove the demo's files
stop:
	@if [ -x $(BIN)/python ]; then $(BIN)/python tools/demo.py stop $(DEMO); fi

## test: lint, then the whole suite (PostgreSQL tests included) on four workers (most tests
## wait on processes and HTTP: with three the two cores stood idle a fifth of the run, with
## four a twelfth; bench/RESULTS.md), each test module on one worker (its module-scoped
## servers are shared by its tests; a few long ones are spread), the longest first
## (tests/scheduling.py, tests/durations.json); it prints the 25 slowest tests
TEST_WORKERS ?= 4
test: venv postgres-deps graphviz-deps chromium-deps sshd-deps lint
	$(BIN)/python -m pytest -q -p no:cacheprovider -n $(TEST_WORKERS) --dist loadgroup --durations=25 -m "not deploy and not failover and not browser"

## test-deploy: the full-size deploy tests (two servers on ec2/moto and on libcloud deploy their
## agents over SSH to the tests' own sshd, a call runs on both, update, delete); .ci/run runs it
test-deploy: venv sshd-deps
	$(BIN)/python -m pytest -q -p no:cacheprovider -n 2 -m deploy tests/functional/clouds

## test-failover: two hearth-masters on the tests' PostgreSQL, real agents failing over
## between them: the active master SIGKILLed mid-batch (every return recorded once, each agent
## ran the job once, the next job answered on the other master), one stopped (SIGTERM) hands its
## job over at once (issue 24); about a minute; .ci/run runs it
test-failover: venv postgres-deps
	$(BIN)/python -m pytest -q -p no:cacheprovider -n 2 -m failover tests/functional/agents

## test-console: the web console in Debian's headless Chromium (Playwright drives it; the tests
## start a master, an agent, hearth-api and stackctl console): launch a stack from a file and
## watch it live, keys, jobs, hostile values inert, cross-origin posts refused, projects apart
## (issue 25); about a minute; .ci/run runs it. HEARTH_CONSOLE_SCREENSHOTS=docs writes the
## screenshots into docs/images/console
test-console: venv chromium-deps
	HEARTH_REQUIRE_BROWSER=1 $(BIN)/python -m pytest -q -p no:cacheprovider -m browser tests/functional/console

## heat-functional: OpenStack Heat's own functional suite (heat_integrationtests of
## openstack-heat 27.0.1, unmodified, driven by unmodified python-heatclient; installed from PyPI
## into .heat-functional/venv) against a fresh hearth-api --noauth; fails when a test that passes
## on real Heat 27.0.1 does not pass here, or on a 5xx answer or a traceback in the server's log
## (about 15 minutes on 2 cores; HF_ARGS="--filter REGEX" runs a part); .ci/run runs it
HF_ARGS ?=
heat-functional: venv
	$(BIN)/python tools/heat_functional/run.py $(HF_ARGS)

## lint: ruff, the layers the imports obey (.importlinter: a package imports only those below
## it), mypy --strict on the packages [mypy] in setup.cfg lists (the CLI, the API, the engine)
## and the imports inside functions, each with its reason (tools/lazy_imports.py)
lint: venv
	$(BIN)/ruff check hearth tests bench tools examples
	$(BIN)/lint-imports
	$(BIN)/mypy
	$(BIN)/python tools/lazy_imports.py

unit: venv
	$(BIN)/python -m pytest -q -p no:cacheprovider tests/unit

## postgres-deps: install Debian's PostgreSQL server when it is missing (tests start it themselves)
postgres-deps:
	@sh tools/ensure-postgres.sh

## sshd-deps: install Debian's OpenSSH server when it is missing (the deploy tests start their own)
sshd-deps:
	@sh tools/ensure-sshd.sh

## graphviz-deps: install Debian's graphviz (the dot program) when it is missing (stack-graph SVG/PNG, the guide's pictures)
graphviz-deps:
	@sh tools/ensure-graphviz.sh

## chromium-deps: install Debian's chromium when it is missing (the console's browser tests
## drive it with Playwright; they start it themselves)
chromium-deps:
	@sh tools/ensure-chromium.sh

sample-config: venv
	$(BIN)/oslo-config-generator --namespace hearth --output-file etc/hearth/hearth.conf.sample

## docs: the user guide as HTML in docs/_build/html (Sphinx, warnings are errors)
docs: venv graphviz-deps
	$(BIN)/python tools/build_docs.py
	$(BIN)/sphinx-build -W --keep-going -q -b html docs docs/_build/html

bench: venv
	$(BIN)/python bench/run_all.py

## bench-takeover: the engine kill test at full size (three hearth-api engines on PostgreSQL, a
## 300-resource create whose acting engine is SIGKILLed 20 times; every stack must complete by
## itself, nothing made twice; issue 24); about ten minutes, not in make test; .ci/run runs it
bench-takeover: venv postgres-deps
	$(BIN)/python bench/takeover_bench.py

## bench-fleet: hearth-master with 100, 1,000 and 5,000 simulated agents speaking the real
## protocol (run, returns/s, RSS, CPU, a restart; issue 24); several minutes, not in make test
bench-fleet: venv
	$(BIN)/python bench/fleet_bench.py

## bench-failover: two hearth-masters on a private PostgreSQL, 20 real agents listing both with
## Hearth's default timings; the master they serve is SIGKILLed mid-batch 5 times: how long
## until the agents and a new job are served by the other and the waiting stackctl run (both
## masters listed) has every return, each recorded once (issue 24); then the same with the
## master SIGSTOPped and resumed (--pause: it must drop the job the other took over); about
## six minutes, not in make test; .ci/run runs it
bench-failover: venv postgres-deps
	$(BIN)/python bench/failover_bench.py
	$(BIN)/python bench/failover_bench.py --pause

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache
