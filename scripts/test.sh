#!/usr/bin/env bash
# The whole check, in an environment of its own: creates (or reuses, when it is up to date) the
# virtual environment .venv/ in the project, installs gameserde and the pinned test tools into
# it, installs Debian's godot3-server (the Godot 3 engine the differential tests run) and
# chromium (the browser the tests of inspect's HTML pages drive) when it can, makes a Python
# 3.12 environment with katsuba 0.6.0 (the KingsIsle codec the differential tests compare
# with), then runs lint, type checks and the test suite inside that environment,
# on every core (pytest-xdist's -n auto; pass -n 0 to run in one process).
# Nothing the machine's own Python happens to have is used.
#
#   bash scripts/test.sh [PYTEST ARGS...]
#
# GAMESERDE_VENV overrides the folder; PYTHON names the interpreter the venv is made from.
set -euo pipefail
cd "$(dirname "$0")/.."

# The Debian packages the tests run, installed together (one apt-get update) in the background
# while the Python environments are made, lint and type checks run: what each is, and the
# tests skipped (outside CI) without it.
declare -A package_use=(
    [godot3-server]="the Godot 3 engine the differential tests run"
    [chromium]="the headless browser the tests of inspect's HTML pages drive"
)
declare -A package_tests=(
    [godot3-server]="the differential tests"
    [chromium]="the browser tests of inspect's HTML pages"
)
missing_packages=()
for package in godot3-server chromium; do
    command -v "$package" >/dev/null 2>&1 || missing_packages+=("$package")
done
apt_pid=""
apt_log=""
if [ "${#missing_packages[@]}" -gt 0 ]; then
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
        for package in "${missing_packages[@]}"; do
            echo "installing $package (${package_use[$package]}) in the background ..."
        done
        apt_log="$(mktemp)"
        (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
            "${missing_packages[@]}") > "$apt_log" 2>&1 &
        apt_pid=$!
    else
        for package in "${missing_packages[@]}"; do
            echo "$package is not installed and cannot be installed here (needs root and" \
                 "apt-get); ${package_tests[$package]} will be skipped outside CI." >&2
        done
    fi
fi

venv="${GAMESERDE_VENV:-.venv}"
case "$venv" in /*) ;; *) venv="$PWD/$venv" ;; esac
python="${PYTHON:-python3}"

# The environment is rebuilt when the requirements, the build hook or the interpreter change;
# the C accelerators are rebuilt (an editable reinstall) whenever a C source or header changes.
requirements_stamp="$("$python" -c 'import sys; print(sys.version)' | cat - pyproject.toml \
    hatch_build.py | sha256sum | cut -c1-32)"
sources_stamp="$(find src/gameserde -name '*.[ch]' | LC_ALL=C sort | xargs cat \
    | sha256sum | cut -c1-32)"

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

# katsuba (the reference KingsIsle ObjectProperty codec the differential tests compare with)
# needs Python >= 3.12: it gets an environment of its own, from PYTHON312, python3.12 on PATH
# or pyenv's newest 3.12; the tests find it through GAMESERDE_KATSUBA_PYTHON.
katsuba_venv="${GAMESERDE_KATSUBA_VENV:-.venv-katsuba}"
case "$katsuba_venv" in /*) ;; *) katsuba_venv="$PWD/$katsuba_venv" ;; esac
python312=""
for candidate in "${PYTHON312:-}" "$(command -v python3.12 || true)" \
        $( (ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.12*/bin/python 2>/dev/null || true) \
           | sort -rV); do
    if [ -n "$candidate" ] && "$candidate" -c 'import sys; assert sys.version_info[:2] == (3, 12)' \
            >/dev/null 2>&1; then
        python312="$candidate"
        break
    fi
done
if [ ! -x "$katsuba_venv/bin/python" ] \
        || ! "$katsuba_venv/bin/python" -c 'import katsuba' >/dev/null 2>&1; then
    if [ -n "$python312" ]; then
        echo "creating the katsuba 0.6.0 environment in $katsuba_venv (Python 3.12) ..."
        rm -rf "$katsuba_venv"
        "$python312" -m venv "$katsuba_venv"
        "$katsuba_venv/bin/python" -m pip install --quiet --disable-pip-version-check \
            "katsuba==0.6.0"
    else
        echo "no Python 3.12 found for katsuba (set PYTHON312); the KingsIsle differential" \
             "tests will be skipped outside CI and fail in it." >&2
    fi
fi
if [ -x "$katsuba_venv/bin/python" ]; then
    export GAMESERDE_KATSUBA_PYTHON="$katsuba_venv/bin/python"
fi

export PATH="$venv/bin:$PATH"
"$venv/bin/python" -m ruff check src tests benchmarks scripts examples hatch_build.py
"$venv/bin/python" -m mypy
if [ -n "$apt_pid" ]; then
    if ! wait "$apt_pid"; then
        cat "$apt_log" >&2
        echo "installing ${missing_packages[*]} with apt-get failed (above)" >&2
        exit 1
    fi
    rm -f "$apt_log"
fi
"$venv/bin/python" -m pytest -n auto "$@"
