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

Builder = Callable[[ModelSpec, Settings, str], BaseChatModel]


@dataclass(frozen=True)
class Built:
    """A provider's model and what it can do."""

    model: BaseChatModel
    profile: ModelProfile


def _row(spec: ModelSpec, setting: str) -> registry.ProviderRow:
    row = registry.row(spec.provider)
    if row is None:
        raise ConfigError(f"{setting}: provider {spec.provider!r} has no builder.")
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


def check_usable(spec: ModelSpec, settings: Settings) -> tuple[bool, str]:
    """``(usable, reason)`` for ``spec`` without network I/O or loading a model."""
    row = registry.row(spec.provider)
    if row is None:
        return False, f"unknown provider {spec.provider!r}"
    status: Callable[[ModelSpec, Settings], tuple[bool, str]] = registry.load(row.status)
    return status(spec, settings)


def local_status(spec: ModelSpec, settings: Settings) -> tuple[bool, str]:
    """The embedded model's status (its module is imported only when asked)."""
    from aizac.llm.providers.local import local_status as status

    return status(settings)


def key_status(env: str, present: bool) -> tuple[bool, str]:
    """The status of a provider that only needs its key."""
    return (True, f"{env} is set") if present else (False, f"{env} is not set")


def missing_key(env: str, setting: str, spec: ModelSpec) -> ConfigError:
    """The error for a provider key that is not configured."""
    return ConfigError(
        f"{env} is not set, but {setting}={spec} needs it.",
        hint=f"Export {env} (or put it in .env), or point {setting} at another model, "
        "e.g. 'local'.",
    )


def require_package(module: str, package: str, setting: str) -> None:
    """Raise a ConfigError naming the pip package if ``module`` is not importable."""
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise ConfigError(
            f"{setting} needs the Python package {package!r}, which is not installed.",
            hint=f"pip install {package}",
        )
