#!/usr/bin/env bash
# `make bench`: benchmarks, reported as ratios from one run (never pass/fail).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$ROOT"
echo "== core import benchmark (criterion): per-record import time of real captures (40 and 4 subagents)"
cargo bench -p taskview-core --bench import
echo "== core follow benchmark (criterion): one appended record pushed to a follower holding 1 MB and 100 MB"
cargo bench -p taskview-core --bench follow
echo "== core telemetry follow benchmark (criterion): one real post appended to a short and a 100x longer telemetry session"
cargo bench -p taskview-core --bench otlp_follow
echo "== core layout benchmark (criterion)"
cargo bench -p taskview-core --bench layout
echo "== core search benchmark (criterion)"
cargo bench -p taskview-core --bench search
echo "== core viewer benchmark (criterion): Viewer::apply per live event at 1k, 10k, 100k messages"
cargo bench -p taskview-core --bench viewer
echo "== core timeline benchmark (criterion): opening it, and a live event with it open against a row update"
cargo bench -p taskview-core --bench timeline
echo "== core mask benchmark (criterion): masking secrets in every real capture, as an export does"
cargo bench -p taskview-core --bench mask
echo "== release build"
build_release
echo "== first-visit size (wasm + JS + CSS of dist/)"
bash scripts/size.sh
echo "== WebSocket load: 200 viewers per server, a stream and a growing recording (loopback)"
cargo bench -p taskview-server --bench load
echo "== a home of HOME_SESSIONS (1,000) sessions and a HOME_BIG_MB (150) MB one: start, rest, memory, appends"
echo "   (written once under target/bench-home; TASKVIEW_OLD_BIN=<another build's taskview> measures it beside)"
cargo bench -p taskview-server --bench home
echo "== telemetry from OTLP_AGENTS (50) agents at once: the capture stories' posts at real speed and 10x"
echo "   (posts/s accepted, post latency, the board's lag over its WebSocket, server memory)"
cargo bench -p taskview-server --bench otlp_load
echo "== a team's board on PostgreSQL: TEAM_WRITERS (20) writers of TEAM_SESSIONS (50) live sessions (one"
echo "   TEAM_BIG_MB (150) MB), TEAM_AGENTS (50) OTLP agents, two readers (docs/team-store.md)"
cargo bench -p taskview-server --bench team
echo "== a loopback attacker's telemetry: the issue's three posts, then ABUSE_MB (100) MB of hostile posts"
echo "   (answers, resident memory at rest, peak and after, the folder against its quota, after a restart;"
echo "   TASKVIEW_OLD_BIN=<an earlier build's taskview> measures it beside)"
cargo bench -p taskview-server --bench abuse
echo "== browser benchmark (release app in headless Chromium)"
(cd e2e && node bench.mjs)
