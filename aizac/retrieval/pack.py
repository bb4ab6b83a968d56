"""Context-pack assembly and token budgeting (pure, no I/O).

A pack is a list of :class:`PackItem` in sections, rendered in this order (the priority of the
brief): characters present, their relations, relevant settings, the recent summary, open
foreshadowing, pinned core memories, related story events.

Trimming to the budget follows one explicit order, :data:`TRIM_ORDER` (first dropped first):

1. every unpinned item before any pinned item — core facts are never trimmed before trivia;
2. among unpinned items, by section: related story events (trivia), then settings, then the
   recent summary, then foreshadowing, then relations, then characters;
3. within a section, the least relevant first (for the summary: the oldest line first).

Items are kept in the reverse of that order while they fit. The first item that does not fit
is cut to the remaining budget when a useful part fits, and everything after it is dropped —
so nothing is ever kept in place of something that ranks above it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

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

HEADINGS: dict[str, str] = {
    "characters": "## Characters present",
    "relations": "## Relationships between them",
    "settings": "## Relevant world facts",
    "summary": "## Recent summary",
    "foreshadowing": "## Open foreshadowing (not yet paid off)",
    "core": "## Core facts (pinned by the writer)",
    "story": "## Related earlier events",
}
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

    def section(self, name: str) -> list[PackItem]:
        """Kept items of one section, in render order."""
        return [i for i in self.items if i.section == name]

    def render(self) -> str:
        """Prompt text of the pack."""
        return render_parts(self.act_goal, self.location, self.items)


def _header_lines(act_goal: str | None, location: str | None) -> list[str]:
    lines = []
    if act_goal:
        lines.append(f"Act goal: {act_goal}")
    if location:
        lines.append(f"Location: {location}")
    return lines


def render_parts(act_goal: str | None, location: str | None, items: Sequence[PackItem]) -> str:
    """Render a header and the items grouped under their section headings."""
    lines = _header_lines(act_goal, location)
    for section in SECTIONS:
        in_section = [i for i in items if i.section == section]
        if not in_section:
            continue
        if lines:
            lines.append("")
        lines.append(HEADINGS[section])
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


def assemble_pack(
    items: Iterable[PackItem],
    budget_tokens: int,
    *,
    act_goal: str | None = None,
    location: str | None = None,
) -> ContextPack:
    """Keep what fits ``budget_tokens`` following :data:`TRIM_ORDER` (see module docstring)."""
    candidates = [i for i in _dedupe(items) if i.text.strip()]
    index = {id(item): n for n, item in enumerate(candidates)}
    used = count_tokens("\n".join(_header_lines(act_goal, location)))
    kept: list[tuple[int, PackItem]] = []
    dropped: list[PackItem] = []
    opened: set[str] = set()
    full = False
    for item in reversed(trim_order(candidates)):
        if full:
            dropped.append(item)
            continue
        heading = 0 if item.section in opened else count_tokens(HEADINGS[item.section])
        cost = heading + item.tokens
        if used + cost <= budget_tokens:
            kept.append((index[id(item)], item))
            opened.add(item.section)
            used += cost
            continue
        full = True
        room = budget_tokens - used - heading - count_tokens(BULLET)
        if room >= MIN_PARTIAL_TOKENS:
            text = truncate_to_tokens(item.text, room)
            cut = item.model_copy(update={"text": text, "truncated": True})
            kept.append((index[id(item)], cut))
            opened.add(item.section)
            used += heading + count_tokens(BULLET + text)
        else:
            dropped.append(item)
    order = {name: n for n, name in enumerate(SECTIONS)}
    kept.sort(key=lambda pair: (order.get(pair[1].section, len(order)), pair[0]))
    pack = ContextPack(
        budget_tokens=budget_tokens,
        act_goal=act_goal,
        location=location,
        items=[item for _, item in kept],
        dropped=dropped,
    )
    pack.tokens = count_tokens(pack.render())
    return pack
