"""Consistency through aizac's own pipeline, with extractors that make the mistakes real ones make.

A seeded serial (12 characters; changes of condition, whereabouts and allegiance, sometimes two
of one character in one beat; deaths; relation arcs; world rules and their revisions;
foreshadowing planted and paid off; facts restated; pairs kept apart for 100+ beats who then
meet again; event lines that only mention an open thread) is driven through
``aizac.writer.service.Studio`` — design beat -> accept -> extraction -> commit — by scripted
LangChain fake chat models passed through the constructor, in ONE process. The extractor
declares the capability of an API model (one combined extraction per beat) and answers as a
model does: it reads the lists of the prompt (cast ``c1``, facts ``f1``, rules ``r1``, threads
``t1``) and refers to them. The serial's content is the same in every variant; the variant
decides which mistakes the extractor makes (``--variant``):

- ``ideal``: every reference right;
- ``omit``: leaves out ``replaces`` / ``revises`` (20% each);
- ``wrongid``: refers to a wrong offered id (5% of references: who, a pair, replaces, revises,
  payoffs);
- ``names``: writes a name form instead of an id (15%: given name, honorific, title, pronoun);
- ``merged``: merges the two changes of one character in one fact (20% of such beats);
- ``misfiled``: files a relation change as a character's fact (10%);
- ``terse``: a terse register mixing languages ("도준 condition: hurt a leg");
- ``all``: every mistake above together.

On a repair turn the extractor mends the items the error names (by their path) and keeps its
other mistakes, as a model shown its error does. ``--before DIR`` measures the aizac package in
DIR (an older checkout) on the same serial in a subprocess and prints both side by side: the
older extraction schema refers by name, so each mistake is made there as its nearest form (a name
form or another character's name for an id, a merged or misfiled fact as text).

Reported per run: ``states`` / ``relations``: share of current states and relations memory holds
alone as current; ``stale``: share of the facts served by ``character_state()``,
``relations()``, the rules and filtered ``recall()`` that are outdated; ``ctx stale``: share of
the state lines in planner prompts that are outdated; ``closed wrong``: threads no reply named
that are no longer open (``by id``: closed by a wrong thread id); ``false pay``: share of event
lines that only mention a thread after which it is no longer open; ``repairs``: repair turns per
accept; ``tokens``: the extraction prompt's estimated tokens per accept (first 20 beats -> last 20
beats); ``held``: at the end, the dead whose death ``character_state()`` still answers and the
current rules ``world_rules()`` still lists; ``stopped``: the beat an accept failed at (the
serial could not go on).

Run: ``python bench/consistency.py --beats 120 300 --lang ko en --variant ideal all`` (defaults:
120 beats, ko and en, every variant); ``--before DIR`` adds the older code's column. The test
``tests/consistency`` drives the same harness.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

ROOT = Path(__file__).resolve().parents[1]
MISTAKES = ("omit", "wrongid", "names", "merged", "misfiled", "terse")
VARIANTS = ("ideal", *MISTAKES, "all")
RATES = {"omit": 0.20, "wrongid": 0.05, "names": 0.15, "merged": 0.20, "misfiled": 0.10}

ASPECTS = ("condition", "whereabouts", "allegiance")
KO_FAMILY = "김이박최정강조윤장임한오서신권황안송"
KO_GIVEN = ["도준", "서연", "민호", "지우", "하린", "태오", "유나", "재현", "소율", "건우",
            "다인", "시온", "예린", "준서", "은호", "나래"]
EN_FIRST = ["Mira", "Jun", "Ada", "Theo", "Lena", "Omar", "Iris", "Cole", "Nina", "Hugo",
            "Vera", "Ezra", "Lia", "Max", "Zoe", "Finn"]
EN_LAST = ["Kang", "Hart", "Voss", "Reed", "Lowe", "Park", "Quinn", "Shaw", "Moss", "Frey",
           "Cruz", "Dale"]
TITLES = {"ko": ["협회장", "대장", "교수", "단장", "선장", "영주", "사제", "기사단장", "상단주",
                 "검사", "궁수", "마법사"],
          "en": ["the Chair", "the Captain", "the Professor", "the Marshal", "the Skipper",
                 "the Lord", "the Priest", "the Commander", "the Merchant", "the Blade",
                 "the Archer", "the Mage"]}
PRONOUNS = {"ko": ["그", "그녀"], "en": ["he", "she"]}
VALUES = {
    "ko": {
        "condition": ["다리를 다쳤다", "열병에 걸렸다", "기운을 되찾았다", "독에 중독되었다",
                      "눈을 다쳤다", "완전히 회복했다", "기절했다", "팔이 부러졌다"],
        "whereabouts": ["왕도에 있다", "북쪽 요새로 갔다", "지하 감옥에 갇혔다",
                        "항구 도시에 숨었다", "황궁에 들어갔다", "숲속 오두막에 머문다",
                        "국경을 넘었다", "탑에 올랐다"],
        "allegiance": ["길드 편에 섰다", "황실에 충성한다", "반란군에 합류했다",
                       "누구의 편도 아니다", "암흑 교단에 들어갔다", "상단과 손잡았다"],
        "relation": ["서로 믿는 동료다", "원수가 되었다", "몰래 사랑한다", "스승과 제자다",
                     "경쟁자다", "동맹을 맺었다", "서로를 의심한다", "의형제가 되었다"],
        "rule": ["마나는 달이 뜰 때만 회복된다", "게이트는 사흘마다 열린다",
                 "귀족만 검을 찰 수 있다", "죽은 자는 이름을 잃는다", "계약은 피로만 맺는다",
                 "마법은 소리를 내야 발동한다"],
        "dead": "숨을 거두었다",
    },
    "en": {
        "condition": ["hurt a leg", "caught a fever", "regained strength", "was poisoned",
                      "injured an eye", "fully recovered", "fainted", "broke an arm"],
        "whereabouts": ["is in the capital", "went to the north fort", "is locked in the dungeon",
                        "hides in the port town", "entered the palace", "stays in a forest hut",
                        "crossed the border", "climbed the tower"],
        "allegiance": ["sides with the guild", "is loyal to the crown", "joined the rebels",
                       "sides with no one", "joined the dark order", "allied with the merchants"],
        "relation": ["trusted comrades", "sworn enemies", "secret lovers", "master and disciple",
                     "rivals", "allies by pact", "suspicious of each other", "sworn siblings"],
        "rule": ["mana returns only under the moon", "gates open every three days",
                 "only nobles may carry swords", "the dead lose their names",
                 "contracts are sealed in blood", "magic needs a spoken word"],
        "dead": "died",
    },
}
RULE_KEYS = {"ko": ["마나", "게이트", "검", "죽음"], "en": ["mana", "gates", "swords", "death"]}
OMENS = {  # what a thread plants, and where
    "ko": (["깨진 인장", "피 묻은 편지", "부러진 검", "검은 반지", "찢어진 지도", "낡은 열쇠"],
           ["우물 속", "사당 아래", "탑 꼭대기", "강바닥", "서고 깊은 곳", "무덤 안"]),
    "en": (["cracked seal", "bloodied letter", "broken sword", "black ring", "torn map",
            "rusty key"],
           ["well", "shrine cellar", "tower top", "riverbed", "deep archive", "old tomb"]),
}
MENTIONS = {  # event lines that name an open thread and pay nothing off
    "ko": ["{n}번째 장면에 {place}에 숨겨 둔 {obj}{eul} 떠올렸다",
           "{place}의 {obj}{eun} 아직 아무도 손대지 않았다 ({n}번째 장면)",
           "{n}번째 장면의 {obj}{eul} 찾아 {place}{ro} 갔지만 아무것도 없었다"],
    "en": ["Someone remembered the {obj} hidden in the {place} in scene {n}",
           "The {obj} hidden in scene {n} still lies in the {place}, untouched",
           "They searched the {place} for the {obj} of scene {n}, in vain"],
}
OTHER_LANGUAGE = {  # the terse register's value in the other language (ko <-> en)
    lang: {v: VALUES["en" if lang == "ko" else "ko"][kind][i]
           for kind in (*ASPECTS, "relation", "rule")
           for i, v in enumerate(VALUES[lang][kind])}
    for lang in ("ko", "en")
}
QUIET_AFTER = 100
"""Beats apart after which a pair meeting again is a reunion."""
Slot = tuple[str, str, str]
"""("state", name, aspect), ("rel", a, b) with a < b, or ("rule", key, "")."""


def _josa(name: str, pair: tuple[str, str] = ("은", "는")) -> str:
    last = name[-1]
    if "가" <= last <= "힣":
        return pair[0] if (ord(last) - 0xAC00) % 28 else pair[1]
    return pair[1]


def _ro(word: str) -> str:
    """The particle (으)로 after ``word``."""
    last = word[-1]
    final = (ord(last) - 0xAC00) % 28 if "가" <= last <= "힣" else 0
    return "로" if final in (0, 8) else "으로"


def _key(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.casefold())


def _pair(a: str, b: str) -> tuple[str, str]:
    x, y = sorted((a, b))
    return x, y


@dataclass
class Person:
    name: str
    given: str
    family: str
    title: str
    pronoun: str
    in_plot: bool
    introduced: bool = False
    alive: bool = True


@dataclass
class Truth:
    """The serial so far: the current value of every slot, the values it had, and every text
    the model said with the facts it states (a merged text states two)."""

    current: dict[Slot, str] = field(default_factory=dict)
    stale: dict[Slot, set[str]] = field(default_factory=dict)
    said: dict[str, list[tuple[Slot, str]]] = field(default_factory=dict)
    texts: dict[tuple[Slot, str], list[str]] = field(default_factory=dict)
    open_threads: dict[str, str] = field(default_factory=dict)
    paid_threads: dict[str, str] = field(default_factory=dict)
    dead: dict[str, str] = field(default_factory=dict)  # name -> the death's value id

    def set(self, slot: Slot, value: str) -> None:
        old = self.current.get(slot)
        if old is not None and old != value:
            self.stale.setdefault(slot, set()).add(old)
        self.current[slot] = value

    def say(self, text: str, *facts: tuple[Slot, str]) -> str:
        known = self.said.setdefault(_key(text), [])
        for fact in facts:
            if fact not in known:
                known.append(fact)
            listed = self.texts.setdefault(fact, [])
            if text not in listed:
                listed.append(text)
        return text

    def facts(self, text: str) -> list[tuple[Slot, str]]:
        return self.said.get(_key(text), [])

    def is_stale(self, text: str) -> bool:
        """Whether the text states an outdated value of a slot (and not its current one: a
        terse text without a scene number can state both, the same words twice)."""
        said = self.facts(text)
        return any(v in self.stale.get(s, set()) and (s, self.current.get(s)) not in said
                   for s, v in said)


# ------------------------------------------------------------------------------ the content
@dataclass
class Item:
    """One thing a beat says, as the serial knows it (not yet worded for a schema)."""

    kind: str  # "state" | "rel" | "rule" | "story" | "plant"
    text: str
    slot: Slot | None = None
    person: str = ""
    other: str = ""
    aspect: str = ""
    key: str = ""
    value: str = ""  # the value's words (for the terse register)
    merged_with: Item | None = None


@dataclass
class Beat:
    number: int
    cast: list[str]
    items: list[Item]
    payoffs: list[str]  # thread keys this beat pays off
    events: list[str]
    summary: str
    newcomer: Person | None


class Serial:
    """A seeded serial: per beat what happens, with the truth of it."""

    def __init__(self, lang: str = "ko", seed: int = 7) -> None:
        self.lang, self.rng = lang, random.Random(seed)
        self.quiet_rng = random.Random(f"{seed}-quiet")
        self.mention_rng = random.Random(f"{seed}-mention")
        self.values = VALUES[lang]
        self.people = self._cast()
        self.truth = Truth()
        self.beat_no = self.thread_no = 0
        self.planted: list[tuple[int, str]] = []
        self.threads: dict[str, tuple[int, str, str]] = {}
        self.value: dict[tuple[str, str], str] = {}
        self.since: dict[Slot, int] = {}
        self.met: dict[tuple[str, str], int] = {}
        self.quiet: dict[tuple[str, str], int] = {}
        self.reunions: list[tuple[str, str]] = []
        self.mentioned: list[str] = []
        self.cast: list[str] = []

    def _cast(self) -> list[Person]:
        people = []
        for n in range(12):
            if self.lang == "ko":
                family, given = KO_FAMILY[n], KO_GIVEN[n]
                name = family + given
            else:
                given, family = EN_FIRST[n], EN_LAST[n]
                name = f"{given} {family}"
            people.append(Person(name, given, family, TITLES[self.lang][n],
                                 PRONOUNS[self.lang][n % 2], in_plot=n < 5, introduced=n < 5))
        return people

    def person(self, name: str) -> Person:
        return next(p for p in self.people if p.name == name)

    def plot_reply(self) -> str:
        ko = self.lang == "ko"
        goals = (["주인공이 몰락한 가문의 비밀을 알게 된다", "동료를 모아 첫 승리를 거둔다",
                  "믿었던 스승의 배신으로 모든 것을 잃는다", "왕좌 앞에서 흑막과 마지막으로 맞선다",
                  "살아남은 이들이 새 질서를 세운다"] if ko else
                 ["The heir learns the secret of the fallen house", "Allies gather for a first win",
                  "A trusted mentor betrays them all", "The final duel before the throne",
                  "The survivors build a new order"])
        events = (["가문의 인장이 발견된다", "북쪽 요새를 되찾는다", "스승이 적과 손잡는다",
                   "왕도에서 결전이 벌어진다", "새 왕이 즉위한다"] if ko else
                  ["The house seal is found", "The north fort is retaken",
                   "The mentor joins the enemy", "The battle of the capital",
                   "A new ruler is crowned"])
        stages = ["exposition", "development", "crisis", "climax", "resolution"]
        acts = [{"stage": s, "goal": g, "episodes": 60, "key_events": [e]}
                for s, g, e in zip(stages, goals, events, strict=True)]
        return json.dumps({
            "title": "일곱 번째 달" if ko else "The Seventh Moon",
            "logline": "몰락한 가문의 후계자가 왕좌를 되찾는 이야기" if ko
            else "The heir of a fallen house takes back the throne.",
            "genre": "판타지" if ko else "fantasy", "keywords": ["회귀" if ko else "revenge"],
            "characters": [{"name": p.name, "role": "주연" if ko else "lead",
                            "profile": (f"{p.name}은 몰락한 가문과 얽힌 인물이다" if ko
                                        else f"{p.name} is bound to the fallen house")}
                           for p in self.people if p.in_plot],
            "settings": [], "acts": acts,
        }, ensure_ascii=False)

    # ------------------------------------------------------------------ a beat
    def next_beat(self) -> Beat:
        self.beat_no += 1
        n = self.beat_no
        self.mentioned = []
        newcomer = next((p for p in self.people if not p.introduced), None)
        alive = [p for p in self.people if p.alive and p.introduced]
        cast = self._pick_cast(n, alive)
        if newcomer is not None and n % 3 == 0:
            newcomer.introduced = True
            cast = [*cast[:2], newcomer]
        else:
            newcomer = None
        pairs = {_pair(a.name, b.name) for a in cast for b in cast if a.name < b.name}
        self.reunions = sorted(p for p in pairs if ("rel", *p) in self.truth.current
                               and n - self.met.get(p, n) >= QUIET_AFTER)
        items: list[Item] = [Item("story", self._say("event", n))]
        events = [self._say("event", n)]
        self._changes(n, cast, items)
        self._restatements(cast, items)
        payoffs = self._threads(n, items, events)
        for p in pairs:
            self.met[p] = n
        self.cast = [p.name for p in cast]
        return Beat(n, [p.name for p in cast], items, payoffs, events, self._say("summary", n),
                    newcomer)

    def _pick_cast(self, n: int, alive: list[Person]) -> list[Person]:
        rng = self.rng
        by_name = {p.name: p for p in alive}
        for pair, until in sorted(self.quiet.items(), key=lambda kv: (kv[1], kv[0])):
            if not all(x in by_name for x in pair):
                if any(not p.alive for p in self.people if p.name in pair):
                    del self.quiet[pair]
                continue
            if n >= until:
                del self.quiet[pair]
                others = [p for p in alive if p.name not in pair]
                extra = [p for p in rng.sample(others, k=min(len(others), 1))
                         if not self._apart([*pair, p.name])]
                return [by_name[pair[0]], by_name[pair[1]], *extra[: rng.choice((0, 1))]]
        cast = alive
        for _ in range(50):
            cast = rng.sample(alive, k=min(len(alive), rng.choice((2, 3))))
            if not self._apart([p.name for p in cast]):
                break
        return cast

    def _apart(self, names: list[str]) -> bool:
        return any(_pair(a, b) in self.quiet for a in names for b in names if a < b)

    def _changes(self, n: int, cast: list[Person], items: list[Item]) -> None:
        rng = self.rng
        changed = rng.sample(cast, k=min(2, len(cast)))
        for k, person in enumerate(changed):
            aspects = [rng.choice(ASPECTS)]
            if k == 0 and rng.random() < 0.3:  # a second change of the same character
                aspects.append(rng.choice([a for a in ASPECTS if a != aspects[0]]))
            first: Item | None = None
            for aspect in aspects:
                held = self.value.get((person.name, aspect))
                value = rng.choice([v for v in self.values[aspect] if v != held])
                if n > 15 and n % 17 == 0 and person is cast[0] and not person.in_plot \
                        and first is None:
                    aspect, value = "condition", self.values["dead"]
                    person.alive = False
                item = self._state(person, aspect, value, n)
                if first is None:
                    first = item
                    items.append(item)
                else:
                    first.merged_with = item
                if not person.alive:
                    self.truth.dead[person.name] = self.truth.current[item.slot]  # type: ignore[index]
                    break
        if len(cast) >= 2 and rng.random() < 0.7:
            a, b = rng.sample(cast, 2)
            value = rng.choice(self.values["relation"])
            pair = _pair(a.name, b.name)
            if pair not in self.reunions:  # a reunion's relation must come back from memory
                items.append(self._relation(a, b, value, n))
                if 20 <= n <= 170 and len(self.quiet) < 8 and self.quiet_rng.random() < 0.35:
                    self.quiet[pair] = n + QUIET_AFTER + self.quiet_rng.randrange(40)
        if n == 1 or n % 9 == 0:
            keys = RULE_KEYS[self.lang] if n == 1 else [rng.choice(RULE_KEYS[self.lang])]
            for key in keys:
                items.append(self._rule(key, rng.choice(self.values["rule"]), n))

    def _restatements(self, cast: list[Person], items: list[Item]) -> None:
        rng, truth = self.rng, self.truth
        changed = {i.person for i in items if i.kind == "state"}
        for person in cast:
            held = [(s, v) for s, v in truth.current.items()
                    if s[0] == "state" and s[1] == person.name and s[1] not in changed]
            if held and rng.random() < 0.6:
                slot, vid = rng.choice(sorted(held))
                text = self._near(truth.texts[(slot, vid)][0])
                items.append(Item("state", truth.say(text, (slot, vid)), slot, person.name,
                                  aspect=slot[2], value=vid.split(":", 1)[1]))
        names = {p.name for p in cast}
        pairs = [k for k in (s[1:] for s in truth.current if s[0] == "rel")
                 if all(x in names for x in k) and k not in self.reunions]
        if pairs and not any(i.kind == "rel" for i in items) and rng.random() < 0.6:
            a, b = rng.choice(sorted(pairs))
            slot: Slot = ("rel", a, b)
            vid = truth.current[slot]
            text = self._near(truth.texts[(slot, vid)][0])
            items.append(Item("rel", truth.say(text, (slot, vid)), slot, b, a,
                              value=vid.split(":", 1)[1]))
        rules = sorted(s for s in truth.current if s[0] == "rule")
        if rules and not any(i.kind == "rule" for i in items) and rng.random() < 0.4:
            slot = rng.choice(rules)
            vid = truth.current[slot]
            text = self._near(truth.texts[(slot, vid)][0])
            items.append(Item("rule", truth.say(text, (slot, vid)), slot, key=slot[1],
                              value=vid.split(":", 1)[1]))

    def _threads(self, n: int, items: list[Item], events: list[str]) -> list[str]:
        rng = self.rng
        if n % 6 == 2:
            self.thread_no += 1
            key = ("복선" if self.lang == "ko" else "omen") + str(self.thread_no)
            objects, places = OMENS[self.lang]
            obj, place = rng.choice(objects), rng.choice(places)
            if self.lang == "ko":
                text = f"{n}번째 장면에서 {obj}{_josa(obj, ('이', '가'))} {place}에 숨겨졌다"
            else:
                text = f"In scene {n} the {obj} was hidden in the {place}"
            items.append(Item("plant", text, key=key))
            self.truth.open_threads[key] = text
            self.threads[key] = (n, obj, place)
            self.planted.append((n, key))
        payoffs: list[str] = []
        due = [k for b, k in self.planted if n - b >= 10 and k in self.truth.open_threads]
        if due and n % 5 == 0:
            key = due[0]
            self.truth.paid_threads[key] = self.truth.open_threads.pop(key)
            planted, obj, place = self.threads[key]
            if self.lang == "ko":
                line = f"{planted}번째 장면에 {place}에 숨겨진 {obj}의 비밀이 드러났다"
            else:
                line = f"The {obj} hidden in the {place} in scene {planted} was finally revealed"
            events.append(line)
            items.append(Item("story", line))
            payoffs.append(key)
        waiting = [k for _, k in self.planted if k in self.truth.open_threads]
        if waiting and n % 4 == 1:
            key = self.mention_rng.choice(waiting)
            self.mentioned.append(key)
            planted, obj, place = self.threads[key]
            events.append(self.mention_rng.choice(MENTIONS[self.lang]).format(
                n=planted, obj=obj, place=place, eul=_josa(obj, ("을", "를")),
                eun=_josa(obj, ("은", "는")), ro=_ro(place)))
        return payoffs

    # ------------------------------------------------------------------ texts
    def _say(self, kind: str, n: int) -> str:
        if self.lang == "ko":
            return {"event": f"{n}번째 장면에서 성문 앞 소동이 벌어졌다",
                    "summary": f"{n}번째 장면: 인물들이 성문 앞에서 맞섰다."}[kind]
        return {"event": f"In scene {n} a riot broke out at the gate",
                "summary": f"Scene {n}: the characters faced each other at the gate."}[kind]

    def _state(self, person: Person, aspect: str, value: str, n: int) -> Item:
        name = person.name
        text = (f"{name}{_josa(name)} {n}번째 장면에서 {value}" if self.lang == "ko"
                else f"In scene {n}, {name} {value}")
        slot: Slot = ("state", name, aspect)
        vid = f"{n}:{value}"
        self.truth.set(slot, vid)
        self.since[slot] = n
        self.value[(name, aspect)] = value
        return Item("state", self.truth.say(text, (slot, vid)), slot, name, aspect=aspect,
                    value=value)

    def _relation(self, a: Person, b: Person, value: str, n: int) -> Item:
        text = (f"{a.name}와 {b.name}는 {n}번째 장면부터 {value}" if self.lang == "ko"
                else f"From scene {n}, {a.name} and {b.name} are {value}")
        slot: Slot = ("rel", *_pair(a.name, b.name))
        vid = f"{n}:{value}"
        self.truth.set(slot, vid)
        self.since[slot] = n
        return Item("rel", self.truth.say(text, (slot, vid)), slot, a.name, b.name, value=value)

    def _rule(self, key: str, value: str, n: int) -> Item:
        text = (f"{key} 규칙({n}번째 장면): {value}" if self.lang == "ko"
                else f"Rule of {key} (scene {n}): {value}")
        slot: Slot = ("rule", key, "")
        vid = f"{n}:{value}"
        self.truth.set(slot, vid)
        self.since[slot] = n
        return Item("rule", self.truth.say(text, (slot, vid)), slot, key=key, value=value)

    def _near(self, text: str) -> str:
        """The same fact said again: verbatim, or with spacing and punctuation changed."""
        return self.rng.choice([text, text + ".", "  " + text.replace(" ", "  ", 1)])

    def beat_reply(self, beat: Beat) -> str:
        ko = self.lang == "ko"
        return json.dumps({
            "location": "성문 앞" if ko else "the gate", "time": "밤" if ko else "night",
            "characters": beat.cast, "events": beat.events[:4], "dialogue": [],
            "emotions": [], "conflicts": [], "sets_up": [], "pays_off": [],
        }, ensure_ascii=False)

    def profile_reply(self, person: Person) -> str:
        ko = self.lang == "ko"
        return json.dumps({
            "name": person.name, "aliases": [], "role": "조연" if ko else "support",
            "profile": f"{person.name}의 과거" if ko else f"{person.name}'s past",
            "goal": "살아남기" if ko else "survive",
        }, ensure_ascii=False)


# ------------------------------------------------------------------------------ the extractor
OFFER_LINE = re.compile(r"^([cfrt]\d+) (.*)$")
FACT_LINE = re.compile(r"^\[([^\]]*)\] ?(.*)$")
PATH = re.compile(r"(characters|relations|settings|story)\.(facts|pays_off)\[(\d+)\]")
Rendered = tuple[str, dict[str, Any] | None, str, dict[str, Any], int]
"""An item of a reply: its part and how it was made (``None``: left out), its part and how a
careful model writes it, and its group (the items one thing of the beat became; a repair mends
a group whole)."""


def parse_offer(prompt: str) -> dict[str, dict[str, str]]:
    """The lists an extraction prompt shows: cast ref -> name, fact/rule/thread ref -> text
    (as a model reads them)."""
    out: dict[str, dict[str, str]] = {"c": {}, "f": {}, "r": {}, "t": {}, "labels": {}}
    for line in prompt.splitlines():
        found = OFFER_LINE.match(line.strip())
        if not found:
            continue
        ref, rest = found.groups()
        if ref[0] == "c":
            out["c"][ref] = rest.split(" (", 1)[0].strip()
        else:
            bracket = FACT_LINE.match(rest)
            text = bracket.group(2) if bracket else rest
            if bracket:
                out["labels"][ref] = bracket.group(1)
            if ref[0] == "t":
                text = re.sub(r" \(\d+-\d+\)$", "", text)
            out[ref[0]][ref] = text.strip()
    return out


class Extractor:
    """A scripted extractor: it knows the beat (the serial's truth) and makes its variant's
    mistakes; it reads the prompt's lists to refer (or, for older code, names)."""

    def __init__(self, serial: Serial, variant: str, seed: int, legacy: bool) -> None:
        if variant not in VARIANTS:
            raise ValueError(f"variant must be one of {VARIANTS}, not {variant!r}")
        self.serial, self.variant, self.legacy = serial, variant, legacy
        self.rng = random.Random(f"{seed}-{variant}-mistakes")
        self.beat: Beat | None = None
        self.rendered: list[Rendered] = []
        self.repairs = 0
        self.calls = 0

    def does(self, mistake: str) -> bool:
        """Whether the extractor makes ``mistake`` this time (a draw at its rate)."""
        if self.variant not in (mistake, "all"):
            return False
        return mistake == "terse" or self.rng.random() < RATES[mistake]

    def start(self, beat: Beat) -> None:
        self.beat, self.rendered = beat, []

    # ------------------------------------------------------------------ replies
    def reply(self, prompt: str, repair: str | None) -> str:
        """The combined extraction of the current beat; ``repair``: the error a repair turn
        names (the items it names by their path are mended, the rest stay as they were)."""
        self.calls += 1
        if repair is None:
            self.rendered = self._render(parse_offer(prompt))
            return self._assemble(set())
        self.repairs += 1
        named = {f"{m.group(1)}.{m.group(2)}[{m.group(3)}]" for m in PATH.finditer(repair)}
        groups = {group for path, group in self._made_paths() if path in named}
        return self._assemble(groups)

    def _made_paths(self) -> list[tuple[str, int]]:
        """The path of each item of the reply as made, with its group."""
        counts: dict[str, int] = {}
        out = []
        for part, made, _, _, group in self.rendered:
            if made is None:
                continue
            section = "story" if part in ("pays_off", "story") else part
            listed = "pays_off" if part == "pays_off" else "facts"
            n = counts.get(f"{section}.{listed}", 0)
            counts[f"{section}.{listed}"] = n + 1
            out.append((f"{section}.{listed}[{n}]", group))
        return out

    def _assemble(self, mended: set[int]) -> str:
        """The reply: every item as made, but the groups in ``mended`` as a careful model
        writes them (a merged fact split in two)."""
        reply: dict[str, Any] = {"story": {"facts": []}, "characters": {"facts": []},
                                 "relations": {"facts": []}, "settings": {"facts": []}}
        payoffs: list[Any] = []
        reply["story"]["paid_off" if self.legacy else "pays_off"] = payoffs
        for made_part, made, ideal_part, ideal, group in self.rendered:
            part, item = (ideal_part, ideal) if group in mended else (made_part, made)
            if item is None:
                continue
            if part == "pays_off":
                payoffs.append(item["ref"])
            else:
                reply[part]["facts"].append(dict(item))
        for part in ("story", "characters", "relations", "settings"):
            reply[part]["facts"] = reply[part]["facts"][:4]
        assert self.beat is not None
        reply["summary"] = self.beat.summary
        return json.dumps(reply, ensure_ascii=False)

    def _render(self, offer: dict[str, dict[str, str]]) -> list[Rendered]:
        """Every item as (part, as made, as a careful model makes it, its group)."""
        assert self.beat is not None
        truth = self.serial.truth
        out: list[Rendered] = []
        ref_of = {name: ref for ref, name in offer["c"].items()}
        fact_of = {}  # slot -> offered fact ref of its current holder
        for ref, text in offer["f"].items():
            for slot, _ in truth.facts(text):
                fact_of.setdefault(slot, ref)
        names = offer["c"]
        for ref, label in offer["labels"].items():  # a pair's entry, by the refs it names
            pair = label.split(" ")[0].split("-")
            if label.endswith(" relation") and len(pair) == 2 and all(p in names for p in pair):
                slot: Slot = ("rel", *_pair(names[pair[0]], names[pair[1]]))
                fact_of.setdefault(slot, ref)
        rule_of = {}
        for ref, text in offer["r"].items():
            for slot, _ in truth.facts(text):
                rule_of.setdefault(slot, ref)
        for group, item in enumerate(self.beat.items):
            for entry in self._item(item, offer, ref_of, fact_of, rule_of):
                part, made, ideal = entry[0], entry[1], entry[-1]
                out.append((part, made, entry[2] if len(entry) == 4 else part, ideal, group))
        for n, key in enumerate(self.beat.payoffs, len(self.beat.items)):
            text = truth.paid_threads[key]
            ref = next((r for r, t in offer["t"].items() if _key(t) == _key(text)), "")
            if self.legacy:
                good = {"ref": {"keyword": key, "text": text}}
                out.append(("pays_off", good, "pays_off", good, n))
            elif ref:  # the thread it means (its keyword), and the id, which may slip
                ideal = {"ref": {"thread": ref, "keyword": key}}
                slip = self._wrong(ref, offer["t"]) if self.does("wrongid") else ref
                out.append(("pays_off", {"ref": {"thread": slip, "keyword": key}}, "pays_off",
                            ideal, n))
        return out

    def _who(self, name: str, ref_of: dict[str, str]) -> tuple[Any, Any]:
        """(as made, as meant) for a reference to character ``name``."""
        person = self.serial.person(name)
        meant = name if self.legacy else ref_of.get(name, "new")
        if self.does("names"):
            form = self.rng.choice(["given", "honorific", "title", "pronoun"])
            ko = self.serial.lang == "ko"
            said = {"given": person.given,
                    "honorific": (f"{person.given} 님" if ko else f"Ms. {person.family}"),
                    "title": person.title, "pronoun": person.pronoun}[form]
            return said, meant
        if self.does("wrongid") and len(ref_of) > 1:
            others = [n for n in ref_of if n != name]
            wrong = self.rng.choice(others)
            return (wrong if self.legacy else ref_of[wrong]), meant
        return meant, meant

    def _wrong(self, ref: str, listed: dict[str, str]) -> str:
        others = [r for r in listed if r != ref]
        return self.rng.choice(others) if others else ref

    def _terse(self, item: Item) -> str:
        """The terse mixed-language register of a fact."""
        lang = self.serial.lang
        value = OTHER_LANGUAGE[lang].get(item.value, item.value) if self.rng.random() < 0.5 \
            else item.value
        if item.kind == "state":
            who = self.serial.person(item.person).given
            return f"{who} {item.aspect}: {value}"
        if item.kind == "rel":
            return (f"{self.serial.person(item.person).given} / "
                    f"{self.serial.person(item.other).given}: {value}")
        if item.kind == "rule":
            return f"{item.key} rule: {value}"
        return item.text

    def _item(self, item: Item, offer: dict[str, dict[str, str]], ref_of: dict[str, str],
              fact_of: dict[Slot, str], rule_of: dict[Slot, str]
              ) -> list[tuple[Any, ...]]:
        truth = self.serial.truth
        text = item.text
        if item.kind in ("state", "rel", "rule") and self.does("terse"):
            terse = self._terse(item)
            facts = truth.facts(item.text)
            truth.say(terse, *facts)
            text = terse
        if item.kind == "story" or item.kind == "plant":
            fact = {"text": item.text, "keyword": item.key, "foreshadow": item.kind == "plant"}
            return [("story", fact, fact)]
        if item.kind == "state":
            return self._state(item, text, ref_of, fact_of)
        if item.kind == "rel":
            return self._relation(item, text, ref_of, fact_of)
        return self._rule_item(item, text, offer, rule_of)

    def _state(self, item: Item, text: str, ref_of: dict[str, str], fact_of: dict[Slot, str]
               ) -> list[tuple[Any, ...]]:
        assert item.slot is not None
        said, meant = self._who(item.person, ref_of)
        replaces = [fact_of[item.slot]] if item.slot in fact_of else []
        if self.legacy:
            ideal = {"character_name": meant, "aspect": item.aspect, "text": item.text,
                     "keyword": ""}
            made = {**ideal, "character_name": said, "text": text}
        else:
            ideal = {"who": meant, "aspect": item.aspect, "text": item.text,
                     "replaces": replaces}
            made = {**ideal, "who": said, "text": text}
            if self.does("omit"):
                made["replaces"] = []
            elif replaces and self.does("wrongid"):
                made["replaces"] = [self._wrong(replaces[0], {r: "" for r in fact_of.values()})]
        second = item.merged_with
        if second is None:
            return [("characters", made, ideal)]
        assert second.slot is not None
        apart = self._state(second, second.text, ref_of, fact_of)
        if not self.does("merged"):
            return [("characters", made, ideal), *apart]
        joined = (f"{item.text}, 그리고 {second.value}" if self.serial.lang == "ko"
                  else f"{item.text}, and {second.value}")
        truth = self.serial.truth
        truth.say(joined, *truth.facts(item.text), *truth.facts(second.text))
        merged = {**made, "text": joined}
        if not self.legacy:
            both = replaces + ([fact_of[second.slot]] if second.slot in fact_of else [])
            merged["replaces"] = [] if self.does("omit") else both
        # as made: one fact; mended: the two changes apart
        return [("characters", merged, ideal), ("characters", None, apart[0][2])]

    def _relation(self, item: Item, text: str, ref_of: dict[str, str],
                  fact_of: dict[Slot, str]) -> list[tuple[Any, ...]]:
        assert item.slot is not None
        said_a, a = self._who(item.person, ref_of)
        said_b, b = self._who(item.other, ref_of)
        replaces = [fact_of[item.slot]] if item.slot in fact_of else []
        if self.legacy:
            ideal = {"character1": a, "character2": b, "text": item.text, "keyword": ""}
            made = {"character1": said_a, "character2": said_b, "text": text, "keyword": ""}
            if self.does("misfiled"):
                return [("characters", {"character_name": said_a, "aspect": "other",
                                        "text": text, "keyword": ""}, "relations", ideal)]
            return [("relations", made, ideal)]
        ideal = {"a": a, "b": b, "text": item.text, "replaces": replaces}
        made = {"a": said_a, "b": said_b, "text": text,
                "replaces": [] if self.does("omit") else replaces}
        if self.does("misfiled"):
            return [("characters", {"who": said_a, "aspect": "other", "text": text,
                                    "replaces": made["replaces"]}, "relations", ideal)]
        return [("relations", made, ideal)]

    def _rule_item(self, item: Item, text: str, offer: dict[str, dict[str, str]],
                   rule_of: dict[Slot, str]) -> list[tuple[Any, ...]]:
        assert item.slot is not None
        if self.legacy:
            ideal = {"keyword": item.key, "text": item.text, "rule": True}
            return [("settings", {**ideal, "text": text}, ideal)]
        current = rule_of.get(item.slot)
        meant = current or "new"
        ideal = {"keyword": item.key, "text": item.text, "rule": True, "revises": meant}
        made: dict[str, Any] = {**ideal, "text": text}
        if self.does("omit"):
            del made["revises"]
        elif current and self.does("wrongid"):
            made["revises"] = self._wrong(current, offer["r"])
        return [("settings", made, ideal)]


# ------------------------------------------------------------------------------ the models
SCHEMA_KINDS = {
    "NovelPlot": "plot", "BeatDesign": "beat", "CharacterProfile": "profile",
    "BeatExtraction": "extract", "BeatSummary": "summary",
}
QUERY_MARK = "<< Structured Request Schema >>"
"""In LangChain's query-constructor prompt (what ``agent.ask`` sends the extractor)."""
REPAIR_MARKS = ("references of your reply", "id 가운데 목록과", "id 与列表不符",
                "cannot be used", "쓸 수 없습니다", "无法使用", "did not", "does not match",
                "Your previous", "앞의 답", "上一个")


class ScriptedModel(FakeListChatModel):
    """A LangChain fake chat model answering each structured request from the serial's current
    beat, by the schema it is asked for; it records every prompt by kind."""

    replies: dict[str, str] = Field(default_factory=dict)
    prompts: list[tuple[str, str]] = Field(default_factory=list)
    responses: list[str] = Field(default_factory=lambda: [""])
    extractor: Any = None

    def _kind(self, text: str) -> str:
        if QUERY_MARK in text:
            return "query"
        found = [(text.find(f'"{title}"'), kind) for title, kind in SCHEMA_KINDS.items()]
        found += [(text.find(f"title: {title}"), kind) for title, kind in SCHEMA_KINDS.items()]
        hits = sorted((pos, kind) for pos, kind in found if pos >= 0)
        return hits[0][1] if hits else "prose"

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None,
                  **kwargs: Any) -> ChatResult:
        first = "\n".join(str(m.content) for m in messages
                          if not isinstance(m, AIMessage))
        kind = self._kind(first)
        repair = None
        if any(isinstance(m, AIMessage) for m in messages):
            repair = str(messages[-1].content)
        if repair is None:
            self.prompts.append((kind, first))
        if kind == "extract" and self.extractor is not None:
            reply = self.extractor.reply(first, repair)
        else:
            reply = self.replies.get(kind, "" if kind != "prose" else "...")
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=reply))])

    def _stream(self, *args: Any, **kwargs: Any) -> Iterator[Any]:
        raise NotImplementedError("the consistency bench writes no prose")


