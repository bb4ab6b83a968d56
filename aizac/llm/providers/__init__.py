"""Building chat models from specs, through the provider table (:mod:`aizac.llm.registry`).

Builders only construct clients (no network I/O); :func:`check_usable` answers "could this
spec run now?" for ``aizac models`` from settings and installed packages alone. Each built model
is tagged with its row's :class:`~aizac.llm.profiles.ModelProfile` (:func:`build`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from langchain_core.language_models import BaseChatModel

from aizac.errors import ConfigError
from aizac.llm import registry
from aizac.llm.profiles import ModelProfile, attach
from aizac.llm.specs import ModelSpec
from aizac.settings import Settings
from aizac.text import Text, Verbatim

Builder = Callable[[ModelSpec, Settings, str], BaseChatModel]


Status = tuple[bool, Text | Verbatim]
"""Whether a model can run, and why (said at the edge in its reader's language)."""

@dataclass(frozen=True)
class Built:
    """A provider's model and what it can do."""

    model: BaseChatModel
    profile: ModelProfile


def _row(spec: ModelSpec, setting: str) -> registry.ProviderRow:
    row = registry.row(spec.provider)
    if row is None:
        raise ConfigError("error.model.no_builder", setting=setting, provider=spec.provider)
    return row


def build(spec: ModelSpec, settings: Settings, setting: str) -> Built:
    """Build the chat model for ``spec`` with its profile; ``setting`` (e.g.
    ``AIZAC_PLANNER_MODEL``) is named in errors.

    Raises:
        ConfigError: a key is missing or the provider's package is not installed.
    """
    row = _row(spec, setting)
    builder: Builder = registry.load(row.builder)
    model = builder(spec, settings, setting)
    attach(model, row.profile)
    return Built(model, row.profile)


def build_chat_model(spec: ModelSpec, settings: Settings, setting: str) -> BaseChatModel:
    """:func:`build`'s model alone."""
    return build(spec, settings, setting).model


def check_usable(spec: ModelSpec, settings: Settings) -> Status:
    """``(usable, reason)`` for ``spec`` without network I/O or loading a model."""
    row = registry.row(spec.provider)
    if row is None:
        return False, Text("model.status.unknown_provider", provider=spec.provider)
    status: Callable[[ModelSpec, Settings], Status] = registry.load(row.status)
    usable, reason = status(spec, settings)
    # a plugin provider may say why in plain words: shown as it is
    return usable, Verbatim(reason) if isinstance(reason, str) else reason


def local_status(spec: ModelSpec, settings: Settings) -> Status:
    """The embedded model's status (its module is imported only when asked)."""
    from aizac.llm.providers.local import local_status as status

    return status(settings)


def key_status(env: str, present: bool) -> tuple[bool, Text]:
    """The status of a provider that only needs its key."""
    if present:
        return True, Text("model.status.key_set", env=env)
    return False, Text("model.status.key_missing", env=env)


def missing_key(env: str, setting: str, spec: ModelSpec) -> ConfigError:
    """The error for a provider key that is not configured."""
    return ConfigError("error.model.missing_key", env=env, setting=setting, spec=str(spec))


def require_package(module: str, package: str, setting: str) -> None:
    """Raise a ConfigError naming the pip package if ``module`` is not importable."""
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise ConfigError("error.model.package", setting=setting, package=package)
