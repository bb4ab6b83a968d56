"""The tests' doubles, in one package every test folder imports (``from tests.fakes import ...``).

- :mod:`tests.fakes.routed`: ``RoutedFakeChatModel``, a LangChain fake chat model that answers
  by prompt kind, and ``fake_models`` with its canned story;
- :mod:`tests.fakes.scripted`: ``ScriptedChatModel``, one model for every role that answers by
  the schema in the prompt, with failures, delays and reactions to instructions on demand;
- :mod:`tests.fakes.memory`: ``DictMemory``, a dict-backed stand-in for WriterMemory held to the
  real one by a contract test, and its context builder ``fake_context``.
"""

from tests.fakes.memory import Batch, DictMemory, Item, ShortTerm, fake_context
from tests.fakes.routed import (
    EXTRACTOR_REPLIES,
    MARKERS,
    SPOILER,
    RoutedFakeChatModel,
    beat_json,
    character_json,
    fake_models,
    kind_of,
    plot_json,
    prompt_text,
)
from tests.fakes.scripted import PLOT, ScriptedChatModel, beat_design

__all__ = [
    "EXTRACTOR_REPLIES",
    "MARKERS",
    "PLOT",
    "SPOILER",
    "Batch",
    "DictMemory",
    "Item",
    "RoutedFakeChatModel",
    "ScriptedChatModel",
    "ShortTerm",
    "beat_design",
    "beat_json",
    "character_json",
    "fake_context",
    "fake_models",
    "kind_of",
    "plot_json",
    "prompt_text",
]
