#!/usr/bin/env bash
# Installs what the tests need (Python packages, and Debian's godot3-server for the
# differential tests against the real engine), then runs lint, type checks and the suite.
set -euo pipefail
cd "$(dirname "$0")/.."

python3 -m pip install --quiet --disable-pip-version-check -e ".[test]"

if ! command -v godot3-server >/dev/null 2>&1; then
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing godot3-server (the Godot 3 engine the differential tests run) ..."
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq godot3-server >/dev/null
    else
        echo "godot3-server is not installed and cannot be installed here (needs root and" \
             "apt-get); the differential tests will be skipped outside CI." >&2
    fi
fi

python3 -m ruff check src tests benchmarks scripts examples hatch_build.py
python3 -m mypy
python3 -m pytest "$@"
