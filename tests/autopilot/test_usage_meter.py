"""The node wrapper's usage meter: the router's running totals, read incrementally."""

from __future__ import annotations

from aizac.autopilot.graph import UsageMeter
from aizac.llm.usage import UsageLog, UsageRecord


def _record(prompt: int, completion: int, ok: bool = True) -> UsageRecord:
    return UsageRecord("writer", "m", prompt, completion, 0.1, ok=ok)


def _totals(log: UsageLog) -> tuple[int, int, int]:
    t = log.totals()
    return t.calls, t.prompt_tokens, t.total_tokens


class CountingLog(UsageLog):
    """A usage log that counts the records its readers look at."""

    looked = 0

    @property
    def records(self) -> list[UsageRecord]:
        found = super().records
        return _Seen(found, self)


class _Seen(list[UsageRecord]):
    def __init__(self, items: list[UsageRecord], log: CountingLog) -> None:
        super().__init__(items)
        self.log = log

    def __getitem__(self, index: object) -> object:  # type: ignore[override]
        got = super().__getitem__(index)  # type: ignore[call-overload]
        if isinstance(index, slice):
            self.log.looked += len(got)
        return got


def test_the_meter_matches_the_log_and_reads_only_new_records() -> None:
    log = CountingLog()
    meter = UsageMeter(log)
    assert meter.read() == (0, 0, 0)
    for n in range(50):
        log.add(_record(100 + n, 10, ok=n % 7 != 0))
    assert meter.read() == _totals(log)
    looked = log.looked
    log.add(_record(5, 5))
    assert meter.read() == _totals(log)
    assert log.looked - looked == 1  # one new record read, not 51
    log.clear()
    log.add(_record(3, 4))
    assert meter.read() == _totals(log) == (1, 3, 7)
    assert UsageMeter(None).read() == (0, 0, 0)
