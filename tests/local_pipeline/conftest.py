"""The real-model pipeline runs only when asked: ``AIZAC_RUN_LOCAL_PIPELINE=1``.

Issue 12 is open: on the embedded SmolLM2-135M a Korean plot does not yet pass the
degenerate-output check within a reasonable time on two cores, so these tests are kept out of
the default run until they pass; run them with ``AIZAC_RUN_LOCAL_PIPELINE=1 python -m pytest
tests/local_pipeline``.

Measured on 1 Dec 2026 (2 cores shared by five engineers, load average 8-15): before this
round's fixes one Korean plot attempt did not end within 10 minutes (spinning OpenMP threads,
a ~5,000-token wire schema). With them (passive threads, a Korean wire schema within the
1,024-token budget, original-question retries, a JSON repeat penalty, a ko plot prompt without
copyable field words) one Korean project took plot 490 s, beat 284 s, accept 235 s, prose 96 s
at load 9-13, and this file's ko-regression-chaebol case passed in 607 s (load 8 falling to 3):
about 10-18 minutes for one of the five cases, so the file cannot meet its goal of about 10
minutes on this shared machine. The en-heist and zh-rebirth cases then failed in 140 s (load
about 2): the English beat's first event was "Episode 1" and a Chinese character's name was a
sentence, both refused twice by the quality check (rightly). The file stays gated.
"""

from __future__ import annotations

import os

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("AIZAC_RUN_LOCAL_PIPELINE") == "1":
        return
    skip = pytest.mark.skip(reason="set AIZAC_RUN_LOCAL_PIPELINE=1 to run (issue 12 open)")
    for item in items:
        if "local_pipeline" in str(item.fspath):
            item.add_marker(skip)
