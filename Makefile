# Detour: `make demo` and `make test` set everything up on a fresh machine
# (python3 with venv and pip, cargo); `make lint` checks the style;
# `make bench` runs the speed benchmark.

PYTHON  ?= python3
VENV    ?= .venv
PY      := $(VENV)/bin/python
PIP     := $(PY) -m pip
SHARED  ?= ../shared
BENCH   := target/bench
# Runtime and test dependencies of the package (kept in step with pyproject.toml):
# the tests also need the `ray` extra (a real local Ray cluster runs a sweep)
# and pandas / polars (the results table's one-line loaders); pytest-xdist
# spreads the tests over every core.
PY_DEPS := "maturin>=1.5,<2" "numpy>=1.22" "pyarrow>=10" "matplotlib>=3.6" "tqdm>=4.60" \
           "tomli>=1.1; python_version < '3.11'" "tomli-w>=1.0" pytest
TEST_DEPS := "ray[default]>=2.9" pandas polars "pytest-xdist>=3.5"
# The Python linters, pinned: a new release's new rules must not fail CI unasked.
LINT_DEPS := "ruff==0.17.6" "mypy==2.4.1"

.PHONY: demo test test-rust test-python lint lint-rust lint-python develop bench bench-core bench-pgo fuzz venv clean

# Given to the final crate of an optimised build (the extension, or the
# core's bench example), whose fat LTO step optimises the whole program:
# the `rustc-args` list of pyproject.toml, which maturin passes to the
# extension, read from there (it is one line) so it is written once.
CORE_RUSTC_ARGS := $(shell sed -n 's/^rustc-args = \[\(.*\)\]$$/\1/p' pyproject.toml | tr -d '",')

# The virtual environment with maturin and the package's dependencies.
$(VENV)/.deps-installed: pyproject.toml Makefile
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet $(PY_DEPS)
	touch $@

# What only the tests need (Ray is large: `make demo` does without it).
$(VENV)/.test-deps-installed: $(VENV)/.deps-installed
	$(PIP) install --quiet $(TEST_DEPS)
	touch $@

# The linters (`make lint`), into the same venv.
$(VENV)/.lint-deps-installed: $(VENV)/.deps-installed
	$(PIP) install --quiet $(LINT_DEPS)
	touch $@

venv: $(VENV)/.deps-installed

# Build the Rust extension (release) and install the package in the venv, editable.
develop: $(VENV)/.deps-installed
	VIRTUAL_ENV=$(abspath $(VENV)) PATH="$(abspath $(VENV))/bin:$$PATH" \
		$(VENV)/bin/maturin develop --release --quiet

demo: develop
	$(VENV)/bin/detour demo --out out/demo

test-rust:
	cargo test

test-python: develop $(VENV)/.test-deps-installed
	$(PY) -m pytest python/tests -q -n auto

test: test-rust test-python

# Style, enforced (README, "Style"): rustfmt and clippy -D warnings on the
# workspace (rustfmt.toml; crates/detour-core/clippy.toml refuses hash-map
# iteration, docs/architecture.md "Determinism"), ruff and mypy on the
# Python package (pyproject.toml's [tool.ruff] and [tool.mypy]).
lint: lint-rust lint-python

# $(call rust_tool,COMPONENT,CHECK,COMMAND): run COMMAND if `cargo CHECK
# --version` works, or once rustup has added COMPONENT; when it cannot
# (no rustup, or offline), say so and skip that check rather than fail.
define rust_tool
	@if cargo $(2) --version >/dev/null 2>&1 || \
	    { command -v rustup >/dev/null 2>&1 && rustup component add $(1) && cargo $(2) --version >/dev/null 2>&1; }; then \
		echo "$(3)"; $(3); \
	else \
		echo "make lint: SKIPPED '$(3)': $(1) is not installed and rustup could not add it (offline?); run 'rustup component add $(1)'"; \
	fi
endef

lint-rust:
	$(call rust_tool,rustfmt,fmt,cargo fmt --all --check)
	$(call rust_tool,clippy,clippy,cargo clippy --workspace --all-targets -- -D warnings)

lint-python: $(VENV)/.lint-deps-installed
	$(VENV)/bin/ruff check python
	$(VENV)/bin/mypy

# The standard benchmark ($(SHARED)/bench/README.md): one million requests on
# the matched device, fresh, then preconditioned to half full at the GC threshold.
# $(call gen_trace,REQUESTS,SEED): write the target with the bench's generator.
define gen_trace
	@test -f $(SHARED)/bench/gen_trace.py || { echo "make bench needs $(SHARED)/bench/gen_trace.py (set SHARED=...)"; exit 2; }
	mkdir -p $(BENCH)
	$(PY) $(SHARED)/bench/gen_trace.py $@.tmp -n $(1) --seed $(2)
	mv $@.tmp.summary.txt $@.summary.txt
	mv $@.tmp $@
endef

$(BENCH)/t1m.trace: | $(VENV)/.deps-installed
	$(call gen_trace,1000000,43)

$(BENCH)/t200k.trace: | $(VENV)/.deps-installed
	$(call gen_trace,200000,42)

# The peers' figures: t1m fresh, and t200k preconditioned to half full (MQSim's
# preconditioned run); t1m preconditioned as well, where the setup weighs less.
PRECOND_KV := ftl.precondition.valid=0.5 ftl.precondition.to_gc_threshold=true
PRECOND := $(addprefix --set ,$(PRECOND_KV))
bench: develop $(BENCH)/t1m.trace $(BENCH)/t200k.trace
	$(VENV)/bin/detour bench --repeat 5 --trace $(BENCH)/t1m.trace --device bench-matched
	$(VENV)/bin/detour bench --repeat 5 --trace $(BENCH)/t200k.trace --device bench-matched $(PRECOND)
	$(VENV)/bin/detour bench --repeat 5 --trace $(BENCH)/t1m.trace --device bench-matched $(PRECOND)

# The same figures from the core's bench example alone (no Python), built as
# the extension is.
BENCH_BIN := target/release/examples/bench
bench-core: $(BENCH)/t1m.trace $(BENCH)/t200k.trace
	cargo rustc --release -p detour-core --example bench -- $(CORE_RUSTC_ARGS)
	$(BENCH_BIN) $(BENCH)/t1m.trace
	$(BENCH_BIN) $(BENCH)/t200k.trace bench-matched $(PRECOND_KV)
	$(BENCH_BIN) $(BENCH)/t1m.trace bench-matched $(PRECOND_KV)

# The same figures from the core's bench example built with profile-guided
# optimisation, trained on synthetic profiles, then laid out by BOLT if
# llvm-bolt is installed (scripts/pgo-bench.sh).
bench-pgo: $(BENCH)/t1m.trace $(BENCH)/t200k.trace
	scripts/pgo-bench.sh $(BENCH)

# The long run of the run fuzzer (a benchmark, not a test: `make test` runs
# its first 2,000 cases): FUZZ_CASES cases from seed FUZZ_SEED, each with
# verify on and every invariant of crates/detour-core/tests/run_fuzz checked;
# a failing case is shrunk and printed as a `detour run` command.
FUZZ_CASES ?= 10000
FUZZ_SEED  ?= 2000
fuzz:
	DETOUR_FUZZ_CASES=$(FUZZ_CASES) DETOUR_FUZZ_SEED=$(FUZZ_SEED) \
		cargo test --release -p detour-core --test run_fuzz -- --nocapture

clean:
	cargo clean
	rm -rf $(VENV) out/demo python/detour/_detour*.so
