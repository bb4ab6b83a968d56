"""The style panel and ``aizac style`` in the reader's language (pure: catalogue text only)."""

from __future__ import annotations

from collections.abc import Sequence

from aizac.style.drift import DriftReport, metric_rows
from aizac.style.profile import StyleProfile
from aizac.text import Text, t

SHARES = {"long_share", "one_line_share", "dialogue_share", "honorific_share"}

__all__ = ["chart_labels", "drift_lines", "metric_label", "profile_table", "summary",
           "word_lines"]


METRIC_KEYS: dict[str, str] = {
    "dash": "style.metric.dash",
    "dialogue_share": "style.metric.dialogue_share",
    "ellipsis": "style.metric.ellipsis",
    "ending_da": "style.metric.ending_da",
    "ending_eo": "style.metric.ending_eo",
    "ending_formal": "style.metric.ending_formal",
    "ending_other": "style.metric.ending_other",
    "ending_yo": "style.metric.ending_yo",
    "exclamation": "style.metric.exclamation",
    "honorific_share": "style.metric.honorific_share",
    "interrobang": "style.metric.interrobang",
    "long_share": "style.metric.long_share",
    "one_line_share": "style.metric.one_line_share",
    "onomatopoeia": "style.metric.onomatopoeia",
    "paragraph_len": "style.metric.paragraph_len",
    "question": "style.metric.question",
    "sentence_len": "style.metric.sentence_len",
    "tilde": "style.metric.tilde",
}
"""A style metric's catalogue key."""


def metric_label(metric: str, language: str) -> str:
    return t(METRIC_KEYS[metric], language) if metric in METRIC_KEYS else metric


def _value(metric: str, value: float) -> str:
    share = metric in SHARES or metric.startswith("ending_")
    return f"{100 * value:.0f}%" if share else f"{value:.1f}"


def summary(profile: StyleProfile, scope: str, language: str) -> str:
    """One line: what the profile comes from (or that there is nothing of the writer's yet)."""
    if not profile.ready:
        return t("ui.style.empty", language)
    return t("ui.style.summary", language, passages=profile.passages, edits=profile.edits,
             scope=Text(f"style.scope.{scope}"))


def profile_table(profile: StyleProfile, report: DriftReport | None,
                  language: str) -> tuple[list[str], list[list[str]]]:
    """(headers, rows): each measure, the writer's value and the drafts' (of ``report``)."""
    headers = [t("ui.style.metric", language), t("ui.style.writer", language),
               t("ui.style.drafts", language)]
    if not profile.ready:
        return headers, []
    drafted = {r.metric: r.drafted for r in (report.rows if report else ())}
    rows = [[metric_label(name, language), _value(name, value),
             _value(name, drafted[name]) if name in drafted else "-"]
            for name, (value, _) in metric_rows(profile.metrics).items()]
    return headers, rows


def word_lines(profile: StyleProfile, language: str) -> list[str]:
    def words(pairs: Sequence[tuple[str, int]]) -> str:
        return ", ".join(f"{w} ({n})" for w, n in pairs)

    out = []
    if profile.deleted:
        out.append(t("ui.style.deleted", language, words=words(profile.deleted)))
    if profile.added:
        out.append(t("ui.style.added", language, words=words(profile.added)))
    return out


def drift_lines(reports: Sequence[DriftReport], language: str) -> list[str]:
    if not reports:
        return [t("ui.style.no_drafts", language)]
    return [t("ui.style.drift_row", language, episode=r.episode, score=f"{r.score:.0f}",
              worst=", ".join(metric_label(w.metric, language) for w in r.worst(2)))
            for r in reports]


def chart_labels(language: str) -> dict[str, str]:
    labels = {"writer": t("ui.style.writer", language), "drafts": t("ui.style.drafts", language),
              "profile": t("ui.style.chart.profile", language),
              "drift": t("ui.style.chart.drift", language),
              "episode": t("ui.style.chart.episode", language),
              "empty": t("ui.style.chart.empty", language)}
    from aizac.style.chart import CHART_METRICS

    labels.update({m: metric_label(m, language) for m in CHART_METRICS})
    return labels
