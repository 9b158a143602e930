#!/usr/bin/env bash
# Installs this Node project's dependencies, idempotently: see tests/support/npm_ci.sh.
exec bash "$(dirname "$0")/../../support/npm_ci.sh" "$(cd "$(dirname "$0")" && pwd)"
