#!/usr/bin/env bash
# The first-visit size of the release build: every wasm, JS and CSS file that
# dist/index.html loads, raw, `gzip -9`, and the brotli twin that `taskview
# serve` actually sends (docs/operating.md "Serving the app"); then the split modules
# fetched later and the export's one-module build, listed, not counted. A size
# is deterministic, so it is a test: `size.sh --check` (in `make test`, after
# the release build) fails when the brotli total is over the budget, and when
# index.html has an inline script (the CSP forbids them). `make bench` prints
# the same table.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
DIST=${DIST:-$ROOT/dist}

# docs/behaviour.md §10: the bytes actually sent on a first visit (the brotli
# twins of the wasm, JS and CSS index.html loads) are at most 400 KB. Measured
# when it was set: 430,892 B; the task page's reads announced with the page, the
# API compressed and a router of the app's own (-33.4 KB brotli) took it to
# 396,337 B. Today's importers (about 19 KB) and the subagent Timeline (about 48
# KB, then its faster look) took it to 481,106 B, held at 481,500 B while the
# goal stayed open. The release build's code splitting (`taskview split`,
# 2026-12-05) moved the file view with its importers and export (96.9 KB brotli)
# and the Timeline panel (47.5 KB) into modules fetched when first shown:
# 374,515 B sent, and the budget is the goal. The board by state, the team store's
# notices, remote images and today's agents took it to 412,489 B (2026-12-08);
# the board by state moved into a module of its own (fetched when a board
# taskview makes is first shown): 385,860 B.
BUDGET=400000

# Until then (the unsplit build), the hold was raised as follows: 478,000 B for
# the merge of today's importers and the Timeline (473,127 B measured). Raised
# by 2.5 KB (478,000 to 480,500) on 2026-12-04: the Timeline's clusters of
# packed runs that keep the page within its 400 elements (docs/user-guide.md
# "The Timeline", 478,886 B), then the search highlight that follows the
# matches' changes instead of every match per event, and a look that shares its
# strings instead of copying them (480,071 B). Lowered to 480,000 when a review
# of that work made it smaller (479,484 B). Raised by 1 KB (to 481,000) on
# 2026-12-05: packed Timeline rows searched by their runs' starts and drawn as
# the last look drew them while their runs stay the same, which took a packed
# live look within a row update (docs/user-guide.md "The Timeline"; 480,880 B),
# then by 0.5 KB (to 481,500) for rows shared between a look and the next
# (`Arc<LaneView>`: a kept row costs the page no copy; 481,106 B). The task
# page's and the roster's fit to the window added 351 B before them.

# Before it, an older first-visit goal of at most 250 KB gzip, enforced through
# a gzip ceiling lowered with every win; the 400 KB budget retired that goal,
# measured unreachable with this stack and these features (docs/contributing.md "Size of a
# first visit"), and the ceiling with it, last at 551000 B gzip (548,218 B measured).
# Its history, as it stood: What `--check` enforced until the budget was
# reached: the size of the build when the ceiling was last lowered, plus a
# little room. Lower it with every win; never raise it without saying why in the
# commit. Raised 480000 -> 500000 for real sessions: the importers of real files
# (ACP v2, Claude Code workflow runs and sidecars), fetching a session's
# subagent files by URL and reading dropped folders add 25.8 KB gzip (468,765 ->
# 494,580 B measured on one build). Raised 500000 -> 560000 for the fan-out
# (docs/behaviour.md §8): the roster, the search over every message, the board
# chip's drill-down, the lifecycle clock and their core view-models add 61.3 KB
# gzip (494,580 -> 555,858 B measured on one build); the largest piece is
# FanOutFrame with the transcript inlined. The size diet (docs/contributing.md "Size of a
# first visit") then takes about 51 KB off (std rebuilt with -Cpanic=immediate-abort,
# -Zlocation-detail=none, -Zfmt-debug=shallow and optimize_for_size in
# release_wasm_env; spacer lengths without f64 formatting: 494,757 -> 443,811 B
# before the fan-out landed). Together about 505 KB; the ceiling leaves a little
# room above that. Raised 515000 -> 521000 for the seeds' patterns (
# docs/behaviour.md §3.5, §4, §8): spill chips with their stored text and back
# links, the store's spill index, lossy-cut marks, provenance badges and what a
# parent received add about 9.3 KB gzip (505,946 -> 515,225 B measured on one
# build). Raised 515000 -> 525000 for embedding and sharing (docs/behaviour.md
# §9): the two-way embed contract (core::embed, src/embed.rs, the theme switch)
# adds about 7.5 KB gzip (505,946 -> 513,419 B) and the file view's "Download
# HTML" (core::export in the app: SHA-256 for the page's CSP hashes, base64 of
# the wasm, the page itself, the Blob download) 7.2 KB more (-> 520,646 B).
# Together (both merged) about 530 KB; the ceiling leaves a little room. Raised
# 535000 -> 537000: foldhash for the store's and layout's maps (about 2.4 KB
# gzip, for a per-event layout cost about 15% lower) and the roster's paging,
# order cache and throttled refresh that keep a long session's live updates flat
# (about 1 KB): 531,498 -> 535,738 B measured on one build. Raised 537000 ->
# 540000: the feed's aria-posinset/aria-setsize and the chip drill-down's link
# names that hold their visible text (axe) add about 0.9 KB (-> 536,652 B); the
# rest is room for a toolchain that builds a little larger than this machine's.
# Raised 540000 -> 548000: the session chooser of a folder of several sessions
# (core::view::sessions, its component, the file view's choosing state, and
# reading each session's first 64 KB for its title, with the Blob bindings that
# takes) and the review's fixes (FanOut's subagent count set, one link policy,
# spill texts in core) together add 7.6 KB gzip (536,652 -> 544,281 B measured
# on one build; the JS glue alone +1.3 KB). Not attributed between the two.
# Raised 548000 -> 551000: the sharded per-message tables (core::sharded), so
# that no live event rehashes a whole session's table (the worst event at
# 64k-128k messages went from 69 ms to under 2 ms), add 3.0 KB gzip; the
# chooser's progress bar and phone file bar 1.2 KB (544,033 -> 548,218 B
# measured on one build). (Today's importers would have raised it 551000 ->
# 575000: qwen-code's importer and the session-log fold it shares with Claude
# Code 548,272 -> 561,150 B gzip, Gemini CLI's -> 566,916 B, Codex's -> 572,412
# B, measured on one build each before the ceiling was retired.)

