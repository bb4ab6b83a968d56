"""The autopilot's check sees the foreshadowing ledger and the secrets registry, and the commit
keeps them in step (issue 14 gap: overdue threads and secret leaks inside a run)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langchain_core.messages import BaseMessage
from pydantic import PrivateAttr

from aizac.autopilot.events import Event
from aizac.autopilot.runner import Autopilot
from aizac.autopilot.state import Options
from aizac.continuity import open_books
from tests.acceptance.invariants import check_project
from tests.autopilot.fakes import JudgingModel, planned_project
from tests.fakes.scripted import _schema_title

LOCKET = "A silver locket in the chapel hides the duke's seal."


class PlantingModel(JudgingModel):
    """The scripted model whose first story extraction plants a thread (the locket)."""

    _planted: list[bool] = PrivateAttr(default_factory=list)

    def _next(self, messages: list[BaseMessage]) -> str:
        if _schema_title(messages) == "StoryExtraction" and not self._planted:
            self._planted.append(True)
            return json.dumps({"facts": [
                {"text": LOCKET, "keyword": "locket", "foreshadow": True}]})
        return super()._next(messages)


def _checks(events: list[Event]) -> dict[int, str]:
    return {e.episode: ", ".join(e.detail.get("kinds", [])) for e in events
            if (e.node, e.kind) == ("check", "end")}


def test_a_thread_left_hanging_past_due_is_warned_in_a_later_check(tmp_path: Path) -> None:
    _, agent = planned_project(tmp_path / "data", PlantingModel())
    autopilot = Autopilot(agent)
    assert autopilot.start(Options(episodes=1)).status == "finished"
    ledger = open_books(agent.store.directory).ledger
    threads = ledger.threads()  # the commit recorded the planted thread
    assert [(t.text, t.planted) for t in threads] == [(LOCKET, 1)]
    ledger.set_due(threads[0].memory_id, 2)  # the writer wants it paid off by episode 2
    result = autopilot.start(Options(episodes=2))  # episodes 2 and 3; the locket never returns
    assert result.status == "finished"
    checks = _checks(autopilot.runs.events(result.run_id))
    assert "foreshadowing_overdue" not in checks[2]
    assert "foreshadowing_overdue" in checks[3]
    assert check_project(agent.store.directory).problems == []
    autopilot.close()


def test_a_replayed_commit_records_the_books_once(tmp_path: Path) -> None:
    _, agent = planned_project(tmp_path / "data", PlantingModel())
    autopilot = Autopilot(agent)
    result = autopilot.start(Options(episodes=1))
    books = open_books(agent.store.directory)
    before = (books.ledger.threads(), books.secrets.secrets())
    assert len(before[0]) == 1
    history = autopilot.graph.get_state_history(autopilot.config(result.run_id))
    at_commit = next(s for s in history if s.next == ("commit",))
    autopilot.graph.invoke(None, at_commit.config)  # the commit node runs again
    assert (books.ledger.threads(), books.secrets.secrets()) == before
    autopilot.close()


@pytest.mark.parametrize("speaker", ["Mira"])
def test_a_secret_only_aren_knows_used_by_mira_is_flagged(tmp_path: Path, speaker: str) -> None:
    model = JudgingModel()
    _, agent = planned_project(tmp_path / "data", model)
    aren = agent.memory.get_where({"character_name": "Aren"})[0]
    open_books(agent.store.directory).secrets.add(
        aren.id, "Aren came back from ten years in the future.", keyword="ten years",
        known_by=["Aren"])
    model.react("Aren", {"dialogue": [
        {"speaker": speaker, "line": "I know you lived those ten years already."}]})
    autopilot = Autopilot(agent)
    result = autopilot.start(Options(episodes=1))
    checks = _checks(autopilot.runs.events(result.run_id))
    assert "secret_leak" in checks[1]
    autopilot.close()


def test_a_line_that_flips_a_pairs_speech_level_is_a_dialogue_finding_of_the_check(
        tmp_path: Path) -> None:
    from aizac.dialogue.cards import PairVoice
    from aizac.dialogue.memory import note_pair

    model = JudgingModel()
    _, agent = planned_project(tmp_path / "data", model)
    with agent.memory.stage() as batch:
        pair = note_pair(batch, PairVoice("Mira", "Aren", "polite", "Sir Aren"), "en")
    model.react("Aren", {"dialogue": [
        {"speaker": "Mira", "line": "Hey Aren, you gonna sulk all day?"}]})
    autopilot = Autopilot(agent)
    result = autopilot.start(Options(episodes=1))
    checks = _checks(autopilot.runs.events(result.run_id))
    assert "speech_level" in checks[1] and "address_form" in checks[1]
    autopilot.close()
    # no writer said the flip is meant: the committed episode leaves the pair's voice as it was
    assert [h.id for h in agent.memory.history(pair)] == [pair]

    from aizac.autopilot import nodes
    from aizac.continuity import ContinuityReport
    from aizac.writer.schemas import NovelBeat

    beat = NovelBeat(episode=2, index=1, location="Eastwall gate", time="dawn",
                     characters=["Aren", "Mira"], events=["They meet"],
                     dialogue=[{"speaker": "Mira", "line": "Aren, you're late."}])  # type: ignore[list-item]
    deps = nodes.Deps(agent=agent, runs=autopilot.runs, door=autopilot.door,
                      checker=lambda *_a, **_k: ContinuityReport())
    report = nodes.check({"episode": 2, "beats": [beat.model_dump()],  # type: ignore[typeddict-item]
                          "prose": {"1": '"Hey, you gonna stand there?" Mira said.'}}, deps)
    found = [(f["kind"], f["memory_id"]) for f in report["report"]["findings"]]
    assert ("address_form", pair) in found and ("speech_level", pair) in found


def test_a_beat_with_three_speakers_is_planned_before_the_autopilot_drafts_it(
        tmp_path: Path) -> None:
    model = JudgingModel()
    _, agent = planned_project(tmp_path / "data", model)
    model.react("", {"characters": ["Aren", "Mira", "Duke Veil"], "dialogue": [
        {"speaker": "Aren", "line": "We ride at dawn."},
        {"speaker": "Mira", "line": "Not without the seal."},
        {"speaker": "Duke Veil", "line": "You will not leave this hall."}]})
    autopilot = Autopilot(agent)
    assert autopilot.start(Options(episodes=1)).status == "finished"
    assert "DialoguePlan" in model.calls
    plan_at = model.calls.index("DialoguePlan")
    prose = [p for c, p in zip(model.calls, model.prompts, strict=True) if c == ""]
    assert any("## Dialogue plan" in p and "1. Aren to Mira" in p for p in prose)
    assert model.calls.index("", plan_at) > plan_at  # planned, then drafted
    autopilot.close()
