"""``ClicheDB``: the beat database in its own Chroma collection, searchable four ways.

The CSV is small (hundreds of rows), so rows stay in memory for exact look-ups (keywords,
tropes, genres) and Chroma holds the vectors for similarity. The collection is built on first
use and rebuilt when the CSV's sha256 or the embeddings change; both are stored in the
collection metadata, written only after every row was added, so an interrupted build is
redone on the next open instead of being served half-filled.
"""

from __future__ import annotations

import hashlib
import re
import threading
import uuid
import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings

from aizac.cliches.index import TropeIndex, load_index, normalize_keyword
from aizac.cliches.index import document as _document
from aizac.cliches.lexical import overlap, stems
from aizac.cliches.models import BeatHit, TropeArc, resolve_genre
from aizac.cliches.schema import STAGES, BeatRow, read_csv_source, resolve_stage
from aizac.errors import InvalidInputError, StorageError
from aizac.keywords import split_keywords as split_typed_keywords
from aizac.llm.embeddings import embedding_fingerprint

DEFAULT_COLLECTION = "aizac_cliches"
_BATCH = 256
_HNSW = {"space": "cosine", "sync_threshold": 100}
"""The collection's vector index. Below Chroma's default sync threshold (1000 writes) the
index is never persisted: every process replayed the ~600 logged rows at its first query
(0.1-0.17 s of CPU before a plot's or beat's first model call); at 100 it is read from disk."""
_HANGUL = re.compile(r"[\uac00-\ud7af]")
# In-memory databases of one process share a Chroma store; builds must not interleave.
_BUILD_LOCK = threading.Lock()


def split_keywords(keywords: Iterable[str]) -> list[str]:
    """Split ``["회귀, 복수", "revenge"]`` into distinct non-empty keywords (order kept) by the
    one rule of :func:`aizac.keywords.split_keywords`; spellings that normalise alike
    (``Time-Travel``, ``time travel``) count once."""
    out: dict[str, str] = {}
    for word in split_typed_keywords(keywords):
        out.setdefault(normalize_keyword(word), word)
    return list(out.values())


def _partial(query: str, keyword: str) -> bool:
    short, long = sorted((query, keyword), key=len)
    min_len = 2 if _HANGUL.search(short) else 4
    return len(short) >= min_len and short in long


