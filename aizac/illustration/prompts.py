"""Image prompts from the story: a scene from its beat, a cover from the plan (pure).

A scene's prompt is the beat's place, time, cast and mood, the moment it shows (its first
event), each character's look at that point (:func:`aizac.illustration.looks.look_at`) and the
world facts the scene touches. What the beat plans ahead (``sets_up``, ``pays_off``) and the
plot's acts are never read: a picture of episode 3 cannot give away act 4. A cover is drawn from
the title, genre, the writer's keywords and the main cast as they look when the story opens.

Prompts are written in the story's language with the words of ``words.json`` (data, beside this
module); the writer sees and edits every prompt before anything is generated.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Literal

from aizac.illustration.looks import Fact, Look
from aizac.llm.images.base import Card
from aizac.text.joining import bare, joined

Kind = Literal["cover", "scene"]
KINDS: tuple[str, ...] = ("cover", "scene")
MAX_PROMPT_CHARS = 4000
"""The longest prompt sent (OpenAI's image models take 4,000 characters for dall-e-3 and more
for gpt-image-1; Stable Diffusion reads the first 75 tokens per chunk)."""


@functools.cache
def words(language: str) -> dict[str, str]:
    """The prompt words of ``language`` (English for an unknown one)."""
    data = json.loads(resources.files("aizac.illustration").joinpath("words.json").read_text(
        encoding="utf-8"))
    chosen: dict[str, str] = data.get(language, data["en"])
    return chosen


@dataclass(frozen=True)
class ImagePrompt:
    """A prompt ready to show, edit and send.

    Attributes:
        kind: ``cover`` or ``scene``.
        text: the prompt (the writer may edit it before generating).
        negative: what the image should not show (Stable Diffusion and ComfyUI read it).
        episode, beat: the beat a scene shows (0, 0 for a cover).
        sources: ids of the memories the prompt was drawn from.
        card: the words of a typographic image.
    """

    kind: Kind
    text: str
    negative: str = ""
    episode: int = 0
    beat: int = 0
    sources: tuple[str, ...] = ()
    card: Card = field(default_factory=lambda: Card(""))


def _join(values: Sequence[str], sep: str) -> str:
    return joined(values, sep)  # a look written as a sentence: no ".," between two


def _cast_lines(looks: Sequence[Look], w: dict[str, str]) -> list[str]:
    lines = []
    for look in looks:
        described = _join(look.texts, w["sep"])
        lines.append(f"- {look.name}: {described}" if described else f"- {look.name}")
    return lines


def _clip(text: str) -> str:
    return text if len(text) <= MAX_PROMPT_CHARS else text[: MAX_PROMPT_CHARS - 1] + "…"


def scene_prompt(
    beat: Any, looks: Sequence[Look], world: Sequence[Fact], *, language: str,
    style: str = "",
) -> ImagePrompt:
    """The prompt of the illustration of ``beat`` (a :class:`~aizac.writer.schemas.NovelBeat`).

    ``looks`` are the cast's looks at the beat, ``world`` the setting facts it touches, both
    read as of the beat's position; ``style`` is the project's art direction (the language's
    default when empty).
    """
    w = words(language)
    lines = [f"{bare(style) or w['style']}.", f"{w['scene']}:"]
    if beat.location:
        lines.append(f"{w['place']}: {beat.location}")
    if beat.time:
        lines.append(f"{w['time']}: {beat.time}")
    if looks:
        lines.append(f"{w['cast']}:")
        lines.extend(_cast_lines(looks, w))
    if beat.events:
        lines.append(f"{w['moment']}: {beat.events[0]}")
    if beat.emotions:
        lines.append(f"{w['mood']}: {_join(beat.emotions, w['list'])}")
    if world:
        lines.append(f"{w['world']}:")
        lines.extend(f"- {f.text}" for f in world)
    sources = tuple(f.id for look in looks for f in look.features) + tuple(f.id for f in world)
    heading = w["scene_card"].format(episode=beat.episode, beat=beat.index)
    card = Card(heading, _join([beat.location, beat.time], " · "))
    return ImagePrompt("scene", _clip("\n".join(lines)), w["negative"], beat.episode,
                       beat.index, sources, card)


def cover_prompt(
    title: str, *, genre: str, keywords: Sequence[str], looks: Sequence[Look], language: str,
    author: str = "", style: str = "",
) -> ImagePrompt:
    """The prompt of the cover: title, genre, the writer's keywords and the main cast's looks
    at the story's opening (never the logline or the acts: they hold the plan's turns)."""
    w = words(language)
    lines = [f"{bare(style) or w['cover_style']}.", f"{w['cover']}: {title}"]
    if genre:
        lines.append(f"{w['genre']}: {genre}")
    if keywords:
        lines.append(f"{w['themes']}: {_join(keywords, w['list'])}")
    if looks:
        lines.append(f"{w['cast']}:")
        lines.extend(_cast_lines(looks, w))
    sources = tuple(f.id for look in looks for f in look.features)
    card = Card(title, "", author, genre)
    return ImagePrompt("cover", _clip("\n".join(lines)), w["negative"], 0, 0, sources, card)


__all__ = ["KINDS", "Card", "ImagePrompt", "Kind", "cover_prompt", "scene_prompt", "words"]
