"""Retrieval over WriterMemory: self-query filters, relation matrix and the context pack.

The names below are imported on first use (PEP 562): a beat's context pack
(:mod:`aizac.retrieval.context`) does not load the self-query stack (``langchain_classic``,
its LangSmith client, lark, jinja2), which only ``aizac ask`` needs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_HOMES = {
    "DOCUMENT_CONTENTS": "aizac.retrieval.attributes",
    "TAGS": "aizac.retrieval.attributes",
    "TRIM_ORDER": "aizac.retrieval.pack",
    "AliasResolver": "aizac.retrieval.aliases",
    "ContextPack": "aizac.retrieval.pack",
    "FallbackRecord": "aizac.retrieval.self_query",
    "FilterError": "aizac.errors",
    "InvalidFilterValueError": "aizac.errors",
    "MemoryFilterTranslator": "aizac.retrieval.translator",
    "MemoryQuestion": "aizac.retrieval.question",
    "MemorySelfQueryRetriever": "aizac.retrieval.self_query",
    "MemoryVectorStore": "aizac.retrieval.self_query",
    "PackItem": "aizac.retrieval.pack",
    "PackLimits": "aizac.retrieval.context",
    "RelationCell": "aizac.retrieval.matrix",
    "RelationMatrix": "aizac.retrieval.matrix",
    "Scene": "aizac.retrieval.context",
    "Translation": "aizac.retrieval.translator",
    "UnknownCharacterError": "aizac.errors",
    "UnknownFieldError": "aizac.errors",
    "assemble_pack": "aizac.retrieval.pack",
    "build_context": "aizac.retrieval.context",
    "build_self_query_retriever": "aizac.retrieval.self_query",
    "choose_strategy": "aizac.retrieval.self_query",
    "gather_items": "aizac.retrieval.context",
    "memory_attributes": "aizac.retrieval.attributes",
    "normalize_name": "aizac.retrieval.aliases",
    "relation_matrix": "aizac.retrieval.matrix",
    "structured_query_constructor": "aizac.retrieval.question",
    "to_structured_query": "aizac.retrieval.question",
    "trim_order": "aizac.retrieval.pack",
}


__all__ = [
    "DOCUMENT_CONTENTS",
    "TAGS",
    "TRIM_ORDER",
    "AliasResolver",
    "ContextPack",
    "FallbackRecord",
    "FilterError",
    "InvalidFilterValueError",
    "MemoryFilterTranslator",
    "MemoryQuestion",
    "MemorySelfQueryRetriever",
    "MemoryVectorStore",
    "PackItem",
    "PackLimits",
    "RelationCell",
    "RelationMatrix",
    "Scene",
    "Translation",
    "UnknownCharacterError",
    "UnknownFieldError",
    "assemble_pack",
    "build_context",
    "build_self_query_retriever",
    "choose_strategy",
    "gather_items",
    "memory_attributes",
    "normalize_name",
    "relation_matrix",
    "structured_query_constructor",
    "to_structured_query",
    "trim_order",
]

if TYPE_CHECKING:
    from aizac.errors import (
        FilterError,
        InvalidFilterValueError,
        UnknownCharacterError,
        UnknownFieldError,
    )
    from aizac.retrieval.aliases import AliasResolver, normalize_name
    from aizac.retrieval.attributes import DOCUMENT_CONTENTS, TAGS, memory_attributes
    from aizac.retrieval.context import PackLimits, Scene, build_context, gather_items
    from aizac.retrieval.matrix import RelationCell, RelationMatrix, relation_matrix
    from aizac.retrieval.pack import TRIM_ORDER, ContextPack, PackItem, assemble_pack, trim_order
    from aizac.retrieval.question import (
        MemoryQuestion,
        structured_query_constructor,
        to_structured_query,
    )
    from aizac.retrieval.self_query import (
        FallbackRecord,
        MemorySelfQueryRetriever,
        MemoryVectorStore,
        build_self_query_retriever,
        choose_strategy,
    )
    from aizac.retrieval.translator import MemoryFilterTranslator, Translation


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'aizac.retrieval' has no attribute {name!r}")
