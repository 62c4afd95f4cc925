# The two set-up commands of README.md, plus the benchmarks and the captures of the real agent CLIs.
.PHONY: run test bench setup captures

setup:
	bash scripts/setup.sh

run: setup
	bash scripts/run.sh

test: setup
	bash scripts/test.sh

bench: setup
	bash scripts/bench.sh

# Re-runs every scenario with every pinned agent CLI (captures/README.md); needs no Rust build.
captures:
	node captures/run.mjs
