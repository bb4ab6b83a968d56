"""One case of the real-model pipeline runs by default; the five run with
``AIZAC_RUN_LOCAL_PIPELINE=1``.

The default case is ``en-heist``: one short English episode (plot -> beat -> accept -> prose) on
the embedded SmolLM2-135M, the language it declares it writes and the path ``aizac demo`` takes
in every language. Measured on 1 Dec 2026 (2 cores shared by about six engineers, three other
embedded-model runs beside it, load average 21-27): it passed in 701 s (750 s with the imports).

The Korean and Chinese cases put Korean or Chinese prompts to a model that writes English only
(its registry row: ``ModelProfile.writes``; a Korean or Chinese project on it shows the demo-model
note). They are kept out of the default run for time, not because they fail: one Korean case took
607 s at load 8 falling to 3 and 10-18 minutes on a busier machine, so the five cases need about
an hour here, and the suite's whole default run takes about seven minutes. Run them with
``AIZAC_RUN_LOCAL_PIPELINE=1 python -m pytest tests/local_pipeline``.
"""

from __future__ import annotations

import os

import pytest

DEFAULT_CASES = frozenset({"en-heist"})
"""The cases of ``test_pipeline.py`` that run without ``AIZAC_RUN_LOCAL_PIPELINE=1``."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("AIZAC_RUN_LOCAL_PIPELINE") == "1":
        return
    skip = pytest.mark.skip(
        reason="about 10-18 minutes per case on 2 shared cores: set AIZAC_RUN_LOCAL_PIPELINE=1"
    )
    for item in items:
        case = getattr(item, "callspec", None)
        if "local_pipeline" in str(item.fspath) and (
            case is None or case.id not in DEFAULT_CASES
        ):
            item.add_marker(skip)
