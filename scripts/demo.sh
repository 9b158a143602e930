#!/usr/bin/env bash
# The README's first command: set up, build, and run the demo pipeline.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh release
exec build/bin/tern demo "$@"
