"""The co-writing pipeline: keywords -> plot -> beats -> memory -> prose.

:class:`Studio` (``aizac.writer.service``) is the project service the CLI and the web app use;
it hands out one :class:`WriterAgent` per project. Model-facing schemas live in
:mod:`aizac.writer.schemas`, prompt templates in ``aizac/writer/prompts/<lang>/``.

The names below are imported on first use (PEP 562), so importing one light submodule (e.g.
``aizac.writer.project`` for ``aizac projects``) does not load the agent, LangChain and Chroma.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_HOMES = {
    "WriterAgent": "aizac.writer.agent",
    "BeatRecord": "aizac.writer.project",
    "PlotRecord": "aizac.writer.project",
    "ProjectInfo": "aizac.writer.project",
    "ProjectStore": "aizac.writer.project",
    "BeatDesign": "aizac.writer.schemas",
    "CharacterProfile": "aizac.writer.schemas",
    "NovelBeat": "aizac.writer.schemas",
    "NovelPlot": "aizac.writer.schemas",
    "Studio": "aizac.writer.service",
    "parse_keywords": "aizac.writer.service",
}

__all__ = [
    "BeatDesign",
    "BeatRecord",
    "CharacterProfile",
    "NovelBeat",
    "NovelPlot",
    "PlotRecord",
    "ProjectInfo",
    "ProjectStore",
    "Studio",
    "WriterAgent",
    "parse_keywords",
]

if TYPE_CHECKING:
    from aizac.writer.agent import WriterAgent
    from aizac.writer.project import BeatRecord, PlotRecord, ProjectInfo, ProjectStore
    from aizac.writer.schemas import BeatDesign, CharacterProfile, NovelBeat, NovelPlot
    from aizac.writer.service import Studio, parse_keywords


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'aizac.writer' has no attribute {name!r}")
