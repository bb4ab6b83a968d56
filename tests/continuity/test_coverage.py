"""Beat coverage and the resolution of new names (pure)."""

from __future__ import annotations

from aizac.continuity.coverage import coverage, resolve_names
from aizac.writer.schemas import NovelBeat


def b(index: int, events: list[str], characters: list[str]) -> NovelBeat:
    return NovelBeat(episode=1, index=index, location="서울", time="밤", characters=characters,
                     events=events)


def test_covered_and_missed_beats() -> None:
    beats = [b(1, ["진도준이 순양그룹 회장을 찾아간다"], ["진도준"]),
             b(2, ["강미라가 비밀 장부를 훔친다"], ["강미라"]),
             b(3, ["박철수가 화재를 일으킨다"], ["박철수"])]
    prose = {1: "도준은 순양그룹 회장실 문을 두드렸다.", 2: "", 3: "비가 내렸다. 아무 일도 없었다."}
    assert coverage(beats, prose) == ((1,), (2, 3))


def test_prose_not_split_by_beat_is_searched_whole() -> None:
    beats = [b(1, ["Mira steals the ledger"], ["Kang Mira"])]
    assert coverage(beats, {0: "That night Mira steals the ledger from the safe."}) == ((1,), ())


def test_names_resolve_with_confidence() -> None:
    cast = {"진도준": ["도준이"], "강미라": [], "진도하": []}
    got = {r.name: r for r in resolve_names(["진도준님", "미라", "박철수", "진도중", "강미라"],
                                            cast)}
    assert "강미라" not in got  # known exactly
    assert (got["진도준님"].resolved, got["진도준님"].certain) == ("진도준", True)
    assert (got["미라"].resolved, got["미라"].certain) == ("강미라", False)  # ask the writer
    assert (got["박철수"].resolved, got["박철수"].certain) == (None, True)  # a new character
    assert got["진도중"].certain is False and set(got["진도중"].options) == {"진도준", "진도하"}


def test_a_name_with_a_title_and_a_particle_is_certain() -> None:
    cast = {"진도준": ["도준이"], "윤수아": [], "강미라": []}
    got = {r.name: r for r in resolve_names(["진도준님이", "미라야", "수아"], cast)}
    # The name without its title and particle (the old list took one of them off).
    assert (got["진도준님이"].resolved, got["진도준님이"].certain) == ("진도준", True)
    assert (got["미라야"].resolved, got["미라야"].confidence) == ("강미라", 0.85)
    # A name that ends like a particle ("수아": 아) is not cut to "수".
    assert (got["수아"].resolved, got["수아"].confidence) == ("윤수아", 0.85)
