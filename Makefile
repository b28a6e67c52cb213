# One chain from setup to demo, tests and benchmarks. `make demo` is README command 1,
# `make test` is README command 2 (and what .ci/run calls).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# The torch CPU wheel lives in a local folder on some machines (PIP_FIND_LINKS, else the
# /opt/wheels folder where present); without it the installer takes torch from the index.
WHEELS := $(or $(PIP_FIND_LINKS),$(wildcard /opt/wheels))
FIND_LINKS := $(if $(WHEELS),--find-links $(WHEELS),)

# Whether every module named after it is installed (found, not imported: importing Dagster alone
# takes 3.4 s), for the targets below that install an extra when it is missing.
INSTALLED = $(BIN)/python -c "import importlib.util as u, sys; sys.exit(not all(u.find_spec(m) for m in sys.argv[1:]))"

.PHONY: setup browser ray bench-deps spark dagster lint format demo test test-core test-spark coverage-floor test-fast test-spark-all test-repeat mutants bench dashboards docs clean

# Bytecode is compiled at install (uv --compile-bytecode; pip compiles by default) and for the
# project's own packages on every setup (only what changed): where PYTHONDONTWRITEBYTECODE is set,
# as on some CI images, Python would otherwise compile scipy, dbt and the rest from source in
# every process it starts (measured here: 4.4 of the 7.9 s a `biaswh run` spent loading plugins).
PACKAGES := analysis benchmarks biaswh compute dashboards docs ingest lint stats tests warehouse
setup: $(VENV)/.installed
	@$(BIN)/python -m compileall -q -j 0 $(PACKAGES) > /dev/null

$(VENV)/.installed: requirements.lock requirements-nodeps.lock pyproject.toml setup.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q uv || true
	if [ -x $(BIN)/uv ]; then \
	  $(BIN)/uv pip install -q --compile-bytecode --python $(BIN)/python $(FIND_LINKS) -r requirements.lock && \
	  $(BIN)/uv pip install -q --compile-bytecode --python $(BIN)/python --no-deps -r requirements-nodeps.lock -e . ; \
	else \
	  $(BIN)/python -m pip install -q $(FIND_LINKS) -r requirements.lock && \
	  $(BIN)/python -m pip install -q --no-deps -r requirements-nodeps.lock -e . ; \
	fi
	touch $@

# Eight weekly ticks of the monitoring demo (studies/demo_monitoring.toml: a live demo system
# with a planted drop; one line per tick); then every other studies/demo*.toml in turn in one
# `biaswh run` process (Python, the plugins and dbt's parsed project loaded once); then the demo
# audit (studies/audit_demo.toml: its subjects' profiles, versions and rivals); the last line
# printed is the dashboard site's index page.
demo: setup
	$(BIN)/biaswh monitor studies/demo_monitoring.toml --through 2026-02-23 --quiet
	$(BIN)/biaswh run $$(ls studies/demo*.toml | grep -v demo_monitoring)
	$(BIN)/biaswh audit studies/audit_demo.toml

# `make test` runs every test but the Spark group (`make test-core`: those not marked spark). The Spark
# group (the dbt project on Spark in session mode and on a local Thrift server, one JVM each) is its own
# step, `make test-spark`. With COVERAGE=1 (CI sets it: .ci/run) both measure line coverage of the
# packages in pyproject.toml [tool.coverage.run]: `make test` prints it, `make test-spark` appends its
# own, and `make coverage-floor` checks [tool.coverage.report] fail_under over both. Without it they
# measure nothing: coverage's tracer (Python 3.11 has no sys.monitoring) slows every line of every
# process it measures, `make test` by about 10% (two fresh clones back to back: pytest 1,006 s
# without it, 1,110 s with it; 31.3 against 34.9 CPU-minutes). The tests run on TEST_WORKERS
# pytest-xdist workers; --dist loadgroup keeps each module (and Ray, Spark, the browser,
# with every test that uses them) on one worker, so nothing is started twice (groups:
# tests/conftest.py), and BIASWH_TEST_PREBUILD builds the demo warehouses once per step, beside the
# workers (tests/prebuilt.py).
TEST_WORKERS ?= 2
XDIST := -n $(TEST_WORKERS) --dist loadgroup
COVERAGE ?=
MEASURING := $(filter-out 0 no false,$(COVERAGE))
MEASURE := $(if $(MEASURING),--cov --cov-report= --cov-fail-under=0,--no-cov)
test: setup browser ray bench-deps spark dagster lint
	@status=0; \
	$(MAKE) --no-print-directory test-core || status=1; \
	$(if $(MEASURING),$(BIN)/python -m coverage report --skip-covered --fail-under=0 || status=1;) \
	exit $$status

