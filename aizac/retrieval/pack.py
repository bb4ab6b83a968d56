"""Context-pack assembly and token budgeting (pure, no I/O).

A pack is a list of :class:`PackItem` in sections, rendered in this order (the priority of the
brief): characters present, their relations, relevant settings, the recent summary, open
foreshadowing, pinned core memories, related story events.

Each section owns a share of the pack (:data:`FLOORS`), so one long section (the recent summary
of a Korean serial) cannot starve another (world rules). Items are kept in three passes, each in
the priority order of :data:`TRIM_ORDER` reversed:

1. pinned items, whatever their section — core facts are never trimmed before trivia;
2. each section's best items up to its share of the budget;
3. the rest while they fit, in priority order.

Within a section the least relevant item goes first (for the summary: the oldest line), and a
section never keeps an item in place of a more relevant one of its own. In the last pass the
first item that does not fit is cut to the remaining budget when a useful part fits, and the
rest is dropped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from aizac.tokens import count_tokens, truncate_to_tokens

SECTIONS: tuple[str, ...] = (
    "characters",
    "relations",
    "settings",
    "summary",
    "foreshadowing",
    "core",
    "story",
)
"""Render order (the priority of what the next beat needs)."""

TRIM_ORDER: tuple[str, ...] = (
    "story",
    "settings",
    "summary",
    "foreshadowing",
    "relations",
    "characters",
    "core",
)
"""Sections in the order their unpinned items are dropped; pinned items of any section go last."""

FLOORS: dict[str, float] = {
    "characters": 0.25,
    "relations": 0.10,
    "settings": 0.12,
    "summary": 0.10,
    "foreshadowing": 0.06,
    "core": 0.0,
    "story": 0.0,
}
"""Share of the budget reserved for each section's best items (trivia has none)."""
HEADINGS: dict[str, str] = {
    "characters": "## Characters present",
    "relations": "## Relationships between them",
    "settings": "## Relevant world facts",
    "summary": "## Recent summary",
    "foreshadowing": "## Open foreshadowing (not yet paid off)",
    "core": "## Core facts (pinned by the writer)",
    "story": "## Related earlier events",
}
ENGLISH: dict[str, str] = {**HEADINGS, "act_goal": "Act goal: ", "location": "Location: "}
"""What a pack says around its items when no prompt language gives its own words: the section
headings and the header labels (the writer passes its story language's,
:attr:`aizac.writer.prompt_words.PromptWords.pack`)."""
BULLET = "- "
MIN_PARTIAL_TOKENS = 8
"""Smallest useful remainder: a cut item shorter than this is dropped instead."""


class PackItem(BaseModel):
    """One line of the pack."""

    model_config = ConfigDict(extra="forbid")

    section: str
    text: str
    memory_id: str | None = None
    pinned: bool = False
    relevance: float = 0.0
    """Higher is more relevant; within a section the least relevant is trimmed first."""
    truncated: bool = False

    @property
    def line(self) -> str:
        """The rendered line."""
        return BULLET + self.text

    @property
    def tokens(self) -> int:
        """Estimated tokens of the rendered line."""
        return count_tokens(self.line)


class ContextPack(BaseModel):
    """What the next beat or prose call gets to see, within a token budget."""

    model_config = ConfigDict(extra="forbid")

    budget_tokens: int
    act_goal: str | None = None
    location: str | None = None
    items: list[PackItem] = Field(default_factory=list)
    dropped: list[PackItem] = Field(default_factory=list)
    tokens: int = 0
    """Estimated tokens of :meth:`render` (set on assembly)."""
    words: dict[str, str] = Field(default_factory=lambda: dict(ENGLISH))
    """The headings and header labels it is rendered with (the prompt's language)."""

    def section(self, name: str) -> list[PackItem]:
        """Kept items of one section, in render order."""
        return [i for i in self.items if i.section == name]

    def render(self) -> str:
        """Prompt text of the pack."""
        return render_parts(self.act_goal, self.location, self.items, self.words)


def _header_lines(act_goal: str | None, location: str | None,
                  words: Mapping[str, str] = ENGLISH) -> list[str]:
    lines = []
    if act_goal:
        lines.append(f"{words['act_goal']}{act_goal}")
    if location:
        lines.append(f"{words['location']}{location}")
    return lines


def render_parts(act_goal: str | None, location: str | None, items: Sequence[PackItem],
                 words: Mapping[str, str] = ENGLISH) -> str:
    """Render a header and the items grouped under their section headings (in ``words``)."""
    lines = _header_lines(act_goal, location, words)
    for section in SECTIONS:
        in_section = [i for i in items if i.section == section]
        if not in_section:
            continue
        if lines:
            lines.append("")
        lines.append(words[section])
        lines.extend(i.line for i in in_section)
    return "\n".join(lines)


