"""What a chat model can do, declared once (pure; imports no provider SDK).

Every provider row of :mod:`aizac.llm.providers` declares a :class:`ModelProfile`; the builder's
model is tagged with it (:func:`attach`), and the router tags its routed model with its primary's
profile (``routed=True``). Code that needs to know how to ask a model for JSON, whether it is the
small embedded model, or whether its streams always report their end asks :func:`profile_of`
instead of guessing from class names.
"""

from __future__ import annotations

import importlib
import sys
import weakref
from dataclasses import dataclass, replace
from typing import Any

from langchain_core.runnables import RunnableBinding


@dataclass(frozen=True)
class ModelProfile:
    """A model's capabilities.

    Attributes:
        provider: the spec prefix (``openai``, ``local``...) or ``other`` for models aizac did
            not build (fakes, injected models).
        structured_method: how it is asked for JSON (see :mod:`aizac.llm.methods`).
        small_local: the small embedded model (short prompts, its own structured budget).
        streams: it streams token by token.
        needs_key: it needs a provider key.
        combined_extraction_ok: it can answer the extraction of a whole beat in one structured
            call (real API models); the small local model needs one call per tag.
        reports_finish: every reply and stream ends with a finish reason, so a stream without
            one was cut.
        accepts_seed: it takes a ``seed`` per call (structured retries vary it).
        routed: the router's retry/fallback wrapper (structured requests are planned per
            candidate inside it).
    """

    provider: str
    structured_method: str = "prompt"
    small_local: bool = False
    streams: bool = True
    needs_key: bool = False
    combined_extraction_ok: bool = True
    reports_finish: bool = False
    accepts_seed: bool = False
    routed: bool = False

    def as_routed(self) -> ModelProfile:
        return replace(self, routed=True)


GENERIC = ModelProfile("other")
"""Models aizac did not build and cannot recognise: JSON is asked for in the prompt."""

_ATTACHED: dict[int, ModelProfile] = {}


def attach(model: Any, profile: ModelProfile) -> Any:
    """Tag ``model`` with ``profile`` (for as long as the model lives); returns ``model``."""
    key = id(model)
    _ATTACHED[key] = profile
    weakref.finalize(model, _ATTACHED.pop, key, None)
    return model


def _declared_type(path: str) -> type | None:
    """The class at ``module:Class`` if its module is already imported (an instance of a class
    whose module was never imported cannot exist, so nothing is imported here)."""
    module_name, _, name = path.partition(":")
    module = sys.modules.get(module_name)
    if module is None:
        return None
    found = getattr(module, name, None)
    return found if isinstance(found, type) else None


def profile_of(model: Any) -> ModelProfile:
    """The declared profile of ``model`` (bindings such as ``model.bind(...)`` looked through).

    Models built by aizac carry their row's profile; other instances of a provider's declared
    model class (built directly, e.g. in a notebook) get that row's profile; anything else is
    :data:`GENERIC`.
    """
    seen = 0
    while isinstance(model, RunnableBinding) and seen < 10:
        model, seen = model.bound, seen + 1
    attached = _ATTACHED.get(id(model))
    if attached is not None:
        return attached
    routed = getattr(model, "routed_profile", None)  # a routed model built without the router
    if isinstance(routed, ModelProfile):
        return routed
    registry = importlib.import_module("aizac.llm.registry")
    for model_type, profile in registry.TYPES:
        cls = _declared_type(model_type)
        if cls is not None and isinstance(model, cls):
            found: ModelProfile = profile
            return found
    return GENERIC
