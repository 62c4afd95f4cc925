#!/usr/bin/env bash
# `make install`: the release build (build_release: the app compiled into the
# server binary), then that one binary copied to ~/.cargo/bin (or
# $CARGO_HOME/bin), which rustup puts on PATH.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
echo "== build (release app + server with the app built in)"
build_release
BIN_DIR=${CARGO_HOME:-$HOME/.cargo}/bin
install -D -m 755 "$ROOT/target/release/taskview" "$BIN_DIR/taskview"
echo "== installed $BIN_DIR/taskview: run 'taskview serve --recordings' from any folder, then open http://127.0.0.1:8080/"
