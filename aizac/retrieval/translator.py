"""Structured query -> Chroma ``where`` dict for WriterMemory (pure, no I/O).

LangChain ships its Chroma translator only in langchain-community, which aizac does not use, so
this is a :class:`~langchain_core.structured_query.Visitor` of its own, aware of the memory
schema:

- ``time`` (turns since last reinforcement) is not stored; ``time < n`` becomes
  ``last_turn > turn - n`` for the current turn (and so on for every comparator).
- ``character1``/``character2`` describe an unordered pair: a pair given in any order becomes
  the stored canonical order, and a single name matches either side.
- Character names go through an :class:`~aizac.retrieval.aliases.AliasResolver`; unknown or
  ambiguous names raise :class:`UnknownCharacterError`.
- ``superseded == true`` asks for history: the clause is dropped and the search is told to
  include superseded memories.
- A bound between two whole numbers on an integer field (``chapter``, ``beat``, ``time``) is
  rounded the way it means: ``lt 2.5`` is ``lt 3`` (chapters up to 2), ``gt 2.5`` is ``gt 2``
  (from 3), ``eq 2.5`` matches nothing and ``ne 2.5`` everything; Chroma would compare the
  stored integers with the float its own way (``lt 2.5`` returned chapter 1 only).
- ``not(...)`` is pushed down into the comparisons (Chroma has no ``$not``); ``and``/``or``
  with one clause collapse to that clause (Chroma needs at least two).

Unknown fields, tags or ill-typed values raise :class:`FilterError` subclasses, which the
self-query retriever catches to fall back to a safe query.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.structured_query import (
    Comparator,
    Comparison,
    FilterDirective,
    Operation,
    Operator,
    StructuredQuery,
    Visitor,
)

from aizac.errors import InvalidFilterValueError, UnknownFieldError
from aizac.memory.records import canonical_pair as memory_pair
from aizac.retrieval.aliases import AliasResolver
from aizac.retrieval.attributes import (
    ATTRIBUTE_NAMES,
    BOOL_FIELDS,
    CHARACTER_FIELDS,
    INTEGER_FIELDS,
    NUMBER_FIELDS,
    SUPERSEDED_FIELD,
    TAGS,
    TIME_FIELD,
)

Where = dict[str, Any]

_OPS = {
    Comparator.EQ: "$eq",
    Comparator.NE: "$ne",
    Comparator.GT: "$gt",
    Comparator.GTE: "$gte",
    Comparator.LT: "$lt",
    Comparator.LTE: "$lte",
    Comparator.IN: "$in",
    Comparator.NIN: "$nin",
}
_NEGATED = {
    "$eq": "$ne",
    "$ne": "$eq",
    "$gt": "$lte",
    "$lte": "$gt",
    "$gte": "$lt",
    "$lt": "$gte",
    "$in": "$nin",
    "$nin": "$in",
}
# time = turn - last_turn, so an upper bound on time is a lower bound on last_turn.
_TIME_FLIP = {
    "$eq": "$eq",
    "$ne": "$ne",
    "$gt": "$lt",
    "$gte": "$lte",
    "$lt": "$gt",
    "$lte": "$gte",
    "$in": "$in",
    "$nin": "$nin",
}
_TAG_SYNONYMS = {
    "story": "Story",
    "event": "Story",
    "events": "Story",
    "plot": "Story",
    "character": "Character",
    "characters": "Character",
    "charactersetting": "Character",
    "characterrelation": "CharacterRelation",
    "relation": "CharacterRelation",
    "relations": "CharacterRelation",
    "relationship": "CharacterRelation",
    "relationships": "CharacterRelation",
    "novelsetting": "NovelSetting",
    "setting": "NovelSetting",
    "settings": "NovelSetting",
    "world": "NovelSetting",
}


NOTHING, EVERYTHING = "nothing", "everything"
"""What an integer bound may reduce to: no stored value, or every stored value."""


def integer_bound(op: str, value: Any) -> tuple[str, Any] | str:
    """``(op, value)`` on an integer field with ``value`` rounded the way the comparison means,
    or :data:`NOTHING` / :data:`EVERYTHING` (pure). Whole floats become ints."""
    if op in ("$in", "$nin"):
        whole = [int(v) for v in value if float(v).is_integer()]
        if whole:
            return op, whole
        return NOTHING if op == "$in" else EVERYTHING
    number = float(value)
    if number.is_integer():
        return op, int(number)
    if op in ("$lt", "$gte"):  # x < 2.5 is x < 3; x >= 2.5 is x >= 3
        return op, math.ceil(number)
    if op in ("$gt", "$lte"):  # x > 2.5 is x > 2; x <= 2.5 is x <= 2
        return op, math.floor(number)
    return NOTHING if op == "$eq" else EVERYTHING


def none_of(field: str) -> Where:
    """A clause no stored value of ``field`` meets (Chroma has no "false")."""
    return {"$and": [{field: {"$gt": 0}}, {field: {"$lt": 0}}]}


def canonical_pair(a: str, b: str) -> tuple[str, str]:
    """The stored order of a relation pair (WriterMemory's rule, so A-B and B-A agree)."""
    return memory_pair(a, b)


def normalize_tag(value: object) -> str:
    """The stored tag for ``value`` (case, spacing and a few synonyms tolerated)."""
    if isinstance(value, str):
        key = "".join(ch for ch in value.casefold() if ch.isalnum())
        if key in _TAG_SYNONYMS:
            return _TAG_SYNONYMS[key]
    raise InvalidFilterValueError("error.filter.tag", tag=repr(value), tags=", ".join(TAGS))


def combine(op: str, clauses: Sequence[Where | None]) -> Where | None:
    """``$and``/``$or`` of the non-empty clauses, collapsing 0 or 1 clause (Chroma's rule)."""
    kept = [c for c in clauses if c]
    flat: list[Where] = []
    for clause in kept:
        if set(clause) == {op}:
            flat.extend(clause[op])  # and(and(a, b), c) == and(a, b, c)
        else:
            flat.append(clause)
    if not flat:
        return None
    if len(flat) == 1:
        return flat[0]
    return {op: flat}


def negate(where: Where) -> Where:
    """Logical negation of a where-dict, pushed down to the comparisons (De Morgan)."""
    if "$and" in where:
        return {"$or": [negate(c) for c in where["$and"]]}
    if "$or" in where:
        return {"$and": [negate(c) for c in where["$or"]]}
    ((field, cond),) = where.items()
    ((op, value),) = cond.items()
    return {field: {_NEGATED[op]: value}}


@dataclass
class Translation:
    """Result of translating a filter: the where-dict and whether history was asked for."""

    where: Where | None
    include_superseded: bool = False


class MemoryFilterTranslator(Visitor):
    """Translates LangChain structured queries into WriterMemory ``where`` filters.

    Args:
        current_turn: the story's current turn, or a callable returning it (read at each
            translation so ``time`` is relative to now).
        resolver: alias resolver for character names; None passes names through unchecked.
        pair_order: function giving the stored order of a relation pair.
    """

    allowed_comparators = tuple(_OPS)
    allowed_operators = (Operator.AND, Operator.OR, Operator.NOT)

    def __init__(
        self,
        *,
        current_turn: int | Callable[[], int] = 0,
        resolver: AliasResolver | None = None,
        pair_order: Callable[[str, str], tuple[str, str]] = canonical_pair,
    ) -> None:
        self._turn = current_turn
        self.resolver = resolver
        self.pair_order = pair_order
        self._history = False

    @property
    def turn(self) -> int:
        """The current turn used to translate ``time``."""
        return self._turn() if callable(self._turn) else self._turn

    # -- public entry points -------------------------------------------------------------
    def translate(self, directive: FilterDirective | None) -> Translation:
        """Translate a filter directive; raises FilterError subclasses on bad filters.

        Each call walks a private copy, so one translator serves concurrent questions.
        """
        walker = copy.copy(self)
        walker._history = False
        where = None if directive is None else directive.accept(walker)
        return Translation(where=where, include_superseded=walker._history)

    def visit_structured_query(self, structured_query: StructuredQuery) -> tuple[str, dict]:
        """(query text, search kwargs) with ``filter`` and ``include_superseded`` as needed."""
        result = self.translate(structured_query.filter)
        kwargs: dict[str, Any] = {}
        if result.where:
            kwargs["filter"] = result.where
        if result.include_superseded:
            kwargs["include_superseded"] = True
        return structured_query.query, kwargs

    # -- visitor -------------------------------------------------------------------------
    def visit_operation(self, operation: Operation) -> Where | None:
        """and/or/not over the translated arguments (pairs canonicalised inside ``and``)."""
        self._check_func(operation.operator)
        if operation.operator == Operator.NOT:
            inner = combine("$and", [arg.accept(self) for arg in operation.arguments])
            return None if inner is None else negate(inner)
        args = list(operation.arguments)
        clauses: list[Where | None] = []
        if operation.operator == Operator.AND:
            pair_clause, args = self._pair_from(args)
            clauses.append(pair_clause)
        clauses.extend(arg.accept(self) for arg in args)
        return combine("$and" if operation.operator == Operator.AND else "$or", clauses)

    def visit_comparison(self, comparison: Comparison) -> Where | None:
        """One comparison, with the field rules of the module docstring."""
        self._check_func(comparison.comparator)
        field = comparison.attribute
        if field not in ATTRIBUTE_NAMES:
            raise UnknownFieldError("error.filter.field", field=field,
                                    known=", ".join(ATTRIBUTE_NAMES))
        op = _OPS[comparison.comparator]
        value = comparison.value
        if field == SUPERSEDED_FIELD:
            wanted = self._bool(field, value)
            if op not in ("$eq", "$ne"):
                raise InvalidFilterValueError("error.filter.eq_only", field=field)
            if wanted == (op == "$eq"):
                self._history = True
            return None
        if field == TIME_FIELD:
            return self._time(op, value)
        if field == "tag":
            return {field: {op: self._each(value, op, normalize_tag)}}
        if field in NUMBER_FIELDS:
            number = self._each(value, op, lambda v: self._number(field, v))
            if field not in INTEGER_FIELDS:
                return {field: {op: number}}
            return _bounded(field, integer_bound(op, number))
        if field in BOOL_FIELDS:
            if op not in ("$eq", "$ne"):
                raise InvalidFilterValueError("error.filter.eq_only", field=field)
            return {field: {op: self._bool(field, value)}}
        if field in CHARACTER_FIELDS:
            names = self._each(value, op, self._name)
            if field == "character_name":
                return {field: {op: names}}
            return self._either_side(op, names)
        return {field: {op: self._each(value, op, self._string)}}

    # -- helpers -------------------------------------------------------------------------
    def _check_func(self, func: Operator | Comparator) -> None:
        try:
            self._validate_func(func)
        except ValueError as e:
            raise InvalidFilterValueError("error.filter.invalid", cause=str(e)) from e
        if isinstance(func, Comparator) and func not in _OPS:
            raise InvalidFilterValueError("error.filter.comparator", comparator=str(func))

    def _pair_from(self, args: list[FilterDirective]) -> tuple[Where | None, list[FilterDirective]]:
        """Pull eq(character1, A) and eq(character2, B) out of an ``and`` as one pair clause."""
        sides: dict[str, Comparison] = {}
        for arg in args:
            if (
                isinstance(arg, Comparison)
                and arg.attribute in ("character1", "character2")
                and arg.comparator == Comparator.EQ
                and arg.attribute not in sides
            ):
                sides[arg.attribute] = arg
        if len(sides) < 2:
            return None, args
        a = self._name(sides["character1"].value)
        b = self._name(sides["character2"].value)
        rest = [arg for arg in args if not any(arg is s for s in sides.values())]
        if a == b:
            return self._either_side("$eq", a), rest
        first, second = self.pair_order(a, b)
        return {"$and": [{"character1": {"$eq": first}}, {"character2": {"$eq": second}}]}, rest

    @staticmethod
    def _either_side(op: str, names: Any) -> Where:
        clauses: list[Where] = [{"character1": {op: names}}, {"character2": {op: names}}]
        # "not this character" must hold on both sides; "this character" on either.
        return {"$and": clauses} if op in ("$ne", "$nin") else {"$or": clauses}

    @staticmethod
    def _each(value: Any, op: str, convert: Callable[[Any], Any]) -> Any:
        if op in ("$in", "$nin"):
            items = value if isinstance(value, list | tuple) else [value]
            if not items:
                raise InvalidFilterValueError("error.filter.no_values", op=op[1:])
            return [convert(v) for v in items]
        if isinstance(value, list | tuple):
            raise InvalidFilterValueError("error.filter.list", got=repr(value))
        return convert(value)

    def _name(self, value: Any) -> str:
        name = self._string(value)
        return name if self.resolver is None else self.resolver.canonical(name)

    @staticmethod
    def _string(value: Any) -> str:
        if value is None or isinstance(value, bool | dict):
            raise InvalidFilterValueError("error.filter.text", got=repr(value))
        text = str(value).strip()
        if not text:
            raise InvalidFilterValueError("error.filter.empty_text")
        return text

    @staticmethod
    def _number(field: str, value: Any) -> int | float:
        if isinstance(value, bool):
            raise InvalidFilterValueError("error.filter.number", field=field, got=repr(value))
        if isinstance(value, int | float):
            return value
        if isinstance(value, str):
            try:
                number = float(value.strip())
            except ValueError:
                pass
            else:
                return int(number) if number.is_integer() else number
        raise InvalidFilterValueError("error.filter.number", field=field, got=repr(value))

    @staticmethod
    def _bool(field: str, value: Any) -> bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
        raise InvalidFilterValueError("error.filter.bool", field=field, got=repr(value))

    def _time(self, op: str, value: Any) -> Where:
        def turns(v: Any) -> int | float:
            ago = self._number(TIME_FIELD, v)
            if ago < 0:
                raise InvalidFilterValueError("error.filter.time", got=repr(v))
            return ago

        rounded = integer_bound(op, self._each(value, op, turns))
        if isinstance(rounded, str):
            return _bounded("last_turn", rounded)
        op, ago = rounded
        turn = self.turn
        since = [turn - a for a in ago] if isinstance(ago, list) else turn - ago
        return {"last_turn": {_TIME_FLIP[op]: since}}


def _bounded(field: str, bound: tuple[str, Any] | str) -> Where:
    """The clause of a rounded integer bound (:func:`integer_bound`)."""
    if isinstance(bound, str):
        return none_of(field) if bound == NOTHING else negate(none_of(field))
    op, value = bound
    return {field: {op: value}}
