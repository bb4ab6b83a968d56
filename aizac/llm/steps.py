"""Write a loop once, run it sync or async.

A *core* is a generator that holds the whole logic of an operation (retries, fallbacks, repair
rounds) and does no I/O: where it needs a model call it yields a request (an *effect*) and gets
the result back from ``yield`` (or the call's exception raised at that ``yield``). A thin shell
performs the effects: :func:`run` with a plain function, :func:`arun` with a coroutine function.
So a sync method and its async twin differ only in how one call is made, never in what happens
around it::

    def attempts(ask):  # the core
        reply = yield ask
        return reply.upper()

    run(attempts("hi"), model.invoke)
    await arun(attempts("hi"), model.ainvoke)

A streaming shell passes on what the core yields to emit (:meth:`Steps.passing`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Generator, Iterator
from typing import Any, Generic, TypeVar

R = TypeVar("R")
E = TypeVar("E")
X = TypeVar("X")
P = TypeVar("P")


class Steps(Generic[E, R]):
    """Drives one core: iterating gives its effects; after each, :meth:`settle` (or
    :meth:`asettle`) records the result or the error that the core receives next. When the core
    returns, iteration stops and :attr:`value` holds what it returned."""

    def __init__(self, core: Generator[E, Any, R]) -> None:
        self._core = core
        self._result: Any = None
        self._error: BaseException | None = None
        self.value: R | None = None

    def __iter__(self) -> Iterator[E]:
        try:
            while True:
                error, self._error = self._error, None
                result, self._result = self._result, None
                try:
                    effect = self._core.send(result) if error is None else self._core.throw(error)
                except StopIteration as done:
                    self.value = done.value
                    return
                finally:
                    del error  # no reference cycle through the traceback
                yield effect
        finally:  # stopped early (a stream closed by its reader): stop the core there too
            self._core.close()

    def settle(self, perform: Callable[[X], Any], effect: X) -> None:
        """Perform ``effect`` now; its result (or exception) goes back to the core."""
        try:
            self._result = perform(effect)
        except Exception as e:
            self._error = e

    async def asettle(self, pending: Awaitable[Any]) -> None:
        """Await ``pending`` (the effect being performed); as :meth:`settle`."""
        try:
            self._result = await pending
        except Exception as e:
            self._error = e

    def passing(self, kind: type[P], perform: Callable[[Any], Any]) -> Iterator[P]:
        """A streaming shell's loop: the core's ``kind`` items are handed out, its other
        effects performed with ``perform``."""
        for item in self:
            if isinstance(item, kind):
                yield item
            else:
                self.settle(perform, item)

    async def apassing(
        self, kind: type[P], perform: Callable[[Any], Awaitable[Any]]
    ) -> AsyncIterator[P]:
        """:meth:`passing` with a coroutine function performing the effects."""
        for item in self:
            if not isinstance(item, kind):
                await self.asettle(perform(item))
                continue
            yield item

    def close(self) -> None:
        """Stop the core where it stands (its ``finally`` blocks run)."""
        self._core.close()


def run(core: Generator[E, Any, R], perform: Callable[[E], Any]) -> R:
    """Run ``core`` to its end, performing each effect with ``perform``; its return value."""
    steps = Steps(core)
    for effect in steps:
        steps.settle(perform, effect)
    return steps.value  # type: ignore[return-value]  # set when the core returned


async def arun(core: Generator[E, Any, R], perform: Callable[[E], Awaitable[Any]]) -> R:
    """:func:`run` with a coroutine function performing the effects."""
    steps = Steps(core)
    for effect in steps:
        await steps.asettle(perform(effect))
    return steps.value  # type: ignore[return-value]
