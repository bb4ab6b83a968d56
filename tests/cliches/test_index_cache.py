"""The trope index of beats.csv is read from its file beside the collection while the CSV is
unchanged, and rebuilt when the CSV, the file or its version changes (aizac.cliches.index)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from aizac.cliches import ClicheDB
from aizac.cliches.index import INDEX_FILE, build_index, load_index
from aizac.cliches.schema import read_csv_source


def _open(store: Path, csv_path: Path) -> ClicheDB:
    db = ClicheDB(store, csv_path=csv_path)
    db.rows()
    assert db.index is not None
    return db


def test_a_reopened_database_reads_its_index_and_searches_alike(
    tmp_path: Path, small_csv: Callable[..., Path]
) -> None:
    csv_path, store = small_csv(), tmp_path / "cliches"
    first = _open(store, csv_path)
    assert first.index is not None and not first.index.from_cache
    assert (store / INDEX_FILE).is_file()
    again = _open(store, csv_path)
    assert again.index is not None and again.index.from_cache
    assert again.index.rows == first.index.rows
    assert again.index.stems == first.index.stems
    assert again.index.keywords == first.index.keywords
    assert again.expand_keywords(["회귀", "복수"]) == first.expand_keywords(["회귀", "복수"])
    query = "the traitor arrives at the house"
    assert again.search(query, k=5) == first.search(query, k=5)


def test_a_changed_csv_rebuilds_the_index(
    tmp_path: Path, small_csv: Callable[..., Path]
) -> None:
    store = tmp_path / "cliches"
    _open(store, small_csv())

    def edit(rows: list[dict[str, str]]) -> None:
        rows[0]["summary"] = "A lighthouse keeper counts ships that never arrive."

    changed = _open(store, small_csv(edit=edit))
    assert changed.index is not None and not changed.index.from_cache
    assert changed.rows()[0].summary == "A lighthouse keeper counts ships that never arrive."
    assert "lighthouse"[:5] in changed.index.stems[changed.rows()[0].id]
    saved = json.loads((store / INDEX_FILE).read_text(encoding="utf-8"))
    assert saved["csv_sha256"] == read_csv_source(changed.csv_path).sha256


@pytest.mark.parametrize(
    "spoil",
    [
        lambda text: text[: len(text) // 2],  # cut short
        lambda text: text.replace('"version":1', '"version":0'),  # another version
        lambda text: text.replace('"stage":"exposition"', '"stage":"prologue"', 1),  # bad row
    ],
)
def test_an_unusable_index_file_is_rebuilt_from_the_csv(
    tmp_path: Path, small_csv: Callable[..., Path], spoil: Callable[[str], str]
) -> None:
    src = read_csv_source(small_csv())
    load_index(src, tmp_path)
    path = tmp_path / INDEX_FILE
    text = path.read_text(encoding="utf-8")
    assert spoil(text) != text
    path.write_text(spoil(text), encoding="utf-8")
    again = load_index(src, tmp_path)
    assert not again.from_cache and again.rows == build_index(src).rows
    assert load_index(src, tmp_path).from_cache  # written back whole


def test_an_in_memory_database_writes_no_index_file(
    tmp_path: Path, small_csv: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    db = ClicheDB(csv_path=small_csv())
    db.rows()
    assert db.index is not None and not db.index.from_cache
    assert not list(tmp_path.rglob(INDEX_FILE))


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # Chroma's, about reading its config
def test_a_collection_with_chromas_default_sync_threshold_is_rebuilt_once(
    tmp_path: Path, small_csv: Callable[..., Path]
) -> None:
    """Below 1000 writes Chroma never persists the vector index, so every process replayed the
    whole database's log at its first query: the collection uses a threshold of 100."""
    import chromadb
    from chromadb.config import Settings

    store, csv_path = tmp_path / "cliches", small_csv()
    first = ClicheDB(store, csv_path=csv_path)
    assert len(first) == 24 and first.builds == 1
    settings = Settings(anonymized_telemetry=False)
    client = chromadb.PersistentClient(path=str(store), settings=settings)
    col = client.get_collection("aizac_cliches", embedding_function=None)
    assert col.configuration["hnsw"]["sync_threshold"] == 100
    col.modify(configuration={"hnsw": {"sync_threshold": 1000}})  # a store built before
    old = ClicheDB(store, csv_path=csv_path, client=client)
    assert len(old) == 24 and old.builds == 1
    again = ClicheDB(store, csv_path=csv_path, client=client)
    assert len(again) == 24 and again.builds == 0
