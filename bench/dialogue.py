"""Dialogue checks on planted cases vs clean scenes, in Korean and English (no model).

Each serial builds a real WriterMemory holding a cast, their pair voices (how each speaks to
each other one: speech level and form of address), two voice cards with catchphrases and a dead
character, committed through the memory's validated paths. Then it drafts scenes the way the
pipeline hands them to the check (planned beats with speakers, sometimes the dialogue plan's
listener, sometimes the prose with the line attributed by a speech verb) with one planted
mistake each:

* ``speech_level`` — a junior who suddenly speaks 반말 (casual English) to a senior;
* ``dead_speaker`` — a dead character speaks in a present-day scene;
* ``wrong_speaker`` — a line that is another character's (their form of address for the
  listener, or their catchphrase) given to someone else;
* ``address_form`` — the right level but a swapped form of address (형 for 회장님, a bare name
  for 선배, "Victor" for "Mr. Hale").

Clean scenes come close to each (the right level and form, calls to another listener in a
three-person scene, titles mentioned rather than called, the dead in a flashback, a
catchphrase in its owner's mouth, lines whose level nothing decides). A planted mistake counts
as detected when a finding of the expected kind cites the memory it rests on; a clean scene is
a false alarm when it gets any finding.

``--holdout`` swaps every line template for wording written with the benchmark and never used
while the rules and word lists were tuned (see HOLDOUT below; the tuned run and the held-out run
are reported side by side).

    python bench/dialogue.py                 # 4 serials x 10 drafts per kind, ko + en
    python bench/dialogue.py --holdout
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aizac.dialogue import check_dialogue
from aizac.dialogue.cards import PairVoice, VoiceCard
from aizac.dialogue.memory import note_card, note_pair
from aizac.dialogue.plan import DialoguePlan, PlanTurn
from aizac.llm.embeddings import HashingEmbeddings
from aizac.memory import WriterMemory
from aizac.settings import Settings
from aizac.text.particles import attach
from aizac.writer.schemas import DialogueLine, NovelBeat

KINDS = ("speech_level", "dead_speaker", "wrong_speaker", "address_form")

# Roles: J junior, S senior (J calls S by a title, politely), P peer of J (J calls P a title
# too, plainly), B the boss (everyone formal), D dead, X anyone else.
CAST = {
    "ko": {"J": "강민호", "S": "윤수아", "P": "박지훈", "B": "진양철", "D": "최동수",
           "X": "한소이"},
    "en": {"J": "Tom Reyes", "S": "Sera Lin", "P": "Leo Park", "B": "Victor Hale",
           "D": "Nina Oh", "X": "Jia Han"},
}
# (speaker, listener, level, address)
VOICES = {
    "ko": [("J", "S", "polite", "선배"), ("S", "J", "plain", "민호야"),
           ("J", "P", "plain", "형"), ("P", "J", "plain", "민호야"),
           ("P", "S", "plain", "수아야"), ("S", "P", "plain", "지훈아"),
           ("J", "B", "formal", "회장님"), ("S", "B", "formal", "회장님"),
           ("B", "J", "plain", "민호"), ("X", "J", "plain", "민호야"),
           ("J", "X", "plain", "소이야")],
    "en": [("J", "S", "polite", "Ms. Lin"), ("S", "J", "plain", "Tom"),
           ("J", "P", "plain", "Leo"), ("P", "J", "plain", "kid"),
           ("P", "S", "plain", "Sera"), ("S", "P", "plain", "Leo"),
           ("J", "B", "polite", "Mr. Hale"), ("S", "B", "polite", "sir"),
           ("B", "J", "plain", "Tom"), ("X", "J", "plain", "Tom"), ("J", "X", "plain", "Jia")],
}
CATCH = {"ko": {"P": "귀찮게 하네", "B": "돈은 거짓말을 안 한다"},
         "en": {"P": "easy does it", "B": "money never lies"}}
DEATH = {"ko": "{d}는 화재로 사망했다", "en": "{d} died in the fire"}
SPEECH_VERB = {"ko": "{s} 말했다.", "en": "{s} said."}
NIGHT = {"ko": "밤", "en": "night"}
FLASHBACK = {"ko": "10년 전 회상", "en": "flashback, years ago"}
PLACE = {"ko": "회사 옥상", "en": "the office roof"}

# Line templates: {v} is the form of address the line calls its listener by.
LINES: dict[str, dict[str, list[str]]] = {
    "ko": {
        "polite": ["{v}, 어디 가세요?", "{v}, 오늘 회의 몇 시예요?", "알겠어요, {v}.",
                   "{v}, 이것 좀 봐 주세요.", "그건 제가 할게요."],
        "formal": ["{v}, 보고드리겠습니다.", "{v}, 준비됐습니다.", "알겠습니다, {v}.",
                   "{v}, 차를 대기시켰습니다."],
        "plain": ["{v}, 어디 가?", "밥 먹었어?", "{v}, 이거 봐.", "늦었잖아.", "{v}, 빨리 와!",
                  "그거 내가 할게."],
        "mention": ["선배가 그러던데 진짜야?", "회장님이 찾으셨어.", "형은 아직 안 왔어."],
        "flat": ["음.", "…….", "흠."],
        "dead": ["살려 줘!", "{v}, 나야.", "내가 돌아왔어."],
    },
    "en": {
        "polite": ["{v}, the files are on your desk, ma'am.", "Yes, {v}, right away.",
                   "{v}, may I have a minute?", "Of course, {v}."],
        "formal": ["{v}, the car is ready, sir.", "Yes, {v}, right away, sir.",
                   "{v}, would you kindly sign this?"],
        "plain": ["{v}, you gonna eat that?", "Hey {v}, move it.", "Yeah, whatever, {v}.",
                  "{v}, c'mon, we're late."],
        "mention": ["Mr. Hale said he'd be late.", "The boss wants the files.",
                    "Sera left an hour ago."],
        "flat": ["Hm.", "...", "So?"],
        "dead": ["Help me!", "{v}, it's me.", "I came back."],
    },
}

# Held-out wording (--holdout): written with the benchmark, before its first run, and never
# used while the rules or the word lists were tuned. Different verbs, endings (-거든요, -시죠,
# -냐, -잖아, -십니까) and sentence shapes than the lists above.
HOLDOUT: dict[str, dict[str, list[str]]] = {
    "ko": {
        "polite": ["{v}, 커피 드실래요?", "저 먼저 들어가 볼게요, {v}.", "{v}, 그 얘기 들으셨죠?",
                   "{v}, 저 오늘 좀 늦거든요."],
        "formal": ["{v}, 회의 자료 올려 두었습니다.", "{v}, 부르셨습니까?",
                   "말씀하신 건 처리했습니다, {v}."],
        "plain": ["{v}, 너 진짜 왜 그러냐?", "{v}, 그만 좀 해라.", "그거 네가 한 거잖아.",
                  "{v}, 나 먼저 간다."],
        "mention": ["아까 회장님이 너 찾더라.", "선배 오늘 안 온대.", "형이 그거 알면 난리 나."],
        "flat": ["흠……", "어라.", "정말이지."],
        "dead": ["{v}, 오랜만이네.", "나 여기 있어.", "왜 울어?"],
    },
    "en": {
        "polite": ["{v}, I've drafted the letter for you.", "Pardon me, {v}, a call for you.",
                   "{v}, shall I bring the car around?"],
        "formal": ["{v}, the board is waiting, sir.", "With respect, {v}, the numbers are wrong.",
                   "{v}, your guests have arrived, sir."],
        "plain": ["{v}, gotta run, see ya.", "Yeah yeah, {v}, I heard you.",
                  "{v}, shut up and drive.", "Dude, {v}, that's wild."],
        "mention": ["Victor called twice this morning.", "The chairman is in a mood.",
                    "Leo says hi."],
        "flat": ["Right.", "Well.", "Huh."],
        "dead": ["{v}, don't cry.", "It's cold here.", "You forgot me."],
    },
}


@dataclass
class Serial:
    mem: WriterMemory
    lang: str
    names: dict[str, str]
    pairs: dict[tuple[str, str], tuple[str, str, str]] = field(default_factory=dict)
    cards: dict[str, str] = field(default_factory=dict)  # role -> card memory id
    death: str = ""

    def voice(self, a: str, b: str) -> tuple[str, str, str]:
        """(level, address, memory id) of how role ``a`` speaks to role ``b``."""
        return self.pairs[(a, b)]


def build_serial(lang: str) -> Serial:
    settings = Settings(memory_threshold=1.0, short_term_tokens=64)
    mem = WriterMemory(embeddings=HashingEmbeddings(), settings=settings)
    names = CAST[lang]
    s = Serial(mem, lang, names)
    with mem.stage() as b:
        for name in names.values():
            b.remember(f"{name} — character", "Character", character_name=name, chapter=0)
    with mem.stage() as b:
        for a, c, level, address in VOICES[lang]:
            mid = note_pair(b, PairVoice(names[a], names[c], level, address), lang, chapter=1)
            s.pairs[(a, c)] = (level, address, str(mid))
        for role, phrase in CATCH[lang].items():
            mid = note_card(b, VoiceCard(names[role], catchphrases=(phrase,)), lang, chapter=1)
            s.cards[role] = str(mid)
        s.death = str(b.note(DEATH[lang].format(d=names["D"]), "Character",
                             character_name=names["D"], aspect="condition", chapter=2))
    mem.advance(20)
    return s


@dataclass
class Draft:
    beat: NovelBeat
    prose: str
    plan: DialoguePlan | None
    expected: tuple[str, str] | None


def _line(rng: random.Random, lang: str, kind: str, address: str) -> str:
    return rng.choice(LINES[lang][kind]).format(v=address)


def _scene(s: Serial, rng: random.Random, speaker: str, listener: str, text: str, *,
           third: str | None = None, flashback: bool = False, as_prose: bool | None = None,
           ) -> Draft:
    """A beat where ``speaker`` says ``text`` to ``listener`` (roles), with maybe a third
    person present (then the plan or the line's call says who it is for)."""
    n = s.names
    cast = [n[speaker], n[listener]] + ([n[third]] if third else [])
    rng.shuffle(cast)
    plan = None
    if third and rng.random() < 0.5:
        plan = DialoguePlan(turns=[PlanTurn(speaker=n[speaker], to=n[listener], wants="-",
                                            gist="-")])
    prose_line = rng.random() < 0.35 if as_prose is None else as_prose
    dialogue = [] if prose_line else [DialogueLine(speaker=n[speaker], line=text)]
    beat = NovelBeat(episode=5, index=1, location=PLACE[s.lang],
                     time=FLASHBACK[s.lang] if flashback else NIGHT[s.lang], characters=cast,
                     events=[f"{cast[0]} — {PLACE[s.lang]}"], dialogue=dialogue)
    quote = "“{}”" if s.lang == "ko" else '"{}"'
    who = attach(n[speaker], "가") if s.lang == "ko" else n[speaker]
    prose = quote.format(text) + " " + SPEECH_VERB[s.lang].format(s=who) if prose_line else ""
    return Draft(beat, prose, plan, None)


def planted(kind: str, s: Serial, rng: random.Random) -> Draft:
    if kind == "speech_level":
        senior = rng.choice(["S", "B"])
        _, address, mid = s.voice("J", senior)
        text = _line(rng, s.lang, "plain", address)
        third = rng.choice([None, "P", "X"])
        d = _scene(s, rng, "J", senior, text, third=third)
        if third and d.plan is None and "{v}" not in text:
            d.plan = DialoguePlan(turns=[PlanTurn(speaker=s.names["J"], to=s.names[senior],
                                                  wants="-", gist="-")])
        return Draft(d.beat, d.prose, d.plan, ("speech_level", mid))
    if kind == "dead_speaker":
        text = _line(rng, s.lang, "dead", s.voice("X", "J")[1])
        d = _scene(s, rng, "D", "J", text)
        return Draft(d.beat, d.prose, d.plan, ("dead_speaker", s.death))
    if kind == "wrong_speaker":
        if rng.random() < 0.5:  # J's polite call of S, given to P (who calls S by name)
            level, address, mid = s.voice("J", "S")
            text = rng.choice([t for t in LINES[s.lang][level] if "{v}" in t]).format(v=address)
            d = _scene(s, rng, "P", "S", text, third="J")
            d.plan = None  # nothing but the line says whose it is
            return Draft(d.beat, d.prose, None, ("wrong_speaker", mid))
        owner = rng.choice(list(CATCH[s.lang]))
        text = CATCH[s.lang][owner].capitalize() + "."
        speaker = "J" if owner != "J" else "S"
        d = _scene(s, rng, speaker, "X", text)
        return Draft(d.beat, d.prose, d.plan, ("catchphrase", s.cards[owner]))
    # address_form: the right level, another form
    listener = rng.choice(["S", "B"])
    level, address, mid = s.voice("J", listener)
    swapped = {"ko": {"S": ["수아야", "수아 씨", "윤수아"], "B": ["형", "양철 씨", "아저씨"]},
               "en": {"S": ["Sera", "kid", "Lin"], "B": ["Victor", "Vic", "buddy"]}}
    wrong = rng.choice(swapped[s.lang][listener])
    templates = [t for t in LINES[s.lang][level] if "{v}" in t
                 and not any(w in t for w in ("ma'am", "sir"))]  # one call: the swapped one
    text = rng.choice(templates).format(v=wrong)
    d = _scene(s, rng, "J", listener, text, third=rng.choice([None, "X"]))
    if d.plan is None and len(d.beat.characters) > 2:
        d.plan = DialoguePlan(turns=[PlanTurn(speaker=s.names["J"], to=s.names[listener],
                                              wants="-", gist="-")])
    return Draft(d.beat, d.prose, d.plan, ("address_form", mid))


def clean(s: Serial, rng: random.Random) -> Draft:
    """A scene with no mistake that comes close to one of each kind."""
    how = rng.randrange(7)
    if how == 0:  # the right level and form, to a senior or the boss
        listener = rng.choice(["S", "B"])
        level, address, _ = s.voice("J", listener)
        return _scene(s, rng, "J", listener, _line(rng, s.lang, level, address),
                      third=rng.choice([None, "X"]))
    if how == 1:  # in a three-person scene, a plain call to the peer, the senior present
        level, address, _ = s.voice("J", "P")
        return _scene(s, rng, "J", "P", _line(rng, s.lang, level, address), third="S")
    if how == 2:  # a title mentioned, not called
        return _scene(s, rng, "J", "X", _line(rng, s.lang, "mention", ""), third="S")
    if how == 3:  # the dead, remembered in a flashback
        return _scene(s, rng, "D", "J", _line(rng, s.lang, "dead", s.voice("X", "J")[1]),
                      flashback=True)
    if how == 4:  # a catchphrase in its owner's mouth
        owner = rng.choice(list(CATCH[s.lang]))
        other = "J"
        return _scene(s, rng, owner, other, CATCH[s.lang][owner].capitalize() + ".")
    if how == 5:  # a line nothing decides
        return _scene(s, rng, "J", "S", _line(rng, s.lang, "flat", ""), third="P")
    level, address, _ = s.voice("S", "J")  # the senior speaks down, as she always does
    return _scene(s, rng, "S", "J", _line(rng, s.lang, level, address), third="B")


def run(draft: Draft, s: Serial) -> list[Any]:
    prose = {draft.beat.index: draft.prose} if draft.prose else None
    plans = {draft.beat.index: draft.plan} if draft.plan else None
    report = check_dialogue(s.mem, [draft.beat], prose, language=s.lang, plans=plans)
    return list(report.findings)


def detected(found: list[Any], expected: tuple[str, str]) -> bool:
    kind, mid = expected
    return any(f.kind == kind and f.memory_id == mid for f in found)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--serials", type=int, default=4)
    ap.add_argument("--drafts", type=int, default=10, help="planted drafts per kind per serial")
    ap.add_argument("--lang", choices=["ko", "en", "both"], default="both")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--holdout", action="store_true",
                    help="held-out wording the rules were not tuned on")
    ap.add_argument("--show", action="store_true", help="print each miss and false alarm")
    from smoke import parse_args  # bench/smoke.py: the --smoke size

    args = parse_args(ap, argv, serials=1, drafts=1)
    if args.holdout:
        LINES.update(HOLDOUT)
    langs = ["ko", "en"] if args.lang == "both" else [args.lang]
    started = time.perf_counter()
    checks = 0
    print(f"{'language':8} {'kind':22} {'drafts':>6} {'detected':>8} {'rate':>6}")
    for lang in langs:
        rng = random.Random(f"{args.seed}-{lang}")
        hits, total = Counter[str](), Counter[str]()
        alarms = errors = cleans = 0
        for _ in range(args.serials):
            s = build_serial(lang)
            for kind in KINDS:
                for _ in range(args.drafts):
                    d = planted(kind, s, rng)
                    found = run(d, s)
                    checks += 1
                    total[kind] += 1
                    assert d.expected is not None
                    ok = detected(found, d.expected)
                    hits[kind] += ok
                    if args.show and not ok:
                        print("  MISS", kind, d.beat.dialogue, d.prose, d.plan,
                              [(f.kind, f.message) for f in found])
            for _ in range(args.drafts * 2):
                d = clean(s, rng)
                found = run(d, s)
                checks += 1
                cleans += 1
                alarms += bool(found)
                errors += any(f.severity == "error" for f in found)
                if args.show and found:
                    print("  ALARM", d.beat.dialogue, d.prose, [(f.kind, f.message) for f in found])
            s.mem.close()
        for kind in KINDS:
            print(f"{lang:8} {kind:22} {total[kind]:6d} {hits[kind]:8d} "
                  f"{hits[kind] / total[kind]:6.2f}")
        print(f"{lang:8} {'all planted':22} {sum(total.values()):6d} {sum(hits.values()):8d} "
              f"{sum(hits.values()) / sum(total.values()):6.2f}")
        print(f"{lang:8} {'clean: any finding':22} {cleans:6d} {alarms:8d} "
              f"{alarms / cleans:6.2f}")
        print(f"{lang:8} {'clean: any error':22} {cleans:6d} {errors:8d} {errors / cleans:6.2f}")
    elapsed = time.perf_counter() - started
    print(f"(wording: {'held out' if args.holdout else 'tuned'}; {checks} checks in "
          f"{elapsed:.1f} s, {1000 * elapsed / max(checks, 1):.1f} ms per scene incl. memory "
          "reads)")


if __name__ == "__main__":
    main()
