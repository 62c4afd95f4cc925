#!/usr/bin/env bash
# `make bench`: benchmarks, reported as ratios from one run (never pass/fail).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$ROOT"
echo "== core layout: incremental vs full recompute (criterion; summary at the end)"
cargo bench -p taskview-core --bench layout
