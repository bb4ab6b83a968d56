"""What a continuity check reports (pure data): findings, beat coverage and resolved names.

A :class:`Finding` cites the memory it contradicts (``memory_id``) and the words of the draft
that contradict it (``quote``); its ``message`` is written in the project's language, because a
writer reads it next to the prose.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from aizac.text import Text, render

Severity = Literal["error", "warning"]
FindingKind = Literal[
    "dead_character",
    "absent_character",
    "wrong_location",
    "superseded_relation",
    "pinned_negated",
    "world_rule",
    "secret_leak",
    "foreshadowing_overdue",
    "model",
]
KINDS: tuple[str, ...] = (
    "dead_character",
    "absent_character",
    "wrong_location",
    "superseded_relation",
    "pinned_negated",
    "world_rule",
    "secret_leak",
    "foreshadowing_overdue",
    "model",
)


@dataclass(frozen=True)
class Finding:
    """One contradiction between the draft and canon.

    Attributes:
        kind: one of :data:`KINDS`.
        severity: ``"error"`` blocks acceptance as is; ``"warning"`` is shown only.
        message: what is wrong, in the project's language.
        memory_id: the memory (or ledger thread) the draft contradicts; ``None`` only for a
            model finding that cited no known memory (downgraded to a warning).
        quote: the words of the draft (beat field, candidate memory or prose) at fault.
        beat: the beat index (1-based, within the episode) it concerns, if known.
    """

    kind: str
    severity: Severity
    message: str
    memory_id: str | None
    quote: str
    beat: int | None


@dataclass(frozen=True)
class NameResolution:
    """A name the draft uses that is not exactly a known character's name or alias.

    ``resolved`` is the known character it most likely means (``None``: a new character);
    ``certain`` is ``False`` when the writer should be asked (``options`` are the choices).
    """

    name: str
    resolved: str | None
    confidence: float
    certain: bool
    options: tuple[str, ...] = ()


@dataclass(frozen=True)
class ContinuityReport:
    """The result of :func:`aizac.continuity.check_episode`.

    ``covered`` and ``missed`` are the planned beats' indices the prose covered or missed.
    """

    findings: tuple[Finding, ...] = ()
    covered: tuple[int, ...] = ()
    missed: tuple[int, ...] = ()
    names: tuple[NameResolution, ...] = ()

    @property
    def blocking(self) -> bool:
        """Whether any finding is an error."""
        return any(f.severity == "error" for f in self.findings)

    @property
    def errors(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == "error")

    @property
    def warnings(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == "warning")

    @property
    def unsure_names(self) -> tuple[NameResolution, ...]:
        """Names to ask the writer about."""
        return tuple(n for n in self.names if not n.certain)


__all__ = [
    "KINDS",
    "ContinuityReport",
    "Finding",
    "FindingKind",
    "NameResolution",
    "Severity",
]


MESSAGE_KEYS = {
    "dead_speaks": "finding.dead_speaks", "dead_acts": "finding.dead_acts",
    "dead_revived": "finding.dead_revived", "absent": "finding.absent",
    "wrong_location": "finding.wrong_location",
    "superseded_relation": "finding.superseded_relation",
    "pinned_changed": "finding.pinned_changed", "pinned_negated": "finding.pinned_negated",
    "model_failed": "finding.model_failed", "rule_changed": "finding.rule_changed",
    "rule_negated": "finding.rule_negated", "secret_leak": "finding.secret_leak",
    "overdue": "finding.overdue",
}
"""Each finding's message in the catalogue (``finding.*``)."""


def message(key: str, language: str, **values: object) -> str:
    """The finding message ``key`` in ``language`` (the project's: a writer reads it next to
    the prose, and a rewrite prompt quotes it)."""
    return render(Text(MESSAGE_KEYS[key], values), language)

