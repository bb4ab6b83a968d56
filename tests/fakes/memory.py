"""A dict-backed stand-in for WriterMemory: the slice of it the writer agent uses.

``DictMemory`` is about twice as fast as the real memory in the agent tests
(``python bench/fake_memory.py``); ``tests/writer/test_memory_contract.py`` runs it and the real
WriterMemory through one contract so the two cannot drift apart. ``fake_context`` is the context
builder that goes with it.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from aizac.memory.facts import ADDRESS, RULE, VOICE, fact_slot


@dataclass
class Item:
    id: str
    text: str
    tag: str
    fields: dict[str, Any]
    superseded_by: str = ""
    forgotten: bool = False


class ShortTerm:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def add(self, summary: str) -> None:
        self.lines.append(summary)

    def text(self) -> str:
        return "\n".join(self.lines[-5:])

    def items(self) -> list[str]:
        return list(self.lines)

    def pop(self) -> str | None:
        return self.lines.pop() if self.lines else None


@dataclass
class Batch:
    memory: DictMemory
    ops: list[tuple[str, Any]] = field(default_factory=list)
    reinforced: list[str] = field(default_factory=list)
    """Committed memories the commit reinforces (this fake keeps no strengths: recorded)."""

    def remember(self, text: str, tag: str, **fields: Any) -> str:
        if not text.strip():
            raise ValueError("empty")
        new_id = f"m{next(self.memory._ids)}"
        self.ops.append(("remember", (new_id, text, tag, fields)))
        return new_id

    def note(self, text: str, tag: str, **fields: Any) -> str | None:
        """WriterMemory's ``note`` without its restatement/supersession rules, but for voice
        facts (aspect ``voice`` / ``address``), which keep their slot like the real one."""
        if fields.get("aspect") in (VOICE, ADDRESS):
            held = self.memory.lookups.slot_holders({"tag": tag, **_flat(fields)})
            if held and held[0].text == text:
                return None
            if held:
                return self.supersede(held[0].id, text, **fields)
            return self.remember(text, tag, **fields)
        fields = {k: v for k, v in fields.items()
                  if k not in ("aspect", "outdates", "lineage", "flag", "conflicts")}
        if tag == "CharacterRelation":
            current = self.memory.relation(fields["character1"], fields["character2"])
            if current is not None:
                return self.supersede(current.id, text, chapter=fields.get("chapter", 0),
                                      beat=fields.get("beat", 0))
        return self.remember(text, tag, **fields)

    def pay_off(self, memory_id: str, **where: Any) -> None:
        self.ops.append(("pay_off", (memory_id, where)))

    def alias(self, name: str, alias: str) -> None:
        self.ops.append(("alias", (name, alias)))

    def supersede(self, memory_id: str, text: str, **fields: Any) -> str:
        new_id = f"m{next(self.memory._ids)}"
        self.ops.append(("supersede", (new_id, memory_id, text, fields)))
        return new_id

    def commit(self) -> list[str]:
        ids = self.memory._apply(self.ops)
        # a memory to reinforce may be gone (an undone commit): skipped, as WriterMemory does
        self.memory.reinforce([i for i in dict.fromkeys(self.reinforced)
                               if i in self.memory.items])
        return ids

    def discard(self) -> None:
        self.ops.clear()
        self.reinforced.clear()


def _flat(fields: dict[str, Any]) -> dict[str, Any]:
    """An item's fields as metadata (``extra`` spread out, as WriterMemory stores it)."""
    return {**{k: v for k, v in fields.items() if k != "extra"}, **(fields.get("extra") or {})}


class Lookups:
    """The keyed reads of DictMemory that the dialogue code uses (slot holders)."""

    def __init__(self, memory: DictMemory) -> None:
        self.memory = memory

    def slot_holders(self, meta: dict[str, Any]) -> list[Any]:
        slot = fact_slot(meta)
        if not slot:
            return []
        found = [i for i in self.memory.live()
                 if fact_slot({"tag": i.tag, **_flat(i.fields)}) == slot]
        return [self.memory.hit(i) for i in reversed(found)]

    def slots_held(self, metas: Iterable[dict[str, Any]]) -> dict[str, list[Any]]:
        return {slot: self.slot_holders(meta) for meta in metas if (slot := fact_slot(meta))}


