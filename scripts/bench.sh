#!/usr/bin/env bash
# `make bench`: benchmarks, reported as ratios from one run (never pass/fail).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$ROOT"
echo "== no benchmarks yet"
