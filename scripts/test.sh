#!/usr/bin/env bash
# The README's test command: installs everything the tests need, then runs ruff, mypy and pytest.
set -uo pipefail
cd "$(dirname "$0")/.."

# Debian's chromium drives the browser tests (Playwright never downloads a browser here);
# the CJK fonts make Korean and Chinese readable in the test screenshots.
if ! command -v chromium >/dev/null 2>&1 || ! fc-list 2>/dev/null | grep -qi "Noto Sans CJK"; then
  if [ "$(id -u)" = 0 ]; then
    (apt-get update -qq && apt-get install -y -qq chromium fonts-noto-cjk >/dev/null) \
      || echo "warning: could not install chromium; browser tests will be skipped"
  else
    echo "warning: chromium is missing and we are not root; browser tests will be skipped"
  fi
fi

python -m pip install -q -e ".[local,dev]" || exit 1
python -m ruff check . || exit 1
python -m mypy || exit 1

python -m pytest "$@"
status=$?
# pytest exits 5 when it collected no tests: that is a failure for us, not a pass.
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests" >&2
  exit 1
fi
exit "$status"
