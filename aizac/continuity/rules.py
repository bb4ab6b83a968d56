"""The deterministic continuity checks (pure functions over claims and canon, no model).

* **presence** — a dead character speaking or acting (``dead_character``), a character who is
  away (in prison, missing, abroad ...) present in a scene elsewhere (``absent_character``), a
  character in another place than their current whereabouts with no move in the draft
  (``wrong_location``, a warning: characters move off-page; stale whereabouts are not held
  against a scene). The state a beat is checked against is canon overlaid by the draft's own
  state changes up to that beat, so a character who dies in beat 2 cannot speak in beat 4, and
  one who travels in beat 1 may be elsewhere in beat 3. Flashback beats claim nothing.
* **relations** — a relation claim that restates a superseded version of the pair's relation
  rather than the current one (``superseded_relation``; a warning when the draft says the change
  is a reconciliation, "again").
* **pins** — a claim in a pinned fact's slot that changes it, or a claim about the pinned
  subject that negates it (``pinned_negated``).
* **world rules** — the same for a world rule that is not pinned (``world_rule``, a warning:
  a world may be meant to change).
* **unsettled memory** — a pair of facts the memory kept side by side because it could not
  tell whether the newer replaces the older (``unsettled_memory``, a warning citing the newer
  one), when the draft touches their subject.

Each finding cites the canon memory it contradicts.
"""

from __future__ import annotations

from collections.abc import Sequence

from aizac.continuity.canon import Canon, Fact
from aizac.continuity.claims import Appearance, FactClaim
from aizac.continuity.report import Finding, Severity, message
from aizac.continuity.text import (
    ABSENT,
    AGAIN,
    FALSITY,
    FLASHBACK,
    MOURNING,
    acts_as_subject,
    containment,
    dice,
    has_any,
    is_alive,
    is_dead,
    mentions,
    negated,
    relation_labels,
    same_place,
    stems,
    strip_markers,
    without_names,
)
from aizac.memory.facts import marks, name_key, same_text

STALE_WHEREABOUTS = 3
"""Episodes after which a plain whereabouts fact no longer pins a character to a place."""
ACTING_ASPECTS = ("whereabouts", "emotion", "goal", "allegiance", "ability")


def _state_at(canon: Canon, claims: Sequence[FactClaim], name: str, aspect: str,
              beat: int) -> Fact | None:
    """The state of ``name``'s ``aspect`` during ``beat``: the draft's latest change before it
    (for whereabouts, up to and including it: the scene is where they went), or canon. A change
    without a beat counts from the episode's start."""
    key = name_key(canon.canonical(name))
    latest: FactClaim | None = None
    upto = beat if aspect == "whereabouts" else beat - 1
    for c in claims:
        if (c.tag == "Character" and c.aspect == aspect and (c.beat or 0) <= upto
                and name_key(canon.canonical(c.name)) == key):
            latest = c
    if latest is not None:
        return Fact(latest.id, latest.text, "Character", latest.name, aspect=aspect,
                    keyword=latest.keyword)
    return canon.state(name, aspect)


def _death(canon: Canon, claims: Sequence[FactClaim], name: str, beat: int) -> Fact | None:
    for aspect in ("condition", "status"):
        fact = _state_at(canon, claims, name, aspect, beat)
        if fact is not None and is_dead(fact.text):
            return fact
    return None


def _presence_one(a: Appearance, canon: Canon, claims: Sequence[FactClaim], episode: int,
                  language: str) -> Finding | None:
    dead = _death(canon, claims, a.name, a.beat)
    if dead is not None:
        key = "dead_speaks" if a.speaking else "dead_acts"
        text = message(key, language, name=a.name, fact=dead.text, beat=a.beat)
        # a death earlier in this draft has no memory id yet (extraction results): None
        return Finding("dead_character", "error", text, dead.id or None, a.quote, a.beat)
    where = _state_at(canon, claims, a.name, "whereabouts", a.beat)
    if where is None or not a.location.strip() or same_place(a.location, where.text,
                                                             where.keyword):
        return None
    values = dict(name=a.name, fact=where.text, beat=a.beat, place=a.location)
    if has_any(where.text, ABSENT):
        return Finding("absent_character", "error", message("absent", language, **values),
                       where.id or None, a.quote, a.beat)
    from_canon = canon.state(a.name, "whereabouts") == where
    if from_canon and where.chapter and episode - where.chapter > STALE_WHEREABOUTS:
        return None
    return Finding("wrong_location", "warning", message("wrong_location", language, **values),
                   where.id or None, a.quote, a.beat)


