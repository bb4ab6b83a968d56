"""The autopilot's nodes: each reads the state and the project, does one step, returns changes.

Nodes never choose what runs next (:mod:`aizac.autopilot.routing` does). Model calls go through
the project's router (planner designs beats, writer drafts prose, extractor extracts candidates,
reviewer checks and judges); the store is written only by :func:`commit` and
:func:`rewrite_queued` (prose of already accepted beats), both idempotent on replay.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, cast

from aizac.application.service import ApplicationService
from aizac.autopilot import committing, drafting, episode_extract
from aizac.autopilot.events import RunStore
from aizac.autopilot.state import (
    AutopilotState,
    BeatData,
    ExtractedData,
    FactData,
    FindingData,
    NameData,
    ProfileData,
    ReportData,
    after_rewrite,
    beat_data,
    closed_episode,
    findings,
    profile_data,
    reasons,
)
from aizac.llm.runtime import run_sync
from aizac.writer import combined, episode_design, episode_prose
from aizac.writer.extraction import Extracted
from aizac.writer.schemas import CharacterProfile, NovelBeat

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from aizac.autopilot.outline import OutlineStore
    from aizac.continuity import ContinuityReport
    from aizac.continuity.books import Books
    from aizac.continuity.canon import Fact
    from aizac.continuity.report import NameResolution
    from aizac.llm.usage import UsageLog

Update = AutopilotState
"""What a node returns: the state's fields it changes."""


def _default_checker() -> Callable[..., Any]:
    from aizac.continuity import check_episode

    return check_episode


def _default_reviewer() -> Callable[..., Any]:
    from aizac.autopilot.review import review_episode

    return review_episode


def _default_dialogue() -> Callable[..., Any]:
    from aizac.dialogue import check_dialogue

    return check_dialogue


def _default_outliner() -> Callable[..., Any]:
    from aizac.autopilot.outline import outline_next_arc

    return outline_next_arc


@dataclass
class Deps:
    """What the nodes work with (tests pass fakes for the judging parts)."""

    agent: Any
    runs: RunStore
    door: ApplicationService
    """The one way in: the commit goes through it (lock, journal, history)."""
    usage: UsageLog | None = None  # the router's (token deltas per node)
    checker: Callable[..., Any] = field(default_factory=_default_checker)
    reviewer: Callable[..., Any] = field(default_factory=_default_reviewer)
    outliner: Callable[..., Any] = field(default_factory=_default_outliner)
    dialogue: Callable[..., Any] = field(default_factory=_default_dialogue)
    say: Callable[[str], None] = lambda _: None
    one_review: bool | None = None
    """Ask the reviewer for the model check and the verdict in one call
    (:func:`~aizac.autopilot.review.review_with_canon`); ``None``: when the reviewer declares
    larger structured replies (as the combined extraction) and the checker and reviewer are
    aizac's own."""

    @property
    def language(self) -> str:
        return str(self.agent.info.language)

    def outlines(self) -> OutlineStore:
        from aizac.autopilot.outline import OutlineStore

        return OutlineStore(self.agent.store)

    def books(self) -> Books:
        """The project's foreshadowing ledger and secrets registry (``continuity.sqlite``)."""
        from aizac.continuity import open_books

        return open_books(self.agent.store)


def _beats(state: AutopilotState) -> list[NovelBeat]:
    return [NovelBeat.model_validate(b) for b in state.get("beats", [])]


# ------------------------------------------------------------------------------- episode
def load_context(state: AutopilotState, deps: Deps) -> Update:
    """Open the next episode at the story's next position (recovering a killed accept first)."""
    deps.agent.reconcile()
    episode, index = deps.agent.next_position()
    return {**closed_episode(), "episode_open": True, "episode": episode, "start_index": index}


