"""The optional model check: the ``reviewer`` role reads the prose against the canon it is shown.

The model gets the canon facts with their memory ids and the prose, and answers a closed schema
(:class:`ModelReview`). Its findings are then held to the deterministic standard: a finding
whose quote is not in the prose is dropped (the model made it up); one that cites no memory id
it was shown is kept only as a warning without a citation.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Annotated

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from aizac.continuity.canon import Fact
from aizac.continuity.report import Finding
from aizac.llm.structured import generate_structured
from aizac.memory.facts import text_key

MAX_DRAFT_CHARS = 12_000
"""Prose beyond this is cut from the model check's prompt."""
Str = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=240)]


class ModelFinding(BaseModel):
    model_config = ConfigDict(extra="forbid")

    memory_id: Annotated[str, StringConstraints(strip_whitespace=True, max_length=64)]
    quote: Str
    message: Str
    beat: int | None = Field(default=None, ge=1, le=1000)


class ModelReview(BaseModel):
    """Contradictions between the prose and the canon shown (model-facing: closed schema)."""

    model_config = ConfigDict(extra="forbid")

    findings: list[ModelFinding] = Field(default_factory=list, max_length=6)


def _system() -> dict[str, str]:
    """The judge's system prompt per story language (``prompts.toml`` beside this module)."""
    with (resources.files("aizac.continuity") / "prompts.toml").open("rb") as handle:
        return {lang: str(texts["system"]) for lang, texts in tomllib.load(handle).items()}


_SYSTEM = _system()


def model_messages(facts: Sequence[Fact], prose: Mapping[int, str],
                   language: str) -> list[BaseMessage]:
    """The model check's conversation (pure)."""
    canon = "\n".join(f"- [{f.id}] {f.text}" for f in facts) or "- -"
    draft = "\n\n".join(f"[{i}]\n{prose[i]}" for i in sorted(prose))
    if len(draft) > MAX_DRAFT_CHARS:  # bounded prompt; the rules still read the whole draft
        draft = draft[:MAX_DRAFT_CHARS] + " …"
    system = _SYSTEM.get(language, _SYSTEM["en"])
    return [SystemMessage(system), HumanMessage(f"## canon\n{canon}\n\n## draft\n{draft}")]


def accept_findings(review: ModelReview, facts: Sequence[Fact],
                    prose: Mapping[int, str]) -> list[Finding]:
    """The model's findings held to the rules in the module doc (pure)."""
    ids = {f.id for f in facts}
    whole = text_key(" ".join(prose.values()))
    out: list[Finding] = []
    for f in review.findings:
        if not text_key(f.quote) or text_key(f.quote) not in whole:
            continue
        if f.memory_id in ids:
            out.append(Finding("model", "error", f.message, f.memory_id, f.quote, f.beat))
        else:
            out.append(Finding("model", "warning", f.message, None, f.quote, f.beat))
    return out


def model_findings(model: BaseChatModel, facts: Sequence[Fact], prose: Mapping[int, str], *,
                   language: str, retries: int = 2) -> list[Finding]:
    """Ask the reviewer ``model`` for contradictions (raises ``StructuredOutputError`` /
    ``ModelError`` like every structured call; :func:`~aizac.continuity.check_episode` turns
    the first into a warning)."""
    if not facts or not any(p.strip() for p in prose.values()):
        return []
    review = generate_structured(model, ModelReview, model_messages(facts, prose, language),
                                 retries=retries)
    return accept_findings(review, facts, prose)


__all__ = ["ModelFinding", "ModelReview", "accept_findings", "model_findings", "model_messages"]
