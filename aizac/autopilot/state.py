"""The autopilot's graph state: plain JSON values only, so every checkpoint is portable.

One state holds one run: its options, the open episode (planned beats, drafted prose, candidate
memories, the continuity report, the review verdict), the counters the failure ladder and the
budget fuse read, and the facts the router reads between episodes. Beats and candidates are kept
as ``model_dump()`` dictionaries; :mod:`aizac.autopilot.nodes` turns them back into models.

The ``...Data`` dictionaries below say what each field holds, key by key, as it is stored (a
dataclass's ``asdict``, a model's ``model_dump``): types for the checker only, so a checkpoint
written before them loads as it did (``tests/autopilot/test_state_types.py`` keeps their keys
those of the classes they are dumped from).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Literal, NotRequired, cast

# pydantic validates typing's TypedDicts only from Python 3.12 (a test validates the stored state)
from typing_extensions import TypedDict

if TYPE_CHECKING:
    from aizac.writer.schemas import CharacterProfile, NovelBeat

GATES = ("plan", "rewrite", "commit")
"""Gates the writer can switch on (``--gates plan,rewrite,commit``); the batch gate (every N
episodes) is on whenever ``every`` is above 0."""
MAX_REWRITES = 2


@dataclass(frozen=True)
class Options:
    """What a run was started with (kept in the state, so a resumed run keeps them).

    Args:
        episodes: episodes this run writes.
        gates: gates that wait for the writer (subset of :data:`GATES`).
        every: the batch gate after every ``every`` episodes (0: never).
        budget_tokens: tokens the whole run may spend (0: no limit).
        episode_tokens: tokens one episode may spend (0: no limit).
        budget_cost: cost the run may spend in the price's currency (0: no limit).
        price_per_mtok: price of a million tokens (0: cost unknown, only tokens count).
    """

    episodes: int = 1
    gates: tuple[str, ...] = ()
    every: int = 5
    budget_tokens: int = 0
    episode_tokens: int = 0
    budget_cost: float = 0.0
    price_per_mtok: float = 0.0

    def dump(self) -> OptionsData:
        return cast(OptionsData, {**asdict(self), "gates": list(self.gates)})

    @classmethod
    def load(cls, data: Mapping[str, Any]) -> Options:
        """The options a run stored (:meth:`dump`; the runs store's JSON, or the state's)."""
        values = dict(data)
        values["gates"] = tuple(values.get("gates", ()))
        return cls(**values)


class OptionsData(TypedDict, total=False):
    """:class:`Options` as stored (a run's options; an older run's may lack a later field)."""

    episodes: int
    gates: list[str]
    every: int
    budget_tokens: int
    episode_tokens: int
    budget_cost: float
    price_per_mtok: float


class DialogueData(TypedDict):
    """A :class:`~aizac.writer.schemas.DialogueLine` dumped."""

    speaker: str
    line: str


class BeatData(TypedDict):
    """A planned :class:`~aizac.writer.schemas.NovelBeat` dumped."""

    location: str
    time: str
    characters: list[str]
    events: list[str]
    dialogue: list[DialogueData]
    emotions: list[str]
    conflicts: list[str]
    sets_up: list[str]
    pays_off: list[str]
    episode: int
    index: int


class ProfileData(TypedDict):
    """A new character's :class:`~aizac.writer.schemas.CharacterProfile` dumped."""

    name: str
    aliases: list[str]
    role: str
    profile: str
    goal: str
    same_as: str


MemoryItems = list[dict[str, object]]
"""One tag's placed memories (``asdict`` of :mod:`aizac.memory` placements)."""
MemoryTag = Literal["story", "characters", "relations", "settings"]
MEMORY_TAGS: tuple[MemoryTag, ...] = ("story", "characters", "relations", "settings")
"""The tags of a beat's candidate memories, in the order the writer is shown them."""


class ExtractedData(TypedDict, total=False):
    """One beat's :class:`~aizac.writer.extraction.Extracted` dumped (a run checkpointed
    before references kept each tag as ``{"facts": [...]}`` and no other key)."""

    characters: MemoryItems | dict[str, MemoryItems]
    relations: MemoryItems | dict[str, MemoryItems]
    settings: MemoryItems | dict[str, MemoryItems]
    story: MemoryItems | dict[str, MemoryItems]
    payoffs: list[str]
    aliases: dict[str, str]
    summary: str
    voices: list[dict[str, object]]
    speech: list[dict[str, object]]
    referred: bool
    repairs: int


class FindingData(TypedDict):
    """A continuity :class:`~aizac.continuity.report.Finding` dumped."""

    kind: str
    severity: Literal["error", "warning"]
    message: str
    memory_id: str | None
    quote: str
    beat: int | None


class NameData(TypedDict):
    """A :class:`~aizac.continuity.report.NameResolution` dumped."""

    name: str
    resolved: str | None
    confidence: float
    certain: bool
    options: Sequence[str]


