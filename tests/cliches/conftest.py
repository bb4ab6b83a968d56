"""Fixtures for the cliché database tests: the packaged database and small CSVs."""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from aizac.cliches import COLUMNS, LIST_SEP, BeatRow, ClicheDB, load_beats


@pytest.fixture(scope="session")
def rows() -> list[BeatRow]:
    return load_beats()


@pytest.fixture(scope="session")
def db() -> ClicheDB:
    """The packaged database in memory (built once per test session)."""
    return ClicheDB()


def row_dict(row: BeatRow) -> dict[str, str]:
    data = row.model_dump()
    return {
        c: LIST_SEP.join(data[c]) if isinstance(data[c], tuple) else str(data[c]) for c in COLUMNS
    }


def write_csv(path: Path, rows: Iterable[dict[str, str]], columns: Iterable[str] = COLUMNS) -> Path:
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, list(columns), extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return path


@pytest.fixture
def small_csv(tmp_path: Path, rows: list[BeatRow]) -> Callable[..., Path]:
    """Write the beats of a few real tropes (optionally edited) to a CSV in tmp_path."""

    def make(
        tropes: tuple[str, ...] = ("regression-revenge", "haunted-house"),
        name: str = "beats.csv",
        edit: Callable[[list[dict[str, str]]], None] | None = None,
    ) -> Path:
        picked = [row_dict(r) for r in rows if r.trope in tropes]
        if edit is not None:
            edit(picked)
        return write_csv(tmp_path / name, picked)

    return make
