"""Which slot a character fact fills, by meaning: the fallback for a model that cannot answer
with references (the small embedded model).

A model that can refers to what the store knows (:mod:`aizac.memory.references`): it names the
slot, the facts a change replaces, the rule a revision revises. The embedded 135M model fills
the same fields, but by chance. For it, a character fact is compared by embedding with example
sentences of each slot (``slot_prototypes.toml``, ko/en/zh; names and numbers taken out) and
placed when one slot leads the next by :data:`SURE`; a smaller lead keeps the fact as a note
beside the current facts of both slots, flagged for the writer ("keep which?"); less still,
or nearer the note examples than any slot's, it stays a note. No word of the fact is matched.
With a lexical embedding (the hash: nearness is shared characters) it says nothing.
"""

from __future__ import annotations

import functools
import math
import re
import threading
import tomllib
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

PROTOTYPES_FILE = Path(__file__).with_name("slot_prototypes.toml")
SLOTS: tuple[str, ...] = ("condition", "whereabouts", "allegiance")
"""The slots the examples tell apart."""
TOP = 3
"""Nearest examples of a kind averaged into its score."""
SURE = 0.003
"""Lead of the best slot over the next at which a fact is placed there (e5 scores sit close
together: a right slot led by 0.003-0.04 on the examples it was tried on)."""
UNSURE = 0.0005
"""Lead below which nothing is said; between this and :data:`SURE` the fact is kept beside the
two slots' current facts and the pair flagged."""
NEAR_RULE = 0.9
"""Cosine at which a new rule reads as another version of a current one: both are kept and
flagged for the writer."""

Embed = Callable[[list[str]], list[list[float]]]
"""Vectors of many texts in one call (a memory's ``embed_many``)."""


class VectorCache:
    """Unit vectors of texts, embedded once per process and memory (thread-safe): the
    examples are embedded once, not for every beat."""

    def __init__(self, embed: Embed, limit: int = 20000) -> None:
        self._embed = embed
        self._limit = limit
        self._vectors: dict[str, tuple[float, ...]] = {}
        self._lock = threading.Lock()

    def __call__(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        """The unit vectors of ``texts`` (missing ones embedded in ONE call)."""
        with self._lock:
            need = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        fresh = dict(zip(need, (unit(v) for v in self._embed(need)), strict=True)) if need \
            else {}
        with self._lock:
            out = [fresh[t] if t in fresh else self._vectors[t] for t in texts]
            if len(self._vectors) + len(fresh) > self._limit:
                self._vectors.clear()  # a long session: start again rather than grow
            self._vectors.update(fresh)
        return out


def unit(vector: Sequence[float]) -> tuple[float, ...]:
    norm = math.sqrt(sum(x * x for x in vector)) or 1.0
    return tuple(x / norm for x in vector)


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine of two unit vectors."""
    return sum(x * y for x, y in zip(a, b, strict=True))


@functools.cache
def examples() -> dict[str, tuple[str, ...]]:
    """Example sentences per kind (the slots, ``note``, ``rule``, ``description``), every
    language together (read once)."""
    data = tomllib.loads(PROTOTYPES_FILE.read_text(encoding="utf-8"))
    return {kind: tuple(t for texts in by_lang.values() for t in texts)
            for kind, by_lang in data.items()}


def _content(text: str, names: Iterable[str]) -> str:
    """What a fact says once names and numbers are left out."""
    out = text
    for name in sorted({n for n in names if len(n) >= 2}, key=len, reverse=True):
        out = out.replace(name, " ")
    return " ".join(re.sub(r"\d+", " ", out).split())


def _top(vector: Sequence[float], others: Sequence[Sequence[float]]) -> float:
    sims = sorted((cosine(vector, o) for o in others), reverse=True)[:TOP]
    return sum(sims) / len(sims) if sims else 0.0


class SlotSense:
    """The slot of a character fact by meaning (see the module doc).

    Args:
        vectors: a :class:`VectorCache` over the memory's (semantic) embeddings.
        names: the cast's names and aliases, left out of every text.
    """

    def __init__(self, vectors: VectorCache, names: Iterable[str] = ()) -> None:
        self._vectors = vectors
        self._names = tuple(names)

    def guess(self, text: str) -> tuple[str, float, str]:
        """The nearest slot, its lead over the next, and the next (``("", 0, "")`` when the
        fact reads as a note)."""
        body = _content(text, self._names)
        kinds = [*SLOTS, "note"]
        known = examples()
        wanted = [body, *(t for k in kinds for t in known.get(k, ()))]
        if not body:
            return "", 0.0, ""
        vecs = dict(zip(wanted, self._vectors(wanted), strict=True))
        me = vecs[body]
        scores = {k: _top(me, [vecs[t] for t in known.get(k, ())]) for k in kinds}
        note = scores.pop("note")
        ranked = sorted(scores, key=lambda k: -scores[k])
        if note >= scores[ranked[0]]:
            return "", 0.0, ""
        return ranked[0], scores[ranked[0]] - scores[ranked[1]], ranked[1]

    def place(self, text: str) -> tuple[str, tuple[str, ...]]:
        """``(aspect, doubt)``: the slot to file the fact in (``""``: a note), or, when unsure,
        no slot and the two slots it may be (their current facts are flagged beside it)."""
        aspect, lead, runner = self.guess(text)
        if aspect and lead >= SURE:
            return aspect, ()
        if aspect and lead >= UNSURE:
            return "", (aspect, runner)
        return "", ()

    def near(self, text: str, others: Sequence[str]) -> list[int]:
        """Indices of ``others`` whose meaning is :data:`NEAR_RULE` close to ``text``."""
        if not others:
            return []
        vecs = self._vectors([text, *others])
        return [i for i, v in enumerate(vecs[1:]) if cosine(vecs[0], v) >= NEAR_RULE]


__all__ = ["NEAR_RULE", "SLOTS", "SURE", "UNSURE", "SlotSense", "VectorCache", "examples"]