# The coverage floor (pyproject.toml [tool.coverage.report] fail_under) over the data of
# `make test COVERAGE=1` and `make test-spark COVERAGE=1` together: CI's last step, after both.
coverage-floor: setup
	@test -f .coverage || { echo "make coverage-floor: no coverage data; run make test COVERAGE=1 and make test-spark COVERAGE=1 first"; exit 1; }
	$(BIN)/python -m coverage report --skip-covered

# Every test but those marked spark. Its coverage data starts afresh (.coverage), or is removed
# when it measures none, so `make coverage-floor` never reads an older run's.
test-core: setup
	@begin=$$(date +%s); \
	$(if $(MEASURING),,rm -f .coverage .coverage.*;) \
	BIASWH_TEST_PREBUILD=1 $(BIN)/python -m pytest $(XDIST) -m "not spark" $(MEASURE) --durations=15; \
	status=$$?; echo "make test-core: pytest took $$(( $$(date +%s) - begin )) s"; exit $$status

# The tests marked spark (tests/dbt_project/test_spark_*.py: the demo study on Spark in session mode
# and on a local Thrift server, the demo site's marts built on Spark), beside a build of the demo
# warehouses they compare with: the session-mode modules share one JVM on one worker, the Thrift
# server's module (its own JVM) runs on the other; the prebuild stops after the demo site (no Spark
# test reads the demo audit). Every studies/demo*.toml built on Spark and compared with the DuckDB
# path (tests/dbt_project/test_spark_every_demo_study.py, eight Spark builds) runs here too, on the
# session-mode worker. With COVERAGE=1 their coverage is appended to the data `make test-core` left
# (.coverage), so `make coverage-floor` then covers both steps.
test-spark: setup spark
	@begin=$$(date +%s); \
	BIASWH_TEST_SPARK_ALL=1 BIASWH_TEST_PREBUILD=demo,site $(BIN)/python -m pytest $(XDIST) -m spark \
	  $(MEASURE) $(if $(MEASURING),--cov-append) --durations=15; \
	status=$$?; echo "make test-spark: pytest took $$(( $$(date +%s) - begin )) s"; exit $$status

# Every studies/demo*.toml built on Spark and compared with the DuckDB path (values, types,
# descriptions), alone: eight Spark builds (part of `make test-spark`, too long for `make test`).
test-spark-all: setup spark
	BIASWH_TEST_SPARK_ALL=1 $(BIN)/python -m pytest tests/dbt_project/test_spark_every_demo_study.py -q --no-cov

# ruff (lint and format check) over the Python, sqlfluff over dbt's models and macros; the
# settings live in pyproject.toml [tool.ruff] and .sqlfluff. `make format` applies the fixes.
# sqlfluff lints its files on every core (--processes 0: 137 files, ~45 CPU-s on one core); the
# warning silenced is its worker pool's, at exit, about a semaphore the pool leaves to the tracker.
PUBLIC_API := biaswh/api.py biaswh/api_warehouse.py biaswh/findings_view.py stats
lint: setup
	$(BIN)/ruff check --quiet .
	$(BIN)/ruff check --quiet --preview --select DOC102,DOC201,DOC202,DOC402,DOC403,DOC501 $(PUBLIC_API)
	$(BIN)/ruff format --check --quiet .
	PYTHONWARNINGS="ignore:resource_tracker:UserWarning" $(BIN)/sqlfluff lint dbt_project/models dbt_project/macros --disable-progress-bar --nocolor --processes 0

format: setup
	$(BIN)/ruff check --fix --quiet .
	$(BIN)/ruff format --quiet .
	$(BIN)/sqlfluff fix dbt_project/models dbt_project/macros --disable-progress-bar -q

# The browser tests render the demo site in Debian's headless Chromium; installed when missing
# and possible (root with apt), else those tests skip locally (and fail under CI=true).
browser:
	@if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then \
	  if command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver >/dev/null 2>&1 \
	      || { apt-get update -q >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver >/dev/null; } \
	      || echo "could not install chromium; the browser tests will skip (or fail under CI)"; \
	  else echo "chromium/chromedriver missing: apt-get install chromium chromium-driver for the browser tests"; fi; \
	fi

# The Ray compute engine is an optional extra (pyproject [ray]); the tests run it, so `make test`
# installs it when missing, at the version requirements-ray.lock pins (its other dependencies
# are already in requirements.lock), with the client extra that ray:// addresses need.
ray: setup
	@if ! $(INSTALLED) ray grpc; then \
	  if [ -x $(BIN)/uv ]; then $(BIN)/uv pip install -q --compile-bytecode --python $(BIN)/python -r requirements-ray.lock; \
	  else $(BIN)/python -m pip install -q -r requirements-ray.lock; fi; \
	fi

