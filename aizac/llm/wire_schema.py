"""The JSON schema as sent to a provider: only what shapes the reply (pure).

Pydantic's schemas carry titles on every property ("Character Name"), defaults and class
descriptions: useful to a reader, billed as prompt tokens on every structured call, and
ignored by the model. :func:`compact_schema` drops them; property descriptions stay (they are
the hints the model does use, e.g. what a field means), as do types, required fields, enums,
length bounds, ``$defs``/``$ref`` and ``additionalProperties``. The complete schema stays on
our side: replies are validated against the Pydantic model, never against the wire copy.
"""

from __future__ import annotations

from typing import Any

# Keywords dropped from every schema node (never from the names under "properties" or
# "$defs", where "title" or "description" can be a field's name).
DROPPED: frozenset[str] = frozenset({"title", "default", "examples", "$comment"})
_NAMED = frozenset({"properties", "$defs", "definitions", "patternProperties"})
_SUBSCHEMA = frozenset({"items", "additionalProperties", "not", "if", "then", "else",
                        "contains", "propertyNames", "unevaluatedProperties"})
_SUBSCHEMA_LISTS = frozenset({"anyOf", "oneOf", "allOf", "prefixItems"})


def compact_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` without titles, defaults, examples and non-property descriptions (pure).

    A description is kept only on a property (a field hint); the root's and each ``$defs``
    model's description (a class docstring) is dropped. The root's title stays (one word:
    it names the reply where no tool or response-format name does, e.g. a schema in the
    prompt). The input is not modified.
    """
    out = _node(schema, keep_description=False)
    if "title" in schema:
        out = {"title": schema["title"], **out}
    return out


def _node(node: dict[str, Any], *, keep_description: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in DROPPED or (key == "description" and not keep_description):
            continue
        if key in _NAMED and isinstance(value, dict):
            is_property = key != "$defs" and key != "definitions"
            out[key] = {
                name: _node(sub, keep_description=is_property) if isinstance(sub, dict) else sub
                for name, sub in value.items()
            }
        elif key in _SUBSCHEMA and isinstance(value, dict):
            out[key] = _node(value, keep_description=False)
        elif key in _SUBSCHEMA_LISTS and isinstance(value, list):
            out[key] = [
                _node(v, keep_description=False) if isinstance(v, dict) else v for v in value
            ]
        else:
            out[key] = value
    return out
