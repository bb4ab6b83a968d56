"""How far the model's drafted prose of an episode is from the writer's profile (pure).

The drafted prose is measured with the same metrics as the profile; each metric's gap is put on
a 0..1 scale (shares by their absolute difference, lengths and rates relative to the larger of
the two, with a floor so a habit the writer never shows does not explode), and the episode's
drift is the mean gap in percent. A writer sees which habit the model drifts from, and how far.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from aizac.style.metrics import ENDINGS, PUNCTUATION, StyleMetrics
from aizac.style.profile import StyleProfile, prose_counts

RATE_FLOOR = 2.0
"""Rates per 1,000 characters below this count as this (a gap of 0.1 vs 0.3 is noise)."""
LENGTH_FLOOR = 1.0

__all__ = ["DriftReport", "DriftRow", "drift", "metric_rows"]


@dataclass(frozen=True)
class DriftRow:
    """One metric: the writer's value, the drafts', and the gap on a 0..1 scale."""

    metric: str
    writer: float
    drafted: float
    gap: float


@dataclass(frozen=True)
class DriftReport:
    """The drafted prose of ``episode`` against the profile."""

    episode: int
    rows: tuple[DriftRow, ...]
    drafted_chars: int

    @property
    def score(self) -> float:
        """The mean gap, in percent (0: writes like the writer)."""
        return 100.0 * sum(r.gap for r in self.rows) / len(self.rows) if self.rows else 0.0

    def worst(self, n: int = 3) -> list[DriftRow]:
        return sorted(self.rows, key=lambda r: (-r.gap, r.metric))[:n]


def metric_rows(metrics: StyleMetrics) -> dict[str, tuple[float, str]]:
    """Every comparable metric of ``metrics``: name -> (value, scale kind)."""
    out: dict[str, tuple[float, str]] = {
        "sentence_len": (metrics.sentence_len, "length"),
        "long_share": (metrics.long_share, "share"),
        "paragraph_len": (metrics.paragraph_len, "length"),
        "one_line_share": (metrics.one_line_share, "share"),
        "dialogue_share": (metrics.dialogue_share, "share"),
        "onomatopoeia": (metrics.onomatopoeia, "rate"),
    }
    for ending in ENDINGS:
        if metrics.endings:
            out[f"ending_{ending}"] = (metrics.endings.get(ending, 0.0), "share")
    if metrics.honorific_share is not None:
        out["honorific_share"] = (metrics.honorific_share, "share")
    for name in PUNCTUATION:
        out[name] = (metrics.punctuation.get(name, 0.0), "rate")
    return out


def _gap(writer: float, drafted: float, kind: str) -> float:
    if kind == "share":
        return min(1.0, abs(writer - drafted))
    floor = RATE_FLOOR if kind == "rate" else LENGTH_FLOOR
    return min(1.0, abs(writer - drafted) / max(writer, drafted, floor))


def drift(profile: StyleProfile, drafts: Sequence[str], episode: int) -> DriftReport:
    """The drift of an episode's drafted prose (the model's text) from ``profile``."""
    counts = prose_counts(drafts, profile.language)
    drafted = counts.metrics(profile.language)
    mine, theirs = metric_rows(profile.metrics), metric_rows(drafted)
    rows = tuple(DriftRow(name, value, theirs[name][0], _gap(value, theirs[name][0], kind))
                 for name, (value, kind) in mine.items() if name in theirs)
    return DriftReport(episode, rows, drafted.chars)
