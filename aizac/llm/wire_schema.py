"""The JSON schema as sent to a provider: only what shapes the reply (pure).

Pydantic's schemas carry titles on every property ("Character Name"), defaults and class
descriptions: useful to a reader, billed as prompt tokens on every structured call, and
ignored by the model. :func:`compact_schema` drops them; property descriptions stay (they are
the hints the model does use, e.g. what a field means), as do types, required fields, enums,
length bounds, ``$defs``/``$ref`` and ``additionalProperties``. The complete schema stays on
our side: replies are validated against the Pydantic model, never against the wire copy.
"""

from __future__ import annotations

import json
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


_REF = "#/$defs/"


def share_definitions(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with the same shape in fewer characters (pure; the input is not modified).

    Two moves, both within JSON Schema's own ``$defs``/``$ref`` (which OpenAI's structured
    outputs and the tool-calling providers read): a ``$defs`` entry referenced once is put in
    place of its reference (a name and a reference cost more than they share), and a leaf
    schema repeated across the fields (``{"maxLength":160,"minLength":1,"type":"string"}`` is
    in a beat's extraction schema 15 times) becomes one short definition, referenced, where
    that is shorter. The validated Pydantic model is unchanged: only the wire copy moves.
    """
    out = _inline_single_use(schema)
    return _share_leaves(out)


def _refs(node: Any, counts: dict[str, int]) -> None:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(_REF):
            counts[ref[len(_REF):]] = counts.get(ref[len(_REF):], 0) + 1
        for value in node.values():
            _refs(value, counts)
    elif isinstance(node, list):
        for value in node:
            _refs(value, counts)


def _inline_single_use(schema: dict[str, Any]) -> dict[str, Any]:
    defs = schema.get("$defs")
    if not isinstance(defs, dict) or not defs:
        return schema
    counts: dict[str, int] = {}
    _refs(schema, counts)
    own: dict[str, int] = {}
    for name, body in defs.items():
        inner: dict[str, int] = {}
        _refs(body, inner)
        own[name] = inner.get(name, 0)
    single = {n for n in defs if counts.get(n) == 1 and not own[n]}
    if not single:
        return schema

    def put(node: Any) -> Any:
        if isinstance(node, list):
            return [put(v) for v in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(_REF) and ref[len(_REF):] in single:
            rest = {k: put(v) for k, v in node.items() if k != "$ref"}
            return {**put(defs[ref[len(_REF):]]), **rest}
        return {k: put(v) for k, v in node.items()}

    out = {k: put(v) for k, v in schema.items() if k != "$defs"}
    kept = {n: put(b) for n, b in defs.items() if n not in single}
    return {**({"$defs": kept} if kept else {}), **out} if kept else out


def _is_leaf(node: Any) -> bool:
    return isinstance(node, dict) and bool(node) and "$ref" not in node and all(
        not isinstance(v, dict | list) or (isinstance(v, list) and all(
            not isinstance(x, dict | list) for x in v))
        for v in node.values()
    )


def _text(node: Any) -> str:
    return json.dumps(node, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def _leaves(node: Any, counts: dict[str, int], order: list[str], top: bool) -> None:
    if isinstance(node, list):
        for v in node:
            _leaves(v, counts, order, False)
        return
    if not isinstance(node, dict):
        return
    if not top and _is_leaf(node):
        key = _text(node)
        if key not in counts:
            order.append(key)
        counts[key] = counts.get(key, 0) + 1
        return
    for name, value in node.items():
        if name in _NAMED and isinstance(value, dict):
            for sub in value.values():
                _leaves(sub, counts, order, False)
        elif name in _SUBSCHEMA or name in _SUBSCHEMA_LISTS:
            _leaves(value, counts, order, False)


def _share_leaves(schema: dict[str, Any]) -> dict[str, Any]:
    counts: dict[str, int] = {}
    order: list[str] = []
    _leaves(schema, counts, order, True)
    taken = set(schema.get("$defs", {}) or {})
    names: dict[str, str] = {}
    for key in order:
        name = f"t{len(names) + 1}"
        while name in taken:
            name += "_"
        ref = len(_text({"$ref": _REF + name}))
        # n copies of the leaf against n references, the definition and its name.
        if counts[key] * len(key) > counts[key] * ref + len(key) + len(name) + 4:
            names[key] = name
            taken.add(name)
    if not names:
        return schema

    def put(node: Any, top: bool) -> Any:
        if isinstance(node, list):
            return [put(v, False) for v in node]
        if not isinstance(node, dict):
            return node
        if not top and _is_leaf(node) and _text(node) in names:
            return {"$ref": _REF + names[_text(node)]}
        out: dict[str, Any] = {}
        for name, value in node.items():
            if name in _NAMED and isinstance(value, dict):
                out[name] = {k: put(v, False) for k, v in value.items()}
            elif name in _SUBSCHEMA or name in _SUBSCHEMA_LISTS:
                out[name] = put(value, False)
            else:
                out[name] = value
        return out

    shared = put(schema, True)
    defs = {**shared.get("$defs", {}), **{n: json.loads(k) for k, n in names.items()}}
    return {"$defs": defs, **{k: v for k, v in shared.items() if k != "$defs"}}


SMALL_LENGTH_SHARE = 3
"""The small embedded model's strings get a third of their length bound (it fills strings to
their bound)."""
SMALL_MAX_ITEMS = 3
"""The small embedded model's lists hold at most this many items (or their minimum)."""
SMALL_BOUNDS: dict[str, tuple[int, int]] = {"ko": (12, 2), "zh": (12, 2)}
"""``(length_share, max_items)`` of the small model's schema by prompt language, where it
differs from English. Measured on SmolLM2-135M's tokenizer: a Hangul character costs 2.1
tokens, a Han character 1.8, an English one 0.23. With a third of each bound, a Korean plot
filled to its bounds was about 5,000 tokens (cut at the 1,024-token budget, retried with 2,048,
then 4,096: minutes per plot); a twelfth and two items per list keep it near the budget."""


def small_bounds(language: str) -> tuple[int, int]:
    """``(length_share, max_items)`` of the small model's wire schema for a prompt in
    ``language`` (pure)."""
    return SMALL_BOUNDS.get(language, (SMALL_LENGTH_SHARE, SMALL_MAX_ITEMS))


def tighten_schema(
    schema: dict[str, Any],
    *,
    length_share: int = SMALL_LENGTH_SHARE,
    max_items: int = SMALL_MAX_ITEMS,
) -> dict[str, Any]:
    """``schema`` with tighter bounds for the small embedded model (pure).

    Every ``maxLength`` becomes ``maxLength // length_share`` (never below its ``minLength`` or
    8) and every ``maxItems`` at most ``max_items`` (never below ``minItems``). A reply within
    the tighter bounds still validates against the full schema, so nothing else changes; the
    model's constrained reply is just shorter (a plot in a fraction of the tokens).
    """
    out: dict[str, Any] = _tight(schema, length_share, max_items)
    return out


def _tight(node: Any, share: int, items: int) -> Any:
    if isinstance(node, list):
        return [_tight(v, share, items) for v in node]
    if not isinstance(node, dict):
        return node
    out = {k: _tight(v, share, items) for k, v in node.items()}
    if isinstance(node.get("maxLength"), int):
        floor = max(int(node.get("minLength", 0)), 8)
        out["maxLength"] = max(floor, node["maxLength"] // share)
    if isinstance(node.get("maxItems"), int):
        out["maxItems"] = max(int(node.get("minItems", 0)), min(node["maxItems"], items))
    return out
