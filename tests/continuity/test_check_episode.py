"""check_episode against a real memory: each planted contradiction is found and cites the memory
it contradicts; a clean draft raises nothing."""

from __future__ import annotations

from aizac.continuity import check_episode
from aizac.writer.schemas import DialogueLine, NovelBeat

from .conftest import Seeded


def beat(index: int, location: str, characters: list[str], *, time: str = "밤",
         events: list[str] | None = None,
         dialogue: list[tuple[str, str]] | None = None) -> NovelBeat:
    return NovelBeat(
        episode=3, index=index, location=location, time=time, characters=characters,
        events=events or [f"{characters[0]}이 움직인다"],
        dialogue=[DialogueLine(speaker=s, line=line) for s, line in dialogue or []],
    )


def kinds(report: object) -> dict[str, str | None]:
    return {f.kind: f.memory_id for f in report.findings}  # type: ignore[attr-defined]


def test_a_dead_character_speaking_is_an_error_citing_the_death(seeded: Seeded) -> None:
    beats = [beat(1, "서울 본사", ["진도준"], dialogue=[("박철수", "아직 끝나지 않았어")])]
    report = check_episode(seeded.mem, episode=3, beats=beats, prose={1: "..."}, language="ko")
    found = [f for f in report.findings if f.kind == "dead_character"]
    assert len(found) == 1
    assert found[0].memory_id == seeded.ids["dead"]
    assert found[0].severity == "error" and found[0].beat == 1
    assert "박철수는 이미 죽었습니다" in found[0].message
    assert report.blocking


def test_a_dead_character_in_a_flashback_is_not_a_finding(seeded: Seeded) -> None:
    beats = [beat(1, "순양 저택", ["박철수", "진도준"], time="10년 전 회상")]
    report = check_episode(seeded.mem, episode=3, beats=beats, prose={1: "..."}, language="ko")
    assert "dead_character" not in kinds(report)


def test_a_revival_in_the_candidates_is_found(seeded: Seeded) -> None:
    batch = seeded.mem.stage()
    batch.note("박철수는 살아 있었다", "Character", character_name="박철수", aspect="condition",
               chapter=3, beat=1)
    beats = [beat(1, "서울 본사", ["진도준"])]
    report = check_episode(seeded.mem, episode=3, beats=beats, prose={1: "..."},
                           candidates=batch, language="ko")
    assert kinds(report).get("dead_character") == seeded.ids["dead"]
    batch.discard()


def test_a_death_earlier_in_the_same_episode_counts(seeded: Seeded) -> None:
    batch = seeded.mem.stage()
    died = batch.note("진도준은 총에 맞아 죽었다", "Character", character_name="진도준",
                      aspect="condition", chapter=3, beat=1)
    beats = [beat(1, "서울 본사", ["진도준"]),
             beat(2, "서울 본사", ["강미라"], dialogue=[("진도준", "미라야")])]
    report = check_episode(seeded.mem, episode=3, beats=beats, prose={1: "..", 2: ".."},
                           candidates=batch, language="ko")
    found = [f for f in report.findings if f.kind == "dead_character"]
    assert [(f.beat, f.memory_id) for f in found] == [(2, died)]
    batch.discard()


def test_a_superseded_relation_restated_as_current(seeded: Seeded) -> None:
    batch = seeded.mem.stage()
    batch.note("진도준과 강미라는 여전히 다정한 친구 사이다", "CharacterRelation",
               character1="강미라", character2="진도준", chapter=3, beat=1)
    beats = [beat(1, "부산 항구", ["진도준", "강미라"])]
    report = check_episode(seeded.mem, episode=3, beats=beats, prose={1: "..."},
                           candidates=batch, language="ko")
    assert kinds(report).get("superseded_relation") == seeded.ids["enemies"]
    batch.discard()


def test_a_reconciliation_is_only_a_warning(seeded: Seeded) -> None:
    batch = seeded.mem.stage()
    batch.note("진도준과 강미라는 화해하고 다시 친구가 되었다", "CharacterRelation",
               character1="진도준", character2="강미라", chapter=3, beat=1)
    report = check_episode(seeded.mem, episode=3, beats=[beat(1, "부산", ["강미라"])],
                           prose={1: "..."}, candidates=batch, language="ko")
    found = [f for f in report.findings if f.kind == "superseded_relation"]
    assert [f.severity for f in found] == ["warning"]
    batch.discard()


def test_a_negated_pin_is_an_error(seeded: Seeded) -> None:
    batch = seeded.mem.stage()
    batch.note("진도준은 회귀자가 아니다", "Story", chapter=3, beat=1)
    report = check_episode(seeded.mem, episode=3, beats=[beat(1, "부산", ["강미라"])],
                           prose={1: "..."}, candidates=batch, language="ko")
    assert kinds(report).get("pinned_negated") == seeded.ids["pin"]
    batch.discard()


