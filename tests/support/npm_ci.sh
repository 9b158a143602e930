#!/usr/bin/env bash
# Installs the npm dependencies (package-lock.json) of the Node project in DIR (the first
# argument) into DIR/node_modules. Used by the JS tests (tests/interop/js, tests/e2e/js).
# Idempotent: runs `npm ci` only when node_modules is missing or was installed from another
# lock file (a stamp holds the lock file's hash). Run by ctest as the fixture
# `tern_interop_js` / `tern_e2e_js` (never at configure time); needs node and npm on PATH.
set -euo pipefail
cd "$1"
name="$(basename "$(dirname "$PWD")")-$(basename "$PWD")"
for tool in node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "$name setup: $tool not found; install Node.js >= 20.6 (scripts/setup.sh does)" >&2
    exit 1
  fi
done
stamp=node_modules/.tern-lock.sha256
want="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ -d node_modules ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "$name setup: node_modules up to date"
  exit 0
fi
# Serialize concurrent runs (ctest -j, several build dirs sharing this source folder).
exec 9>"${TMPDIR:-/tmp}/tern-$name-$(pwd | sha256sum | cut -c1-12).lock"
flock 9
if [ -d node_modules ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "$name setup: node_modules up to date"
  exit 0
fi
echo "$name setup: npm ci (node $(node --version), npm $(npm --version))"
npm ci --no-audit --no-fund --loglevel=error
echo "$want" >"$stamp"
