"""The invariant checker: what must hold in a project after any command, killed or not.

- the story turn equals the number of accepted beats;
- no duplicate memory (one text of one tag added twice for one beat) and no orphan (a live memory
  that no accepted beat, the current plot or a recorded autopilot steering note owns; an id an
  accepted beat names but memory lacks);
- one current relation per pair of characters;
- the short-term summaries are exactly what the accepted beats' summaries leave in the buffer;
- prose only on accepted beats, and never cut (``complete_prose`` tells a whole answer).

Memory is read in a fresh Chroma system, so what another (killed) process wrote is what is seen.
The tests, the load bench, ``aizac check`` and ``aizac db import`` (which checks every project it
moved) run it. It reads the autopilot's steering notes, so it sits with upkeep, above autopilot
and writer (``aizac.layers``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aizac.llm.embeddings import HashingEmbeddings
from aizac.memory.short_term import ShortTermMemory
from aizac.settings import Settings
from aizac.storage.steering import CANON_CHANGE_KEY, steered_sources
from aizac.writer.project import ProjectStore


@dataclass
class Report:
    """What the checker found: violations by kind (empty when every invariant holds)."""

    accepted: int = 0
    turn: int = 0
    memories: int = 0
    problems: list[str] = field(default_factory=list)

    def kinds(self) -> set[str]:
        return {p.split(":", 1)[0] for p in self.problems}

    @property
    def lost(self) -> bool:
        return bool(self.kinds() & {"turn-behind", "missing-memory", "summary-lost", "cut-prose"})

    @property
    def duplicated(self) -> bool:
        return bool(self.kinds() & {"duplicate", "orphan", "turn-ahead", "summary-extra",
                                    "two-current-relations"})


def _memory_rows(memory_dir: Path, embeddings: Any,
                 tables: Any = None) -> tuple[list[Any], int, list[str]]:
    """Every memory, the turn and the short-term items, read by a fresh Chroma client
    (``tables``: the key index and journal of a project on the server database)."""
    from chromadb.api.client import SharedSystemClient

    from aizac.memory import WriterMemory

    SharedSystemClient.clear_system_cache()  # see other processes' writes, not a cached view
    settings = Settings()
    memory = WriterMemory(memory_dir, embeddings=embeddings or HashingEmbeddings(),
                          settings=settings, tables=tables)
    try:
        return list(memory.all()), int(memory.turn), list(memory.short_term.items())
    finally:
        memory.close()
        SharedSystemClient.clear_system_cache()


def _opened_rows(memory: Any) -> tuple[list[Any], int, list[str]]:
    try:
        return list(memory.all()), int(memory.turn), list(memory.short_term.items())
    finally:
        memory.close()


def check_project(
    where: Path | ProjectStore, *, complete_prose: Callable[[str], bool] | None = None,
    embeddings: Any = None, open_memory: Callable[[ProjectStore], Any] | None = None,
) -> Report:
    """Check every invariant of a project: the one in the folder ``where``, or the store
    ``where`` (e.g. on the server database); see the module docstring. ``embeddings`` must be
    the kind the project was written with (default: the hashing ones). ``open_memory`` opens
    the project's memory another way (on a Chroma server, with its rows on the database)."""
    store = where if isinstance(where, ProjectStore) else ProjectStore(where)
    report = Report()
    accepted = store.beats(status="accepted")
    report.accepted = len(accepted)
    plot = store.plot()
    if open_memory is not None:
        rows, turn, short = _opened_rows(open_memory(store))
    else:
        rows, turn, short = (
            _memory_rows(store.memory_dir, embeddings,
                         store.scope("keys") if store.server else None)
            if store.memory_dir.exists()
            else ([], 0, [])
        )
    report.turn, report.memories = turn, len(rows)
    if turn != len(accepted):
        kind = "turn-ahead" if turn > len(accepted) else "turn-behind"
        report.problems.append(f"{kind}: turn {turn}, {len(accepted)} accepted beats")

    owned = {i for b in accepted for i in b.memory_ids} | set(plot.memory_ids if plot else [])
    ids = {r.id for r in rows}
    for missing in sorted(owned - ids):
        report.problems.append(f"missing-memory: {missing} is named but not stored")
    live = [r for r in rows if not r.metadata.get("forgotten")]
    steered = steered_sources(store if store.server else store.directory)  # a steering
    # note's recorded canon changes
    for r in live:
        if r.id not in owned and r.metadata.get(CANON_CHANGE_KEY) not in steered:
            report.problems.append(f"orphan: {r.id} [{r.tag}] {r.text[:40]!r}")
    keys = Counter(
        (r.tag, r.text, r.metadata.get("chapter"), r.metadata.get("beat")) for r in live
    )
    for key, n in keys.items():
        if n > 1:
            report.problems.append(f"duplicate: {n}x {key}")
    pairs = Counter(
        tuple(sorted((str(r.metadata.get("character1")), str(r.metadata.get("character2")))))
        for r in live
        if r.tag == "CharacterRelation" and not r.superseded
    )
    for pair, n in pairs.items():
        if n > 1:
            report.problems.append(f"two-current-relations: {pair} has {n}")

    summaries = [b.summary for b in accepted if b.summary]
    expected = ShortTermMemory(Settings().short_term_tokens, summaries).items()
    if short != expected:
        kind = "summary-extra" if len(short) > len(expected) else "summary-lost"
        report.problems.append(f"{kind}: short-term {short!r} != accepted {expected!r}")

    for b in store.beats():
        if b.prose is None:
            continue
        if b.status != "accepted":
            report.problems.append(f"prose-on-{b.status}: beat {b.id}")
        if complete_prose is not None and not complete_prose(b.prose):
            report.problems.append(f"cut-prose: beat {b.id} ends {b.prose[-30:]!r}")
    return report
