"""Metadata building, validation and where-filters (pure)."""

from __future__ import annotations

import pytest

from aizac.errors import InvalidInputError
from aizac.memory import TAGS
from aizac.memory.records import (
    ALWAYS,
    NEVER,
    MemoryFields,
    Metadata,
    and_where,
    build_metadata,
    canonical_pair,
    live_until,
    state_where,
    to_hit,
)


def meta(tag: str = "Story", **kw: object) -> Metadata:
    return build_metadata(tag, MemoryFields.of(10.0, **kw), turn=5, threshold=1.0)


def test_tags() -> None:
    assert TAGS == ("Story", "Character", "CharacterRelation", "NovelSetting")


def test_canonical_pair_order_is_symmetric() -> None:
    assert canonical_pair("Mira", "Guild master") == canonical_pair("Guild master", "Mira")
    assert canonical_pair("  미라 ", "Kai") == canonical_pair("Kai", "미라")


@pytest.mark.parametrize(("a", "b"), [("Mira", "Mira"), ("Mira", " mira "), ("", "Kai")])
def test_relation_needs_two_different_characters(a: str, b: str) -> None:
    with pytest.raises(InvalidInputError):
        canonical_pair(a, b)


def test_metadata_has_every_documented_key() -> None:
    m = meta("Story", keyword="harbour", chapter=3, beat=2)
    for key in (
        "tag",
        "character_name",
        "character1",
        "character2",
        "keyword",
        "chapter",
        "beat",
        "created_turn",
        "last_turn",
        "memory_strength",
        "pinned",
        "superseded_by",
        "forget_at",
    ):
        assert key in m
    assert m["created_turn"] == m["last_turn"] == 5
    assert m["forget_at"] == pytest.approx(5 + 10 * 2.302585, rel=1e-6)
    assert all(v is not None for v in m.values())


@pytest.mark.parametrize(
    ("tag", "kw", "match"),
    [
        ("Plot", {}, "Unknown memory tag"),
        ("Character", {}, "character_name"),
        ("CharacterRelation", {"character1": "Mira"}, "two characters"),
        ("CharacterRelation", {"character1": "Mira", "character2": "MIRA"}, "itself"),
        ("Story", {"character1": "Mira", "character2": "Kai"}, "only apply"),
        ("Story", {"aliases": ["M"]}, "aliases"),
        ("Character", {"character_name": "Mira", "foreshadow": True}, "foreshadow"),
        ("Story", {"chapter": -1}, "chapter"),
        ("Story", {"extra": {"tag": "x"}}, "reserved"),
        ("Story", {"extra": {"note": None}}, "string, number or bool"),
        ("Character", {"character_name": "Mira", "aliases": "M"}, "list"),
        ("Story", {"chapters": 3}, "Unknown memory field"),
    ],
)
def test_bad_fields_are_rejected(tag: str, kw: dict[str, object], match: str) -> None:
    with pytest.raises(InvalidInputError, match=match):
        meta(tag, **kw)


def test_a_memory_s_fields_have_one_home() -> None:
    """The staging API takes its field names from MemoryFields, not from a second list."""
    import inspect

    from aizac.memory.staging import CandidateBatch

    params = set(inspect.signature(CandidateBatch.remember).parameters)
    assert params == {"self", "text", "tag", "strength", "fields"}
    documented = set(MemoryFields.__dataclass_fields__) - {"strength"}
    assert all(f"``{name}``" in (CandidateBatch.remember.__doc__ or "") or name in (
        "character2",) for name in documented)


def test_aliases_are_cleaned() -> None:
    m = meta("Character", character_name="Mira", aliases=["미라", "mira", " 미라 ", "Mi  ra"])
    assert m["aliases"] == "미라"  # "Mi  ra" is "Mira" under the one name rule


def test_live_until_folds_pins_supersession_and_forgetting() -> None:
    m = meta("Story")
    assert live_until(m) == m["forget_at"]
    assert live_until({**m, "pinned": True}) == ALWAYS
    assert live_until({**m, "pinned": True, "superseded_by": "x"}) == NEVER
    assert live_until({**m, "forgotten": True}) == NEVER


def test_and_where() -> None:
    assert and_where(None, {}) is None
    assert and_where({"tag": "Story"}) == {"tag": "Story"}
    both = and_where({"tag": "Story", "chapter": 3}, {"live_until": {"$gte": 1.0}})
    assert both == {"$and": [{"tag": "Story"}, {"chapter": 3}, {"live_until": {"$gte": 1.0}}]}
    nested = and_where({"$and": [{"a": 1}, {"b": 2}]}, {"c": 3})
    assert nested == {"$and": [{"a": 1}, {"b": 2}, {"c": 3}]}
    assert and_where({"$or": [{"a": 1}, {"b": 2}]}, None) == {"$or": [{"a": 1}, {"b": 2}]}


def test_state_where_variants() -> None:
    assert state_where(7) == {"live_until": {"$gte": 7.0}}
    assert state_where(7, include_forgotten=True) == {"superseded_by": ""}
    assert state_where(7, include_forgotten=True, include_superseded=True) is None
    sup = state_where(7, include_superseded=True)
    assert sup is not None and len(sup["$and"]) == 2


def test_hit_computes_time_and_factor() -> None:
    m = meta("Story")
    hit = to_hit("id1", "text", m, turn=15)
    assert hit.time == 10 and hit.live and not hit.superseded
    assert hit.memory_factor == pytest.approx(10 * 2.718281828**-1, rel=1e-6)
    late = to_hit("id1", "text", m, turn=40)
    assert not late.live and late.forgotten


def test_top_k_cosine() -> None:
    from aizac.memory.records import top_k_cosine

    vectors = [[1.0, 0.0], [0.0, 1.0], [0.0, 0.0], [0.7, 0.7], [2.0, 0.0]]
    got = top_k_cosine([1.0, 0.0], vectors, 3)
    assert [i for i, _ in got] == [0, 4, 3]
    assert got[0][1] == pytest.approx(0.0) and got[2][1] == pytest.approx(1 - 0.7071, abs=1e-4)
    assert top_k_cosine([1.0, 0.0], [], 3) == [] and top_k_cosine([1.0, 0.0], vectors, 0) == []
    assert top_k_cosine([1.0, 0.0], [[0.0, 0.0]], 1) == [(0, 1.0)]
