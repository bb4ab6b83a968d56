"""Retries and usage for the image role: one layer over any :class:`ImageModel`.

A :class:`~aizac.llm.images.base.TransientImageError` (429, 5xx, a timeout or a dropped
connection) is retried with exponential backoff, waiting at least what a ``Retry-After`` asked
(capped); a refusal or any other error is raised at once. Every call, made or failed, is one
record in the router's :class:`~aizac.llm.usage.UsageLog` (role ``image``, the pictures made).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from aizac.errors import ModelError
from aizac.llm.images.base import GeneratedImage, ImageModel, ImageRequest, TransientImageError
from aizac.llm.usage import UsageLog, UsageRecord
from aizac.tokens import count_tokens

MAX_WAIT = 60.0
"""The longest wait between two tries, whatever a ``Retry-After`` says."""


class RetryingImageModel:
    """``inner`` with retries of transient failures and a usage record per call."""

    def __init__(
        self, inner: ImageModel, *, retries: int, usage: UsageLog, backoff_base: float = 1.0,
        sleep: Callable[[float], None] = time.sleep, role: str = "image",
    ) -> None:
        self.inner = inner
        self.retries = retries
        self.usage = usage
        self.backoff_base = backoff_base
        self.sleep = sleep
        self.role = role

    @property
    def label(self) -> str:
        return self.inner.label

    @property
    def billable(self) -> bool:
        return self.inner.billable

    def generate(self, request: ImageRequest) -> GeneratedImage:
        attempt = 0
        while True:
            started = time.perf_counter()
            try:
                image = self.inner.generate(request)
            except ModelError as e:
                self._record(request, started, ok=False)
                if not isinstance(e, TransientImageError) or attempt >= self.retries:
                    raise
                wait = self.backoff_base * (2**attempt)
                if e.retry_after is not None:
                    wait = max(wait, e.retry_after)
                self.sleep(min(wait, MAX_WAIT))
                attempt += 1
                continue
            self._record(request, started, ok=True)
            return image

    def check(self) -> str:
        return self.inner.check()

    def _record(self, request: ImageRequest, started: float, *, ok: bool) -> None:
        self.usage.add(UsageRecord(
            self.role, self.label, count_tokens(request.prompt), 0,
            time.perf_counter() - started, estimated=True, ok=ok, images=1 if ok else 0,
        ))


__all__ = ["MAX_WAIT", "RetryingImageModel"]
