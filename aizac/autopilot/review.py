"""The editor's verdict on a drafted episode: accept, polish or rewrite (reviewer role).

:func:`review_messages` assembles the prompt (pure): the prose by beat, the continuity report's
findings with the memories they cite, missed beats and unsure names. :func:`review_episode` asks
the model for a :class:`Verdict` through the one structured-output path (validated, retried with
the error). Control flow stays in code: a report with a blocking finding is never accepted as
is — an ``accept`` verdict on it becomes ``rewrite`` with the findings as reasons.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from aizac.autopilot.prompt_data import prompt_data
from aizac.continuity.report import ContinuityReport
from aizac.llm.structured import generate_structured

Reason = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
Decision = Literal["accept", "polish", "rewrite"]


class Verdict(BaseModel):
    """The reviewer's decision with its reasons (model-facing: closed schema)."""

    model_config = ConfigDict(extra="forbid")

    decision: Decision
    reasons: list[Reason] = Field(default_factory=list, max_length=5)


_PROMPTS = prompt_data("review")
_SYSTEM = {lang: str(texts["system"]) for lang, texts in _PROMPTS.items()}
_LABELS = {lang: tuple(texts["labels"]) for lang, texts in _PROMPTS.items()}
_BLOCKED = {lang: str(texts["blocked"]) for lang, texts in _PROMPTS.items()}
MAX_PROSE_CHARS = 12_000
"""Prose beyond this is cut from the prompt (the findings carry the quotes that matter)."""


def _lang(language: str) -> str:
    return language if language in _SYSTEM else "en"


def render_report(report: ContinuityReport, language: str) -> str:
    """The report as prompt lines in ``language`` (pure)."""
    _, _, err, warn, missed, names, none = _LABELS[_lang(language)]
    lines = []
    for f in report.findings:
        label = err if f.severity == "error" else warn
        where = f" [{f.beat}]" if f.beat is not None else ""
        cite = f" (memory {f.memory_id})" if f.memory_id else ""
        quote = f" — {f.quote}" if f.quote else ""
        lines.append(f"- {label}{where}: {f.message}{quote}{cite}")
    if report.missed:
        lines.append(f"- {missed}: " + ", ".join(str(i) for i in report.missed))
    if report.unsure_names:
        lines.append(f"- {names}: " + ", ".join(n.name for n in report.unsure_names))
    return "\n".join(lines) if lines else f"- {none}"


def render_prose(prose: Mapping[int, str] | str, limit: int = MAX_PROSE_CHARS) -> str:
    """The prose by beat (``[n]`` headers), cut at ``limit`` characters (pure)."""
    if isinstance(prose, str):
        text = prose.strip()
    else:
        text = "\n\n".join(f"[{i}]\n{prose[i].strip()}" for i in sorted(prose))
    return text if len(text) <= limit else text[:limit] + " …"


def review_messages(
    *, prose: Mapping[int, str] | str, report: ContinuityReport, language: str
) -> list[BaseMessage]:
    """The review conversation (pure)."""
    lang = _lang(language)
    draft, check = _LABELS[lang][:2]
    user = f"## {draft}\n{render_prose(prose)}\n\n## {check}\n{render_report(report, lang)}"
    return [SystemMessage(_SYSTEM[lang]), HumanMessage(user)]


def enforce(verdict: Verdict, report: ContinuityReport, language: str) -> Verdict:
    """``verdict``, except that a blocking report is never accepted as is (pure)."""
    if not report.blocking or verdict.decision == "rewrite":
        return verdict
    reasons = [_BLOCKED[_lang(language)], *(f.message for f in report.errors)]
    return Verdict(decision="rewrite", reasons=[r[:200] for r in reasons[:5]])


def review_episode(
    model: BaseChatModel,
    *,
    prose: Mapping[int, str] | str,
    report: ContinuityReport,
    language: str,
    retries: int = 2,
    max_tokens: int | None = None,
) -> Verdict:
    """Ask the reviewer ``model`` for its verdict on the episode.

    Raises:
        StructuredOutputError: the model's reply stayed invalid after ``retries`` repairs.
        ModelError: the provider failed.
    """
    messages = review_messages(prose=prose, report=report, language=language)
    verdict = generate_structured(
        model, Verdict, messages, retries=retries, max_tokens=max_tokens
    )
    return enforce(verdict, report, language)


__all__ = [
    "Decision",
    "Verdict",
    "enforce",
    "render_prose",
    "render_report",
    "review_episode",
    "review_messages",
]
