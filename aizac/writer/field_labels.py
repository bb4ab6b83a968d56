"""The writer's words for the fields of a model's reply (pure).

A refused reply names the field it found wanting by its JSON path (``acts[2].goal``); that path
is right for the model, which answers in JSON, but a Korean or Chinese writer reads it as
English noise. :func:`field_label` turns it into a catalogue text that each language renders in
its own words (``goal of acts 3``, ``막 3의 목표``, ``幕 3的目标``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from aizac.text import Text, Verbatim
from aizac.text.message import Clauses

FIELD_KEYS: dict[str, str] = {
    "title": "field.title", "logline": "field.logline", "genre": "field.genre",
    "keywords": "field.keywords", "keyword": "field.keyword", "characters": "field.characters",
    "character_name": "field.character_name", "character1": "field.character1",
    "character2": "field.character2", "name": "field.name", "aliases": "field.aliases",
    "role": "field.role", "profile": "field.profile", "goal": "field.goal",
    "settings": "field.settings", "description": "field.description", "acts": "field.acts",
    "stage": "field.stage", "episodes": "field.episodes", "key_events": "field.key_events",
    "location": "field.location", "time": "field.time", "events": "field.events",
    "dialogue": "field.dialogue", "speaker": "field.speaker", "line": "field.line",
    "emotions": "field.emotions", "conflicts": "field.conflicts", "sets_up": "field.sets_up",
    "pays_off": "field.pays_off", "paid_off": "field.paid_off", "facts": "field.facts",
    "text": "field.text", "aspect": "field.aspect", "summary": "field.summary",
    "foreshadow": "field.foreshadow", "rule": "field.rule",
    "new_characters": "field.new_characters", "story": "field.story",
    "relations": "field.relations", "voices": "field.voices", "manner": "field.manner",
    "tics": "field.tics", "catchphrases": "field.catchphrases", "dialect": "field.dialect",
    "speech": "field.speech", "listener": "field.listener", "speech_level": "field.speech_level",
    "address": "field.address", "who": "field.who", "a": "field.a", "b": "field.b",
    "feature": "field.feature", "replaces": "field.replaces", "revises": "field.revises",
    "memory": "field.memory", "same_as": "field.same_as", "thread": "field.thread",
}
"""Every field of the schemas in :mod:`aizac.writer.schemas` (and the combined and episode
schemas) that a quality problem can point at, and its catalogue key (``field.<name>``, listed
in the catalogue; a field missing here is shown as it is)."""
_BEAT_N = re.compile(r"beat_(\d+)")  # an autopilot episode's beats, each its own field
_STEP = re.compile(r"([A-Za-z_]\w*)(?:\[(\d+)\])?")


def field_label(path: str) -> Text | Verbatim:
    """``path`` (``characters[0].name``) as the writer reads it: ``name of characters 1``,
    ``인물 1의 이름``, ``人物 1的名字``; a path this module does not know is shown as it is,
    never guessed."""
    if path == "*":
        return Text("field.all")
    steps: list[Text | Verbatim] = []
    for part in path.split("."):
        match = _STEP.fullmatch(part)
        if match is None:
            return Verbatim(path)
        key, index = match[1], match[2]
        beat = _BEAT_N.fullmatch(key)
        word: Text | Verbatim
        if beat is not None:
            word = Text("field.beat_n", n=beat[1])
        else:
            word = Text(FIELD_KEYS[key]) if key in FIELD_KEYS else Verbatim(key)
        if index is not None:
            word = Text("field.indexed", name=word, n=int(index) + 1)
        steps.append(word)
    label = steps[0]
    for step in steps[1:]:
        label = Text("field.of", parent=label, child=step)
    return label


WRONG_KEYS = {"missing": "field.wrong.missing", "too_short": "field.wrong.empty",
              "string_too_short": "field.wrong.empty", "too_long": "field.wrong.long",
              "string_too_long": "field.wrong.long"}
"""What a validator found wrong with a field (pydantic's error types), as catalogue keys;
any other type is ``field.wrong.invalid``."""


def invalid_fields(errors: Sequence[Mapping[str, Any]], *, limit: int = 3) -> Clauses:
    """What a validator found wrong (pydantic's ``errors()``), in the writer's words:
    ``'배경 1의 이름'이 비어 있습니다`` (pure)."""
    parts: list[Text | Verbatim] = []
    for err in list(errors)[:limit]:
        path = "".join(f"[{x}]" if isinstance(x, int) else f".{x}" for x in err.get("loc", ()))
        label = field_label(path.lstrip(".") or "*")
        key = WRONG_KEYS.get(str(err.get("type", "")), "field.wrong.invalid")
        parts.append(Text(key, field=label))
    return Clauses(tuple(parts))