def _dead_subject(claim: FactClaim, canon: Canon,
                  language: str) -> tuple[Finding | None, str]:
    """A story event whose subject is a character canon holds dead (not their death itself,
    nor a funeral or a memory of them)."""
    if is_dead(claim.text) or has_any(claim.text, MOURNING) or has_any(claim.text, FLASHBACK):
        return None, ""
    opening = claim.text.strip().casefold()
    for name, aliases in canon.cast.items():
        # The longest name the sentence opens with decides ("Victor Hale's" is not "Victor").
        names = sorted((n for n in (name, *aliases) if opening.startswith(n.casefold())),
                       key=len, reverse=True)
        spoken = names[0] if names and acts_as_subject(claim.text, names[0]) else None
        if spoken is None:
            continue
        dead = canon.state(name, "condition") or canon.state(name, "status")
        if dead is not None and is_dead(dead.text):
            text = message("dead_acts", language, name=spoken, fact=dead.text, beat=claim.beat)
            return Finding("dead_character", "error", text, dead.id, claim.text,
                           claim.beat), name
    return None, ""


def presence_findings(
    appear: Sequence[Appearance],
    claims: Sequence[FactClaim],
    canon: Canon,
    *,
    episode: int,
    language: str,
) -> list[Finding]:
    """Dead, absent or misplaced characters in the episode's scenes and state claims."""
    out: list[Finding] = []
    seen: set[tuple[str, str]] = set()

    def add(found: Finding | None, name: str = "") -> None:
        if found is not None and (found.kind, name_key(canon.canonical(name))) not in seen:
            seen.add((found.kind, name_key(canon.canonical(name))))
            out.append(found)

    for a in appear:
        if not a.flashback:
            add(_presence_one(a, canon, claims, episode, language), a.name)
    for c in claims:
        if c.tag == "Story":
            add(*_dead_subject(c, canon, language))
            continue
        if c.tag != "Character" or not c.name:
            continue
        dead = canon.state(c.name, "condition") or canon.state(c.name, "status")
        if dead is None or not is_dead(dead.text):
            continue
        if c.aspect in ("condition", "status") and (is_alive(c.text) or not is_dead(c.text)):
            text = message("dead_revived", language, name=c.name, fact=dead.text, claim=c.text)
            add(Finding("dead_character", "error", text, dead.id, c.text, c.beat), c.name)
        elif c.aspect in ACTING_ASPECTS and not has_any(c.text, MOURNING):
            text = message("dead_acts", language, name=c.name, fact=dead.text, beat=c.beat)
            add(Finding("dead_character", "error", text, dead.id, c.text, c.beat), c.name)
    return out


def _regresses(claim: FactClaim, current: Fact, old: Fact, cast: Sequence[str] = ()) -> bool:
    """Whether ``claim`` restates ``old`` rather than ``current`` (names left out).

    Without a relation label to compare, a claim restates ``old`` only when it says what
    ``old`` says and carries the same :func:`~aizac.memory.facts.marks` (numbers, codes and
    the other characters it names): "第111次确认" shares every character bigram with the
    superseded "第11次确认" and is a new fact all the same."""
    if same_text(claim.text, current.text):
        return False
    lc, lcur, lold = (relation_labels(t) for t in (claim.text, current.text, old.text))
    if lc:
        return bool(lc & lold) and not (lc & lcur)
    pair = {name_key(n) for n in (*claim.pair, *current.pair)}
    others = [n for n in cast if name_key(n) not in pair]
    said = marks(claim.text, others)
    if said != marks(old.text, others):
        return False
    names = [*claim.pair, *current.pair]
    c, cur, o = (without_names(t, names) for t in (claim.text, current.text, old.text))
    if said and said != marks(current.text, others):  # the marks name the old version
        return dice(c, o) >= 0.5
    return dice(c, o) >= 0.5 and dice(c, o) > dice(c, cur) + 0.15


def relation_findings(claims: Sequence[FactClaim], canon: Canon, *,
                      language: str) -> list[Finding]:
    """Relation claims that bring back a superseded version of the pair's relation."""
    out: list[Finding] = []
    cast = [n for name, aliases in canon.cast.items() for n in (name, *aliases)]
    for c in claims:
        rel = canon.relations.get(c.slot) if c.tag == "CharacterRelation" else None
        if rel is None:
            continue
        for old in reversed(rel.older):
            if _regresses(c, rel.current, old, cast):
                severity: Severity = "warning" if has_any(c.text, AGAIN) else "error"
                text = message("superseded_relation", language, pair=" · ".join(c.pair),
                               current=rel.current.text, old=old.text)
                out.append(Finding("superseded_relation", severity, text, rel.current.id,
                                   c.text, c.beat))
                break
    return out


