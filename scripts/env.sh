# Sourced by the other scripts: PATH and the wasm build environment.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export PATH="$ROOT/e2e/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"   # npm wasm-opt first
export TRUNK_SKIP_VERSION_CHECK=true
WASM_TOOLCHAIN=$(cat "$ROOT/scripts/.toolchain" 2>/dev/null || echo rustup)

# Runs a command (or a function of this file) in the environment that builds for
# wasm32 (only the Debian path needs one).
wasm_env() {
  if [ "$WASM_TOOLCHAIN" = debian ]; then
    (export RUSTUP_TOOLCHAIN=debian RUSTC_BOOTSTRAP=1 CARGO_UNSTABLE_BUILD_STD=std,panic_abort && "$@")
  else
    "$@"
  fi
}

# Runs a command with the size flags of the release wasm (docs/behaviour.md §10):
# std rebuilt from source with the app (-Zbuild-std), so LTO and opt-level "z"
# reach it; a panic aborts at once (-Cpanic=immediate-abort: no message is
# formatted, nothing unwinds); no file:line:column strings (-Zlocation-detail);
# derived `Debug` prints only type and variant names (-Zfmt-debug=shallow);
# std's `optimize_for_size` algorithms (smaller sorts and formatting).
# Unstable flags on stable rustc through RUSTC_BOOTSTRAP=1, as the Debian path
# already does. Only for the release wasm (`build_release`): native builds, clippy and the
# browser tests' debug wasm keep the prebuilt std and full panic messages.
# Needs std's source (rustup's rust-src, Debian's rust-web-src; scripts/setup.sh).
release_wasm_env() {
  # --emit-relocs: `taskview split` reads the linker's relocations (build_release).
  local flags="-Zlocation-detail=none -Zfmt-debug=shallow -Clink-args=--emit-relocs"
  local std_src
  std_src="$(rustc --print sysroot)/lib/rustlib/src/rust/library/std"
  if [ -d "$std_src" ]; then
    (export RUSTC_BOOTSTRAP=1 CARGO_UNSTABLE_BUILD_STD=std,panic_abort \
      CARGO_UNSTABLE_BUILD_STD_FEATURES=optimize_for_size \
      CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-Zunstable-options -Cpanic=immediate-abort $flags" && "$@")
  else
    echo "warning: no std source at $std_src (rustup component add rust-src):" \
      "the release wasm keeps the prebuilt std and panic machinery, and is larger" >&2
    (export RUSTC_BOOTSTRAP=1 CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="$flags" && "$@")
  fi
}

# Builds the release app into dist/ and the server binary, splits the app and
# writes the compressed twins (NAME.br, NAME.gz) that `taskview serve` sends
# (the server binary does both), then builds the server again with that final
# dist/ compiled in (embed_release).
build_release() {
  (cd "$ROOT" && wasm_env release_wasm_env trunk build --release) &&
    (cd "$ROOT" && cargo build --release -p taskview-server) &&
    split_release &&
    "$ROOT/target/release/taskview" precompress "$ROOT/dist" &&
    embed_release
}

# target/release/taskview with the app inside (the feature `embed-app`:
# server/build.rs reruns when dist/ changes; only the server crate rebuilds),
# so the binary alone, copied anywhere, serves the app; `--dist DIR` overrides.
embed_release() {
  (cd "$ROOT" && cargo build --release -p taskview-server --features embed-app)
}

# The app again with the feature `split` (only its own crate recompiles: the
# flags are Trunk's), cut by `taskview split` into the modules a page loads
# when it first needs them; Trunk's single module stays for the export.
split_release() {
  (cd "$ROOT" && wasm_env release_wasm_env cargo build --release --target wasm32-unknown-unknown \
    -p taskview-app --bin taskview-app --features split) &&
    "$ROOT/target/release/taskview" split "$ROOT/target/wasm32-unknown-unknown/release/taskview-app.wasm" \
      "$ROOT/dist" --opt-args "-Oz --strip-producers --strip-target-features --low-memory-unused"
}
