# The two set-up commands of the README: `make eval` and `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python
LIMIT ?= 10
JUDGE_CHECK ?= 10

.PHONY: install eval test test-fast lint bench

$(VENV)/.installed: pyproject.toml scripts/install.sh
	COBE_VENV=$(VENV) scripts/install.sh dev
	touch $@

install: $(VENV)/.installed

# The main job: the whole pipeline on the bundled starter set with the embedded local model as
# respondent and judge. It first self-tests that judge on JUDGE_CHECK scenarios (judge calls only:
# the unchanged story, the illustrative rewrite, another story's rewrite), and its last lines give
# the measured result, so the run says in numbers how far its scores can be trusted. Ten scenarios
# keep it to a few minutes on two cores (about six CPU-minutes in all).
eval: $(VENV)/.installed
	$(VENV)/bin/cobe eval --limit $(LIMIT) --judge-check $(JUDGE_CHECK)

# Every test, the slow (embedded model) and browser groups included, after the static checks; test
# files are spread over the cores, each file's tests kept on one worker (module fixtures load once) and
# the files that run the embedded model all on one worker, first (tests/support/workers.py says why).
test: lint
	scripts/browser.sh
	$(PY) scripts/check_collected.py
	$(PY) -m pytest -n auto --dist loadfile --no-loadscope-reorder

# Lint, format, types and import layers (the rules live in pyproject.toml); CI runs them through `make test`.
lint: $(VENV)/.installed
	$(VENV)/bin/ruff check src tests benchmarks scripts
	$(VENV)/bin/ruff format --check src tests benchmarks scripts
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy

# Unit and integration tests without the embedded model or the browser.
test-fast: $(VENV)/.installed
	$(PY) -m pytest -n auto --dist loadfile --no-loadscope-reorder -m "not slow and not browser"

bench: $(VENV)/.installed
	$(PY) benchmarks/bench_harness.py
	$(PY) benchmarks/bench_report.py
	$(PY) benchmarks/bench_calibration.py
	$(PY) benchmarks/bench_cluster_coverage.py
	$(PY) benchmarks/bench_judge_cost.py
	$(PY) benchmarks/bench_plan.py
	$(PY) benchmarks/bench_ray.py
	$(PY) benchmarks/bench_driver_kill.py
	$(PY) benchmarks/bench_site_import.py
