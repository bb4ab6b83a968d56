"""Every case of the real-model pipeline runs in the Test command, with a first session's prose
budget (``AIZAC_LOCAL_MAX_TOKENS``, 512).

A case is one project on the embedded SmolLM2-135M through every stage a writer's first hour
takes: plot -> beat -> accept (extraction, summary, memory) -> prose (streamed, cut at the budget
to whole sentences and saved). A shorter budget was tried and dropped: at 256 tokens the
``ko-hunter-gate`` case's prose was cut before its first sentence ended (an honest error, and a
test that fails for the budget, not the product). The Korean and Chinese cases put Korean or
Chinese prompts to a model that writes English only (its registry row: ``ModelProfile.writes``;
a Korean or Chinese project on it shows the demo-model note).

On two cores shared with other runs a case takes minutes, so the cases are spread through the
first half of the collection, each at a module boundary (:func:`spread`): under ``pytest -n``
(the Test command's three workers, which take consecutive runs of tests) they start on
different workers early instead of queueing on one, and no other module's fixtures are set up
twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

CASES_MODULE = "local_pipeline/test_pipeline.py"


def case_settings() -> dict[str, Any]:
    """Settings of the cases' service beyond the data folder: none (the product's defaults)."""
    return {}


def module_of(item: pytest.Item) -> str:
    return item.nodeid.split("::", 1)[0]


def spread(items: Sequence[pytest.Item], picked: Sequence[pytest.Item]) -> list[pytest.Item]:
    """``items`` with ``picked`` moved evenly through the first half of the others, each to
    the first module boundary at or after its place (their order kept)."""
    chosen = {id(item) for item in picked}
    rest = [item for item in items if id(item) not in chosen]
    bounds = [n for n in range(len(rest) + 1)
              if n in (0, len(rest)) or module_of(rest[n]) != module_of(rest[n - 1])]
    at: dict[int, list[pytest.Item]] = {}
    for k, item in enumerate(picked):
        want = k * len(rest) // (2 * len(picked))
        at.setdefault(next(b for b in bounds if b >= want), []).append(item)
    ordered: list[pytest.Item] = []
    for n in range(len(rest) + 1):
        ordered.extend(at.get(n, []))
        if n < len(rest):
            ordered.append(rest[n])
    return ordered


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # This conftest's hook sees the whole session's items: pick the cases.
    cases = [item for item in items if module_of(item).endswith(CASES_MODULE)]
    if cases:
        items[:] = spread(items, cases)
