#!/usr/bin/env bash
# `make test`: every check, in order, stopping at the first failure.
# Ends with one summary line `N passed, N failed` over every suite.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$ROOT"
passed=0 failed=0
log=$(mktemp)

summary() { echo "== summary: $passed passed, $failed failed"; }

# Adds the counts a suite printed: cargo's `test result: ... N passed; M failed`
# and the e2e runner's `N passed, M failed`.
count() {
  local p f
  p=$(grep -aoE '[0-9]+ passed[;,]' "$log" | awk '{ s += $1 } END { print s + 0 }')
  f=$(grep -aoE '[0-9]+ failed[;,]?' "$log" | awk '{ s += $1 } END { print s + 0 }')
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

browser_tests() {
  wasm_env env CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
    CHROMEDRIVER=/usr/bin/chromedriver cargo test -p taskview-app --target wasm32-unknown-unknown --test '*'
}

e2e_tests() { (cd e2e && node run.mjs); }

step "cargo fmt --check" cargo fmt --all -- --check
step "cargo clippy (native)" cargo clippy --workspace --all-targets -- -D warnings
step "cargo clippy (wasm app and browser tests)" wasm_env cargo clippy -p taskview-app --target wasm32-unknown-unknown --tests -- -D warnings
step "native tests" cargo test --workspace
step "browser tests (wasm-bindgen-test, headless Chromium)" browser_tests
step "release build (trunk + server)" build_release
step "size budget (wasm + JS + CSS, gzip -9) and a CSP-clean index.html" bash scripts/size.sh --check
step "end-to-end tests (Playwright + taskview serve)" e2e_tests
summary
