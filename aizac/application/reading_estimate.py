"""What reading an imported manuscript into memory will cost, said before it starts (pure).

Reading (:mod:`aizac.application.reading`) makes, per unread scene, one "read the scene"
structured call (the scene's prose and the memory's offer in; a beat design and the profiles of
new characters out), then the extraction calls of :func:`aizac.writer.combined.extract_beat`
(one combined call when the extractor declares it can, :attr:`ModelProfile.
combined_extraction_ok`; else one call per memory tag and one for the summary), then a commit.
:func:`estimate` counts those calls from the scenes' texts and the configured models, and puts
tokens, money (:mod:`aizac.llm.prices`) and time on them. No I/O: the caller measures the
prompts' fixed parts (:class:`PromptSizes`) and names each role's model (:class:`RoleModel`).

How the figures are made (each an estimate, on the safe side where it has to guess):

- **calls**: exact by construction for replies accepted at once; structured retries (a reply
  the schema or the reference check refuses) are not counted.
- **input tokens** (:func:`aizac.tokens.count_tokens`, the project's own count): each prompt's
  fixed part (template and schema outline, measured by the caller), the memory's offer (lines
  that grow as the reading commits facts, up to the offer's bounds: :data:`OFFER_BOUNDS`), and
  what the call reads: the scene's prose for the read call, the design the read call made for
  the extraction calls (they read the beat, not the prose).
- **output tokens**: aizac records no reply sizes of real models (``bench/cost.py`` prices
  scripted replies), so each reply is an assumed number of characters of the project's
  language (:data:`REPLY_CHARS`) at the scenes' own tokens per character, plus the JSON keys,
  capped at the structured reply budget.
- **money**: the price table's newest row for the model (no cache); ``0`` for the embedded
  model, ``None`` for a model the table does not price.
- **time**: calls one after another, each its latency, prompt at the model's prefill speed and
  reply at its generation speed (:class:`Speed`): measured for the embedded model
  (:data:`EMBEDDED_SPEED`), assumed for API models (:data:`API_SPEED`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from aizac.llm.prices import Price, cost
from aizac.llm.profiles import GENERIC, ModelProfile
from aizac.text import Text, Verbatim
from aizac.tokens import count_tokens

READ_ROLE = "extractor"
"""The role whose model reads a scene (the extractor reads the manuscript, issue 42)."""
EXTRACT_ROLE = "extractor"
"""The role whose model extracts a scene's memory."""
TAGS: tuple[str, ...] = ("Story", "Character", "CharacterRelation", "NovelSetting")
"""The per-tag extraction calls (:func:`aizac.writer.extraction.extract`), the summary besides."""
PER_TAG_PARTS: Mapping[str, tuple[str, ...]] = {
    "Story": ("threads",), "Character": ("cast", "facts"),
    "CharacterRelation": ("cast", "relations"), "NovelSetting": ("rules",),
}
"""What of the offer each per-tag prompt shows (as :data:`aizac.writer.extraction.PARTS`)."""
OFFER_BOUNDS: Mapping[str, int] = {"cast": 10, "facts": 20, "relations": 10, "rules": 12,
                                   "threads": 12}
"""Lines of each part of a full offer: the cast, rules and threads bounds of
:mod:`aizac.memory.offering` (10, 12, 12), two current facts and one relation per cast member
(assumed)."""
FACTS_PER_SCENE = 6
"""Offer lines one read scene adds (assumed: a few facts, a relation, a thread); the offer of
scene ``k`` holds ``(k - 1) * FACTS_PER_SCENE`` lines, up to :data:`OFFER_BOUNDS`."""
LINE_CHARS = 40
"""Characters of one offer line's text (assumed), besides its id and label."""
LINE_EXTRA_TOKENS = 6
"""An offer line's id and label (``f3 [c1 condition]``)."""
REPLY_CHARS: Mapping[str, int] = {"read": 500, "combined": 600, "tag": 150, "summary": 100}
"""Characters of text in each reply (assumed, no real reply sizes are recorded): a design (place,
time, cast, a few events, a line of dialogue; a newcomer's profile now and then), a combined
extraction, one tag's facts, a one or two sentence summary."""
REPLY_KEY_TOKENS: Mapping[str, int] = {"read": 40, "combined": 60, "tag": 15, "summary": 5}
"""The JSON keys and punctuation of each reply."""
DENSITY_RANGE = (0.25, 1.2)
"""Tokens per character the estimate accepts from the scenes (English ~0.3, Hangul ~1)."""


