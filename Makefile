# The two set-up commands of README.md, plus the benchmarks.
.PHONY: run test bench setup

setup:
	bash scripts/setup.sh

run: setup
	bash scripts/run.sh

test: setup
	bash scripts/test.sh

bench: setup
	bash scripts/bench.sh
