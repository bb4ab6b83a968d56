"""The co-writing pipeline: keywords -> plot -> beats -> memory -> prose.

:class:`Studio` (``aizac.writer.service``) is the project service the CLI and the web app use;
it hands out one :class:`WriterAgent` per project. Model-facing schemas live in
:mod:`aizac.writer.schemas`, prompt templates in ``aizac/writer/prompts/<lang>/``.
"""

from aizac.writer.agent import WriterAgent
from aizac.writer.project import BeatRecord, PlotRecord, ProjectInfo, ProjectStore
from aizac.writer.schemas import BeatDesign, CharacterProfile, NovelBeat, NovelPlot
from aizac.writer.service import Studio, parse_keywords

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