class ClicheDB:
    """Tropes and beats from ``beats.csv`` in a Chroma collection of their own.

    Args:
        path: directory for an embedded ``PersistentClient``; ``None`` keeps it in memory.
        embeddings: LangChain embeddings (default :class:`HashingEmbeddings`).
        client: an existing Chroma client to use instead of creating one.
        csv_path: a beats CSV to load instead of the packaged database.
        collection: the collection name.
    """

    def __init__(
        self,
        path: Path | str | None = None,
        *,
        embeddings: Embeddings | None = None,
        client: Any | None = None,
        csv_path: Path | str | None = None,
        collection: str = DEFAULT_COLLECTION,
    ) -> None:
        if embeddings is None:
            from aizac.llm.embeddings import HashingEmbeddings

            embeddings = HashingEmbeddings()
        self.embeddings = embeddings
        self.path = Path(path) if path is not None else None
        self.csv_path = Path(csv_path) if csv_path is not None else None
        self._client = client
        self._collection_name = collection
        self._lock = threading.Lock()
        self._rows: list[BeatRow] | None = None
        self._by_id: dict[str, BeatRow] = {}
        self._stems: dict[str, frozenset[str]] = {}
        self._keywords: dict[str, frozenset[str]] = {}
        self._collection: Any = None
        self.builds = 0
        """How many times this instance (re)built the collection; 0 when it reused one."""
        self.index: TropeIndex | None = None
        """The trope index, once loaded (``index.from_cache``: read from its file)."""

    # ----------------------------------------------------------------- building
    def _make_client(self) -> Any:
        import chromadb
        from chromadb.config import Settings as ChromaSettings

        settings = ChromaSettings(anonymized_telemetry=False)
        if self.path is None:
            return chromadb.EphemeralClient(settings=settings)
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            return chromadb.PersistentClient(path=str(self.path), settings=settings)
        except OSError as e:
            raise StorageError("error.cliches.open", path=str(self.path), cause=str(e)) from e

    def _ensure(self) -> tuple[list[BeatRow], Any]:
        with self._lock:
            if self._rows is not None and self._collection is not None:
                return self._rows, self._collection
            src = read_csv_source(self.csv_path)
            # Rows, stems and keyword sets: read from the index file beside the collection
            # when the CSV is unchanged (aizac.cliches.index), else built and stored there.
            self.index = load_index(src, self.path)
            rows = self.index.rows
            own_ephemeral = self._client is None and self.path is None
            client = self._client or self._make_client()
            self._client = client
            fingerprint = embedding_fingerprint(self.embeddings)
            name = self._collection_name
            if own_ephemeral:
                # In-memory clients share one store per process: key the name by content so
                # databases over different CSVs never overwrite each other.
                key = hashlib.sha256(f"{src.sha256}|{fingerprint}".encode()).hexdigest()[:16]
                name = f"{name}-{key}"
            with _BUILD_LOCK:
                self._collection = self._open_or_build(client, name, rows, src.sha256, fingerprint)
            self._rows = rows
            self._by_id = self.index.by_id
            self._stems = self.index.stems
            self._keywords = self.index.keywords
            return rows, self._collection

    def _open_or_build(
        self, client: Any, name: str, rows: list[BeatRow], sha: str, fingerprint: str
    ) -> Any:
        try:
            existing = {c if isinstance(c, str) else c.name for c in client.list_collections()}
            if name in existing:
                col = client.get_collection(name, embedding_function=None)
                meta = col.metadata or {}
                if (
                    meta.get("csv_sha256") == sha
                    and meta.get("embeddings") == fingerprint
                    and _sync_threshold(col) == _HNSW["sync_threshold"]
                    and col.count() == len(rows)
                ):
                    return col
                client.delete_collection(name)
            col = client.create_collection(
                name,
                embedding_function=None,
                configuration={"hnsw": dict(_HNSW)},
                metadata={"csv_sha256": "building", "embeddings": fingerprint},
            )
            for start in range(0, len(rows), _BATCH):
                batch = rows[start : start + _BATCH]
                docs = [_document(r) for r in batch]
                col.add(
                    ids=[r.id for r in batch],
                    documents=docs,
                    embeddings=self.embeddings.embed_documents(docs),
                    metadatas=[
                        {
                            "genre": r.genre,
                            "trope": r.trope,
                            "stage": r.stage,
                            "stage_index": r.stage_index,
                            "order": r.order,
                        }
                        for r in batch
                    ],
                )
            col.modify(
                metadata={"csv_sha256": sha, "embeddings": fingerprint, "build": uuid.uuid4().hex}
            )
        except InvalidInputError:
            raise
        except Exception as e:  # chromadb raises many types; keep the cause chained
            raise StorageError("error.cliches.build", name=name, cause=str(e)) from e
        self.builds += 1
        return col

    # ----------------------------------------------------------------- listing
    def rows(self) -> list[BeatRow]:
        """Every beat, in CSV order."""
        return list(self._ensure()[0])

    def tropes(self) -> list[str]:
        """Trope slugs in CSV order."""
        return list(dict.fromkeys(r.trope for r in self._ensure()[0]))

    def genres(self) -> list[str]:
        """Genre slugs in CSV order."""
        return list(dict.fromkeys(r.genre for r in self._ensure()[0]))

    def __len__(self) -> int:
        return len(self._ensure()[0])

    def arc(self, trope: str) -> TropeArc:
        """One trope's beats in arc order."""
        slug = self._trope_slug(trope)
        beats = tuple(sorted((r for r in self._ensure()[0] if r.trope == slug), key=_arc_key))
        return TropeArc(slug, beats[0].genre, _union_keywords(beats), beats)

    # ----------------------------------------------------------------- validation
    def _check_genre(self, genre: str | None) -> str | None:
        return None if genre is None else resolve_genre(genre, self.genres())

    def _check_trope(self, trope: str | None) -> str | None:
        return None if trope is None else self._trope_slug(trope)

    def _trope_slug(self, trope: str) -> str:
        known = self.tropes()
        slug = normalize_keyword(trope).replace(" ", "-")
        if slug not in known:
            raise InvalidInputError("error.cliches.trope", trope=str(trope),
                                    choices=", ".join(known))
        return slug

    @staticmethod
    def _check_stage(stage: str | None) -> str | None:
        return None if stage is None else resolve_stage(stage)

    @staticmethod
    def _check_k(k: int) -> int:
        if k < 1:
            raise InvalidInputError("error.cliches.k", got=k)
        return k

    # ----------------------------------------------------------------- querying
    def _ranked(self, text: str, where: dict[str, Any] | None) -> list[tuple[BeatRow, float]]:
        """Every beat passing ``where``, best first: cosine similarity plus word overlap."""
        rows, col = self._ensure()
        vector = self.embeddings.embed_query(text)
        try:
            res = col.query(
                query_embeddings=[vector], n_results=len(rows), where=where, include=["distances"]
            )
        except Exception as e:
            raise StorageError("error.cliches.query", cause=str(e)) from e
        query_stems = stems(text)
        scored = [
            (self._by_id[i], 1.0 - float(d) + overlap(query_stems, self._stems[i]))
            for i, d in zip(res["ids"][0], (res["distances"] or [[]])[0], strict=True)
        ]
        scored.sort(key=lambda t: (-t[1], _arc_key(t[0])))
        return scored

    def search(
        self,
        query: str,
        k: int = 8,
        *,
        genre: str | None = None,
        stage: str | None = None,
        trope: str | None = None,
    ) -> list[BeatHit]:
        """Beats most similar to ``query``, optionally restricted by genre, stage and trope."""
        if not query.strip():
            raise InvalidInputError("error.cliches.empty_query")
        self._check_k(k)
        where = _where(
            genre=self._check_genre(genre),
            stage=self._check_stage(stage),
            trope=self._check_trope(trope),
        )
        return [BeatHit.from_row(r, s) for r, s in self._ranked(query, where)[:k]]

    def by_keywords(self, keywords: list[str], k: int = 8) -> list[BeatHit]:
        """Beats carrying the keywords exactly (Korean or English, any case) first, ranked by
        how many they carry and then by similarity; similar beats fill the rest up to ``k``."""
        self._check_k(k)
        words = split_keywords(keywords)
        wanted = {normalize_keyword(w): w for w in words}
        ranked = self._ranked(" ".join(words), None)
        exact: list[tuple[BeatRow, float, tuple[str, ...]]] = []
        fill: list[tuple[BeatRow, float, tuple[str, ...]]] = []
        for row, score in ranked:
            own = self._keywords[row.id]
            hit = tuple(orig for norm, orig in wanted.items() if norm in own)
            (exact if hit else fill).append((row, score, hit))
        exact.sort(key=lambda t: -len(t[2]))  # stable: similarity order within a count
        return [BeatHit.from_row(*t) for t in (exact + fill)[:k]]

    def expand_keywords(
        self, keywords: list[str], k_tropes: int = 3, *, genre: str | None = None
    ) -> list[TropeArc]:
        """Tropes that fit the keywords, each with its whole arc (for plot planning).

        Ranked by keyword matches (exact 1 point, partial such as ``복수`` in ``복수극`` half a
        point), then by the best score of one of the trope's beats for the keywords.
        """
        self._check_k(k_tropes)
        words = split_keywords(keywords)
        genre = self._check_genre(genre)
        best: dict[str, float] = {}
        by_trope: dict[str, list[BeatRow]] = {}
        for row, score in self._ranked(" ".join(words), _where(genre=genre)):
            best.setdefault(row.trope, score)
            by_trope.setdefault(row.trope, []).append(row)
        ranked: list[tuple[float, float, str, tuple[str, ...]]] = []
        for trope, beats in by_trope.items():
            own = [normalize_keyword(kw) for kw in _union_keywords(beats)]
            points, found = 0.0, []
            for word in words:
                norm = normalize_keyword(word)
                if norm in own:
                    points += 1.0
                    found.append(word)
                elif any(_partial(norm, kw) for kw in own):
                    points += 0.5
                    found.append(word)
            ranked.append((points, best[trope], trope, tuple(found)))
        ranked.sort(key=lambda t: (-t[0], -t[1], t[2]))
        arcs = []
        for points, sim, trope, hit in ranked[:k_tropes]:
            arc_beats = tuple(sorted(by_trope[trope], key=_arc_key))
            arcs.append(
                TropeArc(
                    trope,
                    arc_beats[0].genre,
                    _union_keywords(arc_beats),
                    arc_beats,
                    points + sim,
                    hit,
                )
            )
        return arcs

    def suggest_next(
        self, current_beat: str, stage: str, *, trope: str | None = None, k: int = 5
    ) -> list[BeatHit]:
        """Likely next developments after ``current_beat`` (at ``stage`` or the stage after).

        The database beat closest to ``current_beat`` at ``stage`` anchors the suggestion (within
        ``trope`` when given). The anchor's trope is preferred: its following beats come first,
        in arc order; the closest beats of other tropes in the allowed stages fill the rest.
        Scores are similarities to ``current_beat``.
        """
        if not current_beat.strip():
            raise InvalidInputError("error.cliches.empty_beat")
        self._check_k(k)
        stage = self._check_stage(stage) or STAGES[0]
        trope = self._check_trope(trope)
        i = STAGES.index(stage)
        allowed = list(STAGES[i : i + 2])
        ranked = self._ranked(current_beat, _where(stage=allowed))
        anchor = next(
            (r for r, _ in ranked if r.stage == stage and (trope is None or r.trope == trope)),
            None,
        )
        prefer = trope or (anchor.trope if anchor else None)
        after = anchor.order if anchor is not None and anchor.trope == prefer else 0
        same = sorted(
            (h for h in ranked if h[0].trope == prefer and h[0].order > after),
            key=lambda h: h[0].order,
        )
        others = [h for h in ranked if h[0].trope != prefer]
        return [BeatHit.from_row(r, s) for r, s in (same + others)[:k]]