@dataclass(frozen=True)
class Speed:
    """How fast a model answers.

    Attributes:
        prefill: prompt tokens per second.
        generate: reply tokens per second.
        latency: seconds every call costs besides (network, queue, load).
        source: where the figures come from (measured: how, where, when; or an assumption).
        measured: measured (``True``) or assumed.
    """

    prefill: float
    generate: float
    latency: float
    source: str
    measured: bool

    def seconds(self, prompt: int, reply: int) -> float:
        return self.latency + prompt / self.prefill + reply / self.generate


EMBEDDED_SPEED = Speed(
    prefill=193.0, generate=49.3, latency=0.1, measured=True,
    source=("bench/reading_speed.py on the development machine (2 cores shared with other "
            "jobs, load ~3), the bundled SmolLM2-135M through xllamacpp, 1,061-token prompt, "
            "128-token free reply, medians of 4 runs, 2026-12-07 (with --json, a "
            "schema-constrained reply at load ~2: 205 and 58.9 tokens/s; the slower kept)"),
)
MEASURED_ON = "2026-12-07"
"""When :data:`EMBEDDED_SPEED` was measured."""
"""The embedded model's speed on a small shared machine (a faster one reads sooner)."""
API_SPEED = Speed(
    prefill=2000.0, generate=60.0, latency=1.0, measured=False,
    source=("assumed: a hosted API model's typical published throughput (about 60 reply "
            "tokens/s, prompts read in well under a second, 1 s per request); not measured here"),
)
"""An API model's speed: an assumption, labelled so wherever it is shown."""


@dataclass(frozen=True)
class RoleModel:
    """The model configured for a role.

    Attributes:
        role: the role (``extractor``...).
        label: its spec as the Models tab shows it (``openai:gpt-4o-mini``, ``local``).
        profile: its declared capabilities (:mod:`aizac.llm.profiles`).
        price: the price table's row (``None``: not priced).
        speed: how fast it answers.
    """

    role: str
    label: str
    profile: ModelProfile
    price: Price | None
    speed: Speed

    @property
    def embedded(self) -> bool:
        return self.profile.small_local

    @property
    def combined_extraction_ok(self) -> bool:
        """As :func:`aizac.writer.combined.combined_extraction_ok` decides from the profile."""
        return self.profile.combined_extraction_ok and self.profile.provider != GENERIC.provider


@dataclass(frozen=True)
class PromptSizes:
    """Tokens of each prompt's fixed part: its template rendered without its values and the
    schema outline sent with it (measured by the caller).

    Attributes:
        read: the read-the-scene call.
        combined: the combined extraction call.
        tags: each per-tag extraction call (:data:`TAGS`).
        summary: the summary call of the per-tag extraction.
    """

    read: int
    combined: int
    tags: Mapping[str, int]
    summary: int


@dataclass(frozen=True)
class RoleCost:
    """What one role's model spends on the reading."""

    role: str
    model: str
    calls: int
    input_tokens: int
    output_tokens: int
    dollars: float | None
    seconds: float
    price: Price | None
    speed: Speed


