"""The offline default of the ``image`` role: covers and scene cards set in type with Pillow.

No image model can be installed here, so without one configured aizac still gives a book a
cover: the title, the genre and the author set on a background whose palette comes from the
genre (``palettes.json``, data beside this module). A scene gets a card in the same style (the
episode and beat, place and time), a chapter opener rather than a picture; its prompt stays
shown and copyable for any image model the writer has elsewhere. Costs nothing, so it never
counts against a project's image budget.

The font is the story language's from fontconfig (``fc-match :lang=ko``), or ``AIZAC_COVER_FONT``.
The same card always gives the same PNG bytes.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from aizac.errors import ConfigError
from aizac.llm.images.base import PNG, Card, GeneratedImage, ImageRequest
from aizac.llm.specs import ModelSpec
from aizac.settings import Settings

_LANG = {"ko": "ko", "en": "en", "zh": "zh-cn"}
_TOKENS = re.compile(r"\S+\s*|\s+")


@dataclass(frozen=True)
class Palette:
    name: str
    top: str
    bottom: str
    accent: str
    ink: str


@functools.cache
def _palettes() -> list[dict[str, Any]]:
    text = resources.files("aizac.llm.images").joinpath("palettes.json").read_text("utf-8")
    rows: list[dict[str, Any]] = json.loads(text)["palettes"]
    return rows


def palette_for(genre: str) -> Palette:
    """The palette of ``genre``: the first row naming one of its words, else one chosen by a
    stable hash of the genre (the same genre always looks the same)."""
    folded = genre.casefold()
    rows = _palettes()
    chosen = next((r for r in rows if any(w.casefold() in folded for w in r["words"])), None)
    if chosen is None:
        digest = hashlib.sha256(folded.encode("utf-8")).digest()
        chosen = rows[digest[0] % len(rows)]
    return Palette(chosen["name"], chosen["top"], chosen["bottom"], chosen["accent"],
                   chosen["ink"])


@functools.cache
def find_font(language: str, bold: bool) -> tuple[str, int] | None:
    """``(file, face index)`` of fontconfig's serif font for ``language``, or ``None``."""
    fc = shutil.which("fc-match")
    if fc is None:
        return None
    pattern = f"serif:lang={_LANG.get(language, 'en')}" + (":weight=bold" if bold else "")
    try:
        out = subprocess.run([fc, "-f", "%{file}|%{index}", pattern], capture_output=True,
                             text=True, timeout=10, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    path, _, index = out.partition("|")
    return (path, int(index or 0)) if path and Path(path).is_file() else None


def _needs_cjk(text: str) -> bool:
    return any(ord(c) > 0x2E7F for c in text)


class TypographicImages:
    """The typographic "image model" (see the module docstring)."""

    label = "typographic"
    billable = False

    def __init__(self, font: Path | None = None) -> None:
        self.font_path = font

    # ------------------------------------------------------------------------ fonts
    def _font(self, language: str, size: int, bold: bool, text: str) -> Any:
        from PIL import ImageFont

        if self.font_path is not None:
            if not self.font_path.is_file():
                raise ConfigError("error.image.font_missing", path=str(self.font_path))
            return _truetype(str(self.font_path), 0, size)
        found = find_font(language, bold)
        if found is not None:
            return _truetype(found[0], found[1], size)
        if _needs_cjk(text):
            raise ConfigError("error.image.no_font", language=language)
        return ImageFont.load_default(size)

    # ------------------------------------------------------------------------ drawing
    def generate(self, request: ImageRequest) -> GeneratedImage:
        """Set ``request.card`` in type at the request's size (a PNG)."""
        data = render_card(request.card, request.kind, request.width, request.height,
                           request.language, self._font)
        return GeneratedImage(data, PNG, self.label, request.width, request.height)

    def check(self) -> str:
        """Set a small card: the font is found and Pillow draws."""
        card = Card("aizac", "", "", "")
        render_card(card, "cover", 96, 144, "ko", self._font)
        found = self.font_path or (find_font("ko", True) or ("default", 0))[0]
        return f"typographic ({Path(str(found)).name})"


@functools.cache
def _truetype(path: str, index: int, size: int) -> Any:
    from PIL import ImageFont

    return ImageFont.truetype(path, size, index=index)


def _wrap(draw: Any, text: str, font: Any, width: int) -> list[str]:
    """``text`` broken into lines no wider than ``width`` (at spaces; a word too long for a
    line, as Korean and Chinese titles often are, is broken between characters)."""
    lines: list[str] = []
    line = ""
    for token in _TOKENS.findall(text.strip()):
        pieces = [token] if draw.textlength(token.rstrip(), font=font) <= width else list(token)
        for piece in pieces:
            trial = line + piece
            if line and draw.textlength(trial.rstrip(), font=font) > width:
                lines.append(line.rstrip())
                line = piece.lstrip()
            else:
                line = trial
    if line.strip():
        lines.append(line.rstrip())
    return lines


def _fit(draw: Any, text: str, font_of: Any, width: int, start: int, max_lines: int
         ) -> tuple[Any, list[str]]:
    """The largest font (from ``start`` down) that sets ``text`` in ``max_lines`` lines."""
    size = start
    while True:
        font = font_of(size)
        lines = _wrap(draw, text, font, width)
        if len(lines) <= max_lines or size <= 12:
            return font, lines[:max_lines]
        size = int(size * 0.88)


def render_card(card: Card, kind: str, width: int, height: int, language: str,
                font: Any) -> bytes:
    """The PNG of ``card``: a gradient in the genre's palette, a frame, the genre above the
    title, an accent rule, the author (a cover) or place and time (a scene) below.

    ``font(language, size, bold, text)`` returns a Pillow font (injected for the font rules).
    """
    from PIL import Image, ImageDraw

    pal = palette_for(card.genre or card.title)
    top = Image.new("RGB", (width, height), pal.top)
    bottom = Image.new("RGB", (width, height), pal.bottom)
    mask = Image.linear_gradient("L").resize((width, height))
    image = Image.composite(bottom, top, mask)
    draw = ImageDraw.Draw(image)
    unit = min(width, height)
    inset = max(4, unit // 28)
    draw.rectangle([inset, inset, width - inset - 1, height - inset - 1], outline=pal.accent,
                   width=max(1, unit // 220))
    text_width = int(width * 0.78)
    cover = kind == "cover"
    title_font, lines = _fit(draw, card.title, lambda s: font(language, s, True, card.title),
                             text_width, int(unit * (0.14 if cover else 0.10)), 4 if cover else 2)
    line_h = int(title_font.size * 1.25)
    block = line_h * len(lines)
    y = int(height * (0.36 if cover else 0.40)) - block // 2
    over = card.genre if cover else ""
    if over:
        small = font(language, max(12, unit // 26), False, over)
        draw.text((width // 2, y - int(unit * 0.06)), over, font=small, fill=pal.accent,
                  anchor="ms")
    for line in lines:
        draw.text((width // 2, y + line_h), line, font=title_font, fill=pal.ink, anchor="ms")
        y += line_h
    rule = int(width * 0.18)
    y += int(unit * 0.05)
    draw.line([(width // 2 - rule, y), (width // 2 + rule, y)], fill=pal.accent,
              width=max(1, unit // 160))
    under = card.subtitle
    if under:
        sub = font(language, max(12, unit // 22), False, under)
        for part in _wrap(draw, under, sub, text_width)[:2]:
            y += int(sub.size * 1.6)
            draw.text((width // 2, y), part, font=sub, fill=pal.ink, anchor="ms")
    if cover and card.author:
        name = font(language, max(12, unit // 20), False, card.author)
        draw.text((width // 2, height - inset * 3), card.author, font=name, fill=pal.ink,
                  anchor="ms")
    out = io.BytesIO()
    image.save(out, "PNG", optimize=True)
    return out.getvalue()


def build(spec: ModelSpec, settings: Settings, setting: str) -> TypographicImages:
    """The typographic images of ``settings`` (``AIZAC_COVER_FONT`` or fontconfig's font)."""
    return TypographicImages(settings.cover_font)


__all__ = ["Palette", "TypographicImages", "build", "find_font", "palette_for", "render_card"]
