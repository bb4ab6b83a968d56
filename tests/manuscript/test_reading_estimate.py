"""The estimate said before an imported manuscript is read into memory: its calls are the calls
a read makes, its money comes from the price table, the embedded model costs no money and is
given a time (:mod:`aizac.application.reading_estimate`, ``aizac estimate-read``)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from aizac.application.reading_estimate import (
    API_SPEED,
    EMBEDDED_SPEED,
    EXTRACT_ROLE,
    READ_ROLE,
    PromptSizes,
    RoleModel,
    estimate,
    estimate_lines,
)
from aizac.application.service import ApplicationService
from aizac.cli.estimate import register
from aizac.errors import InvalidInputError
from aizac.llm import registry
from aizac.llm.prices import cost, price_of
from aizac.llm.runtime import run_sync
from aizac.text import render
from aizac.writer import combined
from aizac.writer.schemas import BeatDesign, CharacterProfile, NovelBeat
from aizac.writer.service import Studio
from tests.fakes import ScriptedChatModel

from .conftest import write_serial

NAME = "귀환한 기사"
SCENES = ["한서아는 왕도의 북문을 지나 천천히 걸었다. " * 20, "바람이 차가웠다. " * 30,
          "하늘은 낮게 내려앉아 있었다. " * 25]
PROMPTS = PromptSizes(read=300, combined=400, tags=dict.fromkeys(
    ("Story", "Character", "CharacterRelation", "NovelSetting"), 200), summary=80)


def _model(provider: str, model: str = "") -> RoleModel:
    row = registry.row(provider)
    assert row is not None
    price = price_of(provider, model) if model else None
    speed = EMBEDDED_SPEED if row.profile.small_local else API_SPEED
    return RoleModel(EXTRACT_ROLE, f"{provider}:{model}" if model else provider, row.profile,
                     price, speed)


def test_the_estimate_counts_the_calls_a_read_of_the_scenes_makes(
        service: ApplicationService, model: ScriptedChatModel, tmp_path: Path) -> None:
    model.speak_korean()
    service.import_manuscript(NAME, [write_serial(tmp_path)])
    found = service.estimate_reading(NAME)
    assert (found.scenes, found.episodes) == (6, 3)
    assert not found.combined  # the scripted model declares nothing: per-tag extraction
    agent = service.agent(NAME)
    before = len(model.calls)
    for record in service.accepted(NAME):  # what reading does, call for call (not committed)
        messages = agent.prompts.render("summary", "ko", beat=record.prose or "")
        design = agent.router.structured(READ_ROLE, BeatDesign, messages)
        beat = NovelBeat.place(design, record.episode, record.index)
        # the read call profiles the scene's newcomers (the memory is empty: everyone)
        cast = [CharacterProfile(name=n, role="인물", profile="원고의 인물.", goal="-")
                for n in beat.characters]
        run_sync(combined.extract_beat(agent.router, beat, offer=agent.offer_for(beat, cast),
                                       language="ko", prompts=agent.prompts))
    assert found.calls == len(model.calls) - before == 6 * (1 + 5)
    assert found.input_tokens > sum(len(r.prose or "") for r in service.accepted(NAME))


def test_what_the_memory_read_already_is_not_estimated_again(
        service: ApplicationService, tmp_path: Path) -> None:
    service.import_manuscript(NAME, [write_serial(tmp_path)])
    store = service.agent(NAME).store
    # the first two episodes read, as the reading marks a scene (its design and summary)
    for record in [b for b in service.accepted(NAME) if b.episode <= 2]:
        read = record.beat.model_copy(update={"characters": ["민재"]})
        store.read_scene(record.id, read, memory_ids=[], summary=f"{record.episode}화 요약")
    assert (service.estimate_reading(NAME).scenes, service.estimate_reading(NAME).episodes) == (
        2, 1)


def test_a_project_not_made_from_a_manuscript_has_nothing_to_estimate(
        service: ApplicationService) -> None:
    service.create_project("plain", genre="fantasy", keywords=["sword"], language="en")
    with pytest.raises(InvalidInputError) as caught:
        service.estimate_reading("plain")
    assert caught.value.key == "error.read.not_imported"


def test_an_api_model_is_priced_from_the_price_table() -> None:
    mini = _model("openai", "gpt-4o-mini")
    found = estimate(SCENES, episodes=2, read=mini, extract=mini, prompts=PROMPTS,
                     max_reply_tokens=1024)
    assert found.combined and found.calls == 2 * len(SCENES)  # one read, one extraction
    [role] = found.roles
    assert found.dollars == role.dollars == pytest.approx(cost(
        price_of("openai", "gpt-4o-mini"), prompt=found.input_tokens,
        output=found.output_tokens))
    assert found.dollars and found.dollars > 0
    # the same reading on a dearer model costs more, by the table's prices
    big = estimate(SCENES, episodes=2, read=_model("openai", "gpt-4.1"),
                   extract=_model("openai", "gpt-4.1"), prompts=PROMPTS, max_reply_tokens=1024)
    assert big.dollars == pytest.approx(found.dollars * 2.00 / 0.15, rel=0.3)
    said = "\n".join(render(line, "en") for line in estimate_lines(found))
    assert "US$" in said and "an assumption, not measured" in said and "2026-12-01" in said


def test_a_model_the_table_does_not_price_has_no_money_figure() -> None:
    unpriced = dataclasses.replace(_model("openai", "gpt-4o-mini"), price=None)
    found = estimate(SCENES, episodes=2, read=unpriced, extract=unpriced, prompts=PROMPTS,
                     max_reply_tokens=1024)
    assert found.dollars is None and found.seconds > 0
    assert "money unknown" in render(estimate_lines(found)[0], "en")


def test_the_embedded_model_costs_no_money_and_is_given_its_measured_time() -> None:
    local = _model("local")
    found = estimate(SCENES, episodes=2, read=local, extract=local, prompts=PROMPTS,
                     max_reply_tokens=1024)
    assert not found.combined and found.calls == len(SCENES) * (1 + 5)  # one call per tag
    assert found.dollars == 0.0 and found.embedded
    per_call = [EMBEDDED_SPEED.latency] * found.calls
    assert found.seconds == pytest.approx(sum(per_call) + found.input_tokens
                                          / EMBEDDED_SPEED.prefill
                                          + found.output_tokens / EMBEDDED_SPEED.generate)
    for language in ("en", "ko", "zh"):
        said = [render(line, language) for line in estimate_lines(found)]
        assert len(said) == 6 and all(said)
    said = "\n".join(render(line, "en") for line in estimate_lines(found))
    assert "no money" in said and "measured" in said and "writes English only" in said


def test_the_offer_grows_as_the_reading_goes_on() -> None:
    mini = _model("openai", "gpt-4o-mini")
    same = ["바람이 차가웠다. " * 30] * 12
    first = estimate(same[:1], episodes=1, read=mini, extract=mini, prompts=PROMPTS,
                     max_reply_tokens=1024)
    later = estimate(same[:1], episodes=1, read=mini, extract=mini, prompts=PROMPTS,
                     max_reply_tokens=1024, read_before=11)
    assert later.input_tokens > first.input_tokens


def _app(studio: Studio) -> typer.Typer:
    app = typer.Typer()
    register(app, lambda **_: studio)
    app.command("noop")(lambda: None)  # two commands, so typer keeps the name
    return app


def test_the_command_says_the_estimate(
        service: ApplicationService, studio: Studio, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    service.import_manuscript(NAME, [write_serial(tmp_path)])
    monkeypatch.setenv("AIZAC_UI_LANGUAGE", "en")
    out = CliRunner().invoke(_app(studio), ["estimate-read", "--project", NAME])
    assert out.exit_code == 0, out.output
    assert out.output.startswith("Reading 6 scenes (3 episodes) into memory: 36 model calls")