@dataclass(frozen=True)
class ReadingEstimate:
    """What reading the unread scenes will cost.

    Attributes:
        episodes: unread episodes.
        scenes: unread scenes (one read each).
        combined: the extraction is one call a scene (else one per tag and a summary).
        roles: per role, its model's share.
        embedded: a role runs on the embedded model (say what to expect of it).
    """

    episodes: int
    scenes: int
    combined: bool
    roles: tuple[RoleCost, ...]
    embedded: bool

    @property
    def calls(self) -> int:
        return sum(r.calls for r in self.roles)

    @property
    def input_tokens(self) -> int:
        return sum(r.input_tokens for r in self.roles)

    @property
    def output_tokens(self) -> int:
        return sum(r.output_tokens for r in self.roles)

    @property
    def dollars(self) -> float | None:
        """US dollars in all; ``None`` when a role's model is not priced."""
        shares = [r.dollars for r in self.roles]
        return None if any(d is None for d in shares) else sum(d for d in shares if d)

    @property
    def seconds(self) -> float:
        return sum(r.seconds for r in self.roles)


@dataclass
class _Tally:
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    seconds: float = 0.0

    def add(self, model: RoleModel, prompt: int, reply: int) -> None:
        self.calls += 1
        self.input_tokens += prompt
        self.output_tokens += reply
        self.seconds += model.speed.seconds(prompt, reply)


def density(texts: Sequence[str]) -> float:
    """Tokens per character of ``texts`` (the project's count), within :data:`DENSITY_RANGE`."""
    chars = sum(len(t) for t in texts)
    ratio = sum(count_tokens(t) for t in texts) / chars if chars else 1.0
    low, high = DENSITY_RANGE
    return min(max(ratio, low), high)


def offer_tokens(scene: int, parts: Sequence[str], per_line: int) -> int:
    """Tokens of the offer ``parts`` shown when reading the ``scene``-th scene (1-based): the
    lines the reading committed so far, spread over the parts by their bounds, up to them."""
    total = sum(OFFER_BOUNDS.values())
    filled = min(1.0, (scene - 1) * FACTS_PER_SCENE / total)
    return sum(math.ceil(OFFER_BOUNDS[p] * filled) for p in parts) * per_line


def estimate(
    scenes: Sequence[str], *, episodes: int, read: RoleModel, extract: RoleModel,
    prompts: PromptSizes, max_reply_tokens: int, read_before: int = 0,
    combined: bool | None = None,
) -> ReadingEstimate:
    """The calls, tokens, money and time of reading ``scenes`` (their prose, in story order).

    Args:
        scenes: the unread scenes' prose.
        episodes: how many episodes they make.
        read: the model that reads each scene (:data:`READ_ROLE`).
        extract: the model that extracts each scene's memory (:data:`EXTRACT_ROLE`).
        prompts: the prompts' fixed parts.
        max_reply_tokens: the structured reply budget (settings), a reply's cap.
        read_before: scenes the memory already read (a resumed reading's offer is fuller).
        combined: the project forces one extraction call a scene (``True``) or the per-tag
            calls (``False``); ``None``: as the extractor declares.
    """
    rate = density(scenes)
    per_line = math.ceil(LINE_CHARS * rate) + LINE_EXTRA_TOKENS

    def reply(kind: str) -> int:
        return min(max_reply_tokens, math.ceil(REPLY_CHARS[kind] * rate) + REPLY_KEY_TOKENS[kind])

    design = math.ceil(REPLY_CHARS["read"] * rate)  # the beat the extraction calls read
    if combined is None:
        combined = extract.combined_extraction_ok
    every = tuple(OFFER_BOUNDS)
    tallies = {read.role: _Tally(), extract.role: _Tally()}
    for k, scene in enumerate(scenes, read_before + 1):
        tallies[read.role].add(read, prompts.read + offer_tokens(k, every, per_line)
                               + count_tokens(scene), reply("read"))
        into = tallies[extract.role]
        if combined:
            into.add(extract, prompts.combined + offer_tokens(k, every, per_line) + design,
                     reply("combined"))
            continue
        for tag in TAGS:
            into.add(extract, prompts.tags[tag] + offer_tokens(k, PER_TAG_PARTS[tag], per_line)
                     + design, reply("tag"))
        into.add(extract, prompts.summary + design, reply("summary"))
    models = {read.role: read, extract.role: extract}
    roles = tuple(_cost(models[role], tally) for role, tally in tallies.items())
    return ReadingEstimate(episodes, len(scenes), combined, roles,
                           embedded=read.embedded or extract.embedded)


