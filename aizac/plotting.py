"""Matplotlib set up for the app's pictures: no display, and fonts that draw Hangul and Hanzi."""

from __future__ import annotations

CJK_FONTS = ["Noto Sans CJK KR", "Noto Sans CJK JP", "Noto Sans CJK SC", "DejaVu Sans"]


def use_cjk_fonts() -> None:
    """Make matplotlib draw Hangul and Hanzi (Noto Sans CJK when installed), headless."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["font.family"] = "sans-serif"
    matplotlib.rcParams["font.sans-serif"] = [
        *CJK_FONTS, *[f for f in matplotlib.rcParams["font.sans-serif"] if f not in CJK_FONTS]
    ]
    matplotlib.rcParams["axes.unicode_minus"] = False
