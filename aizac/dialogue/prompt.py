"""The dialogue notes of the prose prompt (pure): the speakers' voices and the dialogue plan.

Only the speakers of the beat are shown — their voice cards and how each speaks to the others
in the scene — never the rest of the cast, and the whole block fits its token budget (lines
are dropped from the end: the plan's turns first, then pair voices, then cards: how a pair
speaks is what a scene most easily gets wrong).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from aizac.dialogue.canon import VoiceCanon
from aizac.dialogue.cards import card_text, pair_text, phrases
from aizac.dialogue.plan import DialoguePlan
from aizac.tokens import count_tokens

__all__ = ["dialogue_block", "plan_lines", "voice_lines"]


def voice_lines(canon: VoiceCanon, speakers: Sequence[str], language: str,
                present: Sequence[str] = ()) -> list[str]:
    """The voice cards of ``speakers`` and how each speaks to the others ``present`` (the
    scene's characters; the speakers themselves by default)."""
    people = list(dict.fromkeys(canon.canonical(s) for s in speakers))
    others = list(dict.fromkeys([*people, *(canon.canonical(p) for p in present)]))
    cards = [card_text(c, language) for s in people if (c := canon.card(s)) and not c.empty]
    pairs = [pair_text(p, language) for a, b in itertools.product(people, others)
             if a != b and (p := canon.pair(a, b)) is not None and not p.empty]
    return [*cards, *pairs]


def plan_lines(plan: DialoguePlan | None, language: str) -> list[str]:
    if plan is None:
        return []
    turn = phrases(language)["plan_turn"]
    return [turn.format(n=n, speaker=t.speaker, to=t.to, gist=t.gist, wants=t.wants or "-")
            for n, t in enumerate(plan.turns, 1)]


def dialogue_block(voices: Sequence[str], plan: Sequence[str], language: str,
                   budget: int) -> str:
    """The prompt text (``""`` when there is nothing to say), at most ``budget`` tokens."""
    p = phrases(language)
    voices, plan = list(voices), list(plan)

    def text() -> str:
        parts = []
        if voices:
            parts.append("\n".join([p["voices_heading"], *(f"- {v}" for v in voices)]))
        if plan:
            parts.append("\n".join([p["plan_heading"], *plan]))
        return "\n\n".join(parts)

    while (voices or plan) and count_tokens(text()) > budget:
        (plan or voices).pop()
    return text() if (voices or plan) else ""
