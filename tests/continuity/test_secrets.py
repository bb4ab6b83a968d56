"""The secrets registry: a character using a secret they do not know is flagged."""

from __future__ import annotations

from pathlib import Path

import pytest

from aizac.continuity import SecretsRegistry, check_episode, learned_in
from aizac.continuity.canon import Canon
from aizac.continuity.claims import FactClaim
from aizac.errors import InvalidInputError
from aizac.writer.schemas import DialogueLine, NovelBeat

from .conftest import Seeded


def scene(speaker: str, line: str) -> list[NovelBeat]:
    return [NovelBeat(episode=3, index=1, location="부산", time="밤", characters=[speaker],
                      events=["대화"], dialogue=[DialogueLine(speaker=speaker, line=line)])]


def test_a_character_who_cannot_know_a_secret_is_flagged(seeded: Seeded,
                                                         tmp_path: Path) -> None:
    reg = SecretsRegistry(tmp_path)
    reg.add(seeded.ids["pin"], "진도준은 회귀자다", keyword="회귀", known_by=["진도준"])
    report = check_episode(seeded.mem, episode=3, beats=scene("강미라", "너 회귀한 거지?"),
                           prose={1: ".."}, secrets=reg, language="ko")
    found = [f for f in report.findings if f.kind == "secret_leak"]
    assert [(f.memory_id, f.severity) for f in found] == [(seeded.ids["pin"], "error")]
    ok = check_episode(seeded.mem, episode=3, beats=scene("진도준", "나는 회귀했다"),
                       prose={1: ".."}, secrets=reg, language="ko")
    assert not [f for f in ok.findings if f.kind == "secret_leak"]


def test_learning_earlier_in_the_draft_makes_it_known(seeded: Seeded, tmp_path: Path) -> None:
    reg = SecretsRegistry(tmp_path)
    reg.add(seeded.ids["pin"], "진도준은 회귀자다", keyword="회귀", known_by=["진도준"])
    batch = seeded.mem.stage()
    batch.note("강미라는 진도준이 회귀했다는 사실을 알게 되었다", "Character",
               character_name="강미라", aspect="other", chapter=3, beat=1)
    beats = scene("강미라", "너 회귀한 거지?")
    report = check_episode(seeded.mem, episode=3, beats=beats, prose={1: ".."},
                           candidates=batch, secrets=reg, language="ko")
    assert not [f for f in report.findings if f.kind == "secret_leak"]
    canon = Canon(cast={"강미라": (), "진도준": ()})
    claims = [FactClaim("Character", "강미라는 진도준이 회귀했다는 사실을 알게 되었다", 1,
                        name="강미라")]
    learned = learned_in(reg.secrets(), claims, canon)
    assert learned == [(seeded.ids["pin"], "강미라", 1)]
    reg.learn(seeded.ids["pin"], "강미라", 3)
    assert reg.secrets()[0].known_by == frozenset({"진도준", "강미라"})
    batch.discard()


def test_a_secret_needs_a_keyword(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="keyword"):
        SecretsRegistry(tmp_path).add("m", "비밀", keyword=" ")
