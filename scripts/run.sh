#!/usr/bin/env bash
# `make run`: build the release app and the server, then serve the demo scenario
# (or what the arguments say: `make watch` passes `--recordings`).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
ADDR=${ADDR:-127.0.0.1:8080}
echo "== build (release app + server)"
build_release
echo "== taskview is starting on $ADDR: open the URL it prints (beyond loopback it carries the token)"
# The app built into the binary (build_release's last step), not dist/.
exec "$ROOT/target/release/taskview" serve --addr "$ADDR" "$@"