def plan(state: AutopilotState, deps: Deps) -> Update:
    """Design the open episode's remaining beats (a draft the beat editor left is reused)."""
    agent, episode = deps.agent, int(state["episode"])
    goal = _outlined_goal(deps, episode)
    beats: list[BeatData] = []
    profiles: list[list[ProfileData]] = []
    written: list[list[str]] = []
    indices = range(int(state["start_index"]), agent.episodes.current().beats + 1)
    memories: dict[int, Extracted] = {}
    designed = _designed_together(deps, episode, indices, goal, memories)
    for index in indices:
        existing = agent.store.draft_at(episode, index)
        written.append(list(existing.written) if existing is not None else [])
        if existing is not None:
            beat, newcomers = existing.beat, list(existing.new_characters)
        elif index in designed:
            beat, newcomers = designed[index]
        else:
            deps.say(f"designing beat {episode}-{index}")
            beat, newcomers = agent.design(episode, index, goal)
        beats.append(beat_data(beat))
        profiles.append([profile_data(p) for p in newcomers])
    return {"beats": beats, "profiles": profiles, "written": written,
            "designed_memory": {str(i): extracted_data(m) for i, m in memories.items()}}


def extracted_data(found: Extracted) -> ExtractedData:
    """A beat's candidate memories as the state keeps them."""
    return cast(ExtractedData, committing.dump_extracted(found))


def _designed_together(
    deps: Deps, episode: int, indices: range, goal: str, memories: dict[int, Extracted]
) -> dict[int, tuple[NovelBeat, list[CharacterProfile]]]:
    """The beats without a draft, designed in one call when the planner declares it can
    (:mod:`aizac.writer.episode_design`), with what each adds to memory (into ``memories``);
    empty otherwise (one call per beat)."""
    agent = deps.agent
    missing = [i for i in indices if agent.store.draft_at(episode, i) is None]
    if len(missing) < 2 or not episode_design.designs_episodes(agent):
        return {}
    deps.say(f"designing beats {episode}-{missing[0]}..{missing[-1]}")
    return episode_design.design_episode(agent, episode, missing, goal, memories=memories).beats


def _outlined_goal(deps: Deps, episode: int) -> str:
    try:
        goal = deps.outlines().goal_for(episode)
    except Exception:  # an unreadable outline only loses the hint; the plot still leads
        return ""
    return f"Episode goal: {goal}" if goal else ""


def draft(state: AutopilotState, deps: Deps) -> Update:
    """Prose for every planned beat not drafted yet (kept in the state, not the store)."""
    prose = dict(state.get("prose", {}))
    missing = [beat for beat in _beats(state) if str(beat.index) not in prose]
    running = [b.index for b in missing] == list(range(missing[0].index, missing[0].index
                                                       + len(missing))) if missing else False
    if len(missing) > 1 and running and episode_prose.writes_episodes(deps.agent):
        # one call for scenes that follow each other (a rewrite redrafts its beat alone)
        first = missing[0]
        deps.say(f"drafting beats {first.episode}-{first.index}..{missing[-1].index}")
        previous = drafting.previous_prose(deps.agent, prose, first)
        written = drafting.draft_episode(deps.agent, missing, previous)
        prose.update({str(index): text for index, text in written.items()})
    for beat in _beats(state):
        if str(beat.index) not in prose:
            deps.say(f"drafting beat {beat.episode}-{beat.index}")
            previous = drafting.previous_prose(deps.agent, prose, beat)
            prose[str(beat.index)] = drafting.draft_prose(deps.agent, beat, previous)
    return {"prose": prose}


def extract(state: AutopilotState, deps: Deps) -> Update:
    """Candidate memories of every planned beat (extractor role)."""
    agent = deps.agent
    # what the episode design gave first: those beats need no extraction call
    found = {**state.get("designed_memory", {}), **state.get("candidates", {})}
    profiles = state.get("profiles", [])
    beats = _beats(state)
    newcomers = [CharacterProfile.model_validate(p) for new in profiles for p in new]
    together = _extracted_together(deps, [b for b in beats if str(b.index) not in found],
                                   newcomers)
    for n, beat in enumerate(beats):
        if str(beat.index) in found:
            continue
        if beat.index in together:
            found[str(beat.index)] = extracted_data(together[beat.index])
            continue
        new = [CharacterProfile.model_validate(p)
               for p in (profiles[n] if n < len(profiles) else [])]
        result = run_sync(combined.extract_beat(
            agent.router, beat, offer=agent.offer_for(beat, new), language=deps.language,
            prompts=agent.prompts, concurrent_calls=agent.concurrent_extraction,
            combined=agent.combined_extraction,
        ))
        found[str(beat.index)] = extracted_data(result)
    return {"candidates": found}