class NoCliches:
    """The cliché database's slice the pipeline calls, with no tropes (not measured here)."""

    def expand_keywords(self, keywords: list[str], k_tropes: int = 3, *,
                        genre: str | None = None) -> list[Any]:
        return []

    def suggest_next(self, current_beat: str, stage: str, *, trope: str | None = None,
                     k: int = 5) -> list[Any]:
        return []

    def genres(self) -> list[str]:
        return []


# ------------------------------------------------------------------------------ the run
@dataclass
class Report:
    beats: int
    lang: str
    variant: str
    states: float
    relations: float
    stale: float
    ctx_stale: float
    closed_wrong: int
    by_id: int
    false_pay: float
    closed: float
    repairs: float
    tokens_first: float
    tokens_last: float
    dead_held: str
    rules_held: str
    flags: int
    stopped: int
    seconds: float
    details: dict[str, Any] = field(default_factory=dict)


def run(beats: int, lang: str = "ko", seed: int = 7, data_dir: Path | None = None,
        variant: str = "ideal", embedding: str = "hash",
        extractor_factory: Callable[[Serial, str, int, bool], Any] | None = None) -> Report:
    """Drive ``beats`` beats of the serial through Studio in this process; measure memory.

    ``extractor_factory(serial, variant, seed, legacy)`` makes the extractor model's persona
    (default ``Extractor``): an object with ``start(beat)``, ``reply(prompt, repair)`` and a
    ``repairs`` count (``bench/consistency_blind.py`` plugs in another)."""
    from aizac.llm.embeddings import embeddings_from_spec
    from aizac.llm.profiles import ModelProfile, attach
    from aizac.settings import Settings
    from aizac.tokens import count_tokens
    from aizac.writer.schemas import CharacterFact
    from aizac.writer.service import Studio

    legacy = "who" not in CharacterFact.model_fields
    serial = Serial(lang, seed)
    truth = serial.truth
    extractor = (extractor_factory or Extractor)(serial, variant, seed, legacy)
    planner = ScriptedModel()
    model = ScriptedModel(extractor=extractor)
    # an API model's declaration: it answers a whole beat's extraction in one reply
    attach(model, ModelProfile("openai-compatible", "prompt", combined_extraction_ok=True))
    shm = Path("/dev/shm")  # memory-backed: the figures measure aizac, not the disk's fsync
    own_dir = (tempfile.TemporaryDirectory(dir=shm if shm.is_dir() else None)
               if data_dir is None else None)
    root = Path(own_dir.name) if own_dir is not None else Path(data_dir or ".")
    settings = Settings(data_dir=root, language=lang, structured_retries=2)
    studio = Studio(settings, models={"planner": planner, "extractor": model, "writer": planner},
                    embeddings=embeddings_from_spec(embedding, settings), cliches=NoCliches(),
                    concurrent_extraction=False)
    started = time.perf_counter()
    ctx_lines = ctx_stale = mentions = false_pays = stopped = 0
    tokens: list[int] = []
    try:
        agent = studio.create("consistency", "회귀, 복수" if lang == "ko" else "revenge",
                              genre="판타지" if lang == "ko" else "fantasy", language=lang)
        planner.replies = {"plot": serial.plot_reply()}
        agent.plan()
        previous: list[str] = []
        for _ in range(beats):
            before = dict(truth.current)
            stale_before = {k: set(v) for k, v in truth.stale.items()}
            beat = serial.next_beat()
            extractor.start(beat)
            planner.replies = {"beat": serial.beat_reply(beat), "summary": json.dumps(
                {"summary": beat.summary}, ensure_ascii=False)}
            if beat.newcomer is not None:
                planner.replies["profile"] = serial.profile_reply(beat.newcomer)
            seen = len(planner.prompts)
            draft = agent.next_beat()
            prompt = next((t for k, t in planner.prompts[seen:] if k == "beat"), "")
            if previous:
                wanted = [s for s in before if s[0] == "state" and s[1] in previous]
                for s in wanted:
                    for text in truth.texts.get((s, before[s]), []):
                        ctx_lines += _key(text) in _key(prompt)
                    for old in stale_before.get(s, ()):
                        for text in truth.texts.get((s, old), []):
                            also_now = (s, before[s]) in truth.facts(text)  # same words
                            ctx_stale += _key(text) in _key(prompt) and not also_now
            asked = len(model.prompts)
            try:
                agent.accept(draft.id)
            except Exception as e:  # the serial cannot go on: say where, keep the figures
                stopped = beat.number
                print(f"  stopped at beat {beat.number}: {str(e)[:160]}", file=sys.stderr)
                break
            extraction = [t for k, t in model.prompts[asked:] if k == "extract"]
            if extraction:
                tokens.append(count_tokens(extraction[0]))
            if serial.mentioned:
                listed = {_key(h.text) for h in agent.memory.open_foreshadowing()}
                for key in serial.mentioned:
                    if key in truth.open_threads:
                        mentions += 1
                        false_pays += _key(truth.open_threads[key]) not in listed
            previous = serial.cast
        scores = _score(agent.memory, serial)
        flags = len(agent.memory.conflicts()) + scores["flagged"]
    finally:
        if own_dir is not None:
            own_dir.cleanup()
    done = max(1, len(tokens))
    head, tail = tokens[:20], tokens[-20:]
    return Report(
        beats=beats, lang=lang, variant=variant, states=scores["states"],
        relations=scores["relations"], stale=scores["stale"],
        ctx_stale=ctx_stale / (ctx_lines + ctx_stale) if ctx_lines + ctx_stale else 0.0,
        closed_wrong=scores["closed_wrong"], by_id=scores["by_id"],
        false_pay=false_pays / mentions if mentions else float("nan"),
        closed=scores["closed"], repairs=extractor.repairs / done,
        tokens_first=sum(head) / len(head) if head else 0.0,
        tokens_last=sum(tail) / len(tail) if tail else 0.0,
        dead_held=scores["dead_held"], rules_held=scores["rules_held"], flags=flags,
        stopped=stopped, seconds=time.perf_counter() - started, details=scores,
    )


