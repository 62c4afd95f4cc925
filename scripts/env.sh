# Sourced by the other scripts: PATH and the wasm build environment.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export PATH="$ROOT/e2e/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"   # npm wasm-opt first
export TRUNK_SKIP_VERSION_CHECK=true
WASM_TOOLCHAIN=$(cat "$ROOT/scripts/.toolchain" 2>/dev/null || echo rustup)

# Runs a command in the environment that builds for wasm32 (only the Debian path needs one).
wasm_env() {
  if [ "$WASM_TOOLCHAIN" = debian ]; then
    env RUSTUP_TOOLCHAIN=debian RUSTC_BOOTSTRAP=1 CARGO_UNSTABLE_BUILD_STD=std,panic_abort "$@"
  else
    "$@"
  fi
}

# Builds the release app into dist/ and the server binary, then writes the
# compressed twins (NAME.br, NAME.gz) that `taskview serve` sends.
build_release() {
  (cd "$ROOT" && wasm_env trunk build --release) &&
    (cd "$ROOT" && cargo build --release -p taskview-server) &&
    "$ROOT/target/release/taskview" precompress "$ROOT/dist"
}
