"""Pure conversions between the writer's records and the text fields of the web forms.

A beat is edited as a handful of text boxes (lists one item per line, names comma-separated,
dialogue as ``Speaker: line``); a plot as a title, a logline and three tables. Parsing validates
against the model-facing schemas, so a bad edit is an :class:`InvalidInputError` naming the
field, never a half-saved record. No I/O here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from aizac import keywords
from aizac.errors import InvalidInputError
from aizac.text import Text, render
from aizac.writer.field_labels import invalid_fields
from aizac.writer.schemas import STAGES, NovelBeat, NovelPlot

# Hard ceilings on what a form may send, checked before any parsing (oversized input).
MAX_FIELD_CHARS = 4_000
MAX_PROSE_CHARS = 200_000
MAX_KEYWORDS_CHARS = 300
MAX_INSTRUCTION_CHARS = 500

BEAT_FIELDS: tuple[str, ...] = (
    "location",
    "time",
    "characters",
    "events",
    "dialogue",
    "emotions",
    "conflicts",
    "sets_up",
    "pays_off",
)
_COMMA_FIELDS = frozenset({"characters", "emotions"})
_LINE_FIELDS = frozenset({"events", "conflicts", "sets_up", "pays_off"})
_SPLIT_COMMAS = re.compile(r"[,\n、，]")
BEAT_LABELS = {
    "location": "form.location", "time": "form.time", "characters": "form.characters",
    "events": "form.events", "dialogue": "form.dialogue", "emotions": "form.emotions",
    "conflicts": "form.conflicts", "sets_up": "form.sets_up", "pays_off": "form.pays_off",
}
"""Each beat field as an error names it (a catalogue key)."""
STAGE_KEYS = {"exposition": "stage.exposition", "development": "stage.development",
              "crisis": "stage.crisis", "climax": "stage.climax", "resolution": "stage.resolution"}
"""The five stages as the reader calls them."""


def check_length(label: str, text: str | None, limit: int = MAX_FIELD_CHARS) -> str:
    """``text`` (``None`` as empty) if it is at most ``limit`` characters, else a clear error
    naming the field by ``label`` (a catalogue key: ``form.title``)."""
    value = text or ""
    if len(value) > limit:
        raise InvalidInputError("error.form.too_long", field=Text(label), n=f"{len(value):,}",
                                limit=f"{limit:,}")
    return value


def split_keywords(text: str | None) -> list[str]:
    """Keywords typed as ``a, b`` -> ``["a", "b"]``; empty input is an error."""
    value = check_length("form.keywords", text, MAX_KEYWORDS_CHARS)
    return keywords.split_keywords(value)


def _items(text: str, *, commas: bool) -> list[str]:
    parts = _SPLIT_COMMAS.split(text) if commas else text.splitlines()
    return [p.strip().lstrip("-•* ").strip() for p in parts if p.strip().lstrip("-•* ").strip()]


def beat_to_fields(beat: NovelBeat | None) -> dict[str, str]:
    """Text for each beat form field (all empty without a beat)."""
    if beat is None:
        return dict.fromkeys(BEAT_FIELDS, "")
    fields = {
        "location": beat.location,
        "time": beat.time,
        "characters": ", ".join(beat.characters),
        "events": "\n".join(beat.events),
        "dialogue": "\n".join(f"{d.speaker}: {d.line}" for d in beat.dialogue),
        "emotions": ", ".join(beat.emotions),
        "conflicts": "\n".join(beat.conflicts),
        "sets_up": "\n".join(beat.sets_up),
        "pays_off": "\n".join(beat.pays_off),
    }
    return fields


def _dialogue(text: str) -> list[dict[str, str]]:
    lines = []
    for raw in text.splitlines():
        if not raw.strip():
            continue
        speaker, sep, line = raw.partition(":")
        if not sep:
            speaker, sep, line = raw.partition("：")
        if not sep or not speaker.strip() or not line.strip():
            raise InvalidInputError("error.form.dialogue", line=raw.strip()[:60])
        lines.append({"speaker": speaker.strip(), "line": line.strip().strip('"“”')})
    return lines


def fields_to_beat(base: NovelBeat, fields: dict[str, str | None]) -> NovelBeat:
    """A new beat: ``base``'s position with the form's field values, validated."""
    data: dict[str, Any] = {"episode": base.episode, "index": base.index}
    for name in BEAT_FIELDS:
        text = check_length(BEAT_LABELS[name], fields.get(name))
        if name == "dialogue":
            data[name] = _dialogue(text)
        elif name in _COMMA_FIELDS:
            data[name] = _items(text, commas=True)
        elif name in _LINE_FIELDS:
            data[name] = _items(text, commas=False)
        else:
            data[name] = text.strip()
    try:
        return NovelBeat(**data)
    except ValidationError as e:
        raise InvalidInputError("error.form.beat_invalid", fields=invalid_fields(e.errors())) from e


# ---------------------------------------------------------------------------------- the plot
CHARACTER_HEADERS = ["Name", "Role", "Profile"]
SETTING_HEADERS = ["Name", "Description"]
ACT_HEADERS = ["Stage", "Goal", "Episodes", "Key events (one per line)"]


def plot_tables(plot: NovelPlot | None) -> tuple[list[list[str]], list[list[str]], list[list[str]]]:
    """Rows of the characters, settings and acts tables."""
    if plot is None:
        return [], [], []
    chars = [[c.name, c.role, c.profile] for c in plot.characters]
    settings = [[s.name, s.description] for s in plot.settings]
    acts = [[a.stage, a.goal, str(a.episodes), "\n".join(a.key_events)] for a in plot.acts]
    return chars, settings, acts


def _rows(table: Any) -> list[list[str]]:
    """Rows of a Gradio Dataframe value (pandas frame, dict or list of lists)."""
    if table is None:
        return []
    if hasattr(table, "values") and hasattr(table, "columns"):
        rows = table.values.tolist()
    elif isinstance(table, dict):
        rows = table.get("data", [])
    else:
        rows = list(table)
    clean = []
    for row in rows:
        cells = ["" if c is None else str(c) for c in row]
        if any(cell.strip() for cell in cells):
            clean.append(cells)
    return clean


def tables_to_plot(
    base: NovelPlot | None,
    title: str | None,
    logline: str | None,
    characters: Any,
    settings: Any,
    acts: Any,
    *,
    genre: str | None = None,
    keywords: Sequence[str] | None = None,
) -> NovelPlot:
    """A plot from the edited form; genre and keywords come from the arguments, else from
    ``base`` (``None`` for a plot written by hand before any was generated)."""
    char_rows = _rows(characters)
    setting_rows = _rows(settings)
    act_rows = _rows(acts)
    tables = (("form.characters_table", char_rows), ("form.settings_table", setting_rows),
              ("form.acts_table", act_rows))
    for label, rows in tables:
        _check_columns(label, rows)
        for row in rows:
            for cell in row:
                check_length(label, cell)
    if len(act_rows) != len(STAGES):
        raise InvalidInputError("error.form.act_count", n=len(STAGES), got=len(act_rows),
                                stages=[Text(STAGE_KEYS[s]) for s in STAGES])
    data: dict[str, Any] = {
        "title": check_length("form.title", title, 300).strip(),
        "logline": check_length("form.logline", logline).strip(),
        "genre": genre if genre is not None else (base.genre if base else ""),
        "keywords": list(keywords if keywords is not None else (base.keywords if base else [])),
        "characters": [
            {"name": r[0], "role": _cell(r, 1), "profile": _cell(r, 2)} for r in char_rows
        ],
        "settings": [{"name": r[0], "description": _cell(r, 1)} for r in setting_rows],
        "acts": [
            {
                "stage": stage,
                "goal": _cell(r, 1),
                "episodes": _episode_count(stage, _cell(r, 2)),
                "key_events": _items(_cell(r, 3), commas=False),
            }
            for stage, r in zip(STAGES, act_rows, strict=True)
        ],
    }
    try:
        return NovelPlot(**data)
    except ValidationError as e:
        raise InvalidInputError("error.form.plot_invalid", fields=invalid_fields(e.errors())) from e


TABLE_COLUMNS = {"form.characters_table": "ui.h.characters",
                 "form.settings_table": "ui.h.settings", "form.acts_table": "ui.h.acts"}
"""Each plot table's columns (a catalogue text of ``|``-separated headers), read by position."""


def _check_columns(label: str, rows: list[list[str]]) -> None:
    """A table that lost a column (a page whose column menu still deleted one) says which
    table and which columns it needs, instead of reading one column's text as another's."""
    headers = Text(TABLE_COLUMNS[label])
    n = len(render(headers, "en").split("|"))
    short = [row for row in rows if len(row) < n]
    if short:
        raise InvalidInputError("error.form.table_columns", table=Text(label), n=n,
                                got=len(short[0]), columns=headers)


def _episode_count(stage: str, text: str) -> int:
    try:
        value = float(text.strip())
    except ValueError:
        value = -1
    if value < 1 or value != int(value):
        raise InvalidInputError("error.form.act_episodes", stage=Text(STAGE_KEYS[stage]),
                                got=text)
    return int(value)


def _cell(row: Sequence[str], i: int) -> str:
    return row[i] if i < len(row) else ""