def _extracted_together(
    deps: Deps, beats: list[NovelBeat], newcomers: list[CharacterProfile]
) -> dict[int, Extracted]:
    """The candidates of ``beats`` from one call when the extractor declares it can
    (:mod:`aizac.autopilot.episode_extract`); empty otherwise (per-beat calls)."""
    agent = deps.agent
    if len(beats) < 2 or not episode_extract.extracts_episodes(agent):
        return {}
    return run_sync(episode_extract.extract_episode(
        agent.router, beats, offer=episode_extract.episode_offer(agent, beats, newcomers),
        language=deps.language, prompts=agent.prompts,
    ))


def _reviews_once(deps: Deps) -> bool:
    """Whether the model check rides on the verdict call (see :attr:`Deps.one_review`)."""
    from aizac.autopilot.review import review_episode
    from aizac.writer.checked import accepts_keyword

    if deps.one_review is not None:
        return deps.one_review
    if deps.reviewer is not review_episode or not accepts_keyword(deps.checker, "shown"):
        return False  # a checker or reviewer passed in judges as it was given
    forced = getattr(deps.agent, "combined_extraction", None)
    if forced is not None:
        return bool(forced)
    return combined.combined_extraction_ok(deps.agent.router, role="reviewer")


def check(state: AutopilotState, deps: Deps) -> Update:
    """The continuity check of the draft against canon (deterministic + reviewer role), with
    the foreshadowing ledger (overdue threads) and the secrets registry (leaks), and the
    dialogue check of every line against the voices in memory (:mod:`aizac.dialogue`)."""
    prose = {int(k): v for k, v in state.get("prose", {}).items()}
    episode, books = int(state["episode"]), deps.books()
    # Threads planted in episodes the beat editor accepted reach the ledger too (idempotent).
    books.ledger.sync(deps.agent.memory, episode)
    beats = _beats(state)
    once = _reviews_once(deps)
    shown: list[Fact] = []
    report = deps.checker(
        deps.agent.memory, episode=episode, beats=beats, prose=prose,
        candidates=dict(state.get("candidates", {})),
        reviewer=None if once else _model(deps, "reviewer"),
        language=deps.language, ledger=books.ledger, secrets=books.secrets,
        **({"shown": shown} if once else {}),
    )
    if getattr(deps.agent.memory, "lookups", None) is not None:  # the voices of every line
        from aizac.dialogue import merge_reports

        writer = deps.agent.prose_writer
        plans = {b.index: p for b in beats if (p := writer.plan_for(b)) is not None}
        found = deps.dialogue(deps.agent.memory, beats, prose, language=deps.language,
                              plans=plans)
        report = merge_reports(report, found)
    # No canon to show: the verdict alone, as the model check makes no call then either.
    canon = [cast(FactData, asdict(f)) for f in shown] or None
    return {"report": dump_report(report), "canon": canon}


def review(state: AutopilotState, deps: Deps) -> Update:
    """The reviewer's verdict (accept / polish / rewrite with reasons); with the canon the
    check left for it, the model check's findings come in the same reply and join the report."""
    prose = {int(k): v for k, v in state.get("prose", {}).items()}
    if state.get("canon"):
        from aizac.autopilot.review import review_with_canon
        facts = [load_fact(f) for f in state.get("canon") or []]
        judged, report = review_with_canon(
            _model(deps, "reviewer"), prose=prose,
            report=load_report(state.get("report")), canon=facts, language=deps.language,
        )
        return {"verdict": {"decision": judged.decision, "reasons": list(judged.reasons)},
                "report": dump_report(report)}
    verdict = deps.reviewer(
        _model(deps, "reviewer"), prose=prose, report=load_report(state.get("report")),
        language=deps.language,
    )
    data = verdict.model_dump() if hasattr(verdict, "model_dump") else dict(verdict)
    return {"verdict": {"decision": str(data["decision"]), "reasons": list(data["reasons"])}}


