"""A refused model reply reads in the writer's words wherever it meets the writer (issue 39 item
5: a malformed planner reply surfaced in a Korean error as "...EpisodeDesign ... beat_1: Field
required ... Extra inputs are not permitted"); the validator's own words go to the log."""

from __future__ import annotations

import logging

import pytest
import typer
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from aizac.autopilot.ladder import on_failure
from aizac.cli.errors import fail
from aizac.errors import StructuredOutputError
from aizac.llm.structured import generate_structured
from aizac.server.errors import body_of
from aizac.text import render
from aizac.web.labels import labels
from aizac.web.runner import Ui
from aizac.writer.episode_design import episode_schema
from aizac.writer.reply_problems import fields_named

RAW = ("Field required", "Extra inputs are not permitted", "EpisodeDesign", "beat_1")


@pytest.fixture
def refused() -> StructuredOutputError:
    """What the structured layer raises after a planner kept answering an episode plan with
    beat 2 missing and a field no schema has."""
    reply = '{"beat_1": {"location": "x", "time": "y", "omen": 1}}'
    model = FakeListChatModel(responses=[reply] * 4)
    with pytest.raises(StructuredOutputError) as info:
        generate_structured(model, episode_schema(2), "plan the episode", retries=1)
    return info.value


def _clean(said: str) -> None:
    assert not [w for w in RAW if w in said], said


def test_the_web_says_which_reply_and_which_fields_in_korean(
    refused: StructuredOutputError, caplog: pytest.LogCaptureFixture
) -> None:
    assert "Field required" in str(refused)  # what the structured layer keeps (for the log)
    caplog.set_level(logging.WARNING)
    said = Ui(service=None, L=labels("ko"), language="ko").message(refused)  # type: ignore[arg-type]
    _clean(said)
    assert "회차 설계" in said and "비트 1" in said and "비트 2" in said
    assert "Field required" in caplog.text  # the raw text went to the log


def test_the_api_the_cli_and_the_autopilot_say_it_alike(
    refused: StructuredOutputError, capsys: pytest.CaptureFixture[str]
) -> None:
    body = body_of(refused, "ko")
    assert body["code"] == "error.structured.failed"  # the stable code is kept
    _clean(body["message"])
    assert "비트 2" in body["message"]
    with pytest.raises(typer.Exit):
        fail(refused)
    english = capsys.readouterr().err
    _clean(english)
    assert "episode design" in english and "beat 2" in english
    step = on_failure("plan", 0, refused)
    _clean(render(step.reason, "ko"))
    assert "비트 1" in render(step.reason, "ko")


def test_field_paths_are_read_from_the_problem_lines() -> None:
    detail = ("- beat_2: Field required\n- acts.2.goal: too short\n- (root): bad\n"
              "- beat_2: again")
    assert fields_named(detail) == ["beat_2", "acts[2].goal", "*"]
    assert fields_named("no lines here") == []