def test_a_wrong_location_is_a_warning_and_a_move_clears_it(seeded: Seeded) -> None:
    beats = [beat(1, "서울 강남의 카페", ["강미라"])]
    report = check_episode(seeded.mem, episode=3, beats=beats, prose={1: "..."}, language="ko")
    found = [f for f in report.findings if f.kind == "wrong_location"]
    assert [(f.severity, f.memory_id) for f in found] == [("warning", seeded.ids["busan"])]
    batch = seeded.mem.stage()
    batch.note("강미라는 서울로 올라왔다", "Character", character_name="강미라",
               aspect="whereabouts", chapter=3, beat=1)
    report = check_episode(seeded.mem, episode=3, beats=beats, prose={1: "..."},
                           candidates=batch, language="ko")
    assert "wrong_location" not in kinds(report)
    batch.discard()


def test_a_character_in_prison_elsewhere_is_absent(seeded: Seeded) -> None:
    with seeded.mem.stage() as b:
        jail = b.note("강미라는 서울구치소에 수감되어 있다", "Character", character_name="강미라",
                      aspect="whereabouts", chapter=3)
    beats = [beat(1, "부산 항구", ["진도준"], dialogue=[("강미라", "배가 떠나요")])]
    report = check_episode(seeded.mem, episode=4, beats=beats, prose={1: "..."}, language="ko")
    assert kinds(report).get("absent_character") == jail


def test_a_clean_draft_has_no_findings(seeded: Seeded) -> None:
    batch = seeded.mem.stage()
    batch.note("진도준은 강미라를 믿지 않는다", "Character", character_name="진도준",
               aspect="emotion", chapter=3, beat=1)
    batch.note("진도준과 강미라는 서로를 경계하는 원수 사이다", "CharacterRelation",
               character1="진도준", character2="강미라", chapter=3, beat=1)
    beats = [beat(1, "부산 본가 앞", ["진도준", "강미라"],
                  events=["진도준이 부산 본가로 강미라를 찾아간다"],
                  dialogue=[("강미라", "여긴 왜 왔어?")])]
    prose = {1: "진도준은 부산 본가 앞에서 강미라를 찾아갔다. \"여긴 왜 왔어?\""}
    report = check_episode(seeded.mem, episode=3, beats=beats, prose=prose, candidates=batch,
                           language="ko")
    assert report.findings == ()
    assert report.covered == (1,) and report.missed == ()
    batch.discard()


def test_a_death_long_decayed_is_still_canon(seeded: Seeded) -> None:
    seeded.mem.advance(500)  # far beyond a Character memory's unrecalled lifetime
    beats = [beat(1, "서울", ["진도준"], dialogue=[("박철수", "돌아왔다")])]
    report = check_episode(seeded.mem, episode=120, beats=beats, prose={1: "..."},
                           language="ko")
    assert kinds(report).get("dead_character") == seeded.ids["dead"]


def test_aliases_resolve_to_the_canonical_character(seeded: Seeded) -> None:
    with seeded.mem.stage() as b:
        died = b.note("진도준은 죽었다", "Character", character_name="진도준",
                      aspect="condition", chapter=3)
    beats = [beat(1, "서울", ["강미라"], dialogue=[("도준", "미라야")])]
    report = check_episode(seeded.mem, episode=4, beats=beats, prose={1: "..."}, language="ko")
    assert kinds(report).get("dead_character") == died


def test_english_messages(mem) -> None:  # type: ignore[no-untyped-def]
    with mem.stage() as b:
        b.remember("Kang Mira — a reporter", "Character", character_name="Kang Mira",
                   aliases=["Mira"])
        died = b.note("Kang Mira died in the fire", "Character", character_name="Kang Mira",
                      aspect="condition", chapter=1)
    beats = [NovelBeat(episode=2, index=1, location="the newsroom", time="night",
                       characters=["Mira"], events=["Mira files a story"])]
    report = check_episode(mem, episode=2, beats=beats, prose={1: "Mira typed."},
                           language="en")
    assert [(f.kind, f.memory_id) for f in report.findings] == [("dead_character", died)]
    assert report.findings[0].message.startswith("Mira is dead")