def rewrite(state: AutopilotState, deps: Deps) -> Update:
    """Draft again the beats the findings cite (all beats when none is cited)."""
    found = findings(state)
    cited = {f.get("beat") for f in found if f.get("beat") is not None}
    prose = dict(state.get("prose", {}))
    for beat in _beats(state):
        if cited and beat.index not in cited:
            continue
        notes = [*reasons(state),
                 *(f["message"] for f in found if f.get("beat") in (None, beat.index))]
        if state.get("rewrite_note"):
            notes.insert(0, str(state["rewrite_note"]))
        previous = drafting.previous_prose(deps.agent, prose, beat)
        prose[str(beat.index)] = drafting.draft_prose(
            deps.agent, beat, previous, "Rewrite this scene. Fix: " + "; ".join(notes[:6])
        )
    return {**after_rewrite(), "prose": prose, "rewrites": int(state.get("rewrites", 0)) + 1}


def commit(state: AutopilotState, deps: Deps) -> Update:
    """Candidates become canon, the turn advances, the prose is stored; then the ledger and
    the secrets registry learn what the episode planted, advanced and revealed.

    Both halves are idempotent, so a commit replayed after a kill (before or after the books
    were written) records nothing twice."""
    from aizac.continuity import record_episode
    from aizac.dialogue import VOICE_FINDINGS

    # (committing takes the beats and profiles as plain dictionaries)
    beats: list[dict[str, Any]] = [dict(b) for b in state.get("beats", [])]
    profiles = [[dict(p) for p in new] for new in state.get("profiles", [])]
    held = {str(f["memory_id"]) for f in findings(state)
            if f.get("kind") in VOICE_FINDINGS and f.get("memory_id")}
    committing.commit_episode(
        deps.door, deps.agent.info.name, beats, profiles,
        state.get("prose", {}), state.get("candidates", {}), held_voices=held,
        written=list(state.get("written", [])),
    )
    record_episode(deps.agent.memory, deps.books(), episode=int(state["episode"]),
                   beats=_beats(state), candidates=dict(state.get("candidates", {})))
    return {"committed": True}


def _model(deps: Deps, role: str) -> BaseChatModel:
    return cast("BaseChatModel", deps.agent.router.model(role))


# ----------------------------------------------------------------------------- reports
def dump_report(report: ContinuityReport) -> ReportData:
    """A continuity report as plain data for the checkpointed state (read by attribute, so a
    checker passed in may return its own report)."""
    return {
        "findings": [cast(FindingData, asdict(f)) for f in getattr(report, "findings", ())],
        "covered": list(getattr(report, "covered", ())),
        "missed": list(getattr(report, "missed", ())),
        "names": [cast(NameData, asdict(n)) for n in getattr(report, "names", ())],
        "blocking": bool(getattr(report, "blocking", False)),
    }


def load_report(data: ReportData | None) -> ContinuityReport:
    """The report back as :class:`~aizac.continuity.ContinuityReport` (for the reviewer; an
    empty one before the check)."""
    from aizac.continuity.report import ContinuityReport, Finding, NameResolution

    if data is None:
        return ContinuityReport()
    return ContinuityReport(
        findings=tuple(Finding(**f) for f in data.get("findings", [])),
        covered=tuple(data.get("covered", ())), missed=tuple(data.get("missed", ())),
        names=tuple(_name(NameResolution, n) for n in data.get("names", [])),
    )


def _name(kind: type[NameResolution], data: NameData) -> NameResolution:
    values: dict[str, Any] = {**data, "options": tuple(data.get("options", ()))}
    return kind(**values)


def load_fact(data: FactData) -> Fact:
    """A canon fact the check left for the review, back as :class:`Fact`."""
    from aizac.continuity.canon import Fact

    values: dict[str, Any] = {**data, "pair": tuple(data.get("pair", ("", "")))}
    return Fact(**values)
