#!/usr/bin/env bash
# `make install`: the release build (build_release: the app compiled into the
# server binary), then that binary installed by cargo into ~/.cargo/bin
# (`cargo install`, from the same target/ so nothing is compiled twice).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
echo "== build (release app + server with the app built in)"
build_release
echo "== install"
cargo install --path "$ROOT/server" --locked --features embed-app --target-dir "$ROOT/target" --force
echo "== installed: run 'taskview serve --recordings' from any folder, then open http://127.0.0.1:8080/"
