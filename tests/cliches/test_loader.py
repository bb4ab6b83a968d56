"""load_beats rejects bad CSVs with errors that name the row and the column."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from aizac.cliches import COLUMNS, load_beats, parse_beats
from aizac.errors import InvalidInputError

from .conftest import write_csv


def test_small_csv_round_trips(small_csv: Callable[..., Path]) -> None:
    rows = load_beats(small_csv())
    assert {r.trope for r in rows} == {"regression-revenge", "haunted-house"}
    first = rows[0]
    assert first.keywords[:2] == ("회귀", "regression")
    assert first.stage == "exposition" and first.order == 1


def _set(index: int, column: str, value: str) -> Callable[[list[dict[str, str]]], None]:
    def edit(rows: list[dict[str, str]]) -> None:
        rows[index][column] = value

    return edit


@pytest.mark.parametrize(
    ("column", "value", "needle"),
    [
        ("stage", "middle", "exposition"),
        ("keywords", "regression;revenge", "Korean"),
        ("keywords", "회귀;복수", "English"),
        ("hook", "   ", "hook"),
        ("order", "two", "order"),
        ("id", "Bad Id", "slug"),
        ("roles", ";;", "role"),
    ],
)
def test_bad_cell_names_row_and_column(
    small_csv: Callable[..., Path], column: str, value: str, needle: str
) -> None:
    path = small_csv(edit=_set(2, column, value))
    with pytest.raises(InvalidInputError) as err:
        load_beats(path)
    message = str(err.value)
    assert "row 4" in message  # header is row 1, so the third beat is row 4
    assert f"column {column!r}" in message
    assert needle in message


def test_missing_and_unknown_columns(tmp_path: Path, small_csv: Callable[..., Path]) -> None:
    rows = [{c: "x" for c in COLUMNS}]
    with pytest.raises(InvalidInputError, match=r"missing column.*hook"):
        load_beats(write_csv(tmp_path / "a.csv", rows, [c for c in COLUMNS if c != "hook"]))
    with pytest.raises(InvalidInputError, match=r"unknown column.*mood"):
        load_beats(write_csv(tmp_path / "b.csv", rows, [*COLUMNS, "mood"]))


def test_duplicate_ids_and_backward_stages(small_csv: Callable[..., Path]) -> None:
    def dup(rows: list[dict[str, str]]) -> None:
        rows[1]["id"] = rows[0]["id"]

    with pytest.raises(InvalidInputError, match="duplicate id 'regression-revenge-01'"):
        load_beats(small_csv(edit=dup))
    with pytest.raises(InvalidInputError, match="never go backwards"):
        load_beats(small_csv(edit=_set(5, "stage", "exposition")))
    with pytest.raises(InvalidInputError, match="increasing order"):
        load_beats(small_csv(edit=_set(3, "order", "1")))


def test_not_utf8_missing_file_and_empty(tmp_path: Path) -> None:
    bad = tmp_path / "latin1.csv"
    bad.write_bytes(",".join(COLUMNS).encode() + b"\n\xe9\xe9\n")
    with pytest.raises(InvalidInputError, match="not valid UTF-8"):
        load_beats(bad)
    with pytest.raises(InvalidInputError, match="Cannot read"):
        load_beats(tmp_path / "nope.csv")
    with pytest.raises(InvalidInputError, match="no beats"):
        parse_beats(",".join(COLUMNS) + "\n")


def test_unquoted_comma_is_reported(tmp_path: Path) -> None:
    text = ",".join(COLUMNS) + "\n" + ",".join(["a"] * (len(COLUMNS) + 1)) + "\n"
    with pytest.raises(InvalidInputError, match="row 2: more cells"):
        parse_beats(text)
