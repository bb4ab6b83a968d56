"""The continuity check of one drafted episode against canon (see :func:`check_episode`).

:func:`check_draft` is the whole deterministic check as a pure function of plain data (canon,
beats, prose, candidate memories, secrets, ledger threads); :func:`check_episode` is the thin
adapter that reads canon from the memory (keyed lookups only, nothing written) and adds the
optional model check.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from aizac.continuity.canon import Canon, Fact, fact_of, read_canon
from aizac.continuity.claims import (
    BeatLike,
    appearances,
    claims_of,
    draft_names,
    event_claims,
)
from aizac.continuity.coverage import coverage, resolve_names
from aizac.continuity.ledger import ForeshadowingLedger, Thread, overdue_findings
from aizac.continuity.model_check import model_findings
from aizac.continuity.report import ContinuityReport, Finding, message
from aizac.continuity.rules import (
    pin_findings,
    presence_findings,
    relation_findings,
    rule_findings,
)
from aizac.continuity.secrets import Secret, SecretsRegistry, leak_findings
from aizac.errors import StructuredOutputError

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from aizac.memory.store import WriterMemory

MAX_CAST = 8
"""Characters of the episode whose pairwise relations the reviewer is shown."""


def check_draft(
    canon: Canon,
    *,
    episode: int,
    beats: Sequence[BeatLike],
    prose: Mapping[int, str],
    candidates: Any = None,
    secrets: Sequence[Secret] = (),
    threads: Sequence[Thread] = (),
    language: str = "ko",
) -> ContinuityReport:
    """The deterministic continuity check (pure; see :mod:`aizac.continuity.rules`).

    ``candidates``: a batch, a sequence of candidates, or extraction results by beat index.
    """
    claims = claims_of(candidates)
    appear = appearances(beats)
    events = event_claims(beats)
    findings: list[Finding] = [
        *presence_findings(appear, claims, canon, episode=episode, language=language),
        *relation_findings(claims, canon, language=language),
        *pin_findings([*claims, *events], canon, language=language),
        *rule_findings([*claims, *events], canon, language=language),
        *leak_findings(secrets, appear, claims, canon, language=language),
        *overdue_findings(threads, episode, language),
    ]
    covered, missed = coverage(beats, prose)
    names = resolve_names(draft_names(appear, claims), canon.cast)
    return ContinuityReport(
        findings=tuple(sorted(findings, key=lambda f: (f.beat or 0, f.severity != "error"))),
        covered=covered,
        missed=missed,
        names=tuple(names),
    )


def _model_facts(memory: WriterMemory, canon: Canon) -> list[Fact]:
    """The canon shown to the reviewer: states, relations, pins, world rules, open threads."""
    facts: dict[str, Fact] = {}
    for states in canon.states.values():
        facts.update((f.id, f) for f in states.values())
    facts.update((r.current.id, r.current) for r in canon.relations.values())
    facts.update((f.id, f) for f in canon.pins)
    for hit in [*memory.world_rules()[:10], *memory.open_foreshadowing()[:10]]:
        facts.setdefault(hit.id, fact_of(hit))
    return list(facts.values())


def check_episode(
    memory: WriterMemory,
    *,
    episode: int,
    beats: Sequence[BeatLike],
    prose: Mapping[int, str],
    candidates: Any = None,
    reviewer: BaseChatModel | None = None,
    language: str = "ko",
    ledger: ForeshadowingLedger | None = None,
    secrets: SecretsRegistry | None = None,
) -> ContinuityReport:
    """Check episode ``episode``'s draft against the memory's current canon.

    Args:
        memory: the project's memory (read only; nothing is written).
        episode: the episode number (1-based).
        beats: the episode's planned beats (``NovelBeat``: index, characters, location, time,
            events, dialogue speakers ...).
        prose: beat index -> the drafted prose of that beat.
        candidates: the draft's extracted candidate memories: a ``CandidateBatch``, a
            sequence of its candidates, or the extraction results by beat index (the
            extraction schemas dumped: ``{"1": {"story": {...}, "characters": {...}, ...}}``).
        reviewer: the ``reviewer`` role's chat model for the optional model check.
        language: the project's language (``ko``, ``en``, ``zh``) for the messages.
        ledger: the project's foreshadowing ledger (overdue threads become warnings; call
            ``ledger.sync(memory, episode)`` first to pick up new threads).
        secrets: the project's secrets registry (a character using a secret they do not know
            is an error).

    Raises:
        ModelError: the reviewer's provider failed (only when ``reviewer`` is set). A reply
            that stays invalid after its repairs is not raised: the report then carries a
            ``model`` warning saying the model check was skipped.
    """
    claims = claims_of(candidates)
    appear = appearances(beats)
    pairs = [c.pair for c in claims if c.tag == "CharacterRelation" and all(c.pair)]
    if reviewer is not None:  # the reviewer is shown how the scene's characters stand
        cast = list(dict.fromkeys(a.name for a in appear))[:MAX_CAST]
        pairs += list(itertools.combinations(cast, 2))
    stories = [c.text for c in claims if c.tag == "Story"]
    canon = read_canon(memory, draft_names(appear, claims), pairs, stories)
    report = check_draft(
        canon, episode=episode, beats=beats, prose=prose, candidates=claims,
        secrets=secrets.secrets() if secrets is not None else (),
        threads=ledger.open_threads() if ledger is not None else (),
        language=language,
    )
    if reviewer is None:
        return report
    try:
        found = model_findings(reviewer, _model_facts(memory, canon), prose,
                               language=language)
    except StructuredOutputError as e:
        # A small model that cannot answer the schema must not stop the episode: the
        # deterministic findings stand, and the writer sees the model check was skipped.
        found = [Finding("model", "warning", message("model_failed", language, error=e.text),
                         None, "", None)]
    return ContinuityReport(report.findings + tuple(found), report.covered, report.missed,
                            report.names)


__all__ = ["check_draft", "check_episode"]
