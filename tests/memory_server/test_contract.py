"""The memory contract tests of ``tests/memory`` (every test that takes the ``mem`` fixture),
run again on a real Chroma server: here ``mem`` is a server-backed WriterMemory (conftest)."""

from __future__ import annotations

import inspect
from types import ModuleType

from tests.memory import (
    test_commit_journal,
    test_concurrency,
    test_key_index,
    test_short_term,
    test_staging,
    test_store,
    test_supersession,
)

MODULES: tuple[ModuleType, ...] = (
    test_store, test_supersession, test_staging, test_commit_journal, test_concurrency,
    test_key_index, test_short_term,
)
# Builds its own memory on a scripted failing client: nothing to do with the server.
EMBEDDED_ONLY = {"test_a_failure_mid_commit_leaves_nothing_half_written"}


def _reused() -> dict[str, object]:
    found: dict[str, object] = {}
    for module in MODULES:
        for name, fn in vars(module).items():
            if (
                name.startswith("test_") and callable(fn) and name not in EMBEDDED_ONLY
                and "mem" in inspect.signature(fn).parameters
            ):
                found[f"{name}__{module.__name__.rsplit('.', 1)[-1]}"] = fn
    return found


globals().update(_reused())


def test_the_contract_is_collected() -> None:
    assert len(_reused()) >= 40