def _score(memory: Any, serial: Serial) -> dict[str, Any]:
    """Compare memory with the truth."""
    truth = serial.truth
    names = sorted(p.name for p in serial.people if p.introduced)
    everything = memory.get_where(None, include_forgotten=True)
    kept: dict[tuple[str, ...], list[str]] = {}  # subject -> texts of current versions
    flagged = 0
    for hit in everything:
        meta = hit.metadata
        flagged += bool(meta.get("flag"))
        if meta.get("superseded_by") or meta.get("struck"):
            continue
        if hit.tag == "Character":
            subject: tuple[str, ...] = ("state", str(meta.get("character_name", "")))
        elif hit.tag == "CharacterRelation" and meta.get("aspect") != "address":
            subject = ("rel", *_pair(str(meta.get("character1")), str(meta.get("character2"))))
        elif hit.tag == "NovelSetting":
            subject = ("rule",)
        else:
            continue
        kept.setdefault(subject, []).append(hit.text)
    served: list[str] = []
    for name in names:
        served += [h.text for h in memory.character_state(name)]
    for slot in sorted(s for s in truth.current if s[0] == "rel"):
        served += [h.text for h in memory.relations(slot[1], slot[2])
                   if h.metadata.get("aspect") != "address"]
    served += [h.text for h in memory.get_where({"tag": "NovelSetting"})]
    for name in names[:6]:
        served += [h.text for h in memory.recall(name, k=5, where={"character_name": name},
                                                 reinforce=False)]
    right = {"state": [0, 0], "rel": [0, 0], "rule": [0, 0]}
    for slot, value in sorted(truth.current.items()):
        subject = slot[:2] if slot[0] == "state" else slot if slot[0] == "rel" else ("rule",)
        texts = kept.get(subject, [])
        facts = [f for t in texts for f in truth.facts(t)]
        # right: memory holds the current value, and no current memory states an old one
        ok = (slot, value) in facts and not any(truth.is_stale(t) and any(
            f[0] == slot for f in truth.facts(t)) for t in texts)
        right[slot[0]][0] += ok
        right[slot[0]][1] += 1
    open_texts = {_key(h.text) for h in memory.open_foreshadowing()}
    closed = [_key(t) not in open_texts for t in truth.paid_threads.values()]
    wrongly = [_key(t) not in open_texts for t in truth.open_threads.values()]
    paid_marks = [h for h in everything if h.metadata.get("paid_off")]
    by_id = sum(1 for h in paid_marks if _key(h.text) in {_key(t) for t in
                                                          truth.open_threads.values()})
    dead = sorted(truth.dead)
    dead_held = sum(any(_key(h.text) in {_key(t) for t in truth.texts.get(
        (("state", n, "condition"), truth.dead[n]), [])} for h in memory.character_state(n))
        for n in dead)
    rules = [(s, v) for s, v in truth.current.items() if s[0] == "rule"]
    in_force = {_key(h.text) for h in memory.world_rules()}
    rules_held = sum(any(_key(t) in in_force for t in truth.texts.get((s, v), []))
                     for s, v in rules)
    stale_texts = [t for t in served if truth.is_stale(t)]
    return {
        "states": right["state"][0] / right["state"][1] if right["state"][1] else 1.0,
        "relations": right["rel"][0] / right["rel"][1] if right["rel"][1] else 1.0,
        "rules": right["rule"][0] / right["rule"][1] if right["rule"][1] else 1.0,
        "stale": len(stale_texts) / len(served) if served else 0.0,
        "closed": sum(closed) / len(closed) if closed else 1.0,
        "closed_wrong": sum(wrongly), "by_id": by_id,
        "dead_held": f"{dead_held}/{len(dead)}", "rules_held": f"{rules_held}/{len(rules)}",
        "served": len(served), "flagged": flagged, "stale_texts": stale_texts[:10],
    }


