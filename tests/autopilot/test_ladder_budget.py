"""The failure ladder and the budget fuse (pure policies)."""

from __future__ import annotations

from aizac.autopilot.budget import Spent, over_budget
from aizac.autopilot.ladder import on_failure, on_repeat
from aizac.autopilot.state import Options
from aizac.errors import ModelError, StructuredOutputError
from aizac.text import Text, render


def test_provider_faults_do_not_count() -> None:
    step = on_failure("draft", 5, ModelError("HTTP 503 after 3 retries"))
    assert (step.action, step.counted, step.arbiter) == ("retry", False, False)


def test_first_failure_retries_free_second_goes_to_the_arbiter() -> None:
    bad = StructuredOutputError("invalid JSON")
    first = on_failure("draft", 0, bad)
    assert (first.action, first.counted, first.arbiter) == ("retry", True, False)
    second = on_failure("draft", 1, bad)
    assert (second.action, second.arbiter) == ("retry", True)
    assert on_failure("check", 1, bad).action == "skip"
    assert on_failure("review", 1, bad).action == "skip"
    assert on_failure("draft", 2, bad).action == "pause"
    assert on_failure("check", 2, bad).action == "pause"


def test_repeated_dispatch_warns_at_3_pauses_at_5() -> None:
    assert [on_repeat(n) for n in range(1, 7)] == ["ok", "ok", "warn", "ok", "pause", "pause"]


def test_budget_fuse() -> None:
    options = Options(budget_tokens=1000, episode_tokens=300)
    assert over_budget(options, Spent(999, 299), "draft") is None
    spent = over_budget(options, Spent(1000, 10), "draft")
    message = render(spent, "en") if spent else ""
    assert "1,000 of 1,000" in message and "--budget-tokens" in message
    assert "episode" in _said(over_budget(options, Spent(10, 300), "plan"))
    # never mid-commit: the commit and the checkpoint always run
    assert over_budget(options, Spent(5000, 5000), "commit") is None
    assert over_budget(options, Spent(5000, 5000), "checkpoint") is None
    assert over_budget(Options(), Spent(10**9, 10**9), "draft") is None  # no limit set
    priced = Options(budget_cost=0.5, price_per_mtok=10.0)
    assert over_budget(priced, Spent(49_999, 0), "draft") is None
    assert "cost" in _said(over_budget(priced, Spent(50_000, 0), "draft"))


def _said(text: Text | None) -> str:
    return render(text, "en") if text is not None else ""