# What a first visit receives: every file index.html loads (its scripts,
# styles, preloads and the boot <meta>'s module and wasm). The split app's
# other modules (`taskview split`: the file view, the Timeline panel) are
# fetched when first shown, and Trunk's one-module build only by the export:
# listed below, not counted.
index="$DIST/index.html"
if [ ! -f "$index" ]; then
  echo "no $index: build the release first (build_release)"
  echo "0 passed, 1 failed"
  exit 1
fi
sent=$(grep -oE '(href|src|data-js|data-wasm)=("[^"]*"|[^ >]*)' "$index" | sed -E 's/^[a-z-]+=//; s/"//g' |
  grep -E '\.(wasm|js|css)$' | sort -u)
others=$(cd "$DIST" && find . -type f \( -name '*.wasm' -o -name '*.js' -o -name '*.css' \) | sed 's|^\./|/|' | sort |
  grep -vxF "$sent" || true)

sizes() { # URL path -> "raw gzip br" of the file
  local f="$DIST$1"
  echo "$(stat -c %s "$f") $(gzip -9 -c "$f" | wc -c) $( [ -f "$f.br" ] && stat -c %s "$f.br" || stat -c %s "$f")"
}
printf '%-60s %9s %9s %9s\n' 'sent on a first visit' raw 'gzip -9' br
raw_total=0 gzip_total=0 br_total=0
for p in $sent; do
  read -r raw gz br < <(sizes "$p")
  printf '%-60s %9d %9d %9d\n' "$p" "$raw" "$gz" "$br"
  raw_total=$((raw_total + raw)) gzip_total=$((gzip_total + gz)) br_total=$((br_total + br))
done
printf '%-60s %9d %9d %9d\n' total "$raw_total" "$gzip_total" "$br_total"
if [ -n "$others" ]; then
  printf '%-60s\n' 'fetched when first needed (split modules), or only by the export:'
  for p in $others; do
    read -r raw gz br < <(sizes "$p")
    printf '%-60s %9d %9d %9d\n' "$p" "$raw" "$gz" "$br"
  done
fi
echo "brotli total $br_total B (the bytes sent): budget $BUDGET B ($((BUDGET - br_total)) B to spare)"

[ "${1:-}" = --check ] || exit 0
passed=0 failed=0
if [ "$br_total" -le "$BUDGET" ]; then
  passed=$((passed + 1))
else
  echo "FAILED: $br_total B of wasm + JS + CSS (brotli, as sent) is over the budget of $BUDGET B"
  failed=$((failed + 1))
fi
# Every <script> of the page loads a file: no inline script for the CSP to block.
inline=$(grep -o '<script[^>]*>' "$DIST/index.html" | grep -cv ' src=' || true)
if [ "$inline" -eq 0 ]; then
  passed=$((passed + 1))
else
  echo "FAILED: $DIST/index.html has $inline inline script(s); the CSP allows none"
  failed=$((failed + 1))
fi
echo "size budget: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
