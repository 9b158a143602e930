#!/usr/bin/env bash
# Installs the e2e test's npm dependencies (package-lock.json) into node_modules/ here.
# Idempotent: runs `npm ci` only when node_modules is missing or was installed from another
# lock file (a stamp holds the lock file's hash). Run by ctest as the fixture
# `tern_e2e_js` (never at configure time); needs node and npm on PATH.
set -euo pipefail
cd "$(dirname "$0")"
for tool in node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "e2e-js setup: $tool not found; install Node.js >= 20.6 (scripts/setup.sh does)" >&2
    exit 1
  fi
done
stamp=node_modules/.tern-lock.sha256
want="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ -d node_modules ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "e2e-js setup: node_modules up to date"
  exit 0
fi
# Serialize concurrent runs (ctest -j, several build dirs sharing this source folder).
exec 9>"${TMPDIR:-/tmp}/tern-e2e-js-$(pwd | sha256sum | cut -c1-12).lock"
flock 9
if [ -d node_modules ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "e2e-js setup: node_modules up to date"
  exit 0
fi
echo "e2e-js setup: npm ci (node $(node --version), npm $(npm --version))"
npm ci --no-audit --no-fund --loglevel=error
echo "$want" >"$stamp"
