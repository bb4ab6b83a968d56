"""Cancellation of long operations that really stops the model.

A :class:`CancelToken` is set by the Cancel button. While an operation runs, :meth:`watching`
puts a LangChain callback handler into every model call made in this context (through
LangChain's configure hook): it stops the call at its start or at the next streamed token once
the token is set, so a cancelled generation stops computing instead of finishing in the
background. Models that can stream are asked to stream while a token watches them.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.tracers.context import register_configure_hook

from aizac.errors import CancelledError
from aizac.text import Text

Progress = Callable[[Text], None]
CANCELLED = "error.cancelled"


class _StopOnCancel(BaseCallbackHandler):
    """Raises :class:`CancelledError` in a model call once its token is set.

    Its ``tap_output_iter``/``tap_output_aiter`` make it a streaming handler to LangChain
    (``_StreamingCallbackHandler`` is a runtime-checkable protocol), so a model that can stream
    is asked to, and the call can be stopped between tokens rather than after the whole reply.
    """

    raise_error = True
    run_inline = True

    def __init__(self, token: CancelToken) -> None:
        self.token = token

    def tap_output_iter(self, run_id: Any, output: Iterator[Any]) -> Iterator[Any]:
        return output

    def tap_output_aiter(self, run_id: Any, output: Any) -> Any:
        return output

    def on_chat_model_start(self, *args: Any, **kwargs: Any) -> None:
        self.token.check()

    def on_llm_start(self, *args: Any, **kwargs: Any) -> None:
        self.token.check()

    def on_llm_new_token(self, *args: Any, **kwargs: Any) -> None:
        self.token.check()


_watcher: ContextVar[_StopOnCancel | None] = ContextVar("aizac_cancel_watcher", default=None)
register_configure_hook(_watcher, inheritable=True)


@dataclass(eq=False)
class CancelToken:
    """Set by the Cancel button; checked by model calls and before results are stored."""

    event: threading.Event = field(default_factory=threading.Event)

    @property
    def cancelled(self) -> bool:
        return self.event.is_set()

    def cancel(self) -> None:
        self.event.set()

    def check(self) -> None:
        if self.event.is_set():
            raise CancelledError(CANCELLED)

    def progress(self, report: Progress | None) -> Progress:
        """``report`` that first stops the operation if it was cancelled."""

        def say(message: Text) -> None:
            self.check()
            if report is not None:
                report(message)

        return say

    @contextlib.contextmanager
    def watching(self) -> Iterator[CancelToken]:
        """Model calls in this block stop when the token is set; whatever they raise then
        becomes a :class:`CancelledError` (a wrapper may have turned it into a model error)."""
        reset = _watcher.set(_StopOnCancel(self))
        try:
            yield self
        except CancelledError:
            raise
        except Exception as e:
            if self.event.is_set():
                raise CancelledError(CANCELLED) from e
            raise
        finally:
            _watcher.reset(reset)
