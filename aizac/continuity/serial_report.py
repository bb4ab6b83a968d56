"""The continuity report of a serial (issue 42): findings by the ConStory-Bench taxonomy (pure).

A :class:`SerialFinding` names its category and subtype (:data:`TAXONOMY`), the words at fault
(``at``) and the words they contradict (``source``), each a :class:`Spot`: an episode, a
paragraph within that episode's text (1-based, the import's count: non-empty lines) and the
quote. Its :attr:`~SerialFinding.key` is stable across runs (subtype and both quotes, not the
paragraph numbers), so a writer's dismissal outlives an edit elsewhere in the episode.

:func:`report_markdown` renders a report as Markdown in the project's language (catalogue
texts ``report.*``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Literal

from aizac.memory.facts import text_key
from aizac.text import Renderable, Text, Verbatim, render

TAXONOMY: dict[str, tuple[str, ...]] = {
    "characterization": ("memory_contradiction", "knowledge_conflict",
                         "skill_power_fluctuation", "forgotten_ability", "dead_character",
                         "speech_level"),
    "factual": ("appearance", "nomenclature", "quantity"),
    "narrative_style": ("perspective", "tone", "style_break"),
    "timeline_plot": ("time_contradiction", "duration", "causality", "abandoned_thread"),
    "world_building": ("rule_violation", "social_norm", "geography"),
}
"""ConStory-Bench's categories and subtypes (ACL 2026), plus two characterization subtypes the
memory decides: a dead character acting, a speech level switched between a pair."""
CATEGORY: dict[str, str] = {s: c for c, subs in TAXONOMY.items() for s in subs}
"""Each subtype's category."""
SUBTYPES: tuple[str, ...] = tuple(CATEGORY)
DETERMINISTIC: frozenset[str] = frozenset({
    "dead_character", "nomenclature", "quantity", "geography", "speech_level",
    "abandoned_thread"})
"""The subtypes the deterministic checks decide from the memory; the reviewer the rest."""
Origin = Literal["check", "reviewer"]
CATEGORY_KEYS: dict[str, str] = {
    "characterization": "report.category.characterization",
    "factual": "report.category.factual",
    "narrative_style": "report.category.narrative_style",
    "timeline_plot": "report.category.timeline_plot",
    "world_building": "report.category.world_building",
}
SUBTYPE_KEYS: dict[str, str] = {
    "memory_contradiction": "report.subtype.memory_contradiction",
    "knowledge_conflict": "report.subtype.knowledge_conflict",
    "skill_power_fluctuation": "report.subtype.skill_power_fluctuation",
    "forgotten_ability": "report.subtype.forgotten_ability",
    "dead_character": "report.subtype.dead_character",
    "speech_level": "report.subtype.speech_level",
    "appearance": "report.subtype.appearance",
    "nomenclature": "report.subtype.nomenclature",
    "quantity": "report.subtype.quantity",
    "perspective": "report.subtype.perspective",
    "tone": "report.subtype.tone",
    "style_break": "report.subtype.style_break",
    "time_contradiction": "report.subtype.time_contradiction",
    "duration": "report.subtype.duration",
    "causality": "report.subtype.causality",
    "abandoned_thread": "report.subtype.abandoned_thread",
    "rule_violation": "report.subtype.rule_violation",
    "social_norm": "report.subtype.social_norm",
    "geography": "report.subtype.geography",
}
ORIGIN_KEYS: dict[str, str] = {"check": "report.origin.check",
                               "reviewer": "report.origin.reviewer"}
"""The catalogue keys of categories, subtypes and origins (a reader's words for them)."""


@dataclass(frozen=True)
class Spot:
    """Words of the serial: their episode, paragraph (1-based within the episode) and quote.

    ``beat`` is the project's beat id holding the paragraph, when known (a link opens it)."""

    episode: int
    paragraph: int
    quote: str
    beat: int | None = None


