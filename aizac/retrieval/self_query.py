"""Self-query retrieval over WriterMemory, with a safe fallback that never raises.

A question goes to the model, comes back as a structured query, is translated by
:class:`~aizac.retrieval.translator.MemoryFilterTranslator` and searched through
:class:`MemoryVectorStore`, whose search is ``memory.recall``: results are live and current
(unless history is asked for) and are reinforced.

When the model's output cannot be parsed, names an unknown field or character, or the store
rejects the filter, the retriever falls back to a safe query — a tag filter (taken from the
model's filter when it had a valid one, else guessed from the question) plus similarity — and
records why in :attr:`MemorySelfQueryRetriever.last_fallback_reason` and
:attr:`MemorySelfQueryRetriever.fallbacks`.

Two strategies ask the model for the structured query (``build_self_query_retriever(...,
strategy=)``): ``langchain``, LangChain's query constructor prompted with
:func:`~aizac.retrieval.attributes.memory_attributes` (the model writes a filter expression),
and ``structured``, :mod:`aizac.retrieval.question` (the model fills a few schema-constrained
fields, which small local models can do). ``auto`` picks ``structured`` for the local model.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast

from langchain_classic.chains.query_constructor.base import load_query_constructor_runnable
from langchain_classic.retrievers.self_query.base import SelfQueryRetriever
from langchain_core.callbacks.manager import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import BaseChatModel, BaseLanguageModel
from langchain_core.runnables import Runnable, RunnableBinding
from langchain_core.structured_query import FilterDirective, Operation, StructuredQuery
from langchain_core.vectorstores import VectorStore
from pydantic import Field

from aizac.errors import FilterError, InvalidInputError, ModelError, StructuredOutputError
from aizac.llm.methods import default_method
from aizac.llm.profiles import profile_of
from aizac.retrieval.aliases import AliasResolver
from aizac.retrieval.attributes import DOCUMENT_CONTENTS, memory_attributes
from aizac.retrieval.memory_api import Hit, MemoryReader
from aizac.retrieval.question import structured_query_constructor
from aizac.retrieval.routing import (
    EXAMPLES,
    asks_for_history,
    guess_tag,
    rejected_key,
    tag_in_filter,
)
from aizac.retrieval.translator import MemoryFilterTranslator
from aizac.retrieval.who import is_bare_name, who_question

logger = logging.getLogger(__name__)

def hit_to_document(hit: Hit) -> Document:
    """A memory hit as a LangChain document (id, text, metadata plus the derived factor)."""
    meta = dict(hit.metadata)
    meta["id"] = hit.id
    meta["memory_factor"] = hit.memory_factor
    return Document(id=hit.id, page_content=hit.text, metadata=meta)



MAX_FILTER_DEPTH = 16
"""Deeper model-written filters are refused (whatever the interpreter's recursion limit)."""


def filter_depth(node: FilterDirective | None) -> int:
    """Levels of a filter tree, counted without recursion; stops counting past the limit."""
    depth, level = 0, [node] if node is not None else []
    while level and depth <= MAX_FILTER_DEPTH:
        depth += 1
        level = [arg for n in level if isinstance(n, Operation) for arg in n.arguments]
    return depth

class MemoryVectorStore(VectorStore):
    """Read-only LangChain vector store over a WriterMemory; search is ``memory.recall``.

    Args:
        memory: the WriterMemory to read.
        reinforce: whether searches reinforce what they return (the product default).
    """

    def __init__(self, memory: MemoryReader, *, reinforce: bool = True) -> None:
        self.memory = memory
        self.reinforce = reinforce

    @property
    def embeddings(self) -> Embeddings:
        return self.memory.embeddings

    def add_texts(
        self,
        texts: Iterable[str],
        metadatas: list[dict] | None = None,
        *,
        ids: list[str] | None = None,
        **kwargs: Any,
    ) -> list[str]:
        raise InvalidInputError("error.retrieval.read_only")

    @classmethod
    def from_texts(
        cls,
        texts: list[str],
        embedding: Embeddings,
        metadatas: list[dict] | None = None,
        *,
        ids: list[str] | None = None,
        **kwargs: Any,
    ) -> MemoryVectorStore:
        raise InvalidInputError("error.retrieval.wraps_memory")

    def similarity_search(
        self,
        query: str,
        k: int = 5,
        filter: Mapping[str, Any] | None = None,
        include_superseded: bool = False,
        **kwargs: Any,
    ) -> list[Document]:
        """Memories for ``query`` that match ``filter``: live and current ones by similarity.

        With ``include_superseded`` (a question about history) old versions are served too,
        including ones that have faded; when the filter names one fact's key (a pair, a
        character or a keyword) the versions come newest first by an exact lookup.
        """
        where = dict(filter) if filter else None
        if include_superseded and where is not None and is_keyed(where):
            hits = self.memory.get_where(
                where, limit=k, include_forgotten=True, include_superseded=True
            )
            return [hit_to_document(h) for h in hits]
        hits = self.memory.recall(
            query if query.strip() else "memory",
            k=k,
            where=where,
            reinforce=self.reinforce,
            include_superseded=include_superseded,
            include_forgotten=include_superseded,
            # asked about a character or a pair: their current facts are found, faded or not
            cued=where is not None and is_keyed(where) and not include_superseded,
        )
        return [hit_to_document(h) for h in hits]


def _eq_fields(where: Mapping[str, Any]) -> set[str]:
    if "$and" in where:
        return set().union(*(_eq_fields(c) for c in where["$and"]))
    if len(where) != 1:
        return set()
    ((field, cond),) = where.items()
    if field.startswith("$"):
        return set()
    if not isinstance(cond, Mapping) or "$eq" in cond:
        return {field}
    return set()


def is_keyed(where: Mapping[str, Any]) -> bool:
    """Whether a filter pins one fact's key: a relation pair, a character or a keyword."""
    fields = _eq_fields(where)
    return {"character1", "character2"} <= fields or bool({"character_name", "keyword"} & fields)


@dataclass(frozen=True)
class FallbackRecord:
    """Why one question was answered by the safe query instead of the model's filter."""

    question: str
    stage: str
    """``model`` (the call failed), ``parse`` (its output), ``filter`` (translation) or
    ``search`` (the store rejected the filter)."""
    reason: str
    tag: str | None


class MemorySelfQueryRetriever(SelfQueryRetriever):
    """SelfQueryRetriever that falls back to tag filter + similarity instead of raising."""

    fallbacks: list[FallbackRecord] = Field(default_factory=list)
    last_fallback_reason: str | None = None
    last_search: dict[str, Any] = Field(default_factory=dict)
    """Query text and search kwargs of the last search (for inspection and benchmarks)."""
    strategy: str = "langchain"
    """How the model is asked for filters: ``langchain`` (the filter language) or ``structured``
    (fields of :class:`~aizac.retrieval.question.MemoryQuestion`)."""
    max_fallback_log: int = 1000
    resolver: Any = None
    """Alias resolver for "who is X?" questions (answered without the model)."""

    def _run(self, question: str, structured: StructuredQuery | None,
             error: Exception | None) -> list[Document]:
        self.last_fallback_reason = None
        history = asks_for_history(question)
        if isinstance(error, OutputParserException | StructuredOutputError):
            return self._fallback(question, "parse", f"unparsable model output: {error}", None)
        if error is not None and rejected_key(error):
            raise ModelError("error.retrieval.key_refused") from error
        if isinstance(error, RecursionError):
            return self._fallback(question, "parse", "the filter is nested too deeply", None)
        if error is not None or structured is None:  # (no error: the constructor answered)
            return self._fallback(question, "model", f"{type(error).__name__}: {error}", None)
        if filter_depth(structured.filter) > MAX_FILTER_DEPTH:
            return self._fallback(question, "filter", "the filter is nested too deeply", None)
        try:
            new_query, kwargs = self._prepare_query(question, structured)
        except RecursionError:
            return self._fallback(question, "filter", "the filter is nested too deeply", None)
        except (FilterError, ValueError) as e:
            tag = tag_in_filter(structured.filter)
            return self._fallback(question, "filter", str(e), tag)
        if history:
            kwargs["include_superseded"] = True
        if not new_query.strip():
            new_query = question
        self.last_search = {"query": new_query, **kwargs}
        try:
            return self._get_docs_with_query(new_query, kwargs)
        except Exception as e:  # the store rejected the filter: never surface it to the user
            tag = tag_in_filter(structured.filter)
            return self._fallback(question, "search", f"{type(e).__name__}: {e}", tag)

    def _fallback(self, question: str, stage: str, reason: str, tag: str | None) -> list[Document]:
        tag = tag or guess_tag(question)
        reason = reason if len(reason) <= 600 else reason[:600] + "..."
        record = FallbackRecord(question=question, stage=stage, reason=reason, tag=tag)
        self.fallbacks.append(record)
        del self.fallbacks[: -self.max_fallback_log]
        self.last_fallback_reason = f"{stage}: {reason}"
        logger.info("self-query fallback (%s) for %r: %s", stage, question, reason)
        kwargs: dict[str, Any] = {**self.search_kwargs}
        if tag:
            kwargs["filter"] = {"tag": {"$eq": tag}}
        if asks_for_history(question):
            kwargs["include_superseded"] = True
        self.last_search = {"query": question, **kwargs}
        return self.vectorstore.similarity_search(question, **kwargs)

    def _who(self, question: str) -> list[Document] | None:
        """A "who is X?" question about a known character: X's memories, pinned first; about
        a bare name no character has (or one with no memory): nothing (abstain)."""
        name = who_question(question)
        store = self.vectorstore
        if name is None or self.resolver is None or not isinstance(store, MemoryVectorStore):
            return None
        canonical = self.resolver.resolve(name)
        if canonical is None:
            return self._abstain(question, name) if is_bare_name(name) else None
        where = {"$and": [{"tag": {"$eq": "Character"}}, {"character_name": {"$eq": canonical}}]}
        hits = sorted(store.memory.get_where(where), key=lambda h: not h.pinned)
        if not hits:
            return self._abstain(question, name)
        self.last_fallback_reason = None
        self.last_search = {"query": question, "filter": where, "route": "who"}
        return [hit_to_document(h) for h in hits[: int(self.search_kwargs.get("k", 5))]]

    def _abstain(self, question: str, name: str) -> list[Document]:
        self.last_fallback_reason = None
        self.last_search = {"query": question, "route": "abstain", "name": name}
        return []

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        who = self._who(query)
        if who is not None:
            return who
        try:
            structured = self.query_constructor.invoke(
                {"query": query}, config={"callbacks": run_manager.get_child()}
            )
        except Exception as e:  # bad model output or a failed model call: fall back
            return self._run(query, None, e)
        return self._run(query, structured, None)

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        who = self._who(query)
        if who is not None:
            return who
        try:
            structured = await self.query_constructor.ainvoke(
                {"query": query}, config={"callbacks": run_manager.get_child()}
            )
        except Exception as e:
            return self._run(query, None, e)
        return self._run(query, structured, None)


class _MemoryAliases(AliasResolver):
    """Alias resolver over a memory that reloads when the store has grown since last read."""

    def __init__(self, memory: MemoryReader) -> None:
        super().__init__()
        self._memory = memory
        self._loaded_len = -1

    def _load(self) -> None:
        self._loaded_len = len(self._memory)  # first: add() below resolves names
        self._exact.clear()
        self._partial.clear()
        self._canonical.clear()
        # Forgotten characters keep their names: a question may still be about them.
        for hit in self._memory.get_where({"tag": {"$eq": "Character"}}, include_forgotten=True):
            name = str(hit.metadata.get("character_name", ""))
            aliases = [a for a in str(hit.metadata.get("aliases", "")).split("|") if a]
            self.add(name, aliases)
        relations = self._memory.get_where(
            {"tag": {"$eq": "CharacterRelation"}}, include_forgotten=True
        )
        for hit in relations:
            for key in ("character1", "character2"):
                name = str(hit.metadata.get(key, ""))
                if name and self.resolve(name) is None:
                    self.add(name)

    def candidates(self, name: str) -> set[str]:
        if self._loaded_len != len(self._memory):
            self._load()
        return super().candidates(name)


Strategy = Literal["auto", "langchain", "structured"]


def underlying_model(llm: Any) -> Any:
    """The provider model behind bindings (``llm.bind(...)``) and the router's wrapper.

    A routed :class:`~aizac.llm.resilient.ResilientChatModel` is looked through to its primary
    model (the one that answers unless it fails).
    """
    seen = 0
    while seen < 10:  # wrappers nest at most a few levels; never loop on a cycle
        seen += 1
        if isinstance(llm, RunnableBinding):
            llm = llm.bound
        elif profile_of(llm).routed:
            llm = llm.primary
        else:
            break
    return llm


def choose_strategy(llm: Any) -> Literal["langchain", "structured"]:
    """``structured`` for the embedded local model (directly, bound or routed), else ``langchain``.

    Conservative on purpose: only models that decode under a JSON-schema constraint (the local
    llama.cpp model) switch; every other model keeps LangChain's filter language.
    """
    model = underlying_model(llm)
    if isinstance(model, BaseChatModel) and default_method(model) == "constrained":
        return "structured"
    return "langchain"


def _chat_model_for_fields(llm: Any) -> BaseChatModel:
    """The chat model the structured strategy calls (bindings are looked through: it sets its
    own ``response_format``)."""
    model = llm
    while isinstance(model, RunnableBinding):
        model = model.bound
    if not isinstance(model, BaseChatModel):
        raise InvalidInputError("error.retrieval.needs_chat_model", type=type(llm).__name__)
    return model


def build_self_query_retriever(
    memory: MemoryReader,
    llm: BaseLanguageModel | Runnable[Any, Any],
    *,
    k: int = 5,
    alias_map: Mapping[str, Sequence[str]] | None = None,
    reinforce: bool = True,
    strategy: Strategy = "auto",
    retries: int = 2,
) -> MemorySelfQueryRetriever:
    """A self-query retriever over ``memory`` whose filters are written by ``llm``.

    Args:
        memory: the WriterMemory to search.
        llm: any LangChain chat or text model (a fake one in tests), or one bound to
            options such as a JSON-schema ``response_format``.
        k: number of memories returned per question.
        alias_map: ``{canonical: [aliases]}``; by default read from ``memory.characters()``
            (plus relation participants) and refreshed when the store grows.
        reinforce: whether returned memories are reinforced (recalled) — the product default.
        strategy: ``langchain`` asks for a filter in LangChain's filter language (few-shot
            prompt of :data:`EXAMPLES`); ``structured`` asks for the fields of
            :class:`~aizac.retrieval.question.MemoryQuestion` with the JSON schema (what small
            local models can follow); ``auto`` picks ``structured`` for the embedded local model
            (see :func:`choose_strategy`) and ``langchain`` otherwise.
        retries: structured strategy only: extra attempts after output that does not validate.
    """
    if strategy not in ("auto", "langchain", "structured"):
        raise InvalidInputError("error.retrieval.strategy", strategy=str(strategy))
    chosen = choose_strategy(llm) if strategy == "auto" else strategy
    resolver = AliasResolver(alias_map) if alias_map is not None else _MemoryAliases(memory)
    translator = MemoryFilterTranslator(current_turn=lambda: memory.turn, resolver=resolver)
    if chosen == "structured":
        constructor: Runnable[Any, Any] = structured_query_constructor(
            _chat_model_for_fields(llm), retries=retries
        ).with_config(run_name="query_constructor")
    else:
        constructor = load_query_constructor_runnable(
            cast(BaseLanguageModel, llm),  # only piped: any Runnable from prompt to text works
            DOCUMENT_CONTENTS,
            memory_attributes(),
            examples=EXAMPLES,
            allowed_comparators=translator.allowed_comparators,
            allowed_operators=translator.allowed_operators,
        ).with_config(run_name="query_constructor")
    return MemorySelfQueryRetriever(
        llm_chain=constructor,
        vectorstore=MemoryVectorStore(memory, reinforce=reinforce),
        structured_query_translator=translator,
        search_kwargs={"k": k},
        strategy=chosen,
        resolver=resolver,
    )
