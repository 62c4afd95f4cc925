#!/usr/bin/env bash
# Installs what taskview needs to build and test, and nothing twice.
# Idempotent: every step checks first and is skipped when already done.
# Prints the toolchain it picked to scripts/.toolchain (rustup | debian).
set -euo pipefail

TRUNK_VERSION=0.22.1
WASM_BINDGEN_VERSION=0.2.130   # == wasm-bindgen in Cargo.lock == Trunk.toml [tools] wasm_bindgen
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CARGO_BIN=${CARGO_HOME:-$HOME/.cargo}/bin
export PATH="$CARGO_BIN:$PATH" DEBIAN_FRONTEND=noninteractive

say() { printf '== setup: %s\n' "$*"; }
fail() { printf '!! setup failed: %s\n' "$*" >&2; exit 1; }

apt_install() {
  dpkg -s "$@" >/dev/null 2>&1 && return 0
  say "apt-get install $*"
  { apt-get update -qq && apt-get install -y -qq "$@" >/dev/null; } || fail "apt-get could not install: $*"
}

command -v cargo >/dev/null || fail "cargo is missing (install rustup's stable toolchain)"
command -v npm >/dev/null || fail "npm is missing (install Node.js 20 or newer)"

# 1. The wasm32 standard library: rustup's prebuilt one, else Debian's rustc-web + build-std.
if rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown ||
   timeout 180 rustup target add wasm32-unknown-unknown >/dev/null 2>&1; then
  toolchain=rustup
else
  say "rustup cannot fetch wasm32-unknown-unknown; using Debian rustc-web with build-std"
  apt_install rustc-web cargo-web rust-web-src lld-22
  rustup toolchain list | grep -qE '^debian( |$)' || rustup toolchain link debian /usr
  toolchain=debian
fi
echo "$toolchain" > "$ROOT/scripts/.toolchain"
say "wasm toolchain: $toolchain"

# 1b. std's source, for the release wasm's -Zbuild-std (release_wasm_env in env.sh;
# Debian's rust-web-src above has it). Without it the release build still works,
# larger, and the size check says so.
if [ "$toolchain" = rustup ] &&
   ! rustup component list --installed 2>/dev/null | grep -q '^rust-src'; then
  say "rustup component add rust-src"
  timeout 300 rustup component add rust-src >/dev/null 2>&1 ||
    say "WARNING: rustup cannot fetch rust-src; the release wasm is built without -Zbuild-std (larger)"
fi

# 2. The browser and its driver (never Debian's binaryen: version 108 breaks the page).
apt_install chromium chromium-driver

# 3. Native tools from crates.io, LTO off so they build in minutes. No registry ships a
#    prebuilt trunk or wasm-bindgen for this machine (npm's wasm-pack downloads from GitHub,
#    which is not reachable), so they are compiled. Trunk only hashes, minifies and copies a
#    few files here: optimised lightly, without TLS (it downloads nothing: the tools are
#    installed) and without its update check, it compiles in about two thirds of the time.
fast=(CARGO_PROFILE_RELEASE_LTO=off CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16)
if ! trunk --version 2>/dev/null | grep -qx "trunk $TRUNK_VERSION"; then
  say "cargo install trunk $TRUNK_VERSION (about 4 minutes)"
  env "${fast[@]}" CARGO_PROFILE_RELEASE_OPT_LEVEL=1 cargo install --locked --ignore-rust-version \
    --no-default-features "trunk@$TRUNK_VERSION" || fail "could not install trunk $TRUNK_VERSION"
fi
if ! wasm-bindgen --version 2>/dev/null | grep -qx "wasm-bindgen $WASM_BINDGEN_VERSION"; then
  say "cargo install wasm-bindgen-cli $WASM_BINDGEN_VERSION (about 1.5 minutes)"
  # no --locked: its lockfile pins webpki-roots 1.0.11, which the registry does not have
  env "${fast[@]}" cargo install --force "wasm-bindgen-cli@$WASM_BINDGEN_VERSION" ||
    fail "could not install wasm-bindgen-cli $WASM_BINDGEN_VERSION"
fi

# 4. npm: binaryen (wasm-opt 132) and @playwright/test, from the committed lockfile.
#    Playwright downloads no browser: the tests launch Debian's /usr/bin/chromium.
if [ ! -x "$ROOT/e2e/node_modules/.bin/wasm-opt" ] || [ ! -x "$ROOT/e2e/node_modules/.bin/playwright" ] ||
   [ "$ROOT/e2e/package-lock.json" -nt "$ROOT/e2e/node_modules/.package-lock.json" ]; then
  say "npm ci in e2e/"
  (cd "$ROOT/e2e" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error) ||
    fail "npm ci failed in e2e/"
fi
# 5. The pinned Claude Code CLI (captures/pins/claude-code), into the captures cache
#    outside the repo, for the end-to-end test that watches a real run live
#    (e2e/tests/watch-agents.spec.mjs). The other CLIs are installed by `make captures`.
node "$ROOT/captures/run.mjs" install claude-code ||
  fail "could not install the pinned Claude Code CLI (captures/pins/claude-code)"
# 6. The official OpenTelemetry Python SDK (server/tests/sdk/requirements.txt, from PyPI), in a
#    venv under target/, as a real client of the OTLP receiver (server/tests/otlp_sdk.rs).
OTEL_VENV="$ROOT/target/otel-sdk-venv"
if ! "$OTEL_VENV/bin/python3" -c 'import opentelemetry.exporter.otlp.proto.http' 2>/dev/null; then
  say "python3 -m venv target/otel-sdk-venv and pip install the OpenTelemetry SDK"
  command -v python3 >/dev/null || apt_install python3
  python3 -m venv --clear "$OTEL_VENV" >/dev/null 2>&1 ||
    { apt_install python3-venv && python3 -m venv --clear "$OTEL_VENV"; } ||
    fail "could not make a Python venv for the OpenTelemetry SDK"
  "$OTEL_VENV/bin/pip" install -q --disable-pip-version-check -r "$ROOT/server/tests/sdk/requirements.txt" ||
    fail "pip could not install the OpenTelemetry SDK (server/tests/sdk/requirements.txt)"
fi
say "ready"