def trim_order(items: Iterable[PackItem]) -> list[PackItem]:
    """Items in the order they are dropped when over budget (first dropped first)."""
    rank = {name: n for n, name in enumerate(TRIM_ORDER)}
    return sorted(
        items, key=lambda i: (i.pinned, rank.get(i.section, -1), i.relevance)
    )


def _dedupe(items: Iterable[PackItem]) -> list[PackItem]:
    """Drop repeats of the same memory; the copy in the higher-priority section wins."""
    order = {name: n for n, name in enumerate(SECTIONS)}
    best: dict[str, PackItem] = {}
    result: list[PackItem] = []
    for item in sorted(items, key=lambda i: order.get(i.section, len(order))):
        key = item.memory_id or f"text:{item.section}:{item.text}"
        if key in best:
            if item.pinned and not best[key].pinned:
                best[key].pinned = True  # pinned anywhere means pinned
            continue
        best[key] = item.model_copy()
        result.append(best[key])
    return result


class _Filler:
    """Token accounting of one assembly (which items are kept, what each section used)."""

    def __init__(self, budget: int, header: int, words: Mapping[str, str] = ENGLISH) -> None:
        self.budget = budget
        self.words = words
        self.used = header
        self.kept: dict[int, PackItem] = {}
        self.section_used: dict[str, int] = {}

    def cost(self, item: PackItem) -> int:
        heading = (0 if item.section in self.section_used
                   else count_tokens(self.words[item.section]))
        return heading + item.tokens

    def keep(self, n: int, item: PackItem, cost: int) -> None:
        self.kept[n] = item
        self.used += cost
        self.section_used[item.section] = self.section_used.get(item.section, 0) + cost

    def fits(self, item: PackItem, share: float | None) -> bool:
        cost = self.cost(item)
        if self.used + cost > self.budget:
            return False
        if share is None:
            return True
        return self.section_used.get(item.section, 0) + cost <= int(self.budget * share)

    def cut(self, n: int, item: PackItem) -> bool:
        """Keep a shortened copy of ``item`` if a useful part fits the remaining budget."""
        heading = self.cost(item) - item.tokens
        room = self.budget - self.used - heading - count_tokens(BULLET)
        if room < MIN_PARTIAL_TOKENS:
            return False
        text = truncate_to_tokens(item.text, room)
        cut = item.model_copy(update={"text": text, "truncated": True})
        self.keep(n, cut, heading + count_tokens(BULLET + text))
        return True


def assemble_pack(
    items: Iterable[PackItem],
    budget_tokens: int,
    *,
    act_goal: str | None = None,
    location: str | None = None,
    words: Mapping[str, str] | None = None,
) -> ContextPack:
    """Keep what fits ``budget_tokens``: pinned first, then each section's share, then the rest,
    each in :data:`TRIM_ORDER` priority (see the module docstring); headings and labels in
    ``words`` (:data:`ENGLISH` by default), counted as they will be rendered."""
    said = {**ENGLISH, **(words or {})}
    candidates = [i for i in _dedupe(items) if i.text.strip()]
    index = {id(item): n for n, item in enumerate(candidates)}
    fill = _Filler(budget_tokens,
                   count_tokens("\n".join(_header_lines(act_goal, location, said))), said)
    ranked = list(reversed(trim_order(candidates)))  # keep order: best first
    blocked: set[str] = set()  # sections that already refused an item: keep their order
    full = False
    for n, item in ((index[id(i)], i) for i in ranked if i.pinned):
        if fill.fits(item, None):
            fill.keep(n, item, fill.cost(item))
        else:  # nothing unpinned is kept in place of a pinned fact
            fill.cut(n, item)
            full = True
            break
    for n, item in ((index[id(i)], i) for i in ranked if not i.pinned):
        if full or item.section in blocked:
            continue
        if fill.fits(item, FLOORS.get(item.section, 0.0)):
            fill.keep(n, item, fill.cost(item))
        else:
            blocked.add(item.section)
    for n, item in ((index[id(i)], i) for i in ranked if not i.pinned):
        if full:
            break
        if n in fill.kept:
            continue
        if fill.fits(item, None):
            fill.keep(n, item, fill.cost(item))
        else:
            fill.cut(n, item)
            break
    order = {name: n for n, name in enumerate(SECTIONS)}
    kept = sorted(fill.kept.items(), key=lambda p: (order.get(p[1].section, len(order)), p[0]))
    pack = ContextPack(
        budget_tokens=budget_tokens,
        act_goal=act_goal,
        location=location,
        items=[item for _, item in kept],
        dropped=[i for i in candidates if index[id(i)] not in fill.kept],
        words=said,
    )
    pack.tokens = count_tokens(pack.render())
    return pack
