"""The style panel's picture (matplotlib; the words come rendered from the caller).

Left: the writer's profile against the model's drafts, metric by metric (each pair of bars
scaled to the larger of the two, the values written beside them). Right: each drafted
episode's drift from the profile, in percent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from aizac.plotting import use_cjk_fonts
from aizac.style.drift import DriftReport

CHART_METRICS: tuple[str, ...] = (
    "sentence_len", "long_share", "one_line_share", "dialogue_share", "ending_da", "ending_eo",
    "honorific_share", "ellipsis", "dash", "onomatopoeia",
)
SHARES = {"long_share", "one_line_share", "dialogue_share", "ending_da", "ending_eo",
          "honorific_share"}

__all__ = ["CHART_METRICS", "style_figure"]


def _value(metric: str, value: float) -> str:
    return f"{100 * value:.0f}%" if metric in SHARES else f"{value:.1f}"


def style_figure(report: DriftReport | None, reports: Sequence[DriftReport],
                 labels: Mapping[str, str]) -> Any:
    """The figure: ``report`` (the latest episode's drift rows: writer vs drafts) and the drift
    of every episode in ``reports``. ``labels``: ``writer``, ``drafts``, ``profile``,
    ``drift``, ``episode``, ``empty`` and one per metric name."""
    use_cjk_fonts()
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(9.6, 3.8), dpi=100,
                                      gridspec_kw={"width_ratios": [3, 2]})
    rows = [r for r in (report.rows if report else ()) if r.metric in CHART_METRICS]
    rows.sort(key=lambda r: CHART_METRICS.index(r.metric))
    if rows:
        ys = list(range(len(rows)))[::-1]
        for y, r in zip(ys, rows, strict=True):
            top = max(r.writer, r.drafted) or 1.0
            left.barh(y + 0.18, r.writer / top, height=0.36, color="#4f46e5",
                      label=labels["writer"] if y == ys[0] else None)
            left.barh(y - 0.18, r.drafted / top, height=0.36, color="#f59e0b",
                      label=labels["drafts"] if y == ys[0] else None)
            left.text(r.writer / top + 0.02, y + 0.18, _value(r.metric, r.writer), va="center",
                      fontsize=7)
            left.text(r.drafted / top + 0.02, y - 0.18, _value(r.metric, r.drafted),
                      va="center", fontsize=7)
        left.set_yticks(ys, [labels.get(r.metric, r.metric) for r in rows], fontsize=8)
        left.set_xlim(0, 1.35)
        left.set_xticks([])
        left.legend(fontsize=7, loc="lower right")
    else:
        left.text(0.5, 0.5, labels["empty"], ha="center", va="center", fontsize=9)
        left.set_axis_off()
    left.set_title(labels["profile"], fontsize=10)
    if reports:
        episodes = [r.episode for r in reports]
        right.bar(episodes, [r.score for r in reports], color="#f59e0b")
        right.set_xticks(episodes)
        right.set_xlabel(labels["episode"], fontsize=8)
        right.set_ylim(0, max(50.0, *(r.score * 1.2 for r in reports)))
    else:
        right.text(0.5, 0.5, labels["empty"], ha="center", va="center", fontsize=9)
        right.set_axis_off()
    right.set_title(labels["drift"], fontsize=10)
    fig.tight_layout()
    plt.close(fig)
    return fig
