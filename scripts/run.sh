#!/usr/bin/env bash
# The README's Run command: creates .venv (first run only), installs aizac with the embedded
# local model into it, then serves the web app. Arguments go to app.py (e.g. --port 7861).
# Works from a plain shell: needs only python3 (3.11+) with its venv module, never a system pip.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV="${AIZAC_VENV:-.venv}"

find_python() {
  local candidate
  for candidate in ${PYTHON:-} python3.13 python3.12 python3.11 python3 python; do
    if command -v "$candidate" >/dev/null 2>&1 \
      && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
      echo "$candidate"
      return 0
    fi
  done
  return 1
}

if [ ! -x "$VENV/bin/python" ]; then
  PY="$(find_python)" || {
    echo "error: aizac needs Python 3.11 or newer (python3 not found or too old)." >&2
    echo "hint: on Debian/Ubuntu: apt-get install python3 python3-venv" >&2
    exit 1
  }
  "$PY" -m venv "$VENV" || {
    rm -rf "$VENV"
    echo "error: '$PY -m venv' failed." >&2
    echo "hint: on Debian/Ubuntu: apt-get install python3-venv" >&2
    exit 1
  }
fi

# Install on the first run and whenever pyproject.toml changes.
stamp="$VENV/.aizac-installed"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  # What the install does is shown as it happens (scripts/install.sh says each step), not
  # minutes of silence (a first install puts about 1.4 GB of packages in the venv).
  echo "installing aizac into $VENV (first run: a few minutes; progress below) ..." >&2
  bash scripts/install.sh "$VENV/bin/python" local
  touch "$stamp"
  echo "installed; starting the web app ..." >&2
fi

exec "$VENV/bin/python" app.py "$@"
