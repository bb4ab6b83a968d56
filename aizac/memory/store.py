"""WriterMemory: the four-tag long-term memory in Chroma (the thin adapter around the pure core).

One Chroma collection holds every memory; the story turn and the short-term buffer live in the
collection's own metadata, so they persist (and are restored) with the store wherever it lives:
in memory, on disk (``PersistentClient``) or on a Chroma server (``client=``).

Moving the story on (:meth:`WriterMemory.advance`) rewrites no memory: liveness is the single
range filter ``live_until >= turn`` (see :mod:`aizac.memory.records`). A recall rewrites only
the rows it returns (reinforcement). A lock serialises read-modify-write sequences.

Keyed reads (a relation, a character's state, the cast, open foreshadowing, and recalls filtered
by character/tag/pair) go through :class:`~aizac.memory.key_index.KeyIndex`, a SQLite cache of
exact keys beside an embedded store, then fetch by id — Chroma 1.5's filtered ``get``/``query``
cost grows with the whole collection, its ``get(ids=...)`` does not. Other filters go to Chroma.

:class:`WriterMemory` is a facade: one row gateway (:mod:`aizac.memory.rows`) shared by keyed
reads (:mod:`~aizac.memory.lookups`), commits with their journal, undo, redo and recovery
(:mod:`~aizac.memory.commits`) and recall and strength changes (:mod:`~aizac.memory.recall`).
What counts as the same fact, or a new version of one, is decided in :mod:`aizac.memory.facts`.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain_core.embeddings import Embeddings

from aizac.errors import InvalidInputError, StorageError
from aizac.memory.chroma_client import ChromaClients, project_collection, server_unreachable
from aizac.memory.commits import Commits
from aizac.memory.forgetting import check_strength, check_threshold
from aizac.memory.journal import FILE_NAME as JOURNAL_FILE
from aizac.memory.journal import CommitJournal, CommitSnapshot
from aizac.memory.key_index import FILE_NAME as INDEX_FILE
from aizac.memory.key_index import KeyIndex
from aizac.memory.lookups import Lookups
from aizac.memory.recall import Recall
from aizac.memory.records import (
    MemoryHit,
    Where,
    check_tag,
)
from aizac.memory.references import Offer
from aizac.memory.reindex import active_collection
from aizac.memory.rows import (
    FINGERPRINT_KEY,
    Rows,
    check_fingerprint,
    embed_texts,
    embedding_error,
    embedding_fingerprint,
    open_collection,
    stored_fingerprint,
)
from aizac.memory.short_term import ShortTermMemory
from aizac.memory.staging import CandidateBatch
from aizac.memory.state_file import StateFile
from aizac.settings import Settings, get_settings
from aizac.storage.database import Scope
from aizac.storage.health import sqlite_damage

if TYPE_CHECKING:
    from aizac.memory.slot_sense import SlotSense, VectorCache

STATE_KEY = "aizac_state"
_COLLECTION_NAME = re.compile(r"[a-zA-Z0-9][a-zA-Z0-9._-]{1,490}[a-zA-Z0-9]")


class WriterMemory:
    """Story memory with a forgetting curve, pins, superseded facts and staged candidates.

    A facade over three collaborators sharing one row gateway (:class:`~aizac.memory.rows.Rows`):
    :class:`~aizac.memory.lookups.Lookups` (keyed reads), :class:`~aizac.memory.commits.Commits`
    (commit, undo, redo, recovery) and this class (time, recall, pins, reinforcement).

    Args:
        path: directory of an embedded persistent store; ``None`` keeps it in memory.
        collection: Chroma collection name (3-512 characters of ``[a-zA-Z0-9._-]``).
        embeddings: a LangChain ``Embeddings``; ``None`` builds ``settings.embedding``
            (offline ``HashingEmbeddings`` by default). Chroma never embeds by itself.
        threshold: forgetting threshold; ``None`` -> ``settings.memory_threshold``.
        client: a ready Chroma client (e.g. ``chromadb.HttpClient``), instead of ``path``.
        settings: aizac settings (tag strengths, short-term budget); default ``get_settings()``.
        clock: optional wall clock (``() -> float``); when given, memories carry ``created_at``.
            Story time is turns, never the wall clock.
        tables: where the key index and the commit journal keep their rows: a project's
            :class:`~aizac.storage.database.Scope` on the server database (``None``: SQLite
            files in ``path``, or in memory). With ``tables`` several processes share the
            project, so nothing is repaired at open: the project's step lock calls
            :meth:`refresh` before a step (:mod:`aizac.storage.locks`).
        adopt: for a store written with other embeddings: the fingerprint it records ->
            embeddings that make those vectors (or ``None``), e.g.
            :func:`aizac.llm.embeddings.embeddings_for_fingerprint`. The store then opens with
            them and :attr:`reindex_needed` says so; without ``adopt`` it refuses.

    Raises:
        StorageError: the store cannot be opened, or it was written with other embeddings
            that ``adopt`` cannot provide (``aizac reindex`` converts it).
    """

    def __init__(
        self,
        path: str | Path | None = None,
        collection: str = "novel",
        embeddings: Embeddings | None = None,
        threshold: float | None = None,
        client: Any = None,
        settings: Settings | None = None,
        clock: Callable[[], float] | None = None,
        tables: Scope | None = None,
        adopt: Callable[[str], Embeddings | None] | None = None,
    ) -> None:
        if not isinstance(collection, str) or not _COLLECTION_NAME.fullmatch(collection):
            raise InvalidInputError("error.memory.collection_name", collection=collection)
        self.settings = settings if settings is not None else get_settings()
        self.threshold = check_threshold(
            self.settings.memory_threshold if threshold is None else threshold
        )
        if embeddings is None:
            from aizac.llm.embeddings import embeddings_from_spec

            embeddings = embeddings_from_spec(self.settings.embedding, self.settings)
        self.embeddings = embeddings
        self._slot_vectors: VectorCache | None = None
        self._held = True
        self.clock = clock
        self.path = Path(path) if path is not None else None
        self.logical_name = collection
        """The memory's name; its Chroma collection is this, or what a reindex switched to."""
        self._ephemeral = client is None and path is None
        client_given = client is not None
        self._owns_client = not client_given
        if path is not None and tables is None:  # a damaged index or journal: named first,
            # before Chroma is opened (which would write to its own files)
            for name in (INDEX_FILE, JOURNAL_FILE):
                found = sqlite_damage(Path(path) / name, must_exist=False)
                if found is not None:
                    raise found.error()
        physical = active_collection(path, collection)
        self.client, self.collection, name = open_collection(path, physical, client)
        self._fingerprint = embedding_fingerprint(embeddings)
        self.reindex_needed: tuple[str, str] | None = None
        """``(recorded, configured)`` fingerprints when the store was written with other
        embeddings than the configured ones and opened with its own (see ``adopt``)."""
        stored = stored_fingerprint(self.collection)
        changed = bool(stored) and stored != self._fingerprint
        own = adopt(stored) if adopt is not None and changed else None
        if own is not None and embedding_fingerprint(own) == stored:
            self.reindex_needed = (stored, self._fingerprint)
            self.embeddings, self._fingerprint = own, stored
        check_fingerprint(self.collection, self._fingerprint)
        # Exact-key index beside an embedded store; with a caller's client (e.g. a server that
        # other processes write to) keyed reads use Chroma filters instead.
        self.tables = tables
        """The project's rows on the server database that hold the index and the journal."""
        if tables is not None:
            index: KeyIndex | None = KeyIndex(tables, name)
            journal = CommitJournal(tables, name)
        else:
            index = KeyIndex(path, name) if (client_given is False or path) else None
            journal = CommitJournal(path, name)
        self.rows = Rows(self.collection, index)
        self.rows.folder = self.path if not client_given else None  # names a damaged file
        self.lookups = Lookups(self.rows, lambda: self._turn)
        self.commits = Commits(
            self.rows, self.lookups, journal, embed_many=self.embed_many,
            turn=lambda: self._turn, threshold=self.threshold, clock=clock,
        )
        self.recaller = Recall(
            self.rows, self.lookups, embed_query=lambda q: self.embed(q, query=True),
            turn=lambda: self._turn, threshold=self.threshold,
        )
        # Beside an embedded store the state is also kept in a file, so that moving the turn
        # does not write Chroma (aizac.memory.state_file).
        self._mirror = ""
        self._state_file = (StateFile(Path(path), collection)
                            if path is not None and not client_given and tables is None
                            else None)
        state = self._load_state()
        self._turn = int(state.get("turn", 0))
        if tables is None:  # one process writes this store: repair what a crash left now
            self.rows.sync_index()
            self.commits.recover()
        self.short_term = ShortTermMemory(
            self.settings.short_term_tokens, state.get("short", []), state.get("short_turn")
        )
        self.short_term.key = lambda: self._turn
        self.short_term.on_change = self._save_state
        self._held = bool(state.get("held"))
        if tables is None and not self._held:
            self._hold_current()
        self.rows.hints_current = bool(state.get("hints"))
        if tables is None and not self.rows.hints_current:
            self._raise_current_hints()

    @property
    def _lock(self) -> Any:
        return self.rows.lock

    def slot_sense(self) -> SlotSense | None:
        """The :class:`~aizac.memory.slot_sense.SlotSense` that places the facts of a model
        that cannot answer with references (the embedded model), or ``None`` when the
        embeddings are lexical (the hash: nearness by shared characters says nothing of a
        slot)."""
        if not getattr(self.embeddings, "semantic", True):
            return None
        from aizac.memory.slot_sense import SlotSense, VectorCache

        if self._slot_vectors is None:
            self._slot_vectors = VectorCache(self.embed_many)
        names = [n for canon, aliases in self.characters().items() for n in (canon, *aliases)]
        return SlotSense(self._slot_vectors, names)

    @property
    def fingerprint(self) -> str:
        """The fingerprint of the embeddings this store's vectors were made with."""
        return self._fingerprint

    @property
    def page_size(self) -> int:
        return self.rows.page_size

    @page_size.setter
    def page_size(self, value: int) -> None:
        self.rows.page_size = value

    @property
    def scan_limit(self) -> int:
        return self.rows.scan_limit

    @scan_limit.setter
    def scan_limit(self, value: int) -> None:
        self.rows.scan_limit = value

    # ----------------------------------------------------------------- state and time

    def _load_state(self) -> dict[str, Any]:
        raw = (self.collection.metadata or {}).get(STATE_KEY)
        self._mirror = str(raw) if raw else ""
        kept = self._state_file.read(self._mirror) if self._state_file is not None else None
        if kept is not None:
            return kept
        if not raw:
            return {}
        try:
            state = json.loads(str(raw))
        except json.JSONDecodeError as e:
            raise StorageError("error.memory.state_corrupt", cause=str(e)) from e
        return state if isinstance(state, dict) else {}

    def _save_state(self, *, mirror: bool = True) -> None:
        """Persist the state: in Chroma's collection metadata, then the state file (an
        embedded store). ``mirror=False`` (a move of the turn alone) writes only the file,
        once Chroma holds a state (see :mod:`aizac.memory.state_file`)."""
        with self._lock:
            state = {
                "version": 1, "turn": self._turn, "short": self.short_term.items(),
                "short_turn": self.short_term.last_key, "held": self._held,
                "hints": self.rows.hints_current,
            }
            file = self._state_file
            mirror = mirror or file is None or not self._mirror
            if mirror:
                payload = json.dumps(state, ensure_ascii=False)
                try:
                    self.collection.modify(
                        metadata={STATE_KEY: payload, FINGERPRINT_KEY: self._fingerprint}
                    )
                except Exception as e:
                    raise StorageError("error.memory.save_state", cause=str(e)) from e
                self._mirror = payload
            if file is None:
                return
            try:
                file.write(state, self._mirror)
            except StorageError:
                if mirror and file.drop():
                    return  # Chroma holds this state: without the file it is what is read
                raise

    def _hold_current(self) -> None:
        """Give every current fact the liveness it has now (a store written before current
        states, rules and open threads were held against forgetting kept them fading): one
        pass over the current rows, once per store, recorded in its state."""
        from aizac.memory.records import live_until

        with self._lock:
            self._held = True  # an empty store has nothing to change: its next write says so
            if not self.rows.count():
                return
            got = self.rows.get_paged({"superseded_by": ""})
            changed = {
                mid: {"live_until": live_until(meta)}
                for mid, meta in zip(got["ids"], got["metadatas"], strict=True)
                if meta and "forget_at" in meta
                and float(meta.get("live_until", 0.0)) != live_until(meta)
            }
            if changed:
                self.rows.update(changed)
            self._save_state()

    def _raise_current_hints(self) -> None:
        """Give the index hints of current rows the floor slot lookups rely on (an index an
        older aizac wrote hinted forgotten ones like superseded ones): once per store,
        recorded in its state."""
        with self._lock:
            self.rows.raise_current_hints()
            self.rows.hints_current = True
            if self.rows.count():
                self._save_state()

    def reload(self) -> None:
        """Read the turn and the short-term summaries again from the store, and drop what was
        cached from its rows: another process wrote the project since."""
        with self._lock:
            self.collection = self.rows.chroma(
                lambda: self.client.get_collection(self.collection.name, embedding_function=None)
            )
            self.rows.collection = self.collection
            state = self._load_state()
            self._turn = int(state.get("turn", 0))
            self.rows.hints_current = self.rows.hints_current or bool(state.get("hints"))
            self.short_term.restore(list(state.get("short", [])), state.get("short_turn"))
            self.rows.version += 1  # read caches (the cast) are stale

    def refresh(self) -> None:
        """:meth:`reload`, then finish or drop what a killed process left half written (a
        pending commit, a short key index); call under the project's step lock."""
        with self._lock:
            self.reload()
            self.rows.sync_index()
            self.commits.recover()

    @property
    def turn(self) -> int:
        """The current story turn (persisted with the store)."""
        return self._turn

    def advance(self, turns: int = 1) -> int:
        """Move the story on by ``turns``; rewrites no memory. Returns the new turn."""
        if isinstance(turns, bool) or not isinstance(turns, int) or turns < 0:
            raise InvalidInputError("error.memory.advance", got=repr(turns))
        return self.set_turn(self._turn + turns)

    def set_turn(self, turn: int) -> int:
        """Set the story turn (e.g. rewind after undoing an accepted beat)."""
        if isinstance(turn, bool) or not isinstance(turn, int) or turn < 0:
            raise InvalidInputError("error.memory.turn", got=repr(turn))
        with self._lock:
            previous, self._turn = self._turn, turn
            try:
                self._save_state(mirror=False)  # the turn alone: the state file, not Chroma
            except StorageError:
                self._turn = previous
                raise
            return self._turn

    def finish_beat(self, summary: str, *, turns: int = 1, ids: Sequence[str] = ()) -> int:
        """Add a beat's summary and advance the turn in ONE write (returns the new turn).

        A crash cannot leave the summary added but the turn not advanced (or the reverse), so
        recovery never adds a summary twice. ``ids`` (the beat's committed memories) records
        the summary with their commit, for :meth:`undo_commit` snapshots.
        """
        if isinstance(turns, bool) or not isinstance(turns, int) or turns < 0:
            raise InvalidInputError("error.memory.finish_beat", got=repr(turns))
        with self._lock:
            short = self.short_term
            before, before_key, on_change = short.items(), short.last_key, short.on_change
            short.on_change = None  # one write below, not two
            try:
                short.add(summary)
                previous, self._turn = self._turn, self._turn + turns
                try:
                    self._save_state()
                except StorageError:
                    self._turn = previous
                    short.restore(before, before_key)
                    raise
            finally:
                short.on_change = on_change
            batch = self.commits.batch_of(list(ids)) if ids else ""
            if batch:
                with contextlib.suppress(StorageError):
                    self.commits.journal.set_summary(batch, summary)
            return self._turn

    # ----------------------------------------------------------------- helpers

    def embed(self, text: str, *, query: bool = False) -> list[float]:
        """The vector for a document (or, with ``query=True``, a query) ``text``."""
        if query:
            try:
                return list(self.embeddings.embed_query(text))
            except Exception as e:
                raise embedding_error(e) from e
        return self.embed_many([text])[0]

    def embed_many(self, texts: list[str]) -> list[list[float]]:
        """Vectors of many documents in ONE call to the embeddings (one HTTP request)."""
        return embed_texts(self.embeddings, texts)

    def default_strength(self, tag: str, strength: float | None = None) -> float:
        """``strength`` if given, else the tag's default from settings."""
        if strength is not None:
            return check_strength(strength)
        return self.settings.tag_strengths()[check_tag(tag)]

    # ----------------------------------------------------------------- writing

    def remember(self, text: str, tag: str, **fields: Any) -> str:
        """Store one fact now and return its id (validated first; nothing half-written).

        ``fields`` are those of :class:`~aizac.memory.records.MemoryFields` (their one home):
        ``character_name``, ``character1``/``character2``, ``keyword``, ``chapter``,
        ``beat``, ``strength``, ``pinned``, ``aliases``, ``foreshadow``, ``aspect``,
        ``conflicts``, ``extra``.
        ``aspect`` makes a Character fact a state of that aspect (see
        :data:`aizac.memory.facts.ASPECTS`), ``aspect="rule"`` a NovelSetting a world rule keyed
        by its keyword: the new fact then supersedes the current one of that slot.

        Raises:
            InvalidInputError: unknown tag, empty text, missing or misplaced character fields,
                a relation of a character with itself, bad numbers or extra metadata.
        """
        batch = CandidateBatch(self)
        batch.remember(text, tag, **fields)
        return batch.commit()[0]

    def supersede(self, memory_id: str, text: str, **changes: Any) -> str:
        """Replace a fact by a new version (keeps the old one as history). Returns the new id.

        ``changes`` may set ``chapter``, ``beat``, ``strength``, ``keyword``, ``pinned``,
        ``aliases`` and ``extra``; the tag and characters carry over from the old version.
        """
        batch = CandidateBatch(self)
        batch.supersede(memory_id, text, **changes)
        return batch.commit()[0]

    def stage(self) -> CandidateBatch:
        """A new candidate batch: staged memories stay invisible until ``commit()``."""
        return CandidateBatch(self)

    def offer(self, names: Sequence[str], text: str = "",
              newcomers: Sequence[tuple[str, Sequence[str], str]] = ()) -> Offer:
        """What an extraction of a beat is shown, with ids it refers by: the scene's cast
        (``names`` as the beat calls them, and ``newcomers`` it introduces), their current facts
        and relations, the rules in force and the open threads (bounded;
        :mod:`aizac.memory.offering`)."""
        from aizac.memory.offering import gather_offer

        return gather_offer(self, names, text, newcomers=newcomers)

    def strike(self, memory_id: str) -> str:
        """Strike a fact out as the writer's retcon: it was never true, at any turn (kept, shown
        struck in the history). When it had replaced an earlier version, that version is
        current again. Returns the commit's batch id (:meth:`undo_commit` takes it back).

        Raises:
            NotFoundError: no such memory.
            InvalidInputError: it is already struck.
        """
        from aizac.memory.staging import new_id

        with self._lock:
            hit = self.get(memory_id)
            if hit.metadata.get("struck"):
                raise InvalidInputError("error.memory.already_struck", id=memory_id)
            edits: dict[str, dict[str, Any]] = {memory_id: {"struck": True}}
            before = str(hit.metadata.get("supersedes") or "")
            if before and not hit.superseded:
                edits[before] = {"superseded_by": "", "ended_turn": -1}
            batch = new_id()
            self.commits.commit([], batch=batch, edits=edits)
            return batch

    def checked(self, ids: Sequence[str]) -> str:
        """The writer looked at flagged facts and they are right: their flags are cleared (one
        commit, undoable). Returns the batch id."""
        from aizac.memory.staging import new_id

        batch = new_id()
        with self._lock:
            self.commits.commit([], batch=batch, edits={i: {"flag": ""} for i in ids})
        return batch

    def state_at(self, name: str, turn: int) -> list[MemoryHit]:
        """What was true of character ``name`` at story turn ``turn``: for each slot the
        version that held it then (it had become true, no later version had taken over, the
        writer has not struck it), newest slot first. History is never lost: this reads
        superseded versions too."""
        return self.lookups.state_at(name, turn)

    def relation_at(self, a: str, b: str, turn: int) -> MemoryHit | None:
        """The relation of the pair at story turn ``turn`` (see :meth:`state_at`)."""
        return self.lookups.relation_at(a, b, turn)

    def pin(self, memory_id: str) -> None:
        """Make a memory core: never forgotten (until unpinned); a forgotten one comes back."""
        self.recaller.pin(memory_id)

    def unpin(self, memory_id: str) -> None:
        """Return a pinned memory to normal decay, starting from the current turn."""
        self.recaller.unpin(memory_id)

    def forget(self, memory_id: str) -> None:
        """Stop serving a memory now (it stays on disk; :meth:`restore` brings it back)."""
        self.recaller.forget(memory_id)

    def restore(self, memory_id: str) -> None:
        """Serve a forgotten or decayed memory again, as if it had just been recalled."""
        self.recaller.restore(memory_id)

    def reinforce(self, ids: Sequence[str]) -> list[MemoryHit]:
        """Recall effect without a query: strength += 1 and time restarts. Returns the hits."""
        return self.recaller.reinforce(ids)

    def release(self) -> None:
        """Close every file this memory holds open (its key index, its journal and, when
        embedded, its Chroma store), before its folder is deleted. The memory is unusable
        afterwards."""
        if self.rows.index is not None:
            self.rows.index.close()
        self.commits.journal.close()
        if self._owns_client:
            with contextlib.suppress(Exception):
                self.client.close()

    def close(self) -> None:
        """Release an in-memory store (persistent stores need no closing)."""
        if self._ephemeral:
            with contextlib.suppress(Exception):
                self.client.delete_collection(self.collection.name)
            if self.rows.index is not None:
                self.rows.index.close()
            self.commits.journal.close()

    # ----------------------------------------------------------------- reading

    def recall(
        self,
        query: str,
        k: int = 5,
        where: Where | None = None,
        reinforce: bool = True,
        include_forgotten: bool = False,
        include_superseded: bool = False,
        tag: str | None = None,
        cued: bool = False,
    ) -> list[MemoryHit]:
        """The ``k`` memories most similar to ``query`` among those served now.

        ``where`` is a Chroma filter on the metadata (``tag``, ``character_name``, ``chapter``,
        ``last_turn``, ``memory_strength``, ``pinned``...), ANDed with the live filter. Returned
        hits are reinforced (unless ``reinforce=False``) and show the state after that.
        ``cued``: the current states of a character the filter names (or the current relation
        of a pair) are found even when they faded (see :meth:`Recall.recall`).
        """
        return self.recaller.recall(
            query, k, where, reinforce, include_forgotten, include_superseded, tag, cued
        )

    def get(self, memory_id: str) -> MemoryHit:
        """One memory in whatever state it is (raises :class:`NotFoundError` if unknown)."""
        return self.lookups.get(memory_id)

    def get_where(
        self,
        where: Where | None,
        limit: int | None = None,
        *,
        include_forgotten: bool = False,
        include_superseded: bool = False,
    ) -> list[MemoryHit]:
        """Exact metadata lookup (no similarity, no reinforcement), served memories only by
        default; newest first (chapter, beat, creation turn)."""
        return self.lookups.get_where(
            where, limit, include_forgotten=include_forgotten,
            include_superseded=include_superseded,
        )

    def relations(self, a: str, b: str) -> list[MemoryHit]:
        """Every live CharacterRelation of the pair ``a``-``b`` (either order), newest first."""
        return self.lookups.relations(a, b)

    def relation(self, a: str, b: str) -> MemoryHit | None:
        """The current relation of the pair ``a``-``b``, or ``None``."""
        return self.lookups.relation(a, b)

    def character_state(self, name: str) -> list[MemoryHit]:
        """Live Character memories of ``name`` (or a character it is an alias of), newest first."""
        return self.lookups.character_state(name)

    def characters(self) -> dict[str, list[str]]:
        """Canonical name -> aliases of the live cast (cached until the next write)."""
        return self.lookups.characters()

    def resolve_name(self, name: str) -> str:
        """The canonical character name for ``name`` or one of its aliases (else ``name``)."""
        return self.lookups.resolve_name(name)

    def open_foreshadowing(self) -> list[MemoryHit]:
        """Foreshadowing not yet paid off (live and current)."""
        return self.lookups.open_foreshadowing()

    def world_rules(self) -> list[MemoryHit]:
        """Current world rules, newest first."""
        return self.lookups.world_rules()

    def history(self, memory_id: str) -> list[MemoryHit]:
        """Every version of the fact ``memory_id`` belongs to, oldest first."""
        return self.lookups.history(memory_id)

    def current_states(self, name: str) -> list[MemoryHit]:
        """The current state of each aspect of ``name``, faded or not: what a scene with this
        character recalls on its cue (see :meth:`character_state` for what is live)."""
        return self.lookups.current_states(name)

    def current_relation(self, a: str, b: str) -> MemoryHit | None:
        """The current relation of the pair, faded or not: recalled when both are in a scene."""
        return self.lookups.current_relation(a, b)

    def current_rule(self, keyword: str) -> MemoryHit | None:
        """The current world rule of ``keyword``, faded or not: recalled when a scene names it."""
        return self.lookups.current_rule(keyword)

    def cued_settings(self, keywords: Sequence[str]) -> list[MemoryHit]:
        """Current settings (rules, places) with one of ``keywords``, faded or not: what a
        scene that names them recalls."""
        return self.lookups.cued_settings(keywords)

    def setting_keywords(self) -> list[str]:
        """Keywords of the current settings, faded or not."""
        return self.lookups.setting_keywords()

    def conflicts(self) -> list[tuple[MemoryHit, MemoryHit]]:
        """Pairs of facts kept side by side for the writer to settle (the model could not
        say which slot holds the fact): ``(flagged, other)``; see :meth:`settle`."""
        return self.lookups.conflicts()

    def settle(self, flagged: str, other: str, keep: str) -> str:
        """Settle a flagged pair (one of :meth:`conflicts`); returns the commit's batch id
        (:meth:`undo_commit` takes it back).

        ``keep``: ``"flagged"`` — the newer fact replaces the other (takes its slot, the other
        becomes its history); ``"other"`` — the flagged fact is taken out (forgotten,
        restorable); ``"both"`` — they do not conflict, both stay.

        Raises:
            NotFoundError: ``flagged``/``other`` is not a pair waiting to be settled.
            InvalidInputError: ``keep`` is none of the three.
        """
        from aizac.errors import NotFoundError
        from aizac.memory.facts import fact_slot
        from aizac.memory.records import split_ids
        from aizac.memory.staging import new_id

        if keep not in ("flagged", "other", "both"):
            raise InvalidInputError("error.memory.settle_keep", keep=keep)
        with self._lock:
            pair = next(((a, b) for a, b in self.conflicts() if a.id == flagged and b.id == other),
                        None)
            if pair is None:
                raise NotFoundError("error.memory.no_conflict", flagged=flagged, other=other)
            new, old = pair
            rest = [i for i in split_ids(new.metadata.get("conflicts"))
                    if i != other and all(h.id != i for h in self.history(other))]
            edits: dict[str, dict[str, Any]] = {new.id: {"conflicts": "|".join(rest)}}
            if keep == "flagged":
                edits[old.id] = {"superseded_by": new.id}
                edits[new.id]["supersedes"] = old.id
                if old.tag == new.tag and fact_slot(old.metadata) and not fact_slot(
                        new.metadata):
                    edits[new.id]["aspect"] = old.metadata["aspect"]
                    if old.metadata.get("aspect") == "rule":  # the revision continues its rule
                        edits[new.id]["keyword"] = old.metadata.get("keyword", "")
                        edits[new.id]["lineage"] = fact_slot(old.metadata).removeprefix("rule|")
            elif keep == "other":
                edits[new.id]["forgotten"] = True
            batch = new_id()
            self.commits.commit([], batch=batch, edits=edits)
            return batch

    def all(
        self, include_forgotten: bool = True, include_superseded: bool = True
    ) -> list[MemoryHit]:
        """Every stored memory (for the inspector), newest first."""
        return self.get_where(
            None, include_forgotten=include_forgotten, include_superseded=include_superseded
        )

    # ----------------------------------------------------------- commits (Commits)

    def undo_commit(self, target: str | Sequence[str]) -> CommitSnapshot:
        """Undo one commit: delete what it added, make what it superseded current again, and
        put back what it reinforced or closed.

        ``target`` is the commit's batch id (``CandidateBatch.batch_id``) or the ids it added
        (what ``batch.commit()`` returned). Returns the commit's :class:`CommitSnapshot`, which
        the journal keeps, so :meth:`redo_commit` can put back exactly the same memories.

        Raises:
            NotFoundError: an id does not exist (nothing is changed).
            InvalidInputError: a memory to undo was superseded by a later change, or the commit
                is already undone.
        """
        return self.commits.undo(target)

    def redo_commit(self, batch_id: str) -> list[str]:
        """Put back exactly what an undone commit wrote: the same ids, documents, metadata,
        vectors, supersede marks and reinforcement; no model or embedding call.

        The turn and short-term summary are the caller's: ``snapshot.turn`` and
        ``snapshot.summary`` (from :meth:`undo_commit`) say what they were. Returns the ids.
        """
        return self.commits.redo(batch_id)

    def batch_of(self, ids: Sequence[str]) -> str:
        """The batch id of the commit that added ``ids`` (``""`` if unknown)."""
        return self.commits.batch_of(ids)

    def __len__(self) -> int:
        """Number of stored memories, including forgotten and superseded ones."""
        return self.rows.count()

    def __repr__(self) -> str:
        return f"WriterMemory(collection={self.collection.name!r}, turn={self._turn})"


def open_server_memory(
    clients: ChromaClients,
    namespace: str | None,
    *,
    memory_dir: Path,
    project: str,
    created_at: float,
    embeddings: Any,
    settings: Settings,
    tables: Any = None,
    adopt: Any = None,
) -> WriterMemory:
    """The memory of a project on the Chroma server: its collection in the namespace's
    database (:mod:`aizac.memory.chroma_client`), its key index and commit journal in
    ``memory_dir`` (or, with ``tables``, the project's rows on the server database).

    Raises:
        StorageError: the server cannot be reached (says what to do), or the collection was
            written with other embeddings.
    """
    client = clients.client(namespace=namespace)
    try:
        memory_dir.mkdir(parents=True, exist_ok=True)  # the key index and journal live here
    except OSError as e:
        raise StorageError("error.memory.folder", path=str(memory_dir), cause=str(e)) from e
    try:
        return WriterMemory(
            path=memory_dir, collection=project_collection(project, created_at),
            client=client, embeddings=embeddings, settings=settings, tables=tables,
            adopt=adopt,
        )
    except StorageError as e:
        unreachable = server_unreachable(settings, e)
        if unreachable is not None:
            raise unreachable from e
        raise
