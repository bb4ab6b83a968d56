"""Voice facts in the real memory: staged with a beat, superseded with history, undone."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from aizac.dialogue.canon import read_voices
from aizac.dialogue.cards import PairVoice, VoiceCard
from aizac.dialogue.memory import set_card, set_voice, stage_voices
from aizac.errors import InvalidInputError
from aizac.llm.embeddings import HashingEmbeddings
from aizac.memory import WriterMemory
from aizac.settings import Settings
from aizac.writer import extraction
from aizac.writer.schemas import DialogueLine, NovelBeat


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[WriterMemory]:
    mem = WriterMemory(tmp_path / "memory", embeddings=HashingEmbeddings(),
                       settings=Settings(data_dir=tmp_path / "data"))
    with mem.stage() as batch:
        for name in ("강민호", "윤수아", "박지훈"):
            batch.remember(f"{name} — 인물", "Character", character_name=name)
    yield mem
    mem.close()


def beat(index: int, *lines: tuple[str, str], cast: tuple[str, ...] = ("강민호", "윤수아"),
         ) -> NovelBeat:
    return NovelBeat(episode=1, index=index, location="학교 옥상", time="밤",
                     characters=list(cast), events=["두 사람이 마주친다"],
                     dialogue=[DialogueLine(speaker=s, line=t) for s, t in lines])


def accept(memory: WriterMemory, b: NovelBeat, **reported: object) -> list[str]:
    found = extraction.Extracted(
        voices=list(reported.get("voices", [])),  # type: ignore[call-overload]
        speech=list(reported.get("speech", [])),  # type: ignore[call-overload]
    )
    batch, _ = extraction.stage(memory, found, b, language="ko")
    return batch.commit()


def test_an_address_fact_must_name_its_speaker_and_listener_as_its_pair(
        memory: WriterMemory) -> None:
    with pytest.raises(InvalidInputError), memory.stage() as batch:
        batch.remember("민호 -> 수아", "CharacterRelation", character1="강민호",
                       character2="윤수아", aspect="address")
    with pytest.raises(InvalidInputError), memory.stage() as batch:
        batch.remember("a voice", "Story", aspect="voice")


def test_the_lines_of_an_accepted_beat_become_the_pairs_voice_then_a_change_with_history(
        memory: WriterMemory) -> None:
    accept(memory, beat(1, ("강민호", "선배, 어디 가세요?"), ("윤수아", "민호야, 도서관 가.")))
    voices = read_voices(memory, ["강민호", "윤수아"])
    junior, senior = voices.pair("강민호", "윤수아"), voices.pair("윤수아", "강민호")
    assert junior is not None and (junior.level, junior.address) == ("polite", "선배")
    assert senior is not None and (senior.level, senior.address) == ("plain", "민호야")
    assert "존댓말" in memory.get(junior.memory_id).text

    # the same voice again reinforces; a falling-out that turns 존댓말 into 반말 is a new version
    assert not [i for i in accept(memory, beat(2, ("강민호", "선배, 고마워요.")))
                if i == junior.memory_id]
    ids = accept(memory, beat(3, ("강민호", "윤수아, 이제 됐어. 꺼져.")))
    now = read_voices(memory, ["강민호", "윤수아"]).pair("강민호", "윤수아")
    assert now is not None and now.memory_id in ids
    assert (now.level, now.address) == ("plain", "윤수아")
    assert [o.memory_id for o in now.older] == [junior.memory_id]

    memory.undo_commit(ids)  # undoing the beat brings the old voice back as current
    back = read_voices(memory, ["강민호", "윤수아"]).pair("강민호", "윤수아")
    assert back is not None and back.memory_id == junior.memory_id


def test_what_the_extractor_reports_is_staged_and_the_lines_win_over_it(
        memory: WriterMemory) -> None:
    accept(memory, beat(1, ("강민호", "선배, 어디 가세요?")),
           speech=[PairVoice("강민호", "윤수아", "plain", "수아야"),
                   PairVoice("윤수아", "강민호", "plain", "")],
           voices=[VoiceCard("박지훈", "무뚝뚝함", catchphrases=("귀찮게 하네",))])
    voices = read_voices(memory, ["강민호", "윤수아", "박지훈"])
    junior = voices.pair("강민호", "윤수아")
    assert junior is not None and (junior.level, junior.address) == ("polite", "선배")
    senior = voices.pair("윤수아", "강민호")
    assert senior is not None and senior.level == "plain"
    card = voices.card("박지훈")
    assert card is not None and card.catchphrases == ("귀찮게 하네",)


def test_the_writer_sets_a_voice_and_a_card(memory: WriterMemory) -> None:
    set_voice(memory, "박지훈", "윤수아", level="plain", address="수아야", language="ko")
    set_card(memory, "박지훈", register="무뚝뚝함", catchphrases=["귀찮게 하네"], language="ko")
    voices = read_voices(memory, ["박지훈", "윤수아"])
    assert voices.pair("박지훈", "윤수아").address == "수아야"  # type: ignore[union-attr]
    assert voices.card("박지훈").register == "무뚝뚝함"  # type: ignore[union-attr]
    with pytest.raises(InvalidInputError):
        set_voice(memory, "박지훈", "아무개", level="plain", language="ko")
    with pytest.raises(InvalidInputError):
        set_voice(memory, "박지훈", "윤수아", level="rude", language="ko")


def test_stage_voices_reads_the_language_from_the_lines_when_not_told(
        memory: WriterMemory) -> None:
    batch = memory.stage()
    ids = stage_voices(memory, batch, beat(1, ("강민호", "선배, 가요.")))
    assert len(ids) == 1
    batch.discard()


def test_a_combined_reply_carries_the_voices_through_the_autopilots_checkpoint() -> None:
    from aizac.autopilot.committing import dump_extracted, load_extracted
    from aizac.memory.references import build_offer
    from aizac.writer.combined import BeatExtraction
    from aizac.writer.extraction import ReferenceCheck
    from aizac.writer.schemas import CharacterExtraction, RelationExtraction

    offer = build_offer([("강민호", []), ("윤수아", []), ("박지훈", [])])
    reply = BeatExtraction.model_validate({
        "summary": "s", "voices": [{"who": "c3", "catchphrases": ["귀찮게 하네"]}],
        "speech": [{"speaker": "c1", "listener": "윤수아", "speech_level": "polite",
                    "address": "선배"}]})
    check = ReferenceCheck(offer, "ko")
    check(reply)  # every reference resolves
    resolved = extraction.extracted_of(reply, check.resolution(reply), reply.summary)
    found = load_extracted(dump_extracted(resolved))
    assert (found.voices[0].name, found.voices[0].catchphrases) == ("박지훈", ("귀찮게 하네",))
    assert (found.speech[0].speaker, found.speech[0].address) == ("강민호", "선배")
    # the per-tag schemas a small model answers stay as they were (no voice fields)
    assert "voices" not in CharacterExtraction.model_fields
    assert "speech" not in RelationExtraction.model_fields


def test_the_voices_of_a_scene_are_read_at_once_however_large_the_cast(
        memory: WriterMemory, monkeypatch: pytest.MonkeyPatch) -> None:
    """An accept reads the voice canon twice; one keyed read per card, state and pair made
    it grow with the cast (issue 41): the reads must not depend on how many characters
    the novel has."""
    from aizac.memory.key_index import KeyIndex
    from aizac.memory.rows import Rows

    reads: list[str] = []
    index_rows, chroma = KeyIndex._rows, Rows.chroma
    monkeypatch.setattr(KeyIndex, "_rows", lambda self, q: (reads.append("index"),
                                                            index_rows(self, q))[1])
    monkeypatch.setattr(Rows, "chroma", lambda self, call, *a: (reads.append("chroma"),
                                                                chroma(self, call, *a))[1])
    set_card(memory, "강민호", catchphrases=["그러니까요"], language="ko")

    def counted() -> int:
        memory.characters()  # the cast (cached until the next write) is not what is counted
        reads.clear()
        voices = read_voices(memory, ["강민호", "윤수아"])
        assert voices.card("강민호") is not None
        return len(reads)

    few = counted()
    with memory.stage() as batch:
        for n in range(12):
            batch.remember(f"인물 {n}", "Character", character_name=f"조연{n}")
    assert counted() == few