# Dagster (pyproject [dagster], biaswh/schedule/): the tests run its jobs in process, so `make test`
# installs it when missing: requirements-dagster.lock's exact list, --no-deps (see its header).
dagster: setup
	@if ! $(INSTALLED) dagster dagster_dbt; then \
	  if [ -x $(BIN)/uv ]; then $(BIN)/uv pip install -q --compile-bytecode --python $(BIN)/python --no-deps -r requirements-dagster.lock; \
	  else $(BIN)/python -m pip install -q --no-deps -r requirements-dagster.lock; fi; \
	fi

# The bench extra (pyproject [bench]): bm25s beside our BM25 in `make bench`, and numba, which BM25's
# kernel uses when present (the tests run both paths), at requirements-bench.lock's versions.
bench-deps: setup
	@if ! $(INSTALLED) bm25s numba; then \
	  if [ -x $(BIN)/uv ]; then $(BIN)/uv pip install -q --compile-bytecode --python $(BIN)/python -r requirements-bench.lock; \
	  else $(BIN)/python -m pip install -q -r requirements-bench.lock; fi; \
	fi

# The Spark target (`dbt build --target spark`, tests marked spark): the `spark` extra at the
# versions of requirements-spark.lock and Debian's Java 17, installed when missing and possible
# (root with apt), else the Spark tests skip locally (and fail under CI=true).
spark: $(VENV)/.spark-installed
	@if ! command -v java >/dev/null; then \
	  if command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -q openjdk-17-jre-headless >/dev/null 2>&1 \
	      || { apt-get update -q >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q openjdk-17-jre-headless >/dev/null; } \
	      || echo "could not install Java 17; the Spark tests will skip (or fail under CI)"; \
	  else echo "java missing: apt-get install openjdk-17-jre-headless for the Spark tests"; fi; \
	fi

$(VENV)/.spark-installed: $(VENV)/.installed requirements-spark.lock
	if [ -x $(BIN)/uv ]; then \
	  $(BIN)/uv pip install -q --compile-bytecode --python $(BIN)/python -r requirements-spark.lock; \
	else $(BIN)/python -m pip install -q -r requirements-spark.lock; fi
	touch $@

# The edit-test loop: no dbt build (nor a test reading a demo warehouse), no real data, no Ray or
# Spark start; prints its duration and slowest tests (target < 3 min).
# The hostile endpoint module (a server that drips, stalls, redirects, floods) REPEAT times in a row,
# each in a fresh process, stopping at the first failure: its timing cases once raced.
REPEAT ?= 20
test-repeat: setup
	@for i in $$(seq 1 $(REPEAT)); do \
	  $(BIN)/python -m pytest -q --no-cov -p no:randomly tests/hostile/test_endpoints.py > /dev/null \
	    || { echo "make test-repeat: run $$i of $(REPEAT) failed"; exit 1; }; \
	done; echo "make test-repeat: $(REPEAT) runs in a row passed"

test-fast: setup
	@begin=$$(date +%s); \
	$(BIN)/python -m pytest $(XDIST) -q -m "not dbt and not real_data and not ray and not spark" --durations=10; \
	status=$$?; \
	echo "make test-fast: pytest took $$(( $$(date +%s) - begin )) s"; exit $$status

# Mutation testing of the modules that guard data, endpoints and verdicts (tests/mutants/,
# docs/testing.md): the guarded modules changed against main, `MODULES=all`, or named modules and
# folders (`MODULES="stats/ compute/weat/ect.py"`). One mutmut worker, niced; each mutant runs only
# the guard tests that reach its function. Prints the kill rate per module and every survivor.
# Not part of `make test`. `IN_PROCESS=1` judges one named module's mutants in one pytest process
# instead (tests/mutants/in_process.py: for guard tests too slow to start per mutant, the study pages).
MODULES ?=
IN_PROCESS ?=
mutants: setup
	nice -n 15 $(BIN)/python -m tests.mutants$(if $(IN_PROCESS),.in_process) $(MODULES)

bench: setup ray bench-deps
	$(BIN)/python -m benchmarks

dashboards: setup
	$(BIN)/biaswh dashboards

clean:
	rm -rf .warehouse dbt_project/target dbt_project/logs

# The documentation site (mkdocs.yml, docs/): the generated regions checked, then built into site/
# with --strict (any warning fails). tests/docs/ runs the same build in `make test`.
docs: setup
	$(BIN)/python -m docs.generate --check
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet
	@echo "documentation site: $(CURDIR)/site/index.html"
