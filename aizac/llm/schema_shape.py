"""A JSON schema as a short type outline for the prompt (pure).

A JSON schema is mostly punctuation: quotes, braces, ``"type":``, ``"$ref"``. Sent on every
structured call it cost more than the messages did (issue 26: 1,579 estimated tokens per
beat extraction, the messages 600). What the model needs from it is each field's name, type,
whether it is optional, its bounds, its allowed values and, now and then, a few words. This
module writes that as a TypeScript-like outline, which models read as readily as they read
code::

    {
      story?: {facts?: {text: string≤160, keyword?: string≤30, foreshadow?: boolean}[≤4]}
      summary: string≤240
    }

Replies are still validated against the full Pydantic model (:mod:`aizac.llm.structured`), so
nothing the outline leaves out (``minLength``, ``additionalProperties: false``) is unchecked.
"""

from __future__ import annotations

import json
from typing import Any

INLINE_WIDTH = 100
"""An object is written on one line when it fits in this many characters and no field of it
carries a description (a ``//`` comment ends a line)."""
_INDENT = "  "


def schema_shape(schema: dict[str, Any], name: str = "Output",
                 explained: frozenset[str] = frozenset()) -> str:
    """The outline of ``schema`` (a JSON schema dict with local ``$defs`` references) as
    ``type <name> = ...``.

    An object definition referenced more than once (the four beats of an episode design) is
    written once, as its own ``type`` before the one that uses it, and named where it is used;
    anything referenced once is written in place. A field whose name is in ``explained``
    goes without its description (the prompt explains it; the outline would say it twice).
    """
    defs = dict(schema.get("$defs") or schema.get("definitions") or {})
    uses: dict[str, int] = {}
    _count_refs(schema, uses)
    named = {ref for ref, n in uses.items() if n > 1 and _is_object(defs.get(ref))}
    outline = _Outline(defs, named, explained)
    parts = [f"type {ref} = {outline.type_of(defs[ref], 0, top=True)}" for ref in defs
             if ref in named]
    parts.append(f"type {name} = {outline.type_of(schema, 0, top=True)}")
    return "\n".join(parts)


def _count_refs(node: Any, uses: dict[str, int]) -> None:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            uses[ref.rsplit("/", 1)[-1]] = uses.get(ref.rsplit("/", 1)[-1], 0) + 1
        for key, value in node.items():
            if key not in ("$defs", "definitions"):
                _count_refs(value, uses)
    elif isinstance(node, list):
        for value in node:
            _count_refs(value, uses)


def _is_object(node: Any) -> bool:
    return isinstance(node, dict) and (node.get("type") == "object" or "properties" in node)


