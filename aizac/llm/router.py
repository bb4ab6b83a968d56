"""Role -> model routing.

``ModelRouter(settings)`` builds each role's chat model lazily from its spec setting
(``AIZAC_<ROLE>_MODEL`` and optional ``AIZAC_<ROLE>_FALLBACK``), wraps it with transient-error
retries and the fallback (:class:`~aizac.llm.resilient.ResilientChatModel`) and a usage callback
tagging the role, and caches it. ``models=`` injects chat models per role (tests, apps); keys
are role names, or ``"<role>:fallback"`` for an injected fallback.

The ``image`` role (covers, illustrations) is an image model, not a chat model:
:meth:`ModelRouter.image_model` builds it from ``AIZAC_IMAGE_MODEL`` (the typographic default
offline; :mod:`aizac.llm.images`) with the same retries and usage log; ``images=`` injects one.
"""

from __future__ import annotations

import threading
import time
from collections.abc import AsyncIterator, Callable, Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage
from pydantic import BaseModel

from aizac.errors import ConfigError, InvalidInputError
from aizac.llm.profiles import attach, profile_of
from aizac.llm.providers import build, check_usable
from aizac.llm.resilient import Candidate, ResilientChatModel
from aizac.llm.specs import parse_spec
from aizac.llm.structured import Check, agenerate_structured, generate_structured
from aizac.llm.usage import UsageCallback, UsageLog
from aizac.settings import Settings, get_settings
from aizac.settings_values import IMAGE_ROLE, ROLES
from aizac.text import Text, Verbatim

if TYPE_CHECKING:
    from aizac.llm.images.base import ImageModel
    from aizac.llm.images.resilient import RetryingImageModel

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class RoleStatus:
    """What ``aizac models`` shows for one role."""

    role: str
    spec: str
    provider: str
    usable: bool
    reason: Text | Verbatim
    fallback: str | None = None


def _setting(role: str, fallback: bool = False) -> str:
    return f"AIZAC_{role.upper()}_{'FALLBACK' if fallback else 'MODEL'}"


def _secrets(settings: Settings) -> list[str]:
    keys = (
        settings.openai_api_key,
        settings.anthropic_api_key,
        settings.clova_api_key,
        settings.openai_compatible_api_key,
        settings.sdwebui_auth,
        settings.comfyui_api_key,
    )
    return [k.get_secret_value() for k in keys if k is not None]


