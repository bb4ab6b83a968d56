"""The voices panel and ``aizac voices`` in the reader's language (catalogue text only).

:func:`voice_rows` reads every current voice card and pair voice of the memory (one filtered
read each, for a panel: not a per-beat path) with each pair's earlier versions.
"""

from __future__ import annotations

from typing import Any

from aizac.continuity.report import ContinuityReport
from aizac.dialogue.cards import PairVoice, VoiceCard, card_of, level_name, pair_of, pair_text
from aizac.memory.facts import ADDRESS, VOICE
from aizac.text import t
from aizac.text.joining import bare, joined

SEVERITY_KEYS: dict[str, str] = {"error": "ui.severity.error", "warning": "ui.severity.warning"}

__all__ = ["card_headers", "finding_lines", "pair_headers", "voice_rows"]


def card_headers(language: str) -> list[str]:
    return [t(k, language) for k in ("ui.voices.character", "ui.voices.register",
                                     "ui.voices.tics", "ui.voices.catchphrases",
                                     "ui.voices.dialect")]


def pair_headers(language: str) -> list[str]:
    return [t(k, language) for k in ("ui.voices.speaker", "ui.voices.listener",
                                     "ui.voices.level", "ui.voices.address", "ui.voices.since",
                                     "ui.voices.before")]


def _read(memory: Any, tag: str, aspect: str) -> list[Any]:
    where = {"$and": [{"tag": tag}, {"aspect": aspect}]}
    return list(memory.get_where(where))


def voices(memory: Any) -> tuple[list[VoiceCard], list[PairVoice]]:
    """Every current voice card and pair voice (pairs with their history), in name order."""
    cards = sorted((card_of(h) for h in _read(memory, "Character", VOICE)), key=lambda c: c.name)
    pairs = []
    for hit in _read(memory, "CharacterRelation", ADDRESS):
        older = [h for h in memory.history(hit.id) if h.id != hit.id and h.superseded]
        pairs.append(pair_of(hit, older))
    pairs.sort(key=lambda p: (p.speaker, p.listener))
    return cards, pairs


def voice_rows(memory: Any, language: str) -> tuple[list[list[str]], list[list[str]]]:
    """The rows of the two tables: cards, pairs (the earlier voices of a pair in its last
    column, newest first)."""
    cards, pairs = voices(memory)
    card_rows = [[bare(c.name), bare(c.register), joined(c.tics, ", "),
                  joined(c.catchphrases, ", "), bare(c.dialect)] for c in cards]
    pair_rows = [[bare(p.speaker), bare(p.listener),
                  level_name(p.level, language) if p.level else "-",
                  bare(p.address) or "-", str(p.chapter or "-"),
                  " / ".join(_before(o, language) for o in reversed(p.older)) or "-"]
                 for p in pairs]
    return card_rows, pair_rows


def _before(pair: PairVoice, language: str) -> str:
    level = level_name(pair.level, language) if pair.level else ""
    return joined((level, pair.address), " · ")


def history_lines(pair: PairVoice, language: str) -> list[str]:
    return [t("cli.voices.before", language, text=pair_text(o, language), episode=o.chapter)
            for o in reversed(pair.older)]


def finding_lines(report: ContinuityReport, language: str) -> list[str]:
    """One line per finding ("Error: ..."), or the clean line."""
    if not report.findings:
        return [t("ui.voices.clean", language)]
    return [t("ui.voices.finding", language, severity=t(SEVERITY_KEYS[f.severity], language),
              message=f.message) for f in report.findings]