class ReportData(TypedDict):
    """A continuity report dumped (:func:`aizac.autopilot.nodes.dump_report`); ``skipped``:
    why an empty one stands for a check the failure ladder skipped."""

    findings: list[FindingData]
    covered: list[int]
    missed: list[int]
    names: list[NameData]
    blocking: bool
    skipped: NotRequired[str]


class VerdictData(TypedDict):
    """The review's verdict: ``accept``, ``polish`` or ``rewrite``, and why."""

    decision: str
    reasons: list[str]


class FactData(TypedDict):
    """A canon :class:`~aizac.continuity.canon.Fact` the one review call is shown, dumped."""

    id: str
    text: str
    tag: str
    name: str
    pair: Sequence[str]
    aspect: str
    keyword: str
    pinned: bool
    slot: str
    chapter: int


class QueuedRewrite(TypedDict):
    """A committed episode to write again with the writer's instruction (steering)."""

    episode: int
    instruction: str


TextData = dict[str, object] | str
"""A catalogue text as data (:func:`aizac.text.message.to_data`); a plain string from a run
before texts were data, ``""`` for none."""


class AutopilotState(TypedDict, total=False):
    """The graph state (every key optional: a node returns only what it changes)."""

    run_id: str
    options: OptionsData
    done_episodes: int  # episodes committed by this run
    last_batch_gate: int  # done_episodes when the batch gate last passed
    # the open episode
    episode_open: bool
    episode: int
    start_index: int
    beats: list[BeatData]
    profiles: list[list[ProfileData]]
    written: list[list[str]]  # per planned beat: the fields the writer wrote (kept as typed)
    prose: dict[str, str]  # beat index -> prose
    candidates: dict[str, ExtractedData]  # beat index -> Extracted as dicts
    # beat index -> Extracted as dicts, as the episode design gave them (a rewrite keeps them:
    # it changes the prose, not the beats they were read from)
    designed_memory: dict[str, ExtractedData]
    report: ReportData | None  # continuity report (findings, covered, missed, blocking)
    verdict: VerdictData | None
    canon: list[FactData] | None  # the canon facts the one review call is shown, or None
    rewrites: int
    rewrite_note: str  # the writer's instruction from the rewrite gate
    plan_ok: bool
    rewrite_ok: bool
    commit_ok: bool
    committed: bool
    # between episodes
    rewrite_queue: list[QueuedRewrite]
    arc_end: bool
    # the ladder, the fuse and pauses
    failures: dict[str, int]
    repeats: dict[str, int]
    pause_reason: TextData
    finished: bool


def beat_data(beat: NovelBeat) -> BeatData:
    """A planned beat as the state keeps it."""
    return cast(BeatData, beat.model_dump())


def profile_data(profile: CharacterProfile) -> ProfileData:
    """A new character's profile as the state keeps it."""
    return cast(ProfileData, profile.model_dump())


def findings(state: AutopilotState) -> list[FindingData]:
    """The check's findings of the open episode (none before the check)."""
    report = state.get("report")
    return list(report.get("findings", [])) if report else []


def reasons(state: AutopilotState) -> list[str]:
    """The verdict's reasons (none before the review)."""
    verdict = state.get("verdict")
    return list(verdict.get("reasons", [])) if verdict else []


def new_state(run_id: str, options: Options) -> AutopilotState:
    """The state a run starts from."""
    return AutopilotState(
        run_id=run_id, options=options.dump(), done_episodes=0, last_batch_gate=0,
        rewrite_queue=[], arc_end=False, failures={}, repeats={}, pause_reason="",
        finished=False, **closed_episode(),
    )


def closed_episode() -> AutopilotState:
    """The episode fields reset (between episodes, or a plan rejected at a gate)."""
    return AutopilotState(
        episode_open=False, beats=[], profiles=[], written=[], prose={}, candidates={},
        designed_memory={}, report=None, verdict=None, canon=None, rewrites=0, rewrite_note="",
        plan_ok=False, rewrite_ok=False,
        commit_ok=False, committed=False,
    )


def after_rewrite() -> AutopilotState:
    """What a rewrite invalidates: candidates, the report, the verdict and the gates after it."""
    return AutopilotState(
        candidates={}, report=None, verdict=None, canon=None, rewrite_ok=False, commit_ok=False,
        rewrite_note="",
    )


@dataclass
class EpisodeView:
    """A read-only summary of a state for surfaces (CLI, web)."""

    episode: int = 0
    beats: int = 0
    drafted: int = 0
    verdict: str = ""
    rewrites: int = 0
    findings: list[FindingData] = field(default_factory=list)

    @classmethod
    def of(cls, state: AutopilotState) -> EpisodeView:
        verdict = state.get("verdict")
        return cls(
            episode=int(state.get("episode", 0)), beats=len(state.get("beats", [])),
            drafted=len(state.get("prose", {})),
            verdict=str(verdict.get("decision", "")) if verdict else "",
            rewrites=int(state.get("rewrites", 0)), findings=findings(state),
        )
