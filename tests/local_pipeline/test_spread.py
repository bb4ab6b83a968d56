"""The real-model cases stand apart in the run, at module boundaries (conftest.spread)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from tests.local_pipeline.conftest import spread


def items(*ids: str) -> list[Any]:
    return [SimpleNamespace(nodeid=i) for i in ids]


def test_the_cases_spread_through_the_first_half_at_module_boundaries() -> None:
    others = items(*(f"tests/m{n // 3}.py::t{n}" for n in range(24)))  # 8 modules of 3
    cases = items(*(f"tests/local_pipeline/test_pipeline.py::t[{c}]" for c in "abcd"))
    order = [i.nodeid for i in spread([*cases, *others], cases)]
    assert sorted(order) == sorted(i.nodeid for i in [*cases, *others])  # nothing lost
    where = [order.index(c.nodeid) for c in cases]
    # wanted at 0, 3, 6 and 9 of the 24 others (the first half, evenly): boundaries there
    assert where == [0, 4, 8, 12]
    for n in where[1:]:  # each between two modules, never inside one
        assert order[n - 1].split("::")[0] != order[n + 1].split("::")[0]


def test_a_case_wanted_inside_a_module_waits_for_its_end() -> None:
    others = items(*(f"tests/big.py::t{n}" for n in range(10)), "tests/z.py::t")
    cases = items(*(f"tests/local_pipeline/test_pipeline.py::{c}" for c in "ab"))
    order = [i.nodeid for i in spread([*others, *cases], cases)]
    # b was wanted at 2 (inside big.py): it goes after big.py, not into it
    assert order[0] == cases[0].nodeid and order[11] == cases[1].nodeid


def test_alone_the_cases_keep_their_order() -> None:
    cases = items(*(f"tests/local_pipeline/test_pipeline.py::t[{c}]" for c in "abc"))
    assert spread(cases, cases) == cases
