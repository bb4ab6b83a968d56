"""What the loopback "model" says: small, valid, distinct Korean story content for every prompt.

:class:`KoreanStory` answers from the JSON schema a request asks for (so it follows schema
changes): names come from a fixed cast, every fact and summary is numbered so no two beats say the
same thing, the relation of the first pair is restated every beat (so every accept supersedes
it), and prose is a few paragraphs that end with :data:`PROSE_END`, which tells a whole answer
from a cut one.
"""

from __future__ import annotations

import itertools
import re
import threading
from typing import Any

from .openai_server import prompt_text, requested_schema

_SCENES = re.compile(r"^### (\d+)$", re.MULTILINE)
CAST = ("강민호", "서유나", "한도윤")
PROSE_END = "(끝)"
SELF_QUERY = '```json\n{"query": "관문", "filter": "NO_FILTER"}\n```'


def complete_prose(text: str) -> bool:
    """Whether stored prose is a whole answer (the checker's ``complete_prose``)."""
    return text.rstrip().endswith(PROSE_END)


class KoreanStory:
    """A responder for :class:`~acceptance.openai_server.OpenAIServer` (thread-safe)."""

    def __init__(self) -> None:
        self._count = itertools.count(1)
        self._lock = threading.Lock()
        self.prose_calls = 0

    def _n(self) -> int:
        with self._lock:
            return next(self._count)

    def __call__(self, body: dict[str, Any]) -> Any:
        schema = requested_schema(body)
        if schema is not None:
            return self.fill(schema, schema, "", 0)
        if body.get("stream"):
            with self._lock:
                self.prose_calls += 1
            scenes = _SCENES.findall(prompt_text(body))
            if scenes:  # an episode's scenes in one call, each under its heading as asked
                return "\n\n".join(f"### {s}\n{self.prose()}" for s in scenes)
            return self.prose()
        return SELF_QUERY

    def prose(self) -> str:
        n = self._n()
        return (
            f"밤이 깊었다. {CAST[0]}은 {n}번째 관문 앞에 섰다.\n\n"
            f'"이번에는 길을 알아." {CAST[1]}이 조용히 웃었다. 바람이 {n}번 불었다.\n\n'
            f"문이 열리고, 두 사람은 빛 속으로 걸어 들어갔다. {PROSE_END}"
        )

    # ------------------------------------------------------------------------ schema filling
    def fill(self, schema: dict[str, Any], root: dict[str, Any], key: str, i: int) -> Any:
        if "$ref" in schema:
            name = schema["$ref"].rsplit("/", 1)[-1]
            return self.fill(root.get("$defs", {}).get(name, {}), root, key, i)
        for combo in ("anyOf", "oneOf", "allOf"):
            if combo in schema:
                options = [s for s in schema[combo] if s.get("type") != "null"] or schema[combo]
                return self.fill(options[0], root, key, i)
        if "enum" in schema:
            return schema["enum"][i % len(schema["enum"])]
        kind = schema.get("type", "object")
        if kind == "object":
            return self._object(schema, root)
        if kind == "array":
            return self._array(schema, root, key)
        if kind == "string":
            return self._string(key, i, schema.get("maxLength"))
        if kind in ("integer", "number"):
            return 2 if key == "episodes" else max(1, schema.get("minimum", 1))
        if kind == "boolean":
            return False
        return None

    def _object(self, schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
        props = schema.get("properties", {})
        out: dict[str, Any] = {}
        for n, (k, sub) in enumerate(props.items()):
            # "memory": the autopilot's design asks for each beat's memory, and a model does it
            if k in schema.get("required", []) or k in ("facts", "characters", "dialogue",
                                                          "memory"):
                out[k] = self.fill(sub, root, k, n)
        if "character1" in out and "character2" in out:
            out["character1"], out["character2"] = CAST[0], CAST[1]
        if "a" in out and "b" in out:  # a relation refers to two cast members
            out["a"], out["b"] = CAST[0], CAST[1]
        return out

    def _array(self, schema: dict[str, Any], root: dict[str, Any], key: str) -> list[Any]:
        items = schema.get("items", {})
        while "$ref" in items:  # a shared definition (the wire copy's $defs), as a model reads it
            items = root.get("$defs", {}).get(items["$ref"].rsplit("/", 1)[-1], {})
        wanted = {"aliases": 0, "paid_off": 0, "pays_off": 0, "characters": 2, "facts": 1,
                  "replaces": 0}
        count = max(schema.get("minItems", 0), wanted.get(key, 1))
        count = min(count, schema.get("maxItems", count))
        if key == "characters" and items.get("type") == "string":
            return list(CAST[:count])
        return [self._item(items, root, key, j) for j in range(count)]

    def _item(self, items: dict[str, Any], root: dict[str, Any], key: str, j: int) -> Any:
        value = self.fill(items, root, key, j)
        if isinstance(value, dict) and "name" in value and key == "characters":
            value["name"] = CAST[j % len(CAST)]
        if isinstance(value, dict) and "name" in value and key == "settings":
            value["name"] = f"관문 {j + 1}"
        if isinstance(value, dict) and "stage" in value:
            value["stage"] = ("exposition", "development", "crisis", "climax", "resolution")[j]
        return value

    def _string(self, key: str, i: int, limit: int | None) -> str:
        if key in ("name", "character_name", "speaker", "character1", "who"):
            text = CAST[0]
        elif key == "character2":
            text = CAST[1]
        elif key in ("keyword", "role", "genre", "stage", "aspect"):
            text = {"role": "주인공", "genre": "현대판타지"}.get(key, "관문")
        elif key == "title":
            text = "두 번째 삶"
        elif key == "summary":
            text = f"{self._n()}번째 비트: {CAST[0]}이 {CAST[1]}과 관문을 넘었다."
        else:
            text = f"{CAST[0]}의 {key} {self._n()}번째 이야기."
        return text[:limit] if limit else text
