"""The autopilot's graph state: plain JSON values only, so every checkpoint is portable.

One state holds one run: its options, the open episode (planned beats, drafted prose, candidate
memories, the continuity report, the review verdict), the counters the failure ladder and the
budget fuse read, and the facts the router reads between episodes. Beats and candidates are kept
as ``model_dump()`` dictionaries; :mod:`aizac.autopilot.nodes` turns them back into models.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, TypedDict

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

    def dump(self) -> dict[str, Any]:
        data = asdict(self)
        data["gates"] = list(self.gates)
        return data

    @classmethod
    def load(cls, data: dict[str, Any]) -> Options:
        values = dict(data)
        values["gates"] = tuple(values.get("gates", ()))
        return cls(**values)


class AutopilotState(TypedDict, total=False):
    """The graph state (every key optional: a node returns only what it changes)."""

    run_id: str
    options: dict[str, Any]
    done_episodes: int  # episodes committed by this run
    last_batch_gate: int  # done_episodes when the batch gate last passed
    # the open episode
    episode_open: bool
    episode: int
    start_index: int
    beats: list[dict[str, Any]]
    profiles: list[list[dict[str, Any]]]
    written: list[list[str]]  # per planned beat: the fields the writer wrote (kept as typed)
    prose: dict[str, str]  # beat index -> prose
    candidates: dict[str, dict[str, Any]]  # beat index -> Extracted as dicts
    # beat index -> Extracted as dicts, as the episode design gave them (a rewrite keeps them:
    # it changes the prose, not the beats they were read from)
    designed_memory: dict[str, dict[str, Any]]
    report: dict[str, Any] | None  # continuity report (findings, covered, missed, blocking)
    verdict: dict[str, Any] | None  # {"decision": ..., "reasons": [...]}
    canon: list[dict[str, Any]] | None  # the canon facts the one review call is shown, or None
    rewrites: int
    rewrite_note: str  # the writer's instruction from the rewrite gate
    plan_ok: bool
    rewrite_ok: bool
    commit_ok: bool
    committed: bool
    # between episodes
    rewrite_queue: list[dict[str, Any]]  # [{"episode": n, "instruction": "..."}]
    arc_end: bool
    # the ladder, the fuse and pauses
    failures: dict[str, int]
    repeats: dict[str, int]
    pause_reason: Any  # a catalogue text as data (aizac.text.message.to_data); "" for none
    finished: bool


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
    findings: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def of(cls, state: AutopilotState) -> EpisodeView:
        report = state.get("report") or {}
        verdict = state.get("verdict") or {}
        return cls(
            episode=int(state.get("episode", 0)), beats=len(state.get("beats", [])),
            drafted=len(state.get("prose", {})), verdict=str(verdict.get("decision", "")),
            rewrites=int(state.get("rewrites", 0)),
            findings=list(report.get("findings", [])),
        )
