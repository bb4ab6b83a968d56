"""record_episode: after a commit the ledger and the registry follow canon (idempotently)."""

from __future__ import annotations

from pathlib import Path

from aizac.continuity import open_books, record_episode
from aizac.writer.schemas import NovelBeat

from .conftest import Seeded


def test_record_episode_plants_advances_and_learns(seeded: Seeded, tmp_path: Path) -> None:
    mem = seeded.mem
    books = open_books(tmp_path)
    books.secrets.add(seeded.ids["pin"], "진도준은 회귀자다", keyword="회귀", known_by=["진도준"])
    with mem.stage() as b:
        ring = b.note("검은 반지의 주인은 누구인가", "Story", keyword="검은 반지",
                      foreshadow=True, chapter=2)
    beats = [NovelBeat(episode=3, index=1, location="부산", time="밤", characters=["강미라"],
                       events=["강미라가 검은 반지를 발견한다"])]
    found = {"1": {"characters": {"facts": [{
        "character_name": "강미라", "aspect": "other",
        "text": "강미라는 진도준이 회귀했다는 사실을 알게 되었다"}]}}}
    for _ in range(2):  # a replay after a crash changes nothing more
        out = record_episode(mem, books, episode=3, beats=beats, candidates=found)
    assert out["advanced"] == [ring]
    threads = books.ledger.threads()
    assert [(t.memory_id, t.planted, t.last_advanced, t.status) for t in threads] == [
        (ring, 2, 3, "advanced")]
    assert books.secrets.secrets()[0].known_by == frozenset({"진도준", "강미라"})
