#!/usr/bin/env bash
# `make test`: every check, in order, stopping at the first failure.
# Ends with one summary line `N passed, N failed` over every suite.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$ROOT"
passed=0 failed=0
log=$(mktemp)

summary() { echo "== summary: $passed passed, $failed failed"; }

# Adds the counts a suite printed in its summary lines only (never in a test's
# output): cargo's `test result: ... N passed; M failed` and the e2e
# reporter's and the capture tests' `N passed, M failed` (e2e/reporter.mjs,
# captures/test/reporter.mjs).
count() {
  local p f lines
  lines=$(grep -aE '^test result: |^[0-9]+ passed, [0-9]+ failed' "$log")
  p=$(grep -oE '[0-9]+ passed' <<<"$lines" | awk '{ s += $1 } END { print s + 0 }')
  f=$(grep -oE '[0-9]+ failed' <<<"$lines" | awk '{ s += $1 } END { print s + 0 }')
  passed=$((passed + p)) failed=$((failed + f))
}

step() {
  local name=$1; shift
  echo "== $name"
  local start=$SECONDS
  "$@" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  count
  echo "== $name: $([ "$rc" = 0 ] && echo ok || echo FAILED) in $((SECONDS - start))s"
  if [ "$rc" != 0 ]; then
    [ "$failed" -gt 0 ] || failed=$((failed + 1))   # a failing step counts even without test lines
    summary
    exit 1
  fi
}

# Clippy as the compiler of the workspace's own crates while they are built for the tests
# (dependencies are compiled by rustc as always): one build gives clippy's lints, denied like
# warnings, and the test binaries, where `cargo clippy` and then `cargo test` would compile
# every crate twice. Every target is built (benches too, in the test profile), as
# `cargo clippy --all-targets` checked them.
with_clippy() {
  RUSTC_WORKSPACE_WRAPPER="$(rustup which clippy-driver 2>/dev/null || command -v clippy-driver)" \
    CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__" "$@"
}

browser_tests() {
  wasm_env env CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
    CHROMEDRIVER=/usr/bin/chromedriver cargo test -p taskview-app --target wasm32-unknown-unknown --test '*'
}

# The capture harness's own tests (captures/test, node:test, offline, no CLI).
capture_tests() { (cd captures && node --test --test-reporter=./test/reporter.mjs test/*.test.mjs); }

# Playwright (e2e/playwright.config.mjs); fails when any test fails.
e2e_tests() { (cd e2e && ./node_modules/.bin/playwright test); }

step "cargo fmt --check" cargo fmt --all -- --check
step "capture harness tests (node --test)" capture_tests
step "cargo clippy (wasm app, split as released, and browser tests)" wasm_env cargo clippy -p taskview-app --target wasm32-unknown-unknown --tests --features split -- -D warnings
step "native build with clippy's lints (every target)" with_clippy cargo test --workspace --all-targets --no-run
step "native tests" with_clippy cargo test --workspace
step "browser tests (wasm-bindgen-test, headless Chromium)" browser_tests
step "release build (trunk + server)" build_release
step "size budget (wasm + JS + CSS a first visit receives, brotli) and a CSP-clean index.html" bash scripts/size.sh --check
step "end-to-end tests (Playwright + taskview serve)" e2e_tests
summary