class _Outline:
    def __init__(self, defs: dict[str, Any], named: set[str],
                 explained: frozenset[str] = frozenset()) -> None:
        self.defs, self.named, self.explained = defs, named, explained

    def resolve(self, node: dict[str, Any]) -> dict[str, Any]:
        seen = 0
        while "$ref" in node and seen < 20:  # a reference to a reference, not a cycle
            name = str(node["$ref"]).rsplit("/", 1)[-1]
            target = self.defs.get(name)
            if not isinstance(target, dict):
                return {}
            node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
            seen += 1
        return node

    def type_of(self, node: Any, depth: int, *, top: bool = False) -> str:
        if not isinstance(node, dict):
            return "any"
        ref = str(node.get("$ref", "")).rsplit("/", 1)[-1]
        if not top and ref in self.named and len(node) == 1:
            return ref
        node = self.resolve(node)
        if "enum" in node:
            return "|".join(json.dumps(v, ensure_ascii=False) for v in node["enum"])
        if "const" in node:
            return json.dumps(node["const"], ensure_ascii=False)
        for key in ("anyOf", "oneOf"):
            if isinstance(node.get(key), list):
                return "|".join(_grouped(self.type_of(s, depth)) for s in node[key])
        if isinstance(node.get("allOf"), list) and len(node["allOf"]) == 1:
            return self.type_of({**node["allOf"][0], **{k: v for k, v in node.items()
                                                         if k != "allOf"}}, depth)
        kind = node.get("type")
        if isinstance(kind, list):
            return "|".join(self.type_of({**node, "type": k}, depth) for k in kind)
        if kind == "object" or "properties" in node:
            return self.object_of(node, depth)
        if kind == "array":
            item = _grouped(self.type_of(node.get("items", {}), depth))
            return f"{item}[{_bounds(node, 'minItems', 'maxItems')}]"
        if kind == "string":
            return "string" + _limits(node, "minLength", "maxLength", empty_min=1)
        if kind in ("integer", "number"):
            return str(kind) + _limits(node, "minimum", "maximum")
        if kind in ("boolean", "null"):
            return str(kind)
        return "any"

    def object_of(self, node: dict[str, Any], depth: int) -> str:
        properties = node.get("properties")
        if not isinstance(properties, dict) or not properties:
            extra = node.get("additionalProperties")
            if isinstance(extra, dict):
                return "{[key: string]: " + self.type_of(extra, depth + 1) + "}"
            return "object"
        required = set(node.get("required") or ())
        fields: list[tuple[str, str]] = []
        for name, sub in properties.items():
            # a constant is written as required: it tags a union's member, which the
            # validation needs even where the schema gives it a default
            constant = isinstance(sub, dict) and "const" in sub
            mark = "" if name in required or constant else "?"
            text = f"{name}{mark}: {self.type_of(sub, depth + 1)}"
            note = sub.get("description") if isinstance(sub, dict) else None
            if name in self.explained:
                note = None
            fields.append((text, f" // {_one_line(str(note))}" if note else ""))
        inline = "{" + ", ".join(text for text, _ in fields) + "}"
        if len(inline) <= INLINE_WIDTH and not any(note for _, note in fields) \
                and "\n" not in inline:
            return inline
        pad = _INDENT * (depth + 1)
        lines = [f"{pad}{text}{note}" for text, note in fields]
        return "{\n" + "\n".join(lines) + "\n" + _INDENT * depth + "}"


def _grouped(text: str) -> str:
    """``text`` in parentheses when it is a union or bounded at its top level
    (``("a"|"b")[≤3]``, ``(string≤60)[≤2]``, ``({...}|{...})[1..6]``)."""
    depth, quoted = 0, False
    for at, char in enumerate(text):
        if char == '"' and (at == 0 or text[at - 1] != "\\"):
            quoted = not quoted
        elif quoted:
            continue
        elif char in "{[(":
            depth += 1
        elif char in "}])":
            depth -= 1
        elif depth == 0 and char in "|≤≥":
            return f"({text})"
    return text


def _bounds(node: dict[str, Any], low_key: str, high_key: str) -> str:
    """An array's item count: ``≤N``, ``≥N``, ``N..M`` or ``N`` (exactly N)."""
    low, high = node.get(low_key), node.get(high_key)
    low = low or None  # "at least none" says nothing
    if low is not None and high is not None:
        return str(high) if low == high else f"{low}..{high}"
    if high is not None:
        return f"≤{high}"
    if low is not None:
        return f"≥{low}"
    return ""


def _limits(node: dict[str, Any], low_key: str, high_key: str, *, empty_min: int | None = None
            ) -> str:
    """A string's length or a number's value: ``≥N``, ``≤M``, both (``≥1≤5``). A minimum of
    ``empty_min`` or less says nothing worth its tokens (a required string is non-empty)."""
    low, high = node.get(low_key), node.get(high_key)
    if low is not None and empty_min is not None and low <= empty_min:
        low = None
    return (f"≥{low}" if low is not None else "") + (f"≤{high}" if high is not None else "")


def _one_line(text: str) -> str:
    return " ".join(text.split())
