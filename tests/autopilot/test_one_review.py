"""One review call (issue 26): a reviewer that declares larger structured replies reads the
draft once, for the model check's contradictions and the verdict together (``EpisodeReview``),
instead of ``ModelReview`` and then ``Verdict`` (each with the whole prose). Its findings are
held to the model check's standard and a blocking one turns an ``accept`` into a rewrite."""

from __future__ import annotations

import json
from pathlib import Path

from aizac.autopilot.review import review_messages, review_with_canon
from aizac.continuity.canon import Fact
from aizac.continuity.report import ContinuityReport, Finding
from tests.autopilot.fakes import JudgingModel
from tests.autopilot.test_episode_calls import _run

CANON = [Fact("m1", "Mira lost her left hand at the siege.", "Character", name="Mira",
              aspect="condition")]
PROSE = {1: "Mira raised both hands to the gate.", 2: "Aren said nothing."}


def test_the_prompt_shows_the_canon_with_its_ids_before_the_draft_and_the_check() -> None:
    bel = Finding("presence", "warning", "Who is Bel?", None, "", None)
    report = ContinuityReport(findings=(bel,))
    system, user = review_messages(prose=PROSE, report=report, language="en", canon=CANON)
    assert "memory_id" in system.text and "rewrite" in system.text
    text = user.text
    assert text.index("[m1] Mira lost") < text.index("Mira raised") < text.index("Who is Bel?")
    plain = review_messages(prose=PROSE, report=report, language="en")[1].text
    assert "[m1]" not in plain and plain in text  # the canon goes first, the rest is as it was


def test_a_cited_contradiction_blocks_an_accept_and_a_made_up_quote_is_dropped() -> None:
    model = JudgingModel()
    model.verdicts("accept")
    model.findings([
        {"memory_id": "m1", "quote": "Mira raised both hands", "message": "She has one hand."},
        {"memory_id": "m1", "quote": "Mira waved a sword", "message": "not in the prose"},
        {"memory_id": "m9", "quote": "Aren said nothing.", "message": "uncited", "beat": 2},
    ])
    verdict, report = review_with_canon(model, prose=PROSE, report=ContinuityReport(),
                                        canon=CANON, language="en")
    assert model.calls == ["EpisodeReview"]
    kinds = [(f.severity, f.memory_id, f.quote) for f in report.findings]
    assert kinds == [("error", "m1", "Mira raised both hands"),
                     ("warning", None, "Aren said nothing.")]
    assert verdict.decision == "rewrite" and "She has one hand." in verdict.reasons


def test_a_capable_reviewer_answers_check_and_verdict_in_one_call(tmp_path: Path) -> None:
    model = JudgingModel()
    _run(model, tmp_path, episodes=2, beats=2)
    calls = model.calls
    assert "ModelReview" not in calls
    # Episode 1 has no canon to show (the check's model call would not run either): the
    # verdict alone; episode 2 shows the canon and gets both in one reply.
    assert calls.count("Verdict") + calls.count("EpisodeReview") == 2
    assert calls.count("EpisodeReview") == 1
    review = next(p for p, c in zip(model.prompts, calls, strict=True) if c == "EpisodeReview")
    assert "## Canon\n- [" in review


def test_a_reviewer_that_declares_nothing_keeps_the_model_check_and_the_verdict(
    tmp_path: Path,
) -> None:
    model = JudgingModel()  # a fake: provider "other", no declared capability
    _run(model, tmp_path, episodes=2, beats=2, combined=None)
    assert "EpisodeReview" not in model.calls and model.calls.count("Verdict") == 2
    assert "ModelReview" in model.calls  # episode 2 has canon to check against


def test_the_reply_schema_is_one_object_with_findings_then_the_verdict() -> None:
    from aizac.autopilot.review import EpisodeReview

    schema = EpisodeReview.model_json_schema()
    assert list(schema["properties"]) == ["findings", "decision", "reasons"]
    assert schema["required"] == ["decision"] and schema["additionalProperties"] is False
    json.dumps(schema)
