"""The foreshadowing ledger: urgency grows with age, threads sync from memory, overdue warns."""

from __future__ import annotations

from pathlib import Path

from aizac.continuity import ForeshadowingLedger, Thread, check_episode, urgency
from aizac.continuity.ledger import touched
from aizac.memory import WriterMemory
from aizac.writer.schemas import NovelBeat


def thread(**kw: object) -> Thread:
    base = dict(memory_id="m1", keyword="검은 반지", text="검은 반지의 주인", planted=1,
                last_advanced=1, due=11, status="open")
    return Thread(**{**base, **kw})  # type: ignore[arg-type]


def test_urgency_grows_with_age_unlike_memory_factor() -> None:
    values = [urgency(thread(), e) for e in (1, 5, 11, 20)]
    assert values == sorted(values) and values[0] == 0.0
    assert urgency(thread(), 11) >= 1.0  # due
    assert urgency(thread(last_advanced=10), 12) < urgency(thread(), 12)  # advanced recently
    assert urgency(thread(status="paid_off"), 50) == 0.0


def test_touched_by_keyword_or_restated_text() -> None:
    t = thread()
    assert touched([t], ["진도준은 검은반지를 손에 쥐었다"]) == [t]
    assert touched([t], ["강미라는 커피를 마셨다"]) == []
    assert touched([thread(status="dropped")], ["검은 반지"]) == []


def test_sync_plants_pays_off_and_survives_reopening(mem: WriterMemory, tmp_path: Path) -> None:
    with mem.stage() as b:
        ring = b.note("진도준은 검은 반지의 주인을 찾아야 한다", "Story", keyword="검은 반지",
                      foreshadow=True, chapter=2)
        clock = b.note("시계탑의 시계가 멈췄다", "Story", keyword="시계탑", foreshadow=True,
                       chapter=3)
    ledger = ForeshadowingLedger(tmp_path)
    ledger.sync(mem, episode=3)
    ledger.sync(mem, episode=3)  # idempotent
    assert [(t.memory_id, t.planted, t.due, t.status) for t in ledger.threads()] == [
        (ring, 2, 12, "open"), (clock, 3, 13, "open")]
    with mem.stage() as b:
        b.pay_off(str(ring), chapter=5, beat=2)
    ledger.sync(mem, episode=5)
    again = ForeshadowingLedger(tmp_path)  # a new process reads the same file
    assert {t.memory_id: t.status for t in again.threads()} == {ring: "paid_off",
                                                                clock: "open"}
    assert [t.memory_id for t in again.for_context(5)] == [clock]


def test_a_decayed_thread_stays_open_and_overdue_warns(mem: WriterMemory,
                                                       tmp_path: Path) -> None:
    with mem.stage() as b:
        ring = b.note("검은 반지의 주인은 누구인가", "Story", keyword="검은 반지",
                      foreshadow=True, chapter=1)
    ledger = ForeshadowingLedger(tmp_path, due_after=5)
    ledger.sync(mem, episode=1)
    mem.advance(300)  # the memory itself is long forgotten
    ledger.sync(mem, episode=9)
    assert [t.status for t in ledger.threads()] == ["open"]
    beats = [NovelBeat(episode=9, index=1, location="서울", time="낮", characters=["진도준"],
                       events=["진도준이 출근한다"])]
    report = check_episode(mem, episode=9, beats=beats, prose={1: "진도준이 출근했다"},
                           ledger=ledger, language="ko")
    assert [(f.kind, f.severity, f.memory_id) for f in report.findings] == [
        ("foreshadowing_overdue", "warning", ring)]
    assert "6화까지" in report.findings[0].message
    ledger.advance(9, ["진도준은 검은 반지를 다시 떠올렸다"])
    assert ledger.threads()[0].status == "advanced"
    ledger.drop(str(ring))
    assert ledger.overdue(20) == []


def test_a_thread_first_seen_after_its_memory_decayed_is_planted(mem: WriterMemory,
                                                                 tmp_path: Path) -> None:
    with mem.stage() as b:
        key = b.note("순양그룹 금고의 열쇠는 누가 가져갔나", "Story", keyword="금고 열쇠",
                     foreshadow=True, chapter=1)
        gone = b.note("버려진 복선", "Story", keyword="버림", foreshadow=True, chapter=1)
    mem.forget(str(gone))  # the writer forgot this one on purpose
    mem.advance(60)  # a Story memory lives 23 turns unrecalled; an open thread is held
    assert [h.id for h in mem.open_foreshadowing()] == [key]
    ledger = ForeshadowingLedger(tmp_path)
    ledger.sync(mem, episode=15)
    assert [(t.memory_id, t.status) for t in ledger.for_context(15)] == [(key, "open")]
