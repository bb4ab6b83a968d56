"""Building the memory from an imported manuscript: its scenes read in story order.

:meth:`ApplicationService.read_manuscript` is the one way in (the CLI's ``aizac read``, the REST
route and the web app call it); it holds the project's lock and a cancellable operation, and
calls :func:`read_manuscript` here. Each scene not read yet is read and committed as one unit
(:mod:`aizac.writer.reading`; a kill anywhere leaves it read or unread, and the next write's
recovery finishes or takes back what the kill left). Calls per scene: one read call (the
extractor role), the extraction's calls (one combined call when the extractor declares it can,
else the per-tag calls) and a profile call for a newcomer the read reply gave no profile of.

Resuming is calling again: the unread scenes are found from the beats themselves (a read one
has its summary), so nothing is read twice. Between scenes the operation's cancel stops the
reading (the scenes read stay read), and the ``budget`` stops it before a scene whose expected
spend would pass it; the report says where it stopped and how to go on.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from aizac.application.cancel import CancelToken
from aizac.application.importing import RECORD_KEY, ImportRecord
from aizac.errors import InvalidInputError
from aizac.llm.prices import Price, cost, price_of
from aizac.llm.usage import UsageRecord
from aizac.text import Text
from aizac.tokens import count_tokens
from aizac.writer import accepting
from aizac.writer.agent import WriterAgent
from aizac.writer.combined import combined_extraction_ok
from aizac.writer.project import BeatRecord
from aizac.writer.reading import commit_scene, read_scene

Progress = Callable[[Text], None]
PER_TAG_CALLS = 5
"""Extraction calls of a scene when the extractor gets one call per tag (four and a summary)."""
CALL_OVERHEAD = 1_500
"""Tokens a call spends besides the scene's text (instructions, the memory shown, the reply):
the first scene's estimate, before a scene of this run has been measured."""


@dataclass(frozen=True)
class ReadBudget:
    """How much a reading may spend: tokens, and US dollars where the models are priced
    (:mod:`aizac.llm.prices`); ``None``: no limit of that kind."""

    tokens: int | None = None
    dollars: float | None = None

    def __post_init__(self) -> None:
        if (self.tokens is not None and self.tokens < 1) or (
                self.dollars is not None and self.dollars <= 0):
            raise InvalidInputError("error.read.budget", tokens=str(self.tokens),
                                    dollars=str(self.dollars))

    @classmethod
    def parse(cls, value: str) -> ReadBudget:
        """``"200000"``, ``"200k"`` or ``"1.5m"`` tokens; ``"$2"``, ``"2usd"`` dollars."""
        text = value.strip().lower().replace(",", "").replace("_", "")
        try:
            if text.startswith("$") or text.endswith(("usd", "$")):
                return cls(dollars=float(text.strip("$").removesuffix("usd").strip()))
            scale = {"k": 1_000, "m": 1_000_000}.get(text[-1:], 1)
            number = text[:-1] if scale > 1 else text
            return cls(tokens=round(float(number) * scale))
        except ValueError as e:
            raise InvalidInputError("error.read.budget_text", value=value) from e


@dataclass(frozen=True)
class Spend:
    """What the calls of one reading spent: calls, tokens, and dollars where every call's
    model has a price (``None`` otherwise)."""

    calls: int = 0
    tokens: int = 0
    dollars: float | None = 0.0

    @classmethod
    def of(cls, records: Sequence[UsageRecord]) -> Spend:
        dollars: float | None = 0.0
        for r in records:
            price = _price(r.model)
            if price is None:
                dollars = None
            elif dollars is not None:
                dollars += cost(price, prompt=r.prompt_tokens, output=r.completion_tokens,
                                cached=r.cached_tokens)
        return cls(len(records), sum(r.prompt_tokens + r.completion_tokens for r in records),
                   dollars)


def _price(label: str) -> Price | None:
    provider, _, model = label.partition(":")
    try:
        return price_of(provider, model)
    except InvalidInputError:
        return None


