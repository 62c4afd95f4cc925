# The two set-up commands of README.md, plus the benchmarks and the captures of the real agent CLIs.
.PHONY: run watch install test bench setup captures

setup:
	bash scripts/setup.sh

run: setup
	bash scripts/run.sh

# Like run, but the board of your own agents' sessions (README.md "Watch your agents").
watch: setup
	bash scripts/run.sh --recordings

# The release build, then its taskview (the app built in) into ~/.cargo/bin (README.md "Install").
install: setup
	bash scripts/install.sh

test: setup
	bash scripts/test.sh

bench: setup
	bash scripts/bench.sh

# Re-runs every scenario with every pinned agent CLI (captures/README.md); needs no Rust build.
captures:
	node captures/run.mjs
