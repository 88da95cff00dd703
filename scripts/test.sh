#!/usr/bin/env bash
# The whole check, in an environment of its own: creates (or reuses, when it is up to date) the
# virtual environment .venv/ in the project, installs gameserde and the pinned test tools into
# it, installs Debian's godot3-server (the Godot 3 engine the differential tests run) when it
# can, then runs lint, type checks and the test suite inside that environment. Nothing the
# machine's own Python happens to have is used.
#
#   bash scripts/test.sh [PYTEST ARGS...]
#
# GAMESERDE_VENV overrides the folder; PYTHON names the interpreter the venv is made from.
set -euo pipefail
cd "$(dirname "$0")/.."

venv="${GAMESERDE_VENV:-.venv}"
case "$venv" in /*) ;; *) venv="$PWD/$venv" ;; esac
python="${PYTHON:-python3}"

# The environment is rebuilt when the requirements, the build hook or the interpreter change;
# the C accelerators are rebuilt (an editable reinstall) whenever a C source changes.
requirements_stamp="$("$python" -c 'import sys; print(sys.version)' | cat - pyproject.toml \
    hatch_build.py | sha256sum | cut -c1-32)"
sources_stamp="$(cat src/gameserde/*/*.c | sha256sum | cut -c1-32)"

if [ ! -x "$venv/bin/python" ] \
        || [ "$(cat "$venv/.requirements-stamp" 2>/dev/null)" != "$requirements_stamp" ]; then
    echo "creating the test environment in $venv ..."
    rm -rf "$venv"
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e ".[test]"
    echo "$requirements_stamp" > "$venv/.requirements-stamp"
    echo "$sources_stamp" > "$venv/.sources-stamp"
elif [ "$(cat "$venv/.sources-stamp" 2>/dev/null)" != "$sources_stamp" ]; then
    echo "rebuilding the C accelerators ..."
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps -e .
    echo "$sources_stamp" > "$venv/.sources-stamp"
fi

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

export PATH="$venv/bin:$PATH"
"$venv/bin/python" -m ruff check src tests benchmarks scripts examples hatch_build.py
"$venv/bin/python" -m mypy
"$venv/bin/python" -m pytest "$@"
