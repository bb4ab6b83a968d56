from typing import cast

import pytest
from langchain_classic.chains.query_constructor.parser import get_parser
from langchain_core.structured_query import (
    Comparator,
    Comparison,
    FilterDirective,
    StructuredQuery,
)

from aizac.errors import (
    FilterError,
    InvalidFilterValueError,
    UnknownCharacterError,
    UnknownFieldError,
)
from aizac.memory import WriterMemory
from aizac.retrieval.aliases import AliasResolver
from aizac.retrieval.attributes import ATTRIBUTE_NAMES, TAGS, memory_attributes
from aizac.retrieval.translator import MemoryFilterTranslator, combine, negate


def parse(text: str) -> FilterDirective:
    """A filter in LangChain's filter language (the parser's transformer builds directives)."""
    return cast(FilterDirective, get_parser().parse(text))


RESOLVER = AliasResolver({"Lee Youngmin": ["이영민"], "Kang Mira": ["강미라"], "Seo Jun": []})


def where(text: str, turn: int = 100) -> dict | None:
    translator = MemoryFilterTranslator(current_turn=turn, resolver=RESOLVER)
    return translator.translate(parse(text)).where


def test_attribute_schema_lists_every_memory_field_and_the_four_tags() -> None:
    names = set(ATTRIBUTE_NAMES)
    assert {"tag", "character_name", "character1", "character2", "keyword", "chapter",
            "time", "memory_strength", "pinned"} <= names
    tag_info = next(a for a in memory_attributes() if a.name == "tag")
    assert all(f'"{t}"' in tag_info.description for t in TAGS)


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        ('lt("time", 5)', {"last_turn": {"$gt": 95}}),
        ('lte("time", 5)', {"last_turn": {"$gte": 95}}),
        ('gt("time", 10)', {"last_turn": {"$lt": 90}}),
        ('gte("time", 10)', {"last_turn": {"$lte": 90}}),
        ('eq("time", 0)', {"last_turn": {"$eq": 100}}),
    ],
)
def test_time_becomes_a_bound_on_last_turn(expr: str, expected: dict) -> None:
    assert where(expr) == expected


def test_time_follows_the_current_turn_at_each_translation() -> None:
    turn = {"now": 10}
    translator = MemoryFilterTranslator(current_turn=lambda: turn["now"])
    parsed = parse('lt("time", 3)')
    assert translator.translate(parsed).where == {"last_turn": {"$gt": 7}}
    turn["now"] = 50
    assert translator.translate(parsed).where == {"last_turn": {"$gt": 47}}


def test_negative_time_is_rejected() -> None:
    with pytest.raises(InvalidFilterValueError):
        where('lt("time", -1)')


def test_pair_is_canonicalised_whatever_order_and_alias_the_model_used() -> None:
    expected = {
        "$and": [
            {"character1": {"$eq": "Kang Mira"}},
            {"character2": {"$eq": "Lee Youngmin"}},
            {"tag": {"$eq": "CharacterRelation"}},
        ]
    }
    assert where('and(eq("tag", "CharacterRelation"), eq("character1", "이영민"), '
                 'eq("character2", "kang mira"))') == expected
    assert where('and(eq("character1", "Kang Mira"), eq("character2", "Lee Youngmin"), '
                 'eq("tag", "relationship"))') == expected


def test_single_side_matches_either_side() -> None:
    assert where('eq("character2", "Mira")') == {
        "$or": [{"character1": {"$eq": "Kang Mira"}}, {"character2": {"$eq": "Kang Mira"}}]
    }
    assert where('ne("character1", "Mira")') == {
        "$and": [{"character1": {"$ne": "Kang Mira"}}, {"character2": {"$ne": "Kang Mira"}}]
    }


def test_and_has_at_least_two_clauses_or_collapses() -> None:
    assert where('and(eq("pinned", true))') == {"pinned": {"$eq": True}}
    assert where('and(eq("pinned", true), eq("keyword", "ring"), gt("chapter", 2))') == {
        "$and": [
            {"pinned": {"$eq": True}},
            {"keyword": {"$eq": "ring"}},
            {"chapter": {"$gt": 2}},
        ]
    }
    assert combine("$and", [None, {"a": {"$eq": 1}}]) == {"a": {"$eq": 1}}
    assert combine("$or", [None, None]) is None


def test_not_is_pushed_down_into_comparisons() -> None:
    assert where('not(or(eq("pinned", true), lt("chapter", 3)))') == {
        "$and": [{"pinned": {"$ne": True}}, {"chapter": {"$gte": 3}}]
    }
    assert negate({"tag": {"$in": ["Story"]}}) == {"tag": {"$nin": ["Story"]}}


def test_tags_values_and_types_are_normalised() -> None:
    assert where('eq("tag", "setting")') == {"tag": {"$eq": "NovelSetting"}}
    assert where('in("tag", ["story", "Character"])') == {"tag": {"$in": ["Story", "Character"]}}
    assert where('eq("pinned", "true")') == {"pinned": {"$eq": True}}
    assert where('gte("chapter", "3")') == {"chapter": {"$gte": 3}}
    assert where('eq("character_name", "이영민")') == {"character_name": {"$eq": "Lee Youngmin"}}


