"""Retrieval over WriterMemory: self-query filters, relation matrix and the context pack."""

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
