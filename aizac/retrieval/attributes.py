"""What a memory looks like to the model that writes retrieval filters (pure, no I/O).

The self-query model sees one :class:`AttributeInfo` per metadata field it may filter on. ``time``
is offered the way the seed design had it (turns since the memory was last reinforced) although
it is never stored: the translator turns it into a bound on the stored ``last_turn``.
``superseded`` is likewise virtual: asking for ``superseded == true`` means "include the older
versions of facts" (the history of a relation), not a stored flag.
"""

from __future__ import annotations

from langchain_classic.chains.query_constructor.schema import AttributeInfo

TAGS: tuple[str, ...] = ("Story", "Character", "CharacterRelation", "NovelSetting")
"""The four memory tags, exactly as stored."""

DOCUMENT_CONTENTS = (
    "One remembered fact of a serial novel: what happened in the story (Story), a character's "
    "profile or current state (Character), how two characters stand towards each other "
    "(CharacterRelation), or a world fact such as a place, object, era, culture or rule "
    "(NovelSetting)."
)

TIME_FIELD = "time"
SUPERSEDED_FIELD = "superseded"

STRING_FIELDS: frozenset[str] = frozenset(
    {"tag", "character_name", "character1", "character2", "keyword"}
)
NUMBER_FIELDS: frozenset[str] = frozenset(
    {"chapter", "beat", TIME_FIELD, "memory_strength"}
)
BOOL_FIELDS: frozenset[str] = frozenset({"pinned", SUPERSEDED_FIELD})
CHARACTER_FIELDS: frozenset[str] = frozenset({"character_name", "character1", "character2"})
"""Fields whose values are character names (resolved through aliases)."""

VIRTUAL_FIELDS: frozenset[str] = frozenset({TIME_FIELD, SUPERSEDED_FIELD})
"""Fields the model may use that are not stored as such (translated, see module docstring)."""


def memory_attributes() -> list[AttributeInfo]:
    """The attribute schema describing every memory field the model may filter on."""
    tags = ", ".join(f'"{t}"' for t in TAGS)
    return [
        AttributeInfo(
            name="tag",
            description=(
                f"Kind of memory, one of {tags}. Story: what happened; Character: a "
                "character's profile or state; CharacterRelation: how two characters stand; "
                "NovelSetting: places, objects, era, culture, world rules."
            ),
            type="string",
        ),
        AttributeInfo(
            name="character_name",
            description="The character a Character memory is about (any of their names).",
            type="string",
        ),
        AttributeInfo(
            name="character1",
            description=(
                "One of the two characters of a CharacterRelation memory (order does not "
                "matter: the pair is matched either way)."
            ),
            type="string",
        ),
        AttributeInfo(
            name="character2",
            description="The other character of a CharacterRelation memory.",
            type="string",
        ),
        AttributeInfo(
            name="keyword",
            description="Short topic key of the memory, e.g. a place, object or rule name.",
            type="string",
        ),
        AttributeInfo(
            name="chapter",
            description="Chapter (episode) number in which the fact was established.",
            type="integer",
        ),
        AttributeInfo(
            name="beat",
            description="Beat number within the chapter in which the fact was established.",
            type="integer",
        ),
        AttributeInfo(
            name=TIME_FIELD,
            description=(
                "Turns since the memory was last recalled or reinforced (0 = just now). "
                "Use lt to ask for recent memories."
            ),
            type="integer",
        ),
        AttributeInfo(
            name="memory_strength",
            description="How strongly the memory is held; grows each time it is recalled.",
            type="float",
        ),
        AttributeInfo(
            name="pinned",
            description="true for core memories the writer pinned (never forgotten).",
            type="boolean",
        ),
        AttributeInfo(
            name=SUPERSEDED_FIELD,
            description=(
                "Set to true only when the question asks about the past or the history of a "
                "fact (how a relationship changed); older versions are then included."
            ),
            type="boolean",
        ),
    ]


ATTRIBUTE_NAMES: tuple[str, ...] = tuple(a.name for a in memory_attributes())

INTEGER_FIELDS: frozenset[str] = frozenset(
    a.name for a in memory_attributes() if a.type == "integer"
)
"""Number fields that only hold whole numbers (a bound between two is rounded)."""