@dataclass(frozen=True)
class SerialFinding:
    """One contradiction in the serial.

    Attributes:
        subtype: one of :data:`SUBTYPES` (its category is :attr:`category`).
        at: the words at fault.
        source: the words (or memory) they contradict; ``None`` when nothing in the text is
            (a thread left hanging is missing words).
        note: what is wrong (a catalogue text, or the reviewer's words as :class:`Verbatim`).
        origin: ``check`` (deterministic) or ``reviewer`` (the model).
    """

    subtype: str
    at: Spot
    source: Spot | None
    note: Renderable
    origin: Origin = "check"

    @property
    def category(self) -> str:
        return CATEGORY[self.subtype]

    @property
    def key(self) -> str:
        """A stable id for dismissal: the subtype and both quotes with their episodes."""
        parts = [self.subtype, str(self.at.episode), text_key(self.at.quote)]
        if self.source is not None:
            parts += [str(self.source.episode), text_key(self.source.quote)]
        return hashlib.sha1("\x1f".join(parts).encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class SerialReport:
    """The report of episodes ``first``..``last``: the findings (dismissed ones apart).

    ``refused`` counts the reviewer's findings dropped because a quote was not in the text;
    ``reviewed`` says whether the reviewer read the episodes (``False``: deterministic only);
    ``failed`` lists the episodes the reviewer could not answer for."""

    first: int
    last: int
    findings: tuple[SerialFinding, ...] = ()
    dismissed: tuple[SerialFinding, ...] = ()
    reviewed: bool = False
    refused: int = 0
    failed: tuple[int, ...] = ()

    def by_category(self) -> dict[str, list[SerialFinding]]:
        """The findings per category, in :data:`TAXONOMY`'s order (empty ones left out)."""
        out: dict[str, list[SerialFinding]] = {}
        for category in TAXONOMY:
            found = [f for f in self.findings if f.category == category]
            if found:
                out[category] = found
        return out


def order(findings: Iterable[SerialFinding]) -> list[SerialFinding]:
    """``findings`` once each (by key), in story order of the words at fault."""
    seen: dict[str, SerialFinding] = {}
    for f in findings:
        seen.setdefault(f.key, f)
    return sorted(seen.values(), key=lambda f: (f.at.episode, f.at.paragraph, f.subtype))


def split_dismissed(findings: Iterable[SerialFinding], dismissed: Iterable[str]
                    ) -> tuple[tuple[SerialFinding, ...], tuple[SerialFinding, ...]]:
    """``(kept, dismissed)`` of ``findings`` given the dismissed keys."""
    keys = set(dismissed)
    found = order(findings)
    return (tuple(f for f in found if f.key not in keys),
            tuple(f for f in found if f.key in keys))


def with_beats(finding: SerialFinding, beat_of: dict[tuple[int, int], int]) -> SerialFinding:
    """``finding`` with the beat ids of its spots (``beat_of``: (episode, paragraph) -> id)."""
    at = replace(finding.at, beat=beat_of.get((finding.at.episode, finding.at.paragraph)))
    source = finding.source
    if source is not None:
        source = replace(source, beat=beat_of.get((source.episode, source.paragraph)))
    return replace(finding, at=at, source=source)


def _spot(spot: Spot, language: str) -> str:
    where = render(Text("report.spot", episode=spot.episode, paragraph=spot.paragraph), language)
    quote = " ".join(spot.quote.split())
    return f"{where}: > {quote}"


def report_markdown(report: SerialReport, language: str, *, title: str = "") -> str:
    """The report as Markdown in ``language`` (pure)."""
    lines = [f"# {render(Text('report.title', name=Verbatim(title)), language)}", ""]
    lines.append(render(Text("report.range", first=report.first, last=report.last,
                             count=len(report.findings), dismissed=len(report.dismissed)),
                        language))
    if not report.reviewed:
        lines += ["", render(Text("report.deterministic_only"), language)]
    if report.refused:
        lines += ["", render(Text("report.refused", count=report.refused), language)]
    if report.failed:
        lines += ["", render(Text("report.failed", episodes=", ".join(map(str, report.failed))),
                             language)]
    if not report.findings:
        lines += ["", render(Text("report.none"), language)]
    for category, found in report.by_category().items():
        lines += ["", f"## {render(Text(CATEGORY_KEYS[category]), language)}"]
        for f in found:
            subtype = render(Text(SUBTYPE_KEYS[f.subtype]), language)
            origin = render(Text(ORIGIN_KEYS[f.origin]), language)
            lines += ["", f"### {subtype} ({origin}) `{f.key}`", "",
                      render(f.note, language), "", f"- {_spot(f.at, language)}"]
            if f.source is not None:
                lines.append(f"- {render(Text('report.against'), language)} "
                             f"{_spot(f.source, language)}")
    return "\n".join(lines).rstrip() + "\n"


__all__ = [
    "CATEGORY",
    "CATEGORY_KEYS",
    "DETERMINISTIC",
    "ORIGIN_KEYS",
    "SUBTYPES",
    "SUBTYPE_KEYS",
    "TAXONOMY",
    "Origin",
    "SerialFinding",
    "SerialReport",
    "Spot",
    "order",
    "report_markdown",
    "split_dismissed",
    "with_beats",
]