def test_extraction_results_by_beat_are_claims_too(seeded: Seeded) -> None:
    """The autopilot holds a draft's candidates as dumped extraction results per beat."""
    from aizac.memory.references import PlacedCharacter, PlacedRelation, PlacedStory, Resolution
    from aizac.writer.extraction import Extracted

    found = {
        "1": Extracted(Resolution(
            story=[PlacedStory("진도준은 회귀자가 아니다")],
            relations=[PlacedRelation("강미라", "진도준",
                                      "진도준과 강미라는 여전히 다정한 친구 사이다")])).dump(),
        "2": Extracted(Resolution(characters=[
            PlacedCharacter("박철수", "condition", "박철수는 살아 있었다")])).dump(),
    }
    beats = [beat(1, "부산 본가", ["강미라"]), beat(2, "부산 본가", ["강미라"])]
    report = check_episode(seeded.mem, episode=3, beats=beats, prose={1: "..", 2: ".."},
                           candidates=found, language="ko")
    assert {(f.kind, f.memory_id, f.beat) for f in report.findings} == {
        ("pinned_negated", seeded.ids["pin"], 1),
        ("superseded_relation", seeded.ids["enemies"], 1),
        ("dead_character", seeded.ids["dead"], 2),
    }


def test_a_world_rule_changed_or_broken_is_a_warning(seeded: Seeded) -> None:
    with seeded.mem.stage() as b:
        rule = b.note("마나는 밤에만 쓸 수 있다", "NovelSetting", keyword="마나", aspect="rule",
                      chapter=1)
    batch = seeded.mem.stage()  # a revision of that rule (by its lineage, as a reply names it)
    batch.note("마나는 이제 낮에도 자유롭게 쓴다", "NovelSetting", keyword="마나", aspect="rule",
               lineage=str(seeded.mem.get(str(rule)).metadata["lineage"]), chapter=3, beat=1)
    report = check_episode(seeded.mem, episode=3, beats=[beat(1, "부산", ["강미라"])],
                           prose={1: ".."}, candidates=batch, language="ko")
    assert [(f.kind, f.severity, f.memory_id) for f in report.findings] == [
        ("world_rule", "warning", rule)]
    batch.discard()
    broken = seeded.mem.stage()
    broken.note("마나는 밤에도 쓸 수 없다", "Story", chapter=3, beat=1)
    report = check_episode(seeded.mem, episode=3, beats=[beat(1, "부산", ["강미라"])],
                           prose={1: ".."}, candidates=broken, language="ko")
    assert [(f.kind, f.memory_id) for f in report.findings] == [("world_rule", rule)]
    assert "원고가 세계관 규칙 '마나는 밤에만 쓸 수 있다'를 어깁니다" in report.findings[0].message
    broken.discard()


def test_a_death_in_extraction_results_cites_no_memory_yet(seeded: Seeded) -> None:
    found = {"1": {"characters": {"facts": [{"character_name": "진도준", "aspect": "condition",
                                             "text": "진도준은 총에 맞아 죽었다"}]}}}
    beats = [beat(1, "서울", ["진도준"]), beat(2, "서울", ["강미라"], dialogue=[("진도준", "...")])]
    report = check_episode(seeded.mem, episode=3, beats=beats, prose={1: "..", 2: ".."},
                           candidates=found, language="ko")
    dead = [f for f in report.findings if f.kind == "dead_character"]
    assert [(f.beat, f.memory_id) for f in dead] == [(2, None)]


def test_a_pair_the_memory_could_not_settle_is_cited_when_the_draft_touches_it(
    seeded: Seeded,
) -> None:
    """Issue 24 item 1: where the model could not say which slot a fact fills (the embedded
    model's fallback was unsure), both facts were kept and flagged; a draft about that
    character gets a warning citing the flagged memory."""
    mem = seeded.mem
    held = []
    for text, aspect in (("강미라는 다리를 다쳤다", "condition"),
                         ("강미라는 부산 항구에 있다", "whereabouts")):
        with mem.stage() as b:
            held.append(b.note(text, "Character", character_name="강미라", chapter=2,
                               aspect=aspect))
    with mem.stage() as b:
        flagged = b.note("강미라는 쓰러진 채 떠났다", "Character",
                         character_name="강미라", chapter=2, conflicts=held)
    assert flagged in {a.id for a, _ in mem.conflicts()}
    about = [beat(1, "부산 항구", ["강미라"])]
    report = check_episode(mem, episode=3, beats=about, prose={1: "..."}, language="ko")
    found = [f for f in report.findings if f.kind == "unsettled_memory"]
    assert found and {f.memory_id for f in found} == {flagged}
    assert found[0].severity == "warning" and "기억 탭에서 정리하세요" in found[0].message
    elsewhere = [beat(1, "서울 본사", ["진도준"])]
    report = check_episode(mem, episode=3, beats=elsewhere, prose={1: "..."}, language="ko")
    assert "unsettled_memory" not in kinds(report)
