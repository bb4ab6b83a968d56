"""Human gates: LangGraph ``interrupt()`` pauses the run until the writer answers.

Each gate is its own node, so answering re-runs only the gate (never a model call). An answer
is ``approve``, ``edit`` (with a ``value``) or ``reject``; a bare string is the choice alone.

- plan gate (after plan): approve; edit (a list of beats in place of the plan); reject (plan
  again).
- rewrite gate (on a rewrite verdict): approve; edit (an instruction for the rewrite); reject
  (keep the draft: the verdict becomes accept).
- commit gate (before commit, showing the candidate memories): approve; edit (``{index:
  prose}`` replacing beats' prose); reject (draft the episode again). It waits whether switched
  on or not while the check's errors are open (``open``: the rewrites did not close them), so
  an episode with open errors becomes canon only when the writer approves it.
- batch gate (every N episodes): approve goes on; reject pauses the run.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph.types import interrupt

from aizac.autopilot.routing import open_errors
from aizac.autopilot.state import (
    MEMORY_TAGS,
    AutopilotState,
    ExtractedData,
    beat_data,
    findings,
    reasons,
)
from aizac.errors import InvalidInputError
from aizac.text import Text
from aizac.text.message import to_data
from aizac.writer.locks import changed_fields, check_fields
from aizac.writer.schemas import NovelBeat

CHOICES = ("approve", "edit", "reject")
Update = AutopilotState


def parse_answer(answer: object) -> tuple[str, object]:
    """``(choice, value)`` from a gate's resume value; a bad one is an InvalidInputError."""
    if isinstance(answer, str):
        choice, value = answer.strip().lower(), None
    elif isinstance(answer, Mapping):
        choice, value = str(answer.get("choice", "")).strip().lower(), answer.get("value")
    else:
        choice, value = "", None
    if choice not in CHOICES:
        raise InvalidInputError("error.autopilot.bad_answer", answer=repr(answer))
    if choice == "edit" and value in (None, "", [], {}):
        raise InvalidInputError("error.autopilot.edit_value")
    return choice, value


def memory_items(candidates: Mapping[str, ExtractedData]) -> list[dict[str, str]]:
    """The candidate memories of an episode as data: beat, tag, text (pure)."""
    items: list[dict[str, str]] = []
    for index, found in sorted(candidates.items(), key=lambda kv: int(kv[0])):
        for tag in MEMORY_TAGS:
            listed = found.get(tag) or []
            # (a run checkpointed before references kept each tag as {"facts": [...]})
            facts = listed.get("facts", []) if isinstance(listed, Mapping) else listed
            for fact in facts:
                text = next((v for k, v in fact.items() if k in ("text", "fact", "event")
                             and isinstance(v, str)), None) or _flat(fact)
                items.append({"beat": str(index), "tag": tag, "text": text})
        if found.get("summary"):
            items.append({"beat": str(index), "tag": "summary", "text": str(found["summary"])})
    return items


def memory_lines(candidates: Mapping[str, ExtractedData]) -> list[str]:
    """The candidate memories as lines for the command line (``[1] story: ...``)."""
    return [f"[{m['beat']}] {m['tag']}: {m['text']}" for m in memory_items(candidates)]


def _flat(fact: Mapping[str, object]) -> str:
    return "; ".join(f"{k}={v}" for k, v in fact.items() if v not in (None, "", []))


def payload(gate: str, state: AutopilotState) -> dict[str, Any]:
    """What the writer is shown at ``gate``."""
    base: dict[str, Any] = {"gate": gate, "episode": state.get("episode", 0),
                            "choices": list(CHOICES)}
    if gate == "plan":
        beats = [NovelBeat.model_validate(b) for b in state.get("beats", [])]
        base["beats"] = [b.render() for b in beats]  # the command line's lines
        base["beat_data"] = [b.model_dump(mode="json") for b in beats]  # a panel says its own
        base["written"] = [list(w) for w in state.get("written", [])]  # the writer's fields
    elif gate == "rewrite":
        base["verdict"] = state.get("verdict")
        base["findings"] = findings(state)
    elif gate == "commit":
        base["memories"] = memory_lines(state.get("candidates", {}))
        base["memory_data"] = memory_items(state.get("candidates", {}))
        base["prose"] = state.get("prose", {})
        base["findings"] = findings(state)
        # the errors the rewrites left open: why the gate waits when it was not switched on
        base["open"] = open_errors(state)
        base["rewrites"] = int(state.get("rewrites", 0))
    else:
        base["done_episodes"] = state.get("done_episodes", 0)
    return base


def gate_plan(state: AutopilotState) -> Update:
    choice, value = parse_answer(interrupt(payload("plan", state)))
    if choice == "approve":
        return {"plan_ok": True}
    if choice == "reject":
        return {"beats": [], "profiles": [], "plan_ok": False}
    old = state.get("beats", [])
    if not isinstance(value, list) or len(value) != len(old):
        raise InvalidInputError("error.autopilot.plan_edit", n=len(old))
    beats = [NovelBeat.model_validate({**b, "episode": o["episode"], "index": o["index"]})
             for b, o in zip(value, old, strict=True)]
    # what the writer changes at the gate is theirs, like an edit in the beat editor
    mine = list(state.get("written", [])) or [[] for _ in old]
    written = [check_fields([*w, *changed_fields(NovelBeat.model_validate(o), b)])
               for w, o, b in zip(mine, old, beats, strict=False)]
    return {"beats": [beat_data(b) for b in beats], "written": written, "plan_ok": True}


def gate_rewrite(state: AutopilotState) -> Update:
    choice, value = parse_answer(interrupt(payload("rewrite", state)))
    if choice == "approve":
        return {"rewrite_ok": True}
    if choice == "edit":
        return {"rewrite_ok": True, "rewrite_note": str(value)[:500]}
    kept = [*reasons(state), "the writer kept the draft"]
    return {"verdict": {"decision": "accept", "reasons": kept}}


def gate_commit(state: AutopilotState) -> Update:
    choice, value = parse_answer(interrupt(payload("commit", state)))
    if choice == "approve":
        return {"commit_ok": True}
    if choice == "reject":
        return {"prose": {}, "candidates": {}, "report": None, "verdict": None, "rewrites": 0,
                "commit_ok": False, "rewrite_ok": False}
    if not isinstance(value, Mapping):
        raise InvalidInputError("error.autopilot.commit_edit")
    prose = dict(state.get("prose", {}))
    for key, text in value.items():
        if str(key) not in prose or not str(text).strip():
            raise InvalidInputError("error.autopilot.commit_beat", beat=key)
        prose[str(key)] = str(text).strip()
    return {"prose": prose, "commit_ok": True}


def gate_batch(state: AutopilotState) -> Update:
    choice, _ = parse_answer(interrupt(payload("batch", state)))
    done = int(state.get("done_episodes", 0))
    if choice == "reject":
        return {"last_batch_gate": done,
                "pause_reason": to_data(Text("autopilot.pause.batch_gate"))}
    return {"last_batch_gate": done}
