"""ClicheDB: filters, keyword search and expansion, next-beat suggestions, build lifecycle."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import chromadb
import numpy as np
import pytest
from chromadb.config import Settings

from aizac.cliches import STAGES, ClicheDB
from aizac.errors import InvalidInputError
from aizac.llm.embeddings import HashingEmbeddings


def test_listing(db: ClicheDB) -> None:
    assert len(db) >= 500
    assert len(db.tropes()) >= 40
    assert "romance-fantasy" in db.genres() and "murim" in db.genres()
    arc = db.arc("regression-revenge")
    assert [b.order for b in arc.beats] == sorted(b.order for b in arc.beats)
    assert list(arc.stages()) == list(STAGES)


def test_search_ranks_the_matching_beat_first(db: ClicheDB) -> None:
    hits = db.search("the villainess is framed for poisoning the heroine at the ball", k=3)
    assert hits[0].id == "villainess-possession-06"
    assert hits[0].score >= hits[1].score >= hits[2].score


@pytest.mark.parametrize(
    ("filters", "check"),
    [
        ({"genre": "murim"}, lambda h: h.genre == "murim"),
        ({"genre": "무협"}, lambda h: h.genre == "murim"),  # Korean alias
        ({"genre": "Romance Fantasy"}, lambda h: h.genre == "romance-fantasy"),
        ({"stage": "climax"}, lambda h: h.stage == "climax"),
        ({"stage": "절정"}, lambda h: h.stage == "climax"),  # Korean stage name
        ({"trope": "haunted-house"}, lambda h: h.trope == "haunted-house"),
        (
            {"genre": "horror", "stage": "crisis", "trope": "zombie-outbreak"},
            lambda h: (h.genre, h.stage, h.trope) == ("horror", "crisis", "zombie-outbreak"),
        ),
    ],
)
def test_search_filters(db: ClicheDB, filters: dict[str, str], check: Callable) -> None:
    hits = db.search("betrayal and a desperate escape", k=3, **filters)
    assert len(hits) == 3  # a trope has three crisis beats
    assert all(check(h) for h in hits)


def test_invalid_names_list_valid_values(db: ClicheDB) -> None:
    with pytest.raises(InvalidInputError, match=r"Unknown stage 'middle'.*exposition, development"):
        db.search("x", stage="middle")
    with pytest.raises(InvalidInputError, match=r"Unknown genre 'western'.*murim"):
        db.search("x", genre="western")
    with pytest.raises(InvalidInputError, match=r"Unknown trope.*regression-revenge"):
        db.suggest_next("x", "crisis", trope="no-such-trope")
    with pytest.raises(InvalidInputError, match="empty"):
        db.search("  ")
    with pytest.raises(InvalidInputError, match="No keywords"):
        db.expand_keywords([" , "])
    with pytest.raises(InvalidInputError, match="k must be"):
        db.by_keywords(["회귀"], k=0)


def test_by_keywords_exact_first_in_either_language(db: ClicheDB) -> None:
    korean = db.by_keywords(["헌터", "게이트"], k=5)
    english = db.by_keywords(["HUNTER", "Gate"], k=5)
    for hits in (korean, english):
        assert [h.trope for h in hits] == ["hunter-gate-awakening"] * 5
        assert all(len(h.matched) == 2 for h in hits)
    # More wanted than carry the keyword: exact matches first, similar beats fill the rest.
    hits = db.by_keywords(["타임루프"], k=15)
    exact = [h for h in hits if h.matched]
    assert len(exact) == 12 and hits[:12] == exact
    assert all(h.trope == "time-loop" for h in exact)
    assert len(hits) == 15 and not any(h.matched for h in hits[12:])


def test_expand_keywords_korean_and_english(db: ClicheDB) -> None:
    korean = db.expand_keywords(["회귀, 복수"])
    english = db.expand_keywords(["regression", "revenge"])
    for arcs in (korean, english):
        top = {a.trope for a in arcs[:2]}
        assert top == {"regression-revenge", "chaebol-regression"}
        assert len(arcs) == 3
        assert arcs[0].score >= arcs[1].score >= arcs[2].score
    arc = korean[0]
    assert arc.matched == ("회귀", "복수")
    assert [STAGES.index(b.stage) for b in arc.beats] == sorted(
        STAGES.index(b.stage) for b in arc.beats
    )
    assert "회귀" in arc.keywords and "regression" in arc.keywords


def test_expand_keywords_partial_match_and_genre(db: ClicheDB) -> None:
    arcs = db.expand_keywords(["유령이 나오는 집"], k_tropes=1)  # '유령' inside a phrase
    assert arcs[0].trope == "haunted-house"
    murim = db.expand_keywords(["revenge"], k_tropes=3, genre="무협")
    assert {a.genre for a in murim} == {"murim"}


def test_suggest_next_continues_the_same_trope(db: ClicheDB) -> None:
    current = "The team wins its first game in a surprise upset against a stronger club."
    hits = db.suggest_next(current, "development", k=5)
    assert all(h.stage in ("development", "crisis") for h in hits)
    same = [h for h in hits if h.trope == "underdog-team"]
    assert [h.order for h in same] == [5, 6, 7, 8]  # the beats after the anchor, in order
    assert hits[: len(same)] == same


def test_suggest_next_with_trope_and_last_stage(db: ClicheDB) -> None:
    hits = db.suggest_next(
        "She is imprisoned in the tower while the court prepares her trial.",
        "crisis",
        trope="villainess-possession",
        k=6,
    )
    assert hits[0].trope == "villainess-possession"
    assert all(h.stage in ("crisis", "climax") for h in hits)
    assert {h.id for h in hits if h.trope == "villainess-possession"} >= {
        "villainess-possession-08",
        "villainess-possession-09",
    }
    korean = db.suggest_next(
        "She is imprisoned in the tower.", "위기", trope="villainess-possession"
    )
    assert all(h.stage in ("crisis", "climax") for h in korean)
    final = db.suggest_next("They walk home together at sunset.", "resolution", k=4)
    assert len(final) == 4 and {h.stage for h in final} == {"resolution"}


def test_in_memory_databases_over_different_csvs_stay_apart(
    small_csv: Callable[..., Path],
) -> None:
    a = ClicheDB(csv_path=small_csv(("regression-revenge",), name="a.csv"))
    b = ClicheDB(csv_path=small_csv(("haunted-house",), name="b.csv"))
    assert len(a) == len(b) == 12
    assert {h.trope for h in a.search("ghost in the basement", k=12)} == {"regression-revenge"}
    assert {h.trope for h in b.search("revenge for the betrayal", k=12)} == {"haunted-house"}


def test_persistent_reuse_and_rebuild_on_change(
    tmp_path: Path, small_csv: Callable[..., Path]
) -> None:
    store = tmp_path / "chroma"
    csv_path = small_csv()
    first = ClicheDB(store, csv_path=csv_path)
    assert len(first) == 24 and first.builds == 1

    reopened = ClicheDB(store, csv_path=csv_path)
    assert len(reopened) == 24 and reopened.builds == 0  # same CSV: nothing rebuilt
    assert reopened.search("scaffold execution", k=1)[0].id == "regression-revenge-01"

    def rewrite(rows: list[dict[str, str]]) -> None:
        rows[0]["summary"] = "A lighthouse keeper counts ships that never arrive."
        del rows[-1]

    changed = ClicheDB(store, csv_path=small_csv(edit=rewrite))
    assert len(changed) == 23 and changed.builds == 1
    hit = changed.search("lighthouse keeper counting ships", k=1)[0]
    assert hit.id == "regression-revenge-01" and hit.summary.startswith("A lighthouse")

    other_embeddings = ClicheDB(
        store, csv_path=small_csv(edit=rewrite), embeddings=HashingEmbeddings(64)
    )
    assert len(other_embeddings) == 23 and other_embeddings.builds == 1


def test_interrupted_build_is_redone(tmp_path: Path, small_csv: Callable[..., Path]) -> None:
    client = chromadb.PersistentClient(
        path=str(tmp_path / "chroma"), settings=Settings(anonymized_telemetry=False)
    )
    col = client.create_collection(
        "aizac_cliches", embedding_function=None, metadata={"csv_sha256": "building"}
    )
    col.add(ids=["stale"], embeddings=np.ones((1, 256), dtype=np.float32), documents=["half"])
    db = ClicheDB(client=client, csv_path=small_csv())
    assert len(db) == 24 and db.builds == 1
    assert client.get_collection("aizac_cliches", embedding_function=None).count() == 24
