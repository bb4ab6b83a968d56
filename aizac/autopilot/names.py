"""The names of the autopilot's steps, events, gates, verdicts, findings and memory tags, as
catalogue keys (pure): every surface says them in its reader's language."""

from __future__ import annotations

from aizac.text import Text, Verbatim

NAME_KEYS: dict[str, str] = {
    # nodes and steps
    "load_context": "autopilot.name.load_context", "plan": "autopilot.name.plan",
    "draft": "autopilot.name.draft", "extract": "autopilot.name.extract",
    "check": "autopilot.name.check", "review": "autopilot.name.review",
    "rewrite": "autopilot.name.rewrite", "commit": "autopilot.name.commit",
    "checkpoint": "autopilot.name.checkpoint", "rewrite_queued": "autopilot.name.rewrite_queued",
    "outline": "autopilot.name.outline", "batch": "autopilot.name.batch",
    "pause": "autopilot.name.pause", "finish": "autopilot.name.finish",
    "steer": "autopilot.name.steer", "run": "autopilot.name.run",
    # gates
    "gate_plan": "autopilot.name.gate_plan", "gate_rewrite": "autopilot.name.gate_rewrite",
    "gate_commit": "autopilot.name.gate_commit", "gate_batch": "autopilot.name.gate_batch",
    # event kinds
    "start": "autopilot.name.start", "end": "autopilot.name.end",
    "verdict": "autopilot.name.verdict", "decision": "autopilot.name.decision",
    "gate": "autopilot.name.gate", "warn": "autopilot.name.warn",
    "error": "autopilot.name.error", "waiting": "autopilot.name.waiting",
    # verdicts, severities, finding kinds
    "accept": "autopilot.name.accept", "polish": "autopilot.name.polish",
    "warning": "autopilot.name.warning", "absent_character": "autopilot.name.absent_character",
    "dead_character": "autopilot.name.dead_character",
    "foreshadowing_overdue": "autopilot.name.foreshadowing_overdue",
    "model": "autopilot.name.model", "pinned_negated": "autopilot.name.pinned_negated",
    "secret_leak": "autopilot.name.secret_leak",
    "superseded_relation": "autopilot.name.superseded_relation",
    "world_rule": "autopilot.name.world_rule", "wrong_location": "autopilot.name.wrong_location",
    "unsettled_memory": "continuity.kind.unsettled_memory",
    "speaker_absent": "autopilot.name.speaker_absent",
    "dead_speaker": "autopilot.name.dead_speaker",
    "wrong_speaker": "autopilot.name.wrong_speaker",
    "address_form": "autopilot.name.address_form", "catchphrase": "autopilot.name.catchphrase",
    "speech_level": "autopilot.name.speech_level",
    # memory tags of a candidate memory
    "story": "autopilot.name.story", "characters": "autopilot.name.characters",
    "relations": "autopilot.name.relations", "settings": "autopilot.name.settings",
    "summary": "autopilot.name.summary",
}
"""Every node, event, gate, verdict, finding and memory-tag name the panel shows (a word not
listed is shown as it is)."""
GATE_KEYS = {"plan": "autopilot.name.gate_plan", "rewrite": "autopilot.name.gate_rewrite",
             "commit": "autopilot.name.gate_commit", "batch": "autopilot.name.gate_batch"}
"""A gate (as a run's options and a gate's payload name it) as the panel names it."""
def name(word: str) -> Text | Verbatim:
    """A node, event, gate, verdict, finding or memory-tag name as the panel says it."""
    key = NAME_KEYS.get(word)
    return Text(key) if key else Verbatim(word)


def gate_name(gate: object) -> Text | Verbatim:
    """A gate (``plan``, ``commit``...) as the panel says it."""
    key = GATE_KEYS.get(str(gate))
    return Text(key) if key else name(str(gate))


__all__ = ["GATE_KEYS", "NAME_KEYS", "gate_name", "name"]
