"""A provider added the documented way (one module + one table row), used by the registry test.

It builds a LangChain fake chat model that replies with fixed JSON.
"""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from aizac.llm.specs import ModelSpec
from aizac.settings import Settings


class EchoChat(FakeListChatModel):
    """The provider's chat model class."""


def build(spec: ModelSpec, settings: Settings, setting: str) -> BaseChatModel:
    return EchoChat(responses=[f'{{"name": "{spec.model}", "age": 1}}'] * 3)


def status(spec: ModelSpec, settings: Settings) -> tuple[bool, str]:
    return True, "always"
