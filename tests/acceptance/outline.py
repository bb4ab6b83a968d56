"""Read the type outline a ``json_object`` request carries back into a JSON schema.

The loopback servers answer a structured request with a value of the schema it asks for. A
``json_schema`` request carries the schema; a ``json_object`` one (OpenAI and compatible
servers, :mod:`aizac.llm.schema_shape`) carries only ``type Name = {...}`` at the end of its
system message. This parser reads that outline as a model would have to: if the outline left
out a field, a bound or an allowed value, the replies built from it miss it too and the
validation on aizac's side refuses them.
"""

from __future__ import annotations

import re
from typing import Any

_TOKEN = re.compile(
    r'//[^\n]*|\s+|"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|\.\.|[^\W\d][\w$-]*|[{}\[\]()|:,?=≤≥<>;]'
)
_OUTLINE = re.compile(r"(?:^|\n)(type [A-Za-z0-9_-]+ = [\s\S]*)$")
_LAST = re.compile(r"(?:^|\n)type ([A-Za-z0-9_-]+) = (?![\s\S]*\ntype )")


def outline_of(body: dict[str, Any]) -> tuple[str, str] | None:
    """(name of the reply's type, the outline's text: every ``type`` line) of a chat
    request's ``json_object`` outline, if it has one."""
    fmt = body.get("response_format") or {}
    if fmt.get("type") != "json_object" or "schema" in fmt:
        return None
    for message in body.get("messages", []):
        if message.get("role") not in ("system", "developer"):
            continue
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
        found = _OUTLINE.search(str(content or ""))
        if found:
            last = _LAST.search(found.group(1))
            return (last.group(1) if last else "Output"), found.group(1)
    return None


def outline_schema(body: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON schema of a request's outline (``title``: its type name), if it has one."""
    found = outline_of(body)
    if found is None:
        return None
    name, text = found
    return {"title": name, **parse_outline(text)}


def parse_outline(text: str) -> dict[str, Any]:
    """The JSON schema of an outline: ``type A = ...`` declarations, the last one the reply's
    (the earlier ones go to ``$defs``); raises ``ValueError`` where it cannot be read."""
    tokens = [t for t in _TOKEN.findall(text) if t.strip() and not t.startswith("//")]
    reader = _Reader(tokens)
    defs: dict[str, Any] = {}
    schema: dict[str, Any] = {}
    while reader.at < len(tokens):
        reader.take("type")
        name = reader.take()
        reader.take("=")
        schema = reader.union()
        defs[name] = schema
    if not defs:
        raise ValueError("no type in the outline")
    del defs[name]
    unknown = reader.names - set(defs)
    if unknown:
        raise ValueError(f"the outline names undeclared types {sorted(unknown)}")
    return {**schema, "$defs": defs} if defs else schema


class _Reader:
    def __init__(self, tokens: list[str]) -> None:
        self.tokens, self.at = tokens, 0
        self.names: set[str] = set()  # declared types referred to by name

    def peek(self) -> str:
        return self.tokens[self.at] if self.at < len(self.tokens) else ""

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if not token or (expected is not None and token != expected):
            raise ValueError(f"expected {expected!r} at {self.tokens[self.at:self.at + 5]}")
        self.at += 1
        return token

    def union(self) -> dict[str, Any]:
        options = [self.item()]
        while self.peek() == "|":
            self.take()
            options.append(self.item())
        if len(options) == 1:
            return options[0]
        if all("const" in o for o in options):
            return {"enum": [o["const"] for o in options]}
        return {"anyOf": options}

    def item(self) -> dict[str, Any]:
        schema = self.primary()
        while self.peek() == "[":
            self.take()
            array: dict[str, Any] = {"type": "array", "items": schema}
            if self.peek() != "]":
                array.update(self.count())
            self.take("]")
            schema = array
        return schema

    def count(self) -> dict[str, Any]:
        first = self.take()
        if first in ("≤", "≥"):
            return {"maxItems" if first == "≤" else "minItems": int(self.take())}
        if self.peek() == "..":
            self.take()
            return {"minItems": int(first), "maxItems": int(self.take())}
        return {"minItems": int(first), "maxItems": int(first)}

    def primary(self) -> dict[str, Any]:
        token = self.take()
        if token == "(":
            inner = self.union()
            self.take(")")
            return inner
        if token == "{":
            return self.object()
        if token.startswith('"'):
            return {"const": token[1:-1].encode().decode("unicode_escape")
                    if "\\" in token else token[1:-1]}
        if token in ("string", "integer", "number"):
            schema: dict[str, Any] = {"type": token}
            low, high = ("minLength", "maxLength") if token == "string" else ("minimum",
                                                                              "maximum")
            while self.peek() in ("≤", "≥"):
                mark = self.take()
                value = float(self.take()) if token == "number" else int(self.take())
                schema[high if mark == "≤" else low] = value
            return schema
        if token in ("boolean", "null"):
            return {"type": token}
        if token == "object":
            return {"type": "object"}
        if token == "any":
            return {}
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", token):  # a type declared before
            self.names.add(token)
            return {"$ref": f"#/$defs/{token}"}
        raise ValueError(f"unknown outline type {token!r}")

    def object(self) -> dict[str, Any]:
        if self.peek() == "[":  # {[key: string]: T}
            self.take("[")
            self.take()
            self.take(":")
            self.take("string")
            self.take("]")
            self.take(":")
            values = self.union()
            self.take("}")
            return {"type": "object", "additionalProperties": values}
        properties: dict[str, Any] = {}
        required: list[str] = []
        while self.peek() != "}":
            name = self.take()
            optional = self.peek() == "?"
            if optional:
                self.take()
            self.take(":")
            properties[name] = self.union()
            if not optional:
                required.append(name)
            if self.peek() in (",", ";"):
                self.take()
        self.take("}")
        return {"type": "object", "properties": properties, "required": required}
