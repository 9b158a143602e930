#!/usr/bin/env bash
# The README's second command: set up, build, and run the whole test suite.
# Usage: scripts/test.sh [preset]   (release by default; `asan` for the sanitizer run)
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
bash scripts/setup.sh
bash scripts/build.sh "$preset"
ctest --preset "$preset"
