"""The failure ladder and the no-progress detector (pure policy; the graph applies it).

- A provider fault (:class:`~aizac.errors.ModelError` itself: the router already retried it
  with backoff and tried the fallback) does not count: the node is simply dispatched again, and
  only the no-progress detector can stop that.
- A node's first failure is retried at once, free.
- Its second failure goes to the arbiter: ``retry`` once more for the nodes that must succeed,
  ``skip`` to review for the judging nodes whose absence the review can live with, ``pause``
  past that. Every arbiter decision is written to the run's decisions log.
- The same dispatch (node and facts) repeated without progress warns at 3 and pauses at 5.
"""

from __future__ import annotations

from dataclasses import dataclass

from aizac.autopilot.names import name
from aizac.errors import AizacError, ModelError
from aizac.text import Text, Verbatim

WARN_REPEATS = 3
PAUSE_REPEATS = 5
SKIPPABLE = frozenset({"check", "outline"})
"""Nodes the run can go on without: a failed check becomes an empty report (the review still
runs), a failed outline keeps the plot's own acts."""
REVIEW_SKIP = frozenset({"review", "rewrite"})
"""Nodes whose skip means 'take the draft as it is' (verdict accept, recorded)."""


@dataclass(frozen=True)
class Step:
    """What to do after a node failed."""

    action: str  # "retry", "skip", "pause"
    counted: bool  # whether the failure counts on the ladder
    arbiter: bool  # whether this was an arbiter decision (logged)
    reason: Text


def _error(error: BaseException) -> Text | Verbatim:
    """What failed, as the run records it for the writer (a refused model reply in the
    writer's words)."""
    from aizac.writer.reply_problems import in_writers_words

    return in_writers_words(error).text if isinstance(error, AizacError) else Verbatim(
        str(error))


def provider_fault(error: BaseException) -> bool:
    """A provider that failed after the router's own retries (not the node's fault)."""
    return type(error) is ModelError


def on_failure(node: str, failures: int, error: BaseException) -> Step:
    """The ladder's step after ``node`` failed; ``failures`` counts earlier counted failures."""
    said = _error(error)
    if provider_fault(error):
        return Step("retry", False, False, Text("autopilot.ladder.provider", error=said))
    count = failures + 1
    step = name(node)
    if count == 1:
        return Step("retry", True, False, Text("autopilot.ladder.first", node=step, error=said))
    if count == 2:
        if node in SKIPPABLE or node in REVIEW_SKIP:
            return Step("skip", True, True, Text("autopilot.ladder.skipped", node=step,
                                                 error=said))
        return Step("retry", True, True, Text("autopilot.ladder.again", node=step, error=said))
    return Step("pause", True, True, Text("autopilot.ladder.failed", node=step, count=count,
                                          error=said))



def on_repeat(count: int) -> str:
    """``"ok"``, ``"warn"`` (at :data:`WARN_REPEATS`) or ``"pause"`` (from
    :data:`PAUSE_REPEATS`) for a dispatch seen ``count`` times without progress."""
    if count >= PAUSE_REPEATS:
        return "pause"
    if count == WARN_REPEATS:
        return "warn"
    return "ok"