@dataclass(frozen=True)
class ReadingReport:
    """What :meth:`ApplicationService.read_manuscript` did.

    Attributes:
        project: the project.
        episodes, scenes: the manuscript's.
        read_through: the episodes the memory has read whole (all runs).
        scenes_read: the scenes read (all runs); ``read_now``: by this call.
        spent: what this call's model calls spent.
        stopped: ``""`` (every scene is read) or ``"budget"`` (the next scene would pass it).
        next_scene: where the next call continues (``3-2``), ``""`` when all is read.
        memories: the memories the project holds now.
    """

    project: str
    episodes: int
    scenes: int
    read_through: int
    scenes_read: int
    read_now: int
    spent: Spend
    stopped: str = ""
    next_scene: str = ""
    memories: int = 0

    @property
    def done(self) -> bool:
        return self.scenes_read >= self.scenes

    def lines(self) -> list[Text]:
        """What the report says, sentence by sentence (rendered by the edge)."""
        dollars = "-" if self.spent.dollars is None else f"{self.spent.dollars:.4f}"
        out = [Text("read.done", scenes=self.read_now, read=self.scenes_read, total=self.scenes,
                    episodes=self.read_through, of=self.episodes, memories=self.memories),
               Text("read.spent", calls=self.spent.calls, tokens=f"{self.spent.tokens:,}",
                    dollars=dollars)]
        if self.stopped == "budget":
            out.append(Text("read.stopped_budget", where=self.next_scene, project=self.project))
        elif self.done:
            out.append(Text("read.all_read"))
        return out


def unread_scenes(agent: WriterAgent) -> list[BeatRecord]:
    """The imported scenes the memory has not read yet, in story order."""
    return [b for b in agent.store.beats(status="accepted") if b.imported and not b.summary]


def read_manuscript(agent: WriterAgent, token: CancelToken, say: Progress,
                    budget: ReadBudget | None = None) -> ReadingReport:
    """Read every unread imported scene of ``agent``'s project in story order (call under the
    project's lock and ``token``'s operation); see the module docstring."""
    store = agent.store
    accepting.recover(store, agent.memory)
    stored = store.kv_get(RECORD_KEY)
    if stored is None:
        raise InvalidInputError("error.read.not_imported_project", project=agent.info.name)
    record = ImportRecord.loads(stored[0])
    imported = [b for b in store.beats(status="accepted") if b.imported]
    unread = [b for b in imported if not b.summary]
    if unread and store.count_beats("accepted", imported=False):
        # the memory's time is story order: scenes read after later beats would be newer
        raise InvalidInputError("error.read.after_new_beats", project=agent.info.name)
    last_index = {b.episode: b.index for b in imported}  # an episode's last scene
    usage = getattr(agent.router, "usage", None)
    start = len(usage.records) if usage is not None else 0
    calls = 1 + (1 if combined_extraction_ok(agent.router) else PER_TAG_CALLS)
    read_now, stopped, next_scene = 0, "", ""
    episodes = record.episodes
    for scene in unread:
        token.check()  # a cancel between scenes: those read stay read
        spent = Spend.of(usage.records[start:]) if usage is not None else Spend()
        if budget is not None and _would_pass(budget, spent, read_now, scene, calls):
            stopped, next_scene = "budget", f"{scene.episode}-{scene.index}"
            say(Text("progress.read.budget", where=next_scene))
            break
        if scene.index == 1 or read_now == 0:
            say(Text("progress.read.episode", episode=scene.episode, episodes=episodes))
        read = read_scene(agent, scene, say)
        token.check()  # cancelled after the model's last word: nothing of this scene stored
        through = scene.episode if scene.index == last_index[scene.episode] else scene.episode - 1
        record = dataclasses.replace(record, read_through=max(record.read_through, through))
        done = commit_scene(agent, read, {RECORD_KEY: record.dumps()})
        read_now += 1
        say(Text("progress.read.read", where=f"{scene.episode}-{scene.index}",
                 memories=len(done.memory_ids)))
    spent = Spend.of(usage.records[start:]) if usage is not None else Spend()
    left = len(unread_scenes(agent))
    return ReadingReport(
        project=agent.info.name, episodes=episodes, scenes=len(imported),
        read_through=record.read_through, scenes_read=len(imported) - left, read_now=read_now,
        spent=spent, stopped=stopped, next_scene=next_scene, memories=len(agent.memory))


def _would_pass(budget: ReadBudget, spent: Spend, read_now: int, scene: BeatRecord,
                calls: int) -> bool:
    """Whether reading ``scene`` is expected to take the spend past ``budget``: the mean
    scene of this run so far, or (none yet) an estimate from the scene's length."""
    if read_now:
        tokens = spent.tokens / read_now
        dollars = None if spent.dollars is None else spent.dollars / read_now
    else:
        tokens = (count_tokens(scene.prose or "") + CALL_OVERHEAD) * calls
        dollars = None
    if budget.tokens is not None and spent.tokens + tokens > budget.tokens:
        return True
    if budget.dollars is not None and spent.dollars is not None:
        return spent.dollars + (dollars or 0.0) > budget.dollars
    return False


__all__ = ["ReadBudget", "ReadingReport", "Spend", "read_manuscript", "unread_scenes"]
