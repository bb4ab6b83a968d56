"""The dialogue check of a draft against the memory's voices (the thin adapter).

:func:`check_dialogue` reads the voice canon of every character the beats name (keyed reads
only, nothing written), collects the spoken lines (planned and, with prose, attributed) and
runs the deterministic checks of :mod:`aizac.dialogue.checks`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from aizac.continuity.report import ContinuityReport
from aizac.dialogue.canon import read_voices
from aizac.dialogue.checks import dialogue_report
from aizac.dialogue.lines import beat_speakers, spoken_lines

__all__ = ["check_dialogue", "merge_reports"]


def check_dialogue(
    memory: Any,
    beats: Sequence[Any],
    prose: Mapping[int, str] | None = None,
    *,
    language: str,
    plans: Mapping[int, Any] | None = None,
) -> ContinuityReport:
    """The dialogue findings of ``beats`` (and their ``prose``: beat index -> text)."""
    names = [n for b in beats for n in (*b.characters, *beat_speakers(b))]
    canon = read_voices(memory, names)
    lines = spoken_lines(beats, prose, language=language, cast=canon.cast, plans=plans)
    return dialogue_report(lines, canon, language=language)


def merge_reports(report: Any, dialogue: ContinuityReport) -> ContinuityReport:
    """A continuity report with the dialogue findings added (a dead speaker the continuity
    check already cites in that beat is not reported twice)."""
    findings = list(getattr(report, "findings", ()))
    cited = {(f.memory_id, f.beat) for f in findings if f.kind == "dead_character"}
    extra = [f for f in dialogue.findings
             if not (f.kind == "dead_speaker" and (f.memory_id, f.beat) in cited)]
    return ContinuityReport(
        findings=tuple(sorted([*findings, *extra],
                              key=lambda f: (f.beat or 0, f.severity != "error"))),
        covered=tuple(getattr(report, "covered", ())), missed=tuple(getattr(report, "missed", ())),
        names=tuple(getattr(report, "names", ())),
    )
