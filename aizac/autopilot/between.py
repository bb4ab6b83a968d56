"""Nodes between episodes: checkpoint (count, steering, arc end), queued rewrites, outline.

Steering notes the writer sent (``aizac autopilot --steer RUN "text"``, the web tab) are read
here, at an episode boundary, so a change never lands in the middle of an episode: the arbiter
turns each note into control actions, every action is written to the decisions log, and only
validated paths apply them (the rewrite queue, the outline, the memory's batch rules, a pause).
"""

from __future__ import annotations

from pydantic import TypeAdapter

from aizac.autopilot import drafting, steering
from aizac.autopilot.events import SteeringNote
from aizac.autopilot.nodes import Deps, Update
from aizac.autopilot.state import AutopilotState, closed_episode
from aizac.errors import AizacError
from aizac.storage.steering import CANON_CHANGE_KEY, canon_change_source
from aizac.text import Text, Verbatim
from aizac.text.message import to_data
from aizac.writer.schemas import NovelPlot

_ACTION: TypeAdapter[steering.Action] = TypeAdapter(steering.Action)


def arc_ends_at(plot: NovelPlot, episode: int, outlined: int) -> bool:
    """Whether ``episode`` closes an arc: the last outlined episode, or the last of its act
    when nothing past it is outlined (pure)."""
    if outlined > episode:
        return False
    if outlined == episode:
        return True
    return bool(plot.act_index(episode) != plot.act_index(episode + 1))


def checkpoint(state: AutopilotState, deps: Deps) -> Update:
    """Close the committed episode: count it, read steering, note an arc end."""
    episode = int(state["episode"])
    record = deps.agent.store.plot()
    outlined = _last_outlined(deps)
    update: Update = {
        **closed_episode(), "done_episodes": int(state.get("done_episodes", 0)) + 1,
        "arc_end": record is not None and arc_ends_at(record.plot, episode, outlined),
        "failures": {}, "repeats": {},
    }
    update.update(apply_steering(state, deps, episode))
    return update


def _last_outlined(deps: Deps) -> int:
    try:
        return int(deps.outlines().last_outlined())
    except (AizacError, OSError):
        return 0


def apply_steering(state: AutopilotState, deps: Deps, written: int) -> Update:
    """Turn the run's new steering notes into actions and apply them (see module docstring).

    Replay-safe: a note's actions and decisions are recorded before anything is applied, a
    replay applies the recorded actions (the arbiter is not asked again), canon changes are
    restated facts the second time (nothing added), and a note applied at this boundary gives
    the same queue and pause again."""
    run_id = str(state["run_id"])
    boundary = int(state.get("done_episodes", 0)) + 1
    queue = list(state.get("rewrite_queue", []))
    update: Update = {}
    for note in deps.runs.steering_at(run_id, boundary):
        actions = _actions_of(note, state, deps, written, boundary)
        for action in actions:
            if isinstance(action, steering.QueueRewrite):
                queue += [{"episode": n, "instruction": action.note}
                          for n in range(action.first, action.last + 1)]
            elif isinstance(action, steering.ReviseOutline):
                update["arc_end"] = True  # outline the episodes ahead again
            elif isinstance(action, steering.Pause):
                update["pause_reason"] = to_data(
                    Text("autopilot.pause.steering", note=Verbatim(note.text[:80])))
        if note.status != "applied":
            ids = _apply_canon(deps, actions, written, canon_change_source(run_id, note.id))
            deps.runs.close_steering(note.id, [a.model_dump() for a in actions], ids)
    update["rewrite_queue"] = queue
    return update


def _actions_of(note: SteeringNote, state: AutopilotState, deps: Deps, written: int,
                boundary: int) -> list[steering.Action]:
    """The note's actions: recorded ones, or the arbiter's (recorded before use)."""
    if note.status != "new":
        return [_ACTION.validate_python(a) for a in note.actions]
    run_id, agent = str(state["run_id"]), deps.agent
    try:
        actions = steering.interpret(
            agent.router.model("planner"), note.text, language=deps.language, written=written,
            characters=list(agent.memory.characters()),
            rules=[(h.id, str(h.metadata.get("keyword", "")), h.text)
                   for h in agent.memory.world_rules()],
        )
    except AizacError as e:
        deps.runs.add_decision(run_id, written, "steer", "not applied", f"{note.text!r}: {e}")
        deps.runs.close_steering(note.id, [])
        return []
    deps.runs.interpret_steering(run_id, note.id, boundary, written,
                                 [a.model_dump() for a in actions],
                                 steering.describe(actions, deps.language))
    return list(actions)


def _apply_canon(deps: Deps, actions: list[steering.Action], written: int,
                 source: str) -> list[str]:
    """Apply the canon changes; their memory ids (found again when a replay restated them)."""
    memory = deps.agent.memory
    if not any(isinstance(a, steering.ChangeCharacter | steering.ChangeSetting)
               for a in actions):
        return []
    ids = deps.door.change_memory(
        deps.agent.info.name,
        lambda held: steering.apply_canon_changes(held, actions, chapter=written, source=source))
    if not ids:  # applied before a kill: the memories carry the note's provenance
        ids = [h.id for h in memory.get_where({CANON_CHANGE_KEY: source},
                                              include_superseded=True)]
    return ids


def rewrite_queued(state: AutopilotState, deps: Deps) -> Update:
    """Rewrite the prose of the first queued (already committed) episode with its note.

    Only prose changes: the beats and their memories stay canon. Replaying it writes the
    episode's prose again (never a second copy)."""
    queue = list(state.get("rewrite_queue", []))
    item, rest = queue[0], queue[1:]
    agent, episode = deps.agent, int(item["episode"])
    prose: dict[str, str] = {}
    for record in agent.store.beats(episode=episode, status="accepted"):
        previous = drafting.previous_prose(agent, prose, record.beat)
        text = drafting.draft_prose(agent, record.beat, previous, str(item["instruction"]))
        prose[str(record.index)] = text
        deps.door.save_prose(agent.info.name, record.id, text, version=record.version,
                             drafted=True)
    return {"rewrite_queue": rest}


def outline(state: AutopilotState, deps: Deps) -> Update:
    """Outline the next arc from what actually happened (the rolling outline)."""
    from aizac.autopilot.outline import MAX_ARC_EPISODES

    agent = deps.agent
    record = agent.store.plot()
    first = agent.next_position()[0]
    if record is None:
        return {"arc_end": False}
    plot = record.plot
    numbers = [first]
    while len(numbers) < MAX_ARC_EPISODES and not arc_ends_at(plot, numbers[-1], 0):
        numbers.append(numbers[-1] + 1)
    arc = deps.outliner(
        agent.router.model("planner"), agent.memory, plot, episodes=numbers,
        language=deps.language,
    )
    deps.outlines().add(arc)
    return {"arc_end": False}
