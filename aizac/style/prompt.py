"""The style notes of the prose prompt (pure): the writer's profile and their own passages.

:func:`profile_lines` turns a profile into a few short lines (only what the profile has to
say: a long-sentence habit, the endings a Korean writer uses, the words they delete ...);
:func:`style_block` puts them and the chosen passages under their headings within a token
budget: the profile first (it is cheap and always useful), then the passages, each cut at a
sentence end to an equal share of what is left, dropped when the share is too small to show a
manner.
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aizac.style.metrics import ENDINGS, LONG_SENTENCE
from aizac.style.profile import Passage, StyleProfile
from aizac.tokens import count_tokens, truncate_to_tokens

_DATA = Path(__file__).with_name("prompt.toml")
MIN_EXAMPLE_TOKENS = 40
"""A passage cut shorter than this shows no manner: it is left out."""
MARK_RATE = 3.0
"""Marks used at least this often per 1,000 characters are the writer's habit."""
ONOMATOPOEIA_RATE = 2.0
WORDS = 4

__all__ = ["StyleBlock", "phrases", "profile_lines", "style_block"]


@functools.cache
def phrases(language: str) -> Mapping[str, Any]:
    data = tomllib.loads(_DATA.read_text(encoding="utf-8"))
    return data.get(language) or data["en"]


def _pct(value: float) -> int:
    return round(100 * value)


def profile_lines(profile: StyleProfile, language: str) -> list[str]:
    """The profile as short prompt lines (empty for a profile without the writer's text)."""
    if not profile.ready:
        return []
    p, m = phrases(language), profile.metrics
    lines = [p["sentence"].format(length=round(m.sentence_len), long=_pct(m.long_share))]
    if m.long_share < 0.05 and m.sentence_len < LONG_SENTENCE.get(language, 40) / 2:
        lines.append(p["short_sentences"])
    lines.append(p["paragraphs"].format(one_line=_pct(m.one_line_share),
                                        per_paragraph=f"{m.paragraph_len:.1f}"))
    lines.append(p["dialogue"].format(dialogue=_pct(m.dialogue_share)))
    if m.endings:
        names = p["ending_names"]
        mix = ", ".join(f"{names[e]} {_pct(m.endings[e])}%" for e in ENDINGS
                        if m.endings.get(e, 0) >= 0.05)
        lines.append(p["endings"].format(mix=mix))
    if m.honorific_share is not None:
        lines.append(p["speech"].format(honorific=_pct(m.honorific_share),
                                        plain=100 - _pct(m.honorific_share)))
    marks = [f"{p['mark_names'][k]} {v:.0f}" for k, v in m.punctuation.items() if v >= MARK_RATE]
    if marks:
        lines.append(p["punctuation"].format(marks=", ".join(marks)))
    if m.onomatopoeia >= ONOMATOPOEIA_RATE and m.onomatopoeia_words:
        lines.append(p["onomatopoeia"].format(examples=", ".join(m.onomatopoeia_words[:3])))
    if profile.deleted:
        lines.append(p["avoid"].format(words=", ".join(w for w, _ in profile.deleted[:WORDS])))
    if profile.added:
        lines.append(p["prefer"].format(words=", ".join(w for w, _ in profile.added[:WORDS])))
    return lines


@dataclass(frozen=True)
class StyleBlock:
    """The style notes as prompt text, what they cost, and what made it in."""

    text: str
    tokens: int
    profile_lines: int
    examples: tuple[str, ...]


_SENTENCE_END = re.compile(r"[.!?…。！？”\"']\s")


def _cut(text: str, budget: int) -> str:
    """``text`` within ``budget`` tokens, ended at its last sentence end when cut."""
    if count_tokens(text) <= budget:
        return text.strip()
    head = truncate_to_tokens(text, budget)
    ends = [m.end() for m in _SENTENCE_END.finditer(head + " ")]
    return (head[: ends[-1]] if ends else head).strip()


def style_block(profile: StyleProfile, examples: Sequence[Passage], language: str,
                budget: int) -> StyleBlock:
    """The style notes within ``budget`` tokens (``""`` when the writer has no text yet)."""
    p = phrases(language)
    lines = profile_lines(profile, language)
    parts: list[str] = []
    if lines:
        head = [p["heading"]]
        for line in lines:  # a tight budget keeps the first (the most general) lines
            if count_tokens("\n".join([*head, f"- {line}"])) > budget:
                break
            head.append(f"- {line}")
        if len(head) > 1:
            parts.append("\n".join(head))
    shown: list[str] = []
    room = budget - count_tokens("\n\n".join(parts))
    heading = count_tokens("\n\n" + p["examples"])
    todo = [e for e in examples if e.writer_text.strip()]
    while todo and room - heading > MIN_EXAMPLE_TOKENS:
        share = (room - heading) // len(todo) - 3  # "> " and the line breaks
        if share < MIN_EXAMPLE_TOKENS:
            todo.pop()  # fewer, longer passages show a manner better than many stubs
            continue
        text = _cut(" ".join(todo.pop(0).writer_text.split()), share)
        if count_tokens(text) >= MIN_EXAMPLE_TOKENS // 2:
            shown.append(text)
            room -= count_tokens(f"> {text}\n")
    def joined() -> str:
        blocks = [*parts, "\n".join([p["examples"], *(f"> {s}" for s in shown)])]
        return "\n\n".join(blocks if shown else parts)

    while shown and count_tokens(joined()) > budget:  # the estimate above is a bound, not exact
        shown.pop()
    text = joined()
    return StyleBlock(text, count_tokens(text), max(0, len(parts[0].splitlines()) - 1)
                      if lines and parts else 0, tuple(shown))
