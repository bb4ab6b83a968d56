"""Errors of the retrieval layer.

They all derive from :class:`aizac.errors.InvalidInputError` (a bad filter is bad input). The
self-query retriever catches :class:`FilterError` and falls back to a safe query, so these reach
a user only through direct calls to the translator or the alias resolver.
"""

from __future__ import annotations

from aizac.errors import InvalidInputError


class FilterError(InvalidInputError):
    """A metadata filter (usually written by a model) cannot be used as is."""

    default_hint = "Rephrase the question or drop the filter; plain similarity search still works."


class UnknownFieldError(FilterError):
    """The filter names a metadata field that memories do not have."""


class InvalidFilterValueError(FilterError):
    """A value has the wrong type for its field, or a tag/comparator is not allowed."""


class UnknownCharacterError(FilterError):
    """A character name (or alias) matches no known character, or matches several."""

    default_hint = "Use a name or alias of a character the story already knows."
