"""The state's types say what a run really stores: the keys of the classes each value is dumped
from, and every checkpoint of a run validates against them."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from aizac.autopilot.nodes import dump_report
from aizac.autopilot.runner import Autopilot
from aizac.autopilot.state import (
    AutopilotState,
    BeatData,
    DialogueData,
    ExtractedData,
    FactData,
    FindingData,
    NameData,
    Options,
    OptionsData,
    ProfileData,
    ReportData,
)
from aizac.continuity.canon import Fact
from aizac.continuity.report import ContinuityReport, Finding, NameResolution
from aizac.writer.extraction import Extracted
from aizac.writer.schemas import CharacterProfile, DialogueLine, NovelBeat
from tests.autopilot.fakes import JudgingModel, planned_project


def _keys(typed: Any) -> set[str]:
    return set(typed.__required_keys__ | typed.__optional_keys__)


def test_each_stored_value_has_the_keys_of_its_class() -> None:
    assert _keys(BeatData) == set(NovelBeat.model_fields)
    assert _keys(DialogueData) == set(DialogueLine.model_fields)
    assert _keys(ProfileData) == set(CharacterProfile.model_fields)
    assert _keys(FindingData) == {f.name for f in fields(Finding)}
    assert _keys(NameData) == {f.name for f in fields(NameResolution)}
    assert _keys(FactData) == {f.name for f in fields(Fact)}
    assert _keys(OptionsData) == {f.name for f in fields(Options)} == set(Options().dump())
    assert _keys(ExtractedData) == set(Extracted().dump())
    assert _keys(ReportData) == {*dump_report(ContinuityReport()), "skipped"}


def test_every_checkpoint_of_a_run_validates_against_the_state_types(tmp_path: Path) -> None:
    """A run with a rewrite, stopped at the commit gate, then committed: each checkpoint's
    values (read back from the saver) are what :class:`AutopilotState` says, strictly."""
    model = JudgingModel()
    model.verdicts("rewrite")
    _, agent = planned_project(tmp_path / "data", model)
    autopilot = Autopilot(agent)
    result = autopilot.start(Options(episodes=1, gates=("commit",)))
    assert result.status == "waiting"
    assert autopilot.resume(result.run_id, answer="approve").status == "finished"
    adapter = TypeAdapter(AutopilotState)
    history = list(autopilot.graph.get_state_history(autopilot.config(result.run_id)))
    assert any(h.values.get("report") and h.values.get("candidates") for h in history)
    for snapshot in history:
        adapter.validate_python(snapshot.values, strict=True)
    autopilot.close()
