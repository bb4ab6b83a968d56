"""The project service the CLI and the web app share: :class:`Studio`.

A :class:`Studio` owns what is shared between projects (settings, the model router, the cliché
database, the embeddings) and hands out one :class:`~aizac.writer.agent.WriterAgent` per project.
Models are injected through ``models=`` (role -> chat model) or a whole ``router=``, which is
how tests and the web app's tests run without a provider.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import threading
import uuid
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain_core.language_models import BaseChatModel

from aizac.cliches.view import ProjectCliches
from aizac.errors import (
    AizacError,
    DamagedError,
    InvalidInputError,
    NotFoundError,
    StorageError,
)
from aizac.keywords import split_keywords
from aizac.memory.chroma_client import (
    ChromaClients,
    namespace_database,
    project_collection,
    server_mode,
)
from aizac.settings import Settings, get_settings
from aizac.storage.database import forget_folder
from aizac.text.message import Text
from aizac.writer import episode
from aizac.writer.agent import WriterAgent
from aizac.writer.checked import CheckedRouter
from aizac.writer.context import ContextBuilder
from aizac.writer.ports import Cliches, ProjectMemory, Router
from aizac.writer.project import ProjectInfo, ProjectStore, Seed, validate_project_name
from aizac.writer.project_dirs import claim_project, release_project
from aizac.writer.prompts import LANGUAGES, PromptLibrary

if TYPE_CHECKING:
    from aizac.memory.reindex import ReindexReport
    from aizac.storage.catalog import Catalog
    from aizac.upkeep.backup import BackupReport
    from aizac.upkeep.check import CheckReport
    from aizac.upkeep.restore import RestoreReport

CURRENT_FILE = "current_project"
MAX_KEYWORDS = 12
MAX_KEYWORD_CHARS = 30

MemoryFactory = Callable[[ProjectStore], ProjectMemory]


def cliche_embeddings(embeddings: Any) -> Any:
    """The embeddings of the trope index: the configured ones, except that an in-process
    model (``e5``, ``use``) gives way to the hash there.

    The index is rebuilt whenever ``beats.csv`` changes and must be ready at the first plot;
    its 612 documents are long (about 190 e5 tokens each, English and Korean columns) and it
    is searched by genre keywords and trope names, which the hash matches. e5 took 140 s of
    CPU (329 s wall at load 10) to build it here, the hash 1.6 s (both with the Chroma
    writes); story memories are short facts (about 20 ms each) and get the semantic model.
    """
    from aizac.llm.embeddings import HashingEmbeddings
    from aizac.llm.local_embeddings import E5Embeddings, UseEmbeddings

    if isinstance(embeddings, E5Embeddings | UseEmbeddings):
        return HashingEmbeddings()
    return embeddings


def memory_notice(agent: WriterAgent) -> Text | None:
    """What to run when the project's memory still uses other embeddings than the configured
    ones (it opened with its own; ``aizac reindex`` converts it), else ``None``."""
    from aizac.llm.embeddings import embedding_label

    needed = agent.memory.reindex_needed
    if not needed:
        return None
    written, configured = needed
    return Text(
        "notice.memory.reindex", project=agent.info.name, written=embedding_label(written),
        configured=embedding_label(configured),
    )


def cast_names(memory: Any) -> list[str]:
    """Every name and alias of the cast the memory knows (for the quality check)."""
    return [n for name, aliases in memory.characters().items() for n in (name, *aliases)]


def parse_keywords(keywords: str | list[str]) -> list[str]:
    """Keywords from ``"회귀, 복수"`` or a list: stripped, deduplicated, bounded (pure)."""
    out = split_keywords(keywords)
    if len(out) > MAX_KEYWORDS or any(len(k) > MAX_KEYWORD_CHARS for k in out):
        raise InvalidInputError("error.keywords.too_many", most=MAX_KEYWORDS,
                                chars=MAX_KEYWORD_CHARS)
    return out


def opening_damage(error: BaseException, directory: Path) -> DamagedError | None:
    """The damage in ``error`` (a project's store failed to open) said with the project's
    newest backup, else ``None``."""
    from aizac.upkeep.layout import with_backup

    return with_backup(error, directory)


class Studio:
    """Create, list and open projects; each open project is a :class:`WriterAgent`.

    Args:
        settings: aizac settings (default: :func:`get_settings`).
        router: a model router; default ``ModelRouter(settings, models=models)``.
        models: role -> chat model to inject (tests, the web app's tests).
        embeddings: LangChain embeddings for memory and clichés (default: from settings).
        cliches: a cliché database (default: ``ClicheDB`` under the data directory).
        memory_factory: builds a project's memory from its store (default: ``WriterMemory``
            in ``<project>/memory``).
        beats_per_episode, context_tokens, context_builder, concurrent_extraction: passed to
            every :class:`WriterAgent`.
        episode_length, combined_extraction: passed to every agent too. ``beats_per_episode``
            and ``episode_length`` are defaults: a project's own values (:meth:`create`,
            ``agent.episodes.set``) win; unset, settings and the language default apply.
        owner_wait: seconds to wait for a project that another aizac process has open before
            saying which process holds it (embedded, a project is written by one process at a
            time; on the server database, ``AIZAC_DATABASE_URL``, any process may write any
            project: the database serialises their steps).
        chroma_namespace: the memory namespace on a Chroma server (``AIZAC_CHROMA_HOST``): a
            database of its own, e.g. one per user sandbox; ignored with embedded Chroma.
        chroma_clients: Chroma clients to share between Studios (default: this Studio's own).
        owner: whose projects these are on the server database (``AIZAC_DATABASE_URL``): a
            user id on ``aizac serve`` (the sandbox sets it); default the Chroma namespace, or
            ``""`` for a single writer.
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        router: Router | None = None,
        models: dict[str, BaseChatModel] | None = None,
        embeddings: Any | None = None,
        cliches: Cliches | None = None,
        memory_factory: MemoryFactory | None = None,
        beats_per_episode: int | None = None,
        context_tokens: int = 900,
        context_builder: ContextBuilder | None = None,
        concurrent_extraction: bool = True,
        episode_length: int | None = None,
        combined_extraction: bool | None = None,
        owner_wait: float = 5.0,
        chroma_namespace: str | None = None,
        chroma_clients: ChromaClients | None = None,
        owner: str | None = None,
    ) -> None:
        self.owner_wait = owner_wait
        self.owner = owner if owner is not None else (chroma_namespace or "")
        self.settings = settings if settings is not None else get_settings()
        self._router = router
        self._models = models
        self._embeddings = embeddings
        self._cliches = cliches
        self._memory_factory = memory_factory
        self.agent_options: dict[str, Any] = {
            "beats_per_episode": beats_per_episode,
            "context_tokens": context_tokens,
            "context_builder": context_builder,
            "concurrent_extraction": concurrent_extraction,
            "episode_length": episode_length,
            "combined_extraction": combined_extraction,
        }
        self.prompts = PromptLibrary(self.settings.data_dir / "prompts")
        self._agents: dict[str, WriterAgent] = {}
        self._lock = threading.RLock()
        if chroma_namespace is not None:
            namespace_database(chroma_namespace)  # a bad namespace fails here, not at open
        self.chroma_namespace = chroma_namespace
        self.chroma_clients = chroma_clients or ChromaClients(self.settings)
        self._catalog: Catalog | None = None

    @property
    def catalog(self) -> Catalog | None:
        """The projects on the server database (``AIZAC_DATABASE_URL``), of this Studio's
        namespace (a user of ``aizac serve``; none for a single writer); ``None`` embedded."""
        url = self.settings.database
        if url is None:
            return None
        with self._lock:
            if self._catalog is None:
                from aizac.storage.catalog import Catalog
                from aizac.storage.database import server_database

                self._catalog = Catalog(server_database(url), self.owner)
            return self._catalog

    # --------------------------------------------------------------------- collaborators
    @property
    def root(self) -> Path:
        return self.settings.data_dir / "projects"

    @property
    def router(self) -> Router:
        with self._lock:
            if self._router is None:
                from aizac.llm.router import ModelRouter

                self._router = ModelRouter(self.settings, models=self._models)
            return self._router

    @property
    def embeddings(self) -> Any:
        with self._lock:
            if self._embeddings is None:
                from aizac.llm.embeddings import embeddings_from_spec

                self._embeddings = embeddings_from_spec(self.settings.embedding, self.settings)
            return self._embeddings

    @property
    def cliches(self) -> Cliches:
        with self._lock:
            if self._cliches is None:
                from aizac.cliches import ClicheDB

                self._cliches = ClicheDB(
                    self.settings.cliches_dir or self.settings.data_dir / "cliches",
                    embeddings=cliche_embeddings(self.embeddings),
                )
            return self._cliches

    def open_memory(self, store: ProjectStore) -> ProjectMemory:
        """The memory of ``store``'s project as this Studio opens it (no agent, nothing
        repaired: e.g. for the invariant checker)."""
        return self._memory(store)

    def _memory(self, store: ProjectStore, adopt: Callable[[str], Any] | None = None
                ) -> ProjectMemory:
        if self._memory_factory is not None:
            return self._memory_factory(store)
        # A project written with other embeddings opens with its own (when they can be built
        # here) and says so (memory_notice); `aizac reindex` moves it to the configured ones.
        from aizac.llm.embeddings import embeddings_for_fingerprint

        adopt = adopt or embeddings_for_fingerprint
        # On the server database the key index and the journal are shared rows too.
        tables = store.scope("keys") if store.server else None
        if server_mode(self.settings):
            from aizac.memory.store import open_server_memory

            info = store.info()
            return open_server_memory(
                self.chroma_clients, self.chroma_namespace, memory_dir=store.memory_dir,
                project=info.name, created_at=info.created_at, embeddings=self.embeddings,
                settings=self.settings, adopt=adopt, tables=tables,
            )
        from aizac.memory import WriterMemory
        from aizac.memory.chroma_health import CHROMA_FILE
        from aizac.upkeep.layout import memory_expected

        if not (store.memory_dir / CHROMA_FILE).exists() and memory_expected(store):
            # a project with memories whose store is gone: never made anew, empty
            from aizac.storage.health import damaged

            raise damaged(store.memory_dir / CHROMA_FILE, "missing")
        return WriterMemory(
            path=store.memory_dir, embeddings=self.embeddings, settings=self.settings,
            adopt=adopt, tables=tables,
        )

    def reindex(
        self, name: str | None = None, progress: Callable[[Text], None] | None = None
    ) -> ReindexReport:
        """Re-embed project ``name``'s memory (default: the current project) with the
        configured embeddings, in place, atomically and resumably
        (:mod:`aizac.memory.reindex`); the project is open again afterwards.

        Raises:
            InvalidInputError: the project's memory is not a WriterMemory folder.
            StorageError: the store or the embeddings failed (run it again: it resumes).
        """
        from aizac.llm.embeddings import embedding_fingerprint
        from aizac.memory.reindex import reindex
        from aizac.memory.store import WriterMemory
        from aizac.upkeep.backup import backup_project

        with self._lock:
            store, memory = self._to_reindex(name)
            if not isinstance(memory, WriterMemory):
                raise InvalidInputError("error.memory.reindex_in_memory")

            def report(done: int, total: int) -> None:
                if progress is not None:
                    progress(Text("progress.reindex", done=done, total=total))

            with store.lock():
                if memory.fingerprint != embedding_fingerprint(self.embeddings):
                    # a reindex rewrites the whole memory: the project as it was is kept first
                    backup_project(store, self.settings, reason="before-reindex",
                                   memory=memory)
                result = reindex(memory, self.embeddings, progress=report)
            project = store.info().name
            if result.switched:  # the agent's memory points at the old collection: reopen
                old = self._agents.pop(project, None)
                if old is None:
                    memory.release()
                self.open(project)
            return result

    def _to_reindex(self, name: str | None) -> tuple[ProjectStore, ProjectMemory]:
        """The project ``name``'s store and memory, for a reindex: as it opens; or, when its
        memory was written with embeddings that cannot be built here (an API model no longer
        configured), opened on its stored vectors alone, which is all a reindex reads."""
        from aizac.memory.reindex import any_embedding

        try:
            agent = self.open(name)
            return agent.store, agent.memory
        except StorageError as e:
            if e.key != "error.memory.embedding_changed":
                raise
        clean = validate_project_name(name) if name else self.current_name()
        if clean is None:
            raise NotFoundError("error.project.none_selected")
        store = ProjectStore.open(self.root, clean, catalog=self.catalog)
        if not store.server:
            claim_project(store.directory, wait=self.owner_wait)
        return store, self._memory(store, adopt=any_embedding)

    # ------------------------------------------------------------ check, back up, restore
    def check(self, name: str) -> CheckReport:
        """Verify every store of project ``name`` (:mod:`aizac.upkeep.check`); nothing is
        changed but what any open repairs. An open project is checked through the memory it
        holds."""
        from aizac.memory.reindex import any_embedding
        from aizac.upkeep.check import check_project

        clean = validate_project_name(name)
        self._finish_restores()
        with self._lock:
            held = self._agents.get(clean)
        if held is not None:
            return check_project(self.root, clean, catalog=self.catalog,
                                 open_memory=lambda _: (held.memory, False))
        return check_project(self.root, clean, catalog=self.catalog,
                             open_memory=lambda store: (
                                 self._memory(store, adopt=any_embedding), True))

    def backup(self, name: str, *, reason: str = "", target: Path | None = None
               ) -> BackupReport:
        """A consistent backup of project ``name`` (:mod:`aizac.upkeep.backup`), taken while
        another process (the web app) may have it open: it is held still for the copy, not
        claimed."""
        from aizac.upkeep.backup import backup_project

        clean = validate_project_name(name)
        with self._lock:
            held = self._agents.get(clean)
        if held is not None:
            return backup_project(held.store, self.settings, reason=reason,
                                  memory=held.memory, target=target)
        try:
            store = ProjectStore.open(self.root, clean, catalog=self.catalog)
        except AizacError as e:
            said = opening_damage(e, self.root / clean)
            if said is None:
                raise
            raise said from e
        if not server_mode(self.settings):
            return backup_project(store, self.settings, reason=reason, target=target)
        from aizac.memory.reindex import any_embedding

        with store.lock():  # the memory is opened (and repaired) with the project held
            memory = self._memory(store, adopt=any_embedding)
            try:
                return backup_project(store, self.settings, reason=reason, memory=memory,
                                      target=target)
            finally:
                memory.release()

    def restore(self, archive: Path, name: str | None = None) -> RestoreReport:
        """Put the backup ``archive`` back as project ``name`` (default: its own), all or
        nothing (:mod:`aizac.upkeep.restore`). Refused while a process (this one included)
        has the project open."""
        from aizac.upkeep.restore import restore_backup

        if name is not None:
            with self._lock:
                agent = self._agents.pop(validate_project_name(name), None)
            if agent is not None:  # this process lets it go first
                agent.memory.release()
                release_project(agent.store.directory)
        return restore_backup(Path(archive), self.root, self.settings, name=name,
                              catalog=self.catalog, owner_wait=self.owner_wait)

    def _finish_restores(self) -> None:
        """Finish what a killed restore left (cheap when there is nothing)."""
        from aizac.upkeep.restore import finish_restores

        finish_restores(self.root, self.settings, catalog=self.catalog, wait=0.0)

    # -------------------------------------------------------------------------- projects
    def projects(self) -> list[ProjectInfo]:
        """Every project in the data directory, most recently created last.

        A project that cannot be read (a damaged file: its folder's quick look, or its rows)
        is listed with its :attr:`~ProjectInfo.problem`, its hint naming its newest backup;
        the others are read as always."""
        catalog = self.catalog
        self._finish_restores()
        names = ProjectStore.list_names(self.root, catalog=catalog)
        from aizac.upkeep.layout import project_info

        return sorted((project_info(self.root, n, catalog) for n in names),
                      key=lambda i: i.created_at)

    def create(
        self,
        name: str,
        keywords: str | list[str],
        *,
        genre: str = "",
        language: str | None = None,
        beats_per_episode: int | None = None,
        episode_length: int | None = None,
        seed: Seed | None = None,
    ) -> WriterAgent:
        """A new project (made current). Nothing is generated yet: call ``plan()``.

        ``beats_per_episode`` and ``episode_length`` (characters for ko/zh, words for en) are
        the project's own episode length; unset, the service's defaults apply. ``seed``: the
        story it starts with (an imported manuscript), stored with the project in one unit
        (:meth:`ProjectStore.create`), its episode length too."""
        lang = language or self.settings.language
        if lang not in LANGUAGES:
            raise InvalidInputError("error.project.language", language=str(lang),
                                    choices=", ".join(LANGUAGES))
        if len(genre) > 40:
            raise InvalidInputError("error.project.genre_long", limit=40)
        # A project made from a story (an imported manuscript) may start without keywords.
        words = parse_keywords(keywords) if keywords or seed is None else []
        episode.check(beats_per_episode, episode_length)
        own = beats_per_episode is not None or episode_length is not None
        if seed is not None and own:
            seed = replace(seed, kv={**seed.kv, episode.STORE_KEY: episode.dumps(
                beats=beats_per_episode, length=episode_length)})
        store = ProjectStore.create(
            self.root, name, language=lang, genre=genre.strip(), keywords=words,
            catalog=self.catalog, seed=seed,
        )
        try:
            if own and seed is None:
                episode.save(store, beats=beats_per_episode, length=episode_length)
            return self.open(store.info().name)
        except BaseException:
            # A create that could not open its memory (a Chroma server that is down) leaves no
            # project behind: the writer was told it failed.
            with contextlib.suppress(Exception):
                if store.server:
                    from aizac.writer.server_projects import drop_project

                    drop_project(store, self.settings)
                self._forget(store.directory.name, store)
            raise

    def delete(self, name: str) -> None:
        """Delete the project ``name`` for good: its memory (its collection on a Chroma
        server too) and its folder. Waits for the project's running writes.

        Raises:
            NotFoundError: no such project.
            StorageError: the Chroma server cannot delete its memory (nothing was deleted).
        """
        clean = validate_project_name(name)
        with self._lock:
            try:
                store = ProjectStore.open(self.root, clean, catalog=self.catalog)
            except DamagedError:
                # A damaged project is deleted when its writer asks for it, as it is.
                directory = self.root / clean
                self._forget(clean, ProjectStore(directory))
                return
            with store.lock():
                if server_mode(self.settings):
                    info = store.info()
                    self.chroma_clients.drop_collection(
                        self.chroma_namespace, project_collection(info.name, info.created_at))
                if store.server:
                    # Its rows in every table and its checkpoints (embedded, they are files
                    # of the folder).
                    from aizac.writer.server_projects import drop_project

                    drop_project(store, self.settings)
                self._forget(clean, store)

    def _forget(self, name: str, store: ProjectStore) -> None:
        """Close the project's open files, give up its claim, remove its folder (renamed
        aside first, so a half-removed folder is never taken for a project)."""
        agent = self._agents.pop(name, None)
        if agent is not None:
            agent.memory.release()
        release_project(store.directory)
        forget_folder(store.directory)  # a pooled connection would outlive the removed files
        if store.server and not store.directory.exists():
            return  # on the server database a project's folder only holds its files
        aside = self.root / f".deleted-{uuid.uuid4().hex[:12]}"
        try:
            os.rename(store.directory, aside)
        except OSError as e:
            raise StorageError("error.project.delete_failed", name=name, detail=str(e)) from e
        shutil.rmtree(aside, ignore_errors=True)

    def open(self, name: str | None = None) -> WriterAgent:
        """The agent of project ``name`` (default: the current project); made current."""
        if name is None:
            name = self.current_name()
            if name is None:
                raise NotFoundError("error.project.none_selected")
        clean = validate_project_name(name)
        with self._lock:
            agent = self._agents.get(clean)
            if agent is not None:
                agent.store.catch_up()  # another process may have written it since
            else:
                self._finish_restores()
                try:
                    agent = self._open_agent(clean)
                except AizacError as e:
                    said = opening_damage(e, self.root / clean)
                    if said is None:
                        raise
                    from aizac.upkeep.layout import note_damage

                    note_damage(self.root / clean, said)  # the next listing says it too
                    raise said from e
                self._agents[clean] = agent
        self._set_current(clean)
        return agent

    def _open_agent(self, clean: str) -> WriterAgent:
        """A new agent of the project ``clean`` (see :meth:`open`)."""
        store = ProjectStore.open(self.root, clean, catalog=self.catalog)
        if not store.server:
            # One process writes an embedded project: another one's cached turn,
            # summaries and Chroma handles would go stale under it (and lose its
            # writes). On the server database the step lock tells a process what
            # changed (aizac.storage.locks), so any process may write it.
            claim_project(store.directory, wait=self.owner_wait)
        try:
            language = store.info().language
            memory = self._memory(store)
        except BaseException:
            if not store.server:  # a project that does not open is not held (a restore)
                release_project(store.directory)
            raise
        return WriterAgent(
            store,
            memory,
            # Degenerate model output is retried, then refused (the cast's names count
            # as names, not as another language); clichés come in the project's
            # language, relevant ones only.
            CheckedRouter(self.router, lambda: language,
                          names=lambda: cast_names(memory)),
            ProjectCliches(self.cliches, language),
            settings=self.settings,
            prompts=self.prompts,
            **self.agent_options,
        )

    def close(self) -> None:
        """Let other processes open this Studio's projects (the web app's shutdown)."""
        with self._lock:
            for agent in self._agents.values():
                if not agent.store.server:
                    release_project(agent.store.directory)
            self._agents.clear()

    def current_name(self) -> str | None:
        """The most recently used project, if it still exists."""
        path = self.settings.data_dir / CURRENT_FILE
        try:
            name = path.read_text(encoding="utf-8").strip()
        except OSError:
            return None
        if not name:
            return None
        catalog = self.catalog
        if catalog is not None:
            return name if catalog.find(name) is not None else None
        return name if (self.root / name).is_dir() else None

    def _set_current(self, name: str) -> None:
        path = self.settings.data_dir / CURRENT_FILE
        tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(name, encoding="utf-8")
            os.replace(tmp, path)
        except OSError as e:
            raise StorageError("error.project.current", path=str(path), cause=str(e)) from e