class ModelRouter:
    """Hands out one chat model per role, built from settings or injected."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        models: dict[str, BaseChatModel] | None = None,
        usage: UsageLog | None = None,
        backoff_base: float = 1.0,
        sleep: Callable[[float], None] = time.sleep,
        images: ImageModel | None = None,
    ) -> None:
        self.settings = settings if settings is not None else get_settings()
        self._injected_images = images
        self._images: RetryingImageModel | None = None
        self.usage = usage if usage is not None else UsageLog()
        self._injected = dict(models or {})
        for key in self._injected:
            if key.split(":", 1)[0] not in ROLES:
                raise ConfigError("error.model.models_role", role=str(key),
                                  roles=", ".join(ROLES))
        self._backoff_base = backoff_base
        self._sleep = sleep
        self._cache: dict[str, ResilientChatModel] = {}
        self._lock = threading.Lock()

    def reconfigure(self, settings: Settings) -> None:
        """Use ``settings`` from now on (the web app's Models panel): each role's model is
        rebuilt on its next use; injected models stay."""
        with self._lock:
            self.settings = settings
            self._cache.clear()
            self._images = None

    # ------------------------------------------------------------------ building
    def _candidate(self, role: str, fallback: bool) -> Candidate | None:
        key = f"{role}:fallback" if fallback else role
        if key in self._injected:
            model = self._injected[key]
            label = f"injected:{type(model).__name__}"
            return Candidate(label, _setting(role, fallback), model, profile=profile_of(model))
        text = self.settings.role_fallback(role) if fallback else self.settings.role_spec(role)
        if text is None:
            return None
        setting = _setting(role, fallback)
        spec = parse_spec(text, setting)
        built = build(spec, self.settings, setting)
        return Candidate(str(spec), setting, built.model, profile=built.profile)

    def model(self, role: str) -> BaseChatModel:
        """The chat model for ``role`` (built on first use, then cached).

        Raises:
            ConfigError: unknown role, unknown provider, missing key or missing package.
        """
        if role not in ROLES:
            raise InvalidInputError("error.model.role", role=str(role), roles=", ".join(ROLES))
        with self._lock:
            if role not in self._cache:
                primary = self._candidate(role, False)
                if primary is None:  # role_spec always names a model; say so if it did not
                    raise ConfigError("error.model.no_model", setting=_setting(role))
                fallback = self._candidate(role, True)
                candidates = [primary] + ([fallback] if fallback else [])
                routed = ResilientChatModel(
                    role=role,
                    candidates=candidates,
                    retries=self.settings.transient_retries,
                    backoff_base=self._backoff_base,
                    sleep=self._sleep,
                    secrets=_secrets(self.settings),
                    structured_max_tokens=self.settings.structured_max_tokens,
                    callbacks=[UsageCallback(self.usage, role, primary.label)],
                    tags=[f"role:{role}"],
                )
                self._cache[role] = attach(routed, primary.profile.as_routed())
            return self._cache[role]

    def image_model(self) -> RetryingImageModel:
        """The image role's model (built on first use, then cached), with transient-error
        retries and a usage record per picture.

        Raises:
            ConfigError: the spec does not parse, or a key it needs is missing.
        """
        from aizac.llm.images.building import SETTING, build_image_model
        from aizac.llm.images.resilient import RetryingImageModel
        from aizac.llm.images.specs import parse_image_spec

        with self._lock:
            if self._images is None:
                inner = self._injected_images
                if inner is None:
                    spec = parse_image_spec(self.settings.image_model, SETTING)
                    inner = build_image_model(spec, self.settings)
                self._images = RetryingImageModel(
                    inner, retries=self.settings.transient_retries, usage=self.usage,
                    backoff_base=self._backoff_base, sleep=self._sleep, role=IMAGE_ROLE)
            return self._images

    def _image_status(self) -> RoleStatus:
        from aizac.llm.images.building import SETTING, image_status
        from aizac.llm.images.specs import parse_image_spec, spec_label

        if self._injected_images is not None:
            name = type(self._injected_images).__name__
            return RoleStatus(IMAGE_ROLE, f"injected:{name}", "injected", True,
                              Text("model.status.injected"))
        text = self.settings.image_model
        try:
            spec = parse_image_spec(text, SETTING)
        except ConfigError as e:
            return RoleStatus(IMAGE_ROLE, text, "?", False, e.text)
        usable, reason = image_status(spec, self.settings)
        return RoleStatus(IMAGE_ROLE, spec_label(spec), spec.provider, usable, reason)

    # ------------------------------------------------------------------ status
    def describe(self) -> list[RoleStatus]:
        """Each role's spec and whether it could run now (no network I/O, no model loading);
        the image role last."""
        out: list[RoleStatus] = []
        for role in ROLES:
            fallback = self.settings.role_fallback(role)
            if role in self._injected:
                name = type(self._injected[role]).__name__
                out.append(RoleStatus(role, f"injected:{name}", "injected", True,
                                      Text("model.status.injected")))
                continue
            text = self.settings.role_spec(role)
            try:
                spec = parse_spec(text, _setting(role))
            except ConfigError as e:
                out.append(RoleStatus(role, text, "?", False, e.text, fallback))
                continue
            usable, reason = check_usable(spec, self.settings)
            if not usable and fallback:
                fb_reason: Text | Verbatim
                try:
                    fb_usable, fb_reason = check_usable(
                        parse_spec(fallback, _setting(role, True)), self.settings
                    )
                except ConfigError as e:
                    fb_usable, fb_reason = False, e.text
                if fb_usable:
                    usable, reason = True, Text("model.status.with_fallback", reason=reason,
                                                fallback=fb_reason)
            out.append(RoleStatus(role, str(spec), spec.provider, usable, reason, fallback))
        out.append(self._image_status())
        return out

    # ------------------------------------------------------------------ conveniences
    def structured(
        self,
        role: str,
        schema: type[M],
        messages: list[BaseMessage] | str,
        *,
        check: Check | None = None,
    ) -> M:
        """``generate_structured`` with the role's model, the configured retries and token
        budget; ``check`` is an extra semantic validator (raises ``ValueError``)."""
        return generate_structured(self.model(role), schema, messages, **self._structured(check))

    async def astructured(
        self,
        role: str,
        schema: type[M],
        messages: list[BaseMessage] | str,
        *,
        check: Check | None = None,
    ) -> M:
        """Async :meth:`structured`."""
        return await agenerate_structured(
            self.model(role), schema, messages, **self._structured(check)
        )

    def _structured(self, check: Check | None) -> dict[str, Any]:
        return {
            "retries": self.settings.structured_retries,
            "small_retries": self.settings.structured_small_retries,
            "seed": self.settings.seed,
            "check": check,
            "max_tokens": self.settings.structured_max_tokens,
            "max_tokens_cap": self.settings.structured_max_tokens_cap,
        }

    def stream(
        self, role: str, messages: list[BaseMessage] | str
    ) -> Generator[str, None, None]:
        """The role's reply, text piece by text piece."""
        msgs = [HumanMessage(content=messages)] if isinstance(messages, str) else messages
        for chunk in self.model(role).stream(msgs):
            if chunk.text:
                yield chunk.text

    async def astream(self, role: str, messages: list[BaseMessage] | str) -> AsyncIterator[str]:
        """Async :meth:`stream`."""
        msgs = [HumanMessage(content=messages)] if isinstance(messages, str) else messages
        async for chunk in self.model(role).astream(msgs):
            if chunk.text:
                yield chunk.text