def test_superseded_true_asks_for_history_and_drops_the_clause() -> None:
    translator = MemoryFilterTranslator(resolver=RESOLVER)
    query = StructuredQuery(
        query="relationship",
        filter=parse('and(eq("superseded", true), eq("character1", "Seo Jun"))'),
    )
    text, kwargs = translator.visit_structured_query(query)
    assert text == "relationship"
    assert kwargs["include_superseded"] is True
    assert kwargs["filter"]["$or"][0] == {"character1": {"$eq": "Seo Jun"}}
    _, plain = translator.visit_structured_query(
        StructuredQuery(query="x", filter=parse('eq("superseded", false)'))
    )
    assert plain == {}


@pytest.mark.parametrize(
    ("expr", "error"),
    [
        ('eq("mood", "sad")', UnknownFieldError),
        ('eq("last_turn", 3)', UnknownFieldError),
        ('eq("tag", "Weather")', InvalidFilterValueError),
        ('eq("chapter", "soon")', InvalidFilterValueError),
        ('gt("pinned", true)', InvalidFilterValueError),
        ('eq("character1", "Park Sora")', UnknownCharacterError),
        ('eq("keyword", ["a", "b"])', InvalidFilterValueError),
    ],
)
def test_bad_filters_raise_specific_filter_errors(expr: str, error: type) -> None:
    with pytest.raises(error):
        where(expr)
    assert issubclass(error, FilterError)


def test_disallowed_comparator_is_a_filter_error() -> None:
    translator = MemoryFilterTranslator()
    with pytest.raises(InvalidFilterValueError):
        translator.translate(Comparison(comparator=Comparator.LIKE, attribute="keyword", value="a"))


@pytest.mark.parametrize(
    "expr",
    [
        'and(eq("tag", "CharacterRelation"), eq("character1", "Seo Jun"), '
        'eq("character2", "Kang Mira"))',
        'not(or(eq("pinned", true), lt("chapter", 3)))',
        'and(in("tag", ["Story", "setting"]), gte("time", 0), gt("memory_strength", 0.5))',
        'ne("character2", "이영민")',
        'or(eq("keyword", "Jade Gate"), eq("character_name", "Mira"))',
    ],
)
def test_translated_filters_are_accepted_by_chroma(
    story: tuple[WriterMemory, dict[str, str]], expr: str
) -> None:
    mem, _ = story
    result = MemoryFilterTranslator(current_turn=mem.turn, resolver=RESOLVER).translate(
        parse(expr)
    )
    assert result.where is not None
    mem.recall("anything", k=3, where=result.where, reinforce=False)  # raises if Chroma refuses


# --------------------------------------------------------------- bounds on integer fields
@pytest.fixture
def chapters() -> WriterMemory:
    """One Story memory per chapter 1-4, on real (in-memory) Chroma, at turn 4."""
    from aizac.llm.embeddings import HashingEmbeddings

    mem = WriterMemory(embeddings=HashingEmbeddings(), threshold=0.01)
    for chapter in range(1, 5):
        mem.remember(f"Event of chapter {chapter}.", "Story", chapter=chapter)
        mem.advance(1)
    return mem


def chapters_where(mem: WriterMemory, text: str) -> list[int]:
    found = MemoryFilterTranslator(current_turn=mem.turn).translate(parse(text)).where
    return sorted(int(h.metadata["chapter"]) for h in mem.get_where(found))


@pytest.mark.parametrize(("text", "expected"), [
    ('lt("chapter", 2.5)', [1, 2]),  # Chroma alone returned [1]
    ('lte("chapter", 2.5)', [1, 2]),
    ('gt("chapter", 2.5)', [3, 4]),
    ('gte("chapter", 2.5)', [3, 4]),
    ('eq("chapter", 2.5)', []),
    ('ne("chapter", 2.5)', [1, 2, 3, 4]),
    ('eq("chapter", 2.0)', [2]),
    ('in("chapter", [1.5, 3])', [3]),
    ('in("chapter", [1.5, 2.5])', []),
    ('nin("chapter", [1.5, 2.5])', [1, 2, 3, 4]),
    ('not(eq("chapter", 2.5))', [1, 2, 3, 4]),
    ('not(ne("chapter", 2.5))', []),
    ('not(lt("chapter", 2.5))', [3, 4]),
    ('and(gt("chapter", 1.5), lt("chapter", 3.5))', [2, 3]),
    ('gt("beat", 0.5)', []),  # these memories have no beat: 0 (stored) is not above 0.5
    ('lt("time", 1.5)', [4]),  # chapter 4 was written 1 turn ago, chapter 3 two turns ago
    ('lt("time", 2.5)', [3, 4]),
    ('eq("time", 1.5)', []),
])
def test_a_bound_between_whole_numbers_is_rounded_as_it_means(
    chapters: WriterMemory, text: str, expected: list[int]
) -> None:
    assert chapters_where(chapters, text) == expected


def test_a_float_field_keeps_its_bound() -> None:
    assert where('gt("memory_strength", 2.5)') == {"memory_strength": {"$gt": 2.5}}