# ------------------------------------------------------------------------------ the table
HEADER = (f"{'code':>6} {'beats':>5} {'lang':>4} {'variant':>8} {'states':>6} {'rels':>5} "
          f"{'stale':>6} {'ctx st':>6} {'cl.wrong':>8} {'by id':>5} {'false pay':>9} "
          f"{'closed':>6} {'repairs':>7} {'tokens 1st->last':>17} {'dead held':>9} "
          f"{'rules held':>10} {'flags':>5} {'stopped':>7} {'secs':>6}")


def _cell(value: float) -> str:
    return "     -" if value != value else f"{value:6.3f}"


def row(code: str, r: Report | dict[str, Any]) -> str:
    d = asdict(r) if isinstance(r, Report) else r
    tokens = f"{d['tokens_first']:7.0f} ->{d['tokens_last']:6.0f}"
    return (f"{code:>6} {d['beats']:>5} {d['lang']:>4} {d['variant']:>8} {d['states']:>6.3f} "
            f"{d['relations']:>5.2f} {d['stale']:>6.3f} {d['ctx_stale']:>6.3f} "
            f"{d['closed_wrong']:>8} {d['by_id']:>5} {_cell(d['false_pay']):>9} "
            f"{d['closed']:>6.2f} {d['repairs']:>7.2f} {tokens:>17} {d['dead_held']:>9} "
            f"{d['rules_held']:>10} {d['flags']:>5} {d['stopped'] or '-':>7} "
            f"{d['seconds']:>6.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--beats", type=int, nargs="*", default=[120])
    parser.add_argument("--lang", nargs="*", default=["ko", "en"])
    parser.add_argument("--variant", nargs="*", default=list(VARIANTS), choices=VARIANTS)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--embedding", default="hash",
                        help="AIZAC_EMBEDDING spec (hash: lexical and fast; local: e5 here)")
    parser.add_argument("--before", help="also measure the aizac package in this directory (an "
                        "older checkout) on the same serial, side by side")
    parser.add_argument("--code", help=argparse.SUPPRESS)  # the subprocess of --before
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    from smoke import parse_args  # bench/smoke.py: the --smoke size

    args = parse_args(parser, beats=[12], lang=["ko"], variant=["ideal"])
    if args.code:
        sys.path.insert(0, str(Path(args.code).resolve()))
        for name in [m for m in sys.modules if m == "aizac" or m.startswith("aizac.")]:
            del sys.modules[name]
    import aizac

    if args.json:
        r = run(args.beats[0], args.lang[0], args.seed, variant=args.variant[0],
                embedding=args.embedding)
        print(json.dumps({k: v for k, v in asdict(r).items() if k != "details"}))
        return
    print(f"aizac from {Path(aizac.__file__).parent}; embedding {args.embedding}")
    print(HEADER, flush=True)
    for beats in args.beats:
        for lang in args.lang:
            for variant in args.variant:
                if args.before:
                    out = subprocess.run(
                        [sys.executable, __file__, "--code", args.before, "--json",
                         "--beats", str(beats), "--lang", lang, "--variant", variant,
                         "--seed", str(args.seed), "--embedding", args.embedding],
                        capture_output=True, text=True, check=False)
                    lines = [x for x in out.stdout.splitlines() if x.startswith("{")]
                    if lines:
                        print(row("before", json.loads(lines[-1])), flush=True)
                    else:
                        print(f"before {beats} {lang} {variant}: failed: "
                              f"{out.stderr.strip()[-300:]}", flush=True)
                r = run(beats, lang, args.seed, variant=variant, embedding=args.embedding)
                print(row("after", r), flush=True)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