class DictMemory:
    """In-process stand-in for WriterMemory (the agent's slice of it)."""

    def __init__(self) -> None:
        self.items: dict[str, Item] = {}
        self.turn = 0
        self.short_term = ShortTerm()
        self._ids = itertools.count(1)
        self.lookups = Lookups(self)
        self.aliases: dict[str, list[str]] = {}
        self.reinforced: list[str] = []
        """Every id reinforced, in order (WriterMemory changes their strength instead)."""

    def reload(self) -> None:
        """Nothing to read again: this memory lives in one process."""

    def refresh(self) -> None:
        """Nothing half written to finish: this memory lives in one process."""

    def hit(self, item: Item) -> Any:
        """An item as a memory hit (id, text, tag, metadata, superseded, chapter)."""
        meta = {"tag": item.tag, **_flat(item.fields), "superseded_by": item.superseded_by}
        return type("Hit", (), {"id": item.id, "text": item.text, "tag": item.tag,
                                "metadata": meta, "superseded": bool(item.superseded_by),
                                "chapter": int(meta.get("chapter", 0) or 0)})()

    def history(self, memory_id: str) -> list[Any]:
        """Every version of the fact ``memory_id`` belongs to, oldest first."""
        chain = [self.items[memory_id]]
        while (prev := chain[0].fields.get("supersedes")) and prev in self.items:
            chain.insert(0, self.items[prev])
        while chain[-1].superseded_by:
            chain.append(self.items[chain[-1].superseded_by])
        return [self.hit(i) for i in chain]

    def resolve_name(self, name: str) -> str:
        for canonical, aliases in self.characters().items():
            if name in (canonical, *aliases):
                return canonical
        return name

    def stage(self) -> Batch:
        return Batch(self)

    def _apply(self, ops: list[tuple[str, Any]]) -> list[str]:
        ids = []
        for op, args in ops:
            if op == "pay_off":
                self.items[args[0]].fields["foreshadow"] = False
                continue
            if op == "alias":
                self.aliases.setdefault(args[0], []).append(args[1])
                continue
            if op == "remember":
                new_id, text, tag, fields = args
                new = Item(new_id, text, tag, fields)
            else:
                new_id, old_id, text, fields = args
                old = self.items[old_id]
                new = Item(new_id, text, old.tag, {**old.fields, **fields})
                new.fields["supersedes"] = old_id
                old.superseded_by = new.id
            self.items[new.id] = new
            ids.append(new.id)
        return ids

    def advance(self, turns: int = 1) -> int:
        self.turn += turns
        return self.turn

    def finish_beat(self, summary: str, *, turns: int = 1, ids: Sequence[str] = ()) -> int:
        """A beat's summary and the turn moved on, together (one write in WriterMemory)."""
        self.short_term.add(summary)
        return self.advance(turns)

    def get_where(self, where: dict[str, Any] | None, limit: int | None = None, *,
                  include_forgotten: bool = False,
                  include_superseded: bool = False) -> list[Any]:
        """Exact lookup on the fields (``{"field": value}`` or ``{"field": {"$eq": value}}``),
        newest first, served memories only unless asked."""
        def wanted(value: Any) -> Any:
            return value.get("$eq") if isinstance(value, dict) else value

        found = [i for i in reversed(self.items.values())
                 if (include_forgotten or not i.forgotten)
                 and (include_superseded or not i.superseded_by)
                 and all({"tag": i.tag, **_flat(i.fields)}.get(k) == wanted(v)
                         for k, v in (where or {}).items())]
        return [self.hit(i) for i in found[:limit]]

    def reinforce(self, ids: Sequence[str]) -> list[Any]:
        """The hits of ``ids`` (this fake keeps no strengths: they are only recorded)."""
        hits = [self.hit(self.items[i]) for i in ids]
        self.reinforced.extend(ids)
        return hits

    def live(self) -> list[Item]:
        return [i for i in self.items.values() if not i.superseded_by and not i.forgotten]

    def characters(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for i in self.live():
            if i.tag == "Character":
                out.setdefault(i.fields["character_name"], []).extend(i.fields.get("aliases", []))
        for name, learned in self.aliases.items():
            out.setdefault(name, []).extend(learned)
        return out

    def offer(self, names: Any, text: str = "", newcomers: Any = ()) -> Any:
        """What an extraction is shown: the cast (no facts: this fake keeps no slots)."""
        from aizac.memory.references import build_offer

        known = self.characters()
        cast = [*known.items(),
                *((n, list(a)) for n, a, owner in newcomers if n not in known and not owner)]
        threads = [(i.id, str(i.fields.get("keyword", "")), i.text, "")
                   for i in self.live() if i.fields.get("foreshadow")]
        return build_offer(cast, threads=threads, known=dict(cast), scene=list(names))

    def slot_sense(self) -> None:
        return None

    def current_states(self, name: str) -> list[Any]:
        """The newest live memory of each aspect of character ``name``."""
        found: dict[object, Item] = {}
        for i in reversed(self.live()):
            if i.tag == "Character" and i.fields.get("character_name") == self.resolve_name(name):
                found.setdefault(i.fields.get("aspect"), i)
        return [self.hit(i) for i in found.values()]

    def world_rules(self) -> list[Any]:
        """The live world rules, newest first."""
        return [self.hit(i) for i in reversed(self.live())
                if i.tag == "NovelSetting" and i.fields.get("aspect") == RULE]

    def relation(self, a: str, b: str) -> Item | None:
        pair = {a, b}
        found = [i for i in self.live() if i.tag == "CharacterRelation"
                 and i.fields.get("aspect") != ADDRESS
                 and {i.fields["character1"], i.fields["character2"]} == pair]
        return found[-1] if found else None

    def get(self, memory_id: str) -> Item:
        return self.items[memory_id]

    def open_foreshadowing(self) -> list[Any]:
        return [
            type("Hit", (), {"id": i.id, "text": i.text, "metadata": i.fields})()
            for i in self.live() if i.fields.get("foreshadow")
        ]

    def undo_commit(self, ids: list[str]) -> None:
        for i in ids:
            item = self.items.pop(i)
            old = item.fields.get("supersedes")
            if old:
                self.items[old].superseded_by = ""

    def set_turn(self, turn: int) -> int:
        self.turn = turn
        return turn

    def forget(self, memory_id: str) -> None:
        self.items[memory_id].forgotten = True

    def __len__(self) -> int:
        return len(self.items)

    def snapshot(self) -> Any:
        return copy.deepcopy((self.items, self.turn, self.short_term.lines))


def fake_context(memory: Any, *, characters: list[str], query: str, act_goal: str | None,
                 location: str | None, budget: int) -> str:
    """Context builder over DictMemory: profiles of present characters + recent summary."""
    lines = [f"- {i.text}" for i in memory.live()
             if i.tag == "Character" and i.fields.get("character_name") in characters]
    return "\n".join([*lines, memory.short_term.text()])