def _sync_threshold(col: Any) -> object:
    """The collection's HNSW sync threshold (``None`` when Chroma does not say)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # Chroma's own, about its config
        return ((col.configuration or {}).get("hnsw") or {}).get("sync_threshold")


def _arc_key(row: BeatRow) -> tuple[str, int]:
    return (row.trope, row.order)


def _union_keywords(beats: Iterable[BeatRow]) -> tuple[str, ...]:
    seen: dict[str, str] = {}
    for beat in beats:
        for kw in beat.keywords:
            seen.setdefault(normalize_keyword(kw), kw)
    return tuple(seen.values())


def _where(
    *,
    genre: str | None = None,
    stage: str | list[str] | None = None,
    trope: str | None = None,
    trope_ne: str | None = None,
) -> dict[str, Any] | None:
    """A Chroma ``where`` filter (``$and`` only when two or more clauses)."""
    clauses: list[dict[str, Any]] = []
    if genre is not None:
        clauses.append({"genre": genre})
    if isinstance(stage, list):
        clauses.append({"stage": {"$in": stage}})
    elif stage is not None:
        clauses.append({"stage": stage})
    if trope is not None:
        clauses.append({"trope": trope})
    if trope_ne is not None:
        clauses.append({"trope": {"$ne": trope_ne}})
    if not clauses:
        return None
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}