def _about(claim: FactClaim, pin: Fact, canon: Canon) -> bool:
    """Whether a claim is about the pinned fact's subject (its character or keyword)."""
    subjects = [s for s in (pin.name, pin.keyword, *pin.pair) if s]
    if pin.name:
        subjects += list(canon.cast.get(canon.canonical(pin.name), ()))
    if not subjects:
        subjects = [n for n in canon.cast if mentions(pin.text, n)]
    claim_names = {name_key(canon.canonical(n)) for n in (claim.name, *claim.pair) if n}
    return any(mentions(claim.text, s) or name_key(canon.canonical(s)) in claim_names
               for s in subjects)


def _negates(claim: FactClaim, pin: Fact, canon: Canon) -> bool:
    """Whether ``claim`` says the opposite of ``pin`` (names left out: they are the subject
    both share, not what they say about it)."""
    if (is_dead(claim.text) and is_alive(pin.text)) or (is_alive(claim.text)
                                                        and is_dead(pin.text)):
        return True
    names = [*canon.cast, *(a for v in canon.cast.values() for a in v)]
    said, pinned = (without_names(strip_markers(t), names) for t in (claim.text, pin.text))
    if has_any(claim.text, FALSITY) and not has_any(pin.text, FALSITY):
        # "that X regressed was a lie": the claim calls what the pin states false
        return bool(stems(without_names(pin.text, names)) & stems(said))
    if negated(claim.text) == negated(pin.text):
        return False
    # Most of the claim restates the pin, or most of a short pin is in a longer claim, or
    # the pin's content words all recur in another form ("회귀자" / "회귀한 적이 없다").
    if containment(said, pinned) >= 0.5 or containment(pinned, said) >= 0.6:
        return True
    words = stems(pinned)
    return bool(words) and len(words & stems(said)) / len(words) >= 0.75


def _contradicting(claims: Sequence[FactClaim], facts: Sequence[Fact],
                   canon: Canon) -> list[tuple[Fact, FactClaim, str]]:
    """``(fact, claim, how)`` for the first claim that changes (a claim in the fact's slot
    with other content) or negates (about its subject, saying the opposite) each fact."""
    out: list[tuple[Fact, FactClaim, str]] = []
    for fact in facts:
        for c in claims:
            if c.id and c.id == fact.id:
                continue
            how = ""
            if fact.slot and c.slot == fact.slot:
                if not same_text(c.text, fact.text) and dice(c.text, fact.text) < 0.6:
                    how = "changed"
            elif _about(c, fact, canon) and _negates(c, fact, canon):
                how = "negated"
            if how:
                out.append((fact, c, how))
                break
    return out


def pin_findings(claims: Sequence[FactClaim], canon: Canon, *, language: str) -> list[Finding]:
    """Claims that change a pinned fact's slot or negate a pinned fact (errors)."""
    return [
        Finding("pinned_negated", "error",
                message(f"pinned_{how}", language, fact=pin.text, claim=c.text),
                pin.id, c.text, c.beat)
        for pin, c, how in _contradicting(claims, canon.pins, canon)
    ]


def rule_findings(claims: Sequence[FactClaim], canon: Canon, *,
                  language: str) -> list[Finding]:
    """Claims that change or break a (not pinned) world rule: warnings, since a world may
    be meant to change; pinned rules are held by :func:`pin_findings`."""
    rules = [r for r in canon.rules if not r.pinned]
    return [
        Finding("world_rule", "warning",
                message(f"rule_{how}", language, fact=rule.text, claim=c.text),
                rule.id, c.text, c.beat)
        for rule, c, how in _contradicting(claims, rules, canon)
    ]


def unsettled_findings(canon: Canon, *, language: str) -> list[Finding]:
    """A warning for each pair of facts the memory kept side by side (it could not tell
    whether the newer replaces the older) about someone or something the draft touches: the
    draft may rest on either, so the writer should settle the pair in the Memory tab."""
    from aizac.text import t

    out = []
    for newer, older in canon.unsettled:
        who = newer.name or " · ".join(n for n in newer.pair if n) or newer.keyword
        text = t("continuity.unsettled", language, who=who, newer=newer.text, older=older.text)
        out.append(Finding("unsettled_memory", "warning", text, newer.id, newer.text, None))
    return out


__all__ = [
    "ACTING_ASPECTS",
    "STALE_WHEREABOUTS",
    "pin_findings",
    "presence_findings",
    "relation_findings",
    "rule_findings",
    "unsettled_findings",
]
