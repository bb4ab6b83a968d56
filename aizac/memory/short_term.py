"""Short-term memory: a rolling summary of the most recent beats, bounded by tokens (pure)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable

from aizac.errors import InvalidInputError
from aizac.tokens import count_tokens, truncate_to_tokens


class ShortTermMemory:
    """The most recent beat summaries whose estimated tokens fit ``max_tokens``.

    Adding a summary drops the oldest ones until the total fits again; a single summary larger
    than the whole budget is cut to fit. ``on_change`` (set by :class:`WriterMemory`) is called
    after every change so the buffer is persisted with the store.
    """

    def __init__(
        self, max_tokens: int = 1200, items: Iterable[str] = (), last_key: object = None
    ) -> None:
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
            raise InvalidInputError("error.memory.max_tokens", got=repr(max_tokens))
        self.max_tokens = max_tokens
        self._items: list[str] = []
        self._lock = threading.RLock()
        self.on_change: object = None
        self.key: Callable[[], object] | None = None
        """When set (by :class:`WriterMemory`: the story turn), adding the same summary again
        under the same key is a no-op, so replaying an interrupted accept adds it once."""
        self.last_key = last_key
        for item in items:
            self._push(item)

    def _push(self, summary: str) -> None:
        text = summary.strip() if isinstance(summary, str) else ""
        if not text:
            raise InvalidInputError("error.memory.empty_summary")
        text = truncate_to_tokens(text, self.max_tokens) or text[:1]
        self._items.append(text)
        while len(self._items) > 1 and self.tokens() > self.max_tokens:
            self._items.pop(0)

    def add(self, beat_summary: str) -> None:
        """Append the summary of the beat that just became canon (once per key, see ``key``)."""
        with self._lock:
            key = self.key() if self.key is not None else None
            text = beat_summary.strip() if isinstance(beat_summary, str) else ""
            if key is not None and key == self.last_key and self._items and text and (
                self._items[-1] == truncate_to_tokens(text, self.max_tokens)
            ):
                return
            before, before_key = list(self._items), self.last_key
            self._push(beat_summary)
            self.last_key = key
            self._changed(before, before_key)

    def pop(self) -> str | None:
        """Remove and return the newest summary (undo of an accepted beat), if any."""
        with self._lock:
            before = list(self._items)
            item = self._items.pop() if self._items else None
            if item is not None:
                before_key, self.last_key = self.last_key, None
                self._changed(before, before_key)
            return item

    def restore(self, items: list[str], last_key: object = None) -> None:
        """Put back an earlier content (a failed write's rollback); not persisted."""
        with self._lock:
            self._items, self.last_key = list(items), last_key

    def clear(self) -> None:
        """Forget every summary."""
        with self._lock:
            before = list(self._items)
            self._items.clear()
            self._changed(before)

    def items(self) -> list[str]:
        """The summaries, oldest first."""
        return list(self._items)

    def text(self, sep: str = "\n") -> str:
        """The summaries joined, oldest first (what goes into a prompt)."""
        return sep.join(self._items)

    def tokens(self) -> int:
        """Estimated tokens of :meth:`text`."""
        return count_tokens(self.text())

    def __len__(self) -> int:
        return len(self._items)

    def _changed(self, before: list[str], before_key: object = None) -> None:
        """Persist through ``on_change``; if that fails, the buffer is left as it was."""
        if callable(self.on_change):
            try:
                self.on_change()
            except Exception:
                self._items = before
                self.last_key = before_key
                raise