def _cost(model: RoleModel, tally: _Tally) -> RoleCost:
    if model.embedded:
        dollars: float | None = 0.0  # runs on this machine: no money
    elif model.price is None:
        dollars = None
    else:
        dollars = cost(model.price, prompt=tally.input_tokens, output=tally.output_tokens)
    return RoleCost(model.role, model.label, tally.calls, tally.input_tokens,
                    tally.output_tokens, dollars, tally.seconds, model.price, model.speed)


# ------------------------------------------------------------------------------ saying it
def _money(dollars: float | None) -> Text:
    if dollars is None:
        return Text("ui.read.estimate.unpriced")
    if dollars == 0:
        return Text("ui.read.estimate.free")
    shown = f"{dollars:,.2f}" if dollars >= 0.1 else f"{dollars:.4f}"
    return Text("ui.read.estimate.dollars", dollars=shown)


def duration(seconds: float) -> Text:
    """``seconds`` as the estimate says a time: seconds, minutes or hours."""
    if seconds < 90:
        return Text("ui.read.estimate.seconds", n=max(1, round(seconds)))
    if seconds < 90 * 60:
        return Text("ui.read.estimate.minutes", n=round(seconds / 60))
    return Text("ui.read.estimate.hours", n=f"{seconds / 3600:.1f}")


def estimate_lines(found: ReadingEstimate) -> list[Text]:
    """The estimate as catalogue texts, one a line: the whole, each role's share, how the time
    was found for each model, what the embedded model will do, and what the figures rest on."""
    if not found.scenes:
        return [Text("ui.read.estimate.nothing")]
    lines = [Text("ui.read.estimate.head", scenes=found.scenes, episodes=found.episodes,
                  calls=f"{found.calls:,}", input=f"{found.input_tokens:,}",
                  output=f"{found.output_tokens:,}", money=_money(found.dollars),
                  time=duration(found.seconds)),
             Text("ui.read.estimate.combined" if found.combined else "ui.read.estimate.per_tag")]
    for r in found.roles:
        lines.append(Text("ui.read.estimate.role", role=Text(f"role.{r.role}"),
                          model=Verbatim(r.model), calls=f"{r.calls:,}",
                          input=f"{r.input_tokens:,}",
                          output=f"{r.output_tokens:,}", money=_money(r.dollars),
                          time=duration(r.seconds)))
    for r in {r.model: r for r in found.roles}.values():
        if r.speed.measured:
            lines.append(Text("ui.read.estimate.measured", model=Verbatim(r.model),
                              prefill=round(r.speed.prefill), generate=round(r.speed.generate),
                              date=MEASURED_ON))
        else:
            lines.append(Text("ui.read.estimate.assumed", model=Verbatim(r.model),
                              generate=round(r.speed.generate), latency=f"{r.speed.latency:g}"))
    if found.embedded:
        lines.append(Text("ui.read.estimate.embedded"))
    dates = sorted({r.price.as_of for r in found.roles if r.price is not None})
    lines.append(Text("ui.read.estimate.basis_priced", date=", ".join(dates)) if dates
                 else Text("ui.read.estimate.basis"))
    return lines


__all__ = [
    "API_SPEED",
    "EMBEDDED_SPEED",
    "EXTRACT_ROLE",
    "READ_ROLE",
    "PromptSizes",
    "ReadingEstimate",
    "RoleCost",
    "RoleModel",
    "Speed",
    "density",
    "duration",
    "estimate",
    "estimate_lines",
    "offer_tokens",
]
