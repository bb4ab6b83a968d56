"""The reviewer's part of a serial's continuity report: what the memory alone cannot decide.

Per episode the ``reviewer`` role is shown the memory context (facts with the episode and
paragraph they were read from) and the episode's numbered paragraphs, and answers a closed
schema (:class:`SerialReview`): findings with a subtype of :data:`REVIEWED` and quotes. A quote
must be words of the text: of the episode's paragraph it names, and for the contradicted words
of the episode it names. :func:`quote_errors` says which quotes are not; the structured call
shows them to the model and asks again (``check``), and what is still wrong after the retries
is refused and counted, never reported as a finding (:func:`accept_review`).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Annotated, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from aizac.continuity.serial_report import DETERMINISTIC, SUBTYPES, SerialFinding, Spot
from aizac.errors import StructuredOutputError
from aizac.llm.grammar import KIND, VERBATIM
from aizac.llm.structured import generate_structured
from aizac.memory.facts import text_key
from aizac.text import Verbatim

REVIEWED: tuple[str, ...] = tuple(s for s in SUBTYPES if s not in DETERMINISTIC)
"""The subtypes the reviewer is asked about (the deterministic checks decide the rest)."""
ReviewedSubtype = Literal[
    "memory_contradiction", "knowledge_conflict", "skill_power_fluctuation",
    "forgotten_ability", "appearance", "perspective", "tone", "style_break",
    "time_contradiction", "duration", "causality", "rule_violation", "social_norm"]
Quote = Annotated[str, StringConstraints(strip_whitespace=True, min_length=2, max_length=300),
                  Field(json_schema_extra={KIND: VERBATIM})]
Note = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=300)]
MAX_CONTEXT_FACTS = 60


def _system() -> dict[str, str]:
    """The reviewer's system prompt per story language (``serial`` in ``prompts.toml``)."""
    with (resources.files("aizac.continuity") / "prompts.toml").open("rb") as handle:
        return {lang: str(texts["serial"]) for lang, texts in tomllib.load(handle).items()}


SYSTEM = _system()


class ReviewFinding(BaseModel):
    """One contradiction the reviewer found (model-facing: closed schema)."""

    model_config = ConfigDict(extra="forbid")

    subtype: ReviewedSubtype
    paragraph: int = Field(ge=1, le=10_000, description="the paragraph of this episode")
    quote: Quote
    source_episode: int | None = Field(default=None, ge=1, le=100_000)
    source_paragraph: int | None = Field(default=None, ge=1, le=10_000)
    source_quote: Quote | None = None
    note: Note


class SerialReview(BaseModel):
    """The reviewer's findings for one episode (model-facing: closed schema)."""

    model_config = ConfigDict(extra="forbid")

    findings: list[ReviewFinding] = Field(default_factory=list, max_length=8)


@dataclass(frozen=True)
class Fact:
    """A memory fact shown to the reviewer, with where it was read."""

    text: str
    at: Spot


Paragraphs = Mapping[int, Mapping[int, str]]
"""episode -> paragraph number -> text."""


def _find(quote: str, paragraphs: Mapping[int, str], hint: int | None) -> int | None:
    """The paragraph holding ``quote`` (``hint`` first), or ``None``."""
    key = text_key(quote)
    if not key:
        return None
    if hint is not None and key in text_key(paragraphs.get(hint, "")):
        return hint
    return next((n for n, text in sorted(paragraphs.items()) if key in text_key(text)), None)


def quote_errors(review: SerialReview, episode: int, text: Paragraphs) -> list[str]:
    """What is wrong with the quotes of ``review`` (empty: every quote is in the text)."""
    errors = []
    own = text.get(episode, {})
    for n, f in enumerate(review.findings, 1):
        if _find(f.quote, own, f.paragraph) is None:
            errors.append(f"finding {n}: quote not in episode {episode}: {f.quote!r}")
        if f.source_quote is not None:
            where = f.source_episode or episode
            if _find(f.source_quote, text.get(where, {}), f.source_paragraph) is None:
                errors.append(f"finding {n}: source_quote not in episode {where}: "
                              f"{f.source_quote!r}")
    return errors


def accept_review(review: SerialReview, episode: int, text: Paragraphs
                  ) -> tuple[list[SerialFinding], int]:
    """``(findings, refused)``: the review's findings whose quotes are in the text, their
    paragraphs taken from where the quote is; a finding with a quote not in it is refused."""
    out, refused = [], 0
    own = text.get(episode, {})
    for f in review.findings:
        at = _find(f.quote, own, f.paragraph)
        if at is None:
            refused += 1
            continue
        source = None
        if f.source_quote is not None:
            where = f.source_episode or episode
            found = _find(f.source_quote, text.get(where, {}), f.source_paragraph)
            if found is None:
                refused += 1
                continue
            source = Spot(where, found, f.source_quote)
        out.append(SerialFinding(f.subtype, Spot(episode, at, f.quote), source,
                                 Verbatim(f.note), "reviewer"))
    return out, refused


def review_messages(episode: int, text: Paragraphs, facts: Sequence[Fact],
                    language: str) -> list[BaseMessage]:
    """The reviewer's conversation for ``episode`` (pure)."""
    memory = "\n".join(f"- ({f.at.episode}-{f.at.paragraph}) {f.text}"
                       for f in facts[:MAX_CONTEXT_FACTS]) or "- -"
    body = "\n".join(f"[{n}] {p}" for n, p in sorted(text.get(episode, {}).items()))
    kinds = ", ".join(REVIEWED)
    return [SystemMessage(SYSTEM.get(language, SYSTEM["en"])),
            HumanMessage(f"## subtypes\n{kinds}\n\n## memory\n{memory}\n\n"
                         f"## episode {episode}\n{body}")]


def review_episode(model: BaseChatModel, episode: int, text: Paragraphs,
                   facts: Sequence[Fact], *, language: str, retries: int = 2
                   ) -> tuple[list[SerialFinding], int]:
    """Ask the reviewer about ``episode``: ``(findings, refused)``. A quote not in the text is
    shown to the model as an error and asked again; still wrong after ``retries``, the
    findings are asked for once more without the check and only the quoted ones kept.

    Raises:
        ModelError: the provider failed.
        StructuredOutputError: the reply is not the schema after the retries.
    """
    def check(review: SerialReview) -> None:
        errors = quote_errors(review, episode, text)
        if errors:
            raise ValueError("; ".join(errors) + ". Copy quotes exactly from the text.")

    messages = review_messages(episode, text, facts, language)
    try:
        review = generate_structured(model, SerialReview, messages, retries=retries,
                                     check=check)
    except StructuredOutputError:
        review = generate_structured(model, SerialReview, messages, retries=retries)
    return accept_review(review, episode, text)


__all__ = [
    "REVIEWED",
    "Fact",
    "Paragraphs",
    "ReviewFinding",
    "SerialReview",
    "accept_review",
    "quote_errors",
    "review_episode",
    "review_messages",
]
