"""Consistency with a held-out extractor: a hurried mid-size model, written blind.

This module plugs another extractor persona into ``bench/consistency.py``: the same seeded
serial, driven through ``aizac.writer.service.Studio`` in one process, with the same scoring and
table; only the model answering the combined extraction is different. It was written BLIND: its
author had not read how the store resolves references (``aizac/memory/references.py``,
``aizac/memory/offering.py``), the extraction code (``aizac/writer/extraction.py``,
``combined.py``, ``checked.py``, ``quality.py``), their tests, nor the harness's own
``Extractor``; only the prompt a model receives (``extract_combined.txt``, the ``[offer]`` and
``[reference]`` words, the JSON schema sent with it) and the repair messages a model is shown. Its
figures were printed once, after it was written, and nothing was changed for them.

The persona is the register of a 7B-14B open model (or a small API model in a hurry) that gets
most of the task right and slips the way such models slip. It reads the ids only from the
prompt's lists (the cast ``c1``, the facts and relations ``f1`` with their ``[c1 condition]`` /
``[c1-c2 relation]`` labels, the rules ``r1 [keyword]`` and the threads ``t1 [keyword]``); what
happened in the beat it takes from the serial's beat (the prompt's beat shows only its events).
Its behaviours (rates are per chance, seeded):

- writes every text in its own words (a paraphrase table of every value, five sentence shapes;
  a third of the texts drop the scene number, so the same words can come back later for a new
  value), sometimes names a character in a text by given name, title or pronoun, and in Korean
  sometimes mixes in the English slot label (``김도준 condition: ...``);
- ``who`` / ``a`` / ``b``: mostly the right id; otherwise the full name, the given name, a
  title or honorific form (``김 대장``, ``도준 님``, ``Captain Hart``), the list line copied
  (``c3 김도준``), an upper-case id (``C3``), the neighbouring id or a pronoun (``그``,
  ``she``); a character the beat introduces is listed already, but a quarter of the time it is
  ``"new"`` with the name all the same; one not in the cast list would be ``"new"`` with the
  name, ``"new"`` with no name, the bare name, or an invented next id;
- ``replaces``: mostly the listed fact of the same slot; often left out; sometimes every listed
  fact of the character (a death always risks this), a fact of another slot of the same
  character, or an id past the end of the list; a relation's ``-`` placeholder is replaced or
  not, at random, and once in a while the ``-`` itself is copied into ``replaces``;
- two changes of one character in a beat are sometimes merged into one fact (one aspect, both
  texts, one or both ids replaced); a relation change is sometimes filed as a character's fact
  (``other`` / ``emotion``), and sometimes written twice, once from each side;
- facts the beat only restates are skipped, said again, or said again "replacing" themselves;
  now and then it invents an emotion the beat did not state;
- rules: the keyword as listed, with a suffix or in another form; ``revises`` is mostly the
  listed rule of that keyword, but may be left out, ``"new"`` for a listed rule, the keyword
  instead of the id, another rule's id; sometimes ``rule`` is forgotten;
- threads: a planted thread's keyword is its object (or object and place); a payoff names the
  thread's id and its listed keyword, or leaves the keyword out, writes it differently, slips to
  another thread's id, writes the keyword as the id, confuses two threads of the same object
  outright, or forgets the payoff; an event line that only mentions an open thread is sometimes
  taken for its payoff;
- format: pretty-printed or one-line JSON, sometimes in a code fence, rarely after a sentence of
  preamble; an invalid aspect (``location``, ``health``) once in a while;
- on a repair turn it re-sends its previous reply and mends the items the message names, not
  all of them: at the first repair it fixes a named item (70%), drops it (10%) or leaves it as
  it was (20%), and once in a while answers with only the mended section (no summary); at the
  second it fixes (85%) or drops it; after that it complies. What no message names stays as it
  was.

A planted thread's text is the persona's own, so it is recorded as the thread's text in the
serial's truth (the harness finds threads in memory by their text).

Run: ``python bench/consistency_blind.py --beats 120 --lang ko en --embedding hash``.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from consistency import HEADER, Beat, Item, Person, Serial, Slot, _josa, _key, row, run

# ------------------------------------------------------------------------------ its words
CLAUSES: dict[str, dict[str, str]] = {
    "ko": {
        "다리를 다쳤다": "다리에 부상을 입었다", "열병에 걸렸다": "열병으로 앓아누웠다",
        "기운을 되찾았다": "기력을 회복했다", "독에 중독되었다": "독에 당했다",
        "눈을 다쳤다": "눈에 상처를 입었다", "완전히 회복했다": "몸이 다 나았다",
        "기절했다": "정신을 잃고 쓰러졌다", "팔이 부러졌다": "팔뼈가 부러졌다",
        "왕도에 있다": "왕도에 머무르는 중이다", "북쪽 요새로 갔다": "북부 요새로 떠났다",
        "지하 감옥에 갇혔다": "지하 감옥에 투옥되었다",
        "항구 도시에 숨었다": "항구 도시에 몸을 숨겼다",
        "황궁에 들어갔다": "황궁 안으로 들어갔다", "숲속 오두막에 머문다": "숲속 오두막에서 지낸다",
        "국경을 넘었다": "국경을 넘어갔다", "탑에 올랐다": "탑 꼭대기로 올라갔다",
        "길드 편에 섰다": "길드 쪽에 붙었다", "황실에 충성한다": "황실에 충성을 맹세했다",
        "반란군에 합류했다": "반란군에 가담했다", "누구의 편도 아니다": "어느 쪽에도 서지 않는다",
        "암흑 교단에 들어갔다": "암흑 교단의 일원이 되었다", "상단과 손잡았다": "상단과 결탁했다",
        "서로 믿는 동료다": "서로를 신뢰하는 동료가 되었다", "원수가 되었다": "원수지간이 되었다",
        "몰래 사랑한다": "남몰래 사랑하는 사이다", "스승과 제자다": "사제지간이다",
        "경쟁자다": "라이벌 관계다", "동맹을 맺었다": "동맹을 체결했다",
        "서로를 의심한다": "서로 믿지 못한다", "의형제가 되었다": "의형제를 맺었다",
        "마나는 달이 뜰 때만 회복된다": "달이 떠 있을 때에만 마나가 찬다",
        "게이트는 사흘마다 열린다": "게이트가 사흘에 한 번 열린다",
        "귀족만 검을 찰 수 있다": "검을 차는 것은 귀족에게만 허락된다",
        "죽은 자는 이름을 잃는다": "죽으면 이름이 사라진다",
        "계약은 피로만 맺는다": "계약은 피로써만 성립한다",
        "마법은 소리를 내야 발동한다": "주문을 소리 내어 외워야 마법이 나간다",
        "숨을 거두었다": "세상을 떠났다",
    },
    "en": {
        "hurt a leg": "injured a leg", "caught a fever": "fell ill with a fever",
        "regained strength": "got the strength back", "was poisoned": "got poisoned",
        "injured an eye": "took a wound to the eye", "fully recovered": "has healed completely",
        "fainted": "passed out", "broke an arm": "has a broken arm",
        "is in the capital": "is staying in the capital",
        "went to the north fort": "left for the northern fort",
        "is locked in the dungeon": "was thrown into the dungeon",
        "hides in the port town": "is hiding out in the port town",
        "entered the palace": "went into the palace", "stays in a forest hut":
        "lives in a hut in the woods", "crossed the border": "made it across the border",
        "climbed the tower": "went up the tower",
        "sides with the guild": "backs the guild", "is loyal to the crown":
        "serves the crown faithfully", "joined the rebels": "went over to the rebels",
        "sides with no one": "stays neutral", "joined the dark order":
        "became a member of the dark order", "allied with the merchants":
        "made a deal with the merchants",
        "trusted comrades": "comrades who trust each other", "sworn enemies": "bitter enemies",
        "secret lovers": "lovers in secret", "master and disciple": "teacher and student",
        "rivals": "rivals competing with each other", "allies by pact": "bound by an alliance",
        "suspicious of each other": "wary of one another", "sworn siblings":
        "sworn brothers-in-arms",
        "mana returns only under the moon": "mana refills only while the moon is up",
        "gates open every three days": "a gate opens once every three days",
        "only nobles may carry swords": "carrying a sword is a noble's privilege",
        "the dead lose their names": "whoever dies loses their name",
        "contracts are sealed in blood": "a contract binds only when signed in blood",
        "magic needs a spoken word": "spells only work when spoken aloud",
        "died": "passed away",
    },
}
RULE_FORMS = {  # the keyword of a rule written otherwise
    "ko": {"마나": "마나 회복", "게이트": "게이트 주기", "검": "검 소지", "죽음": "죽은 자"},
    "en": {"mana": "Mana", "gates": "gate", "swords": "sword law", "death": "the dead"},
}
RULE_SUFFIX = {"ko": " 규칙", "en": " rule"}
BAD_ASPECT = {"whereabouts": "location", "condition": "health"}
PREAMBLE = {"ko": "다음은 이 비트에서 추출한 내용입니다.",
            "en": "Here is the extraction for this beat:"}

# ------------------------------------------------------------------------------ its rates
SLIP = {
    "who_name": 0.04, "who_given": 0.02, "who_title": 0.02, "who_label": 0.02,
    "who_upper": 0.01, "who_neighbour": 0.01, "who_pronoun": 0.01,
    "new_listed": 0.25, "new_noname": 0.12, "new_bare": 0.10, "new_invent": 0.10,
    "replaces_omit": 0.14, "replaces_all": 0.04, "replaces_other": 0.03,
    "replaces_invent": 0.02, "death_all": 0.30, "placeholder": 0.5, "placeholder_dash": 0.03,
    "merge": 0.25, "merge_one_id": 0.4, "misfile": 0.08, "two_sides": 0.08,
    "restate_skip": 0.45, "restate_self": 0.15, "emotion": 0.06,
    "rule_suffix": 0.15, "rule_form": 0.10, "revises_omit": 0.12, "revises_new": 0.06,
    "revises_keyword": 0.05, "revises_other": 0.04, "rule_flag": 0.03, "rule_restate_skip": 0.5,
    "rule_restate_new": 0.3,
    "foreshadow_flag": 0.05, "pay_nokeyword": 0.08, "pay_keyword_form": 0.05,
    "pay_slip": 0.03, "pay_confuse": 0.5, "pay_as_keyword": 0.04, "pay_forget": 0.04,
    "mention_pay": 0.20, "mention_story": 0.3,
    "no_scene": 0.33, "text_given": 0.15, "text_title": 0.08, "text_pronoun": 0.05,
    "mixed": 0.05, "bad_aspect": 0.02,
    "fence": 0.2, "preamble": 0.04, "oneline": 0.3, "empty_name": 0.3,
    "partial": 0.06,
}
MEND = [(0.70, 0.10), (0.85, 0.15)]
"""Per repair turn: the chance to fix a named item, and to drop it (else it stays as it was);
from the third repair on, every named item is fixed."""

SECTIONS = ("story.facts", "story.pays_off", "characters.facts", "relations.facts",
            "settings.facts")
LIMITS = {"story.facts": 4, "story.pays_off": 3, "characters.facts": 4, "relations.facts": 4,
          "settings.facts": 4}
PATHS = [re.compile(r"\b(story|characters|relations|settings)\.(facts|pays_off)\[(\d+)\]"
                    r"(?:\.(\w+))?"),
         re.compile(r"\b(story|characters|relations|settings)\W+(facts|pays_off)\W+(\d+)"
                    r"(?:\W+(\w+))?")]


# ------------------------------------------------------------------------------ reading
@dataclass
class Lists:
    """What the prompt lists, as a model reads it."""

    cast: dict[str, str] = field(default_factory=dict)  # id -> name
    names: dict[str, str] = field(default_factory=dict)  # name or alias -> id
    facts: dict[str, tuple[str, str]] = field(default_factory=dict)  # id -> (label, text)
    rules: dict[str, tuple[str, str]] = field(default_factory=dict)  # id -> (keyword, text)
    threads: dict[str, tuple[str, str]] = field(default_factory=dict)  # id -> (keyword, text)

    @classmethod
    def read(cls, prompt: str) -> Lists:
        lists = cls()
        for raw in prompt.splitlines():
            line = raw.strip()
            cast = re.match(r"^(c\d+) (.+)$", line)
            if cast:
                name, _, rest = cast.group(2).partition(" (")
                lists.cast[cast.group(1)] = name.strip()
                lists.names[name.strip()] = cast.group(1)
                for alias in rest.rstrip(")").split(","):
                    if alias.strip():
                        lists.names.setdefault(alias.strip(), cast.group(1))
                continue
            listed = re.match(r"^([frt]\d+) \[([^\]]*)\] ?(.*)$", line)
            if not listed:
                continue
            ref, label, text = listed.groups()
            if ref[0] == "f":
                lists.facts[ref] = (label, text)
            elif ref[0] == "r":
                lists.rules[ref] = (label, text)
            else:
                lists.threads[ref] = (label, re.sub(r" \(\d+-\d+\)$", "", text))
        return lists

    def fact(self, label: str) -> str | None:
        return next((ref for ref, (lab, _) in self.facts.items() if lab == label), None)

    def facts_of(self, cid: str) -> list[str]:
        return [ref for ref, (lab, _) in self.facts.items() if lab.split(" ")[0] == cid]

    def relation(self, ca: str, cb: str) -> tuple[str | None, bool]:
        """The listed relation of a pair, and whether it is only the ``-`` placeholder."""
        for ref, (lab, text) in self.facts.items():
            if lab in (f"{ca}-{cb} relation", f"{cb}-{ca} relation"):
                return ref, text.strip() == "-"
        return None, False

    def next_id(self, prefix: str, among: dict[str, Any]) -> str:
        numbers = [int(ref[1:]) for ref in among if ref[1:].isdigit()]
        return f"{prefix}{max(numbers, default=0) + 1}"


@dataclass
class Entry:
    """One element of a reply: what the persona wrote (``None``: dropped), and what it means,
    written carefully (a merged fact means two)."""

    section: str
    made: dict[str, Any] | None
    meant: list[dict[str, Any]]


# ------------------------------------------------------------------------------ the persona
class BlindExtractor:
    """The hurried mid-size model (see the module docstring)."""

    def __init__(self, serial: Serial, variant: str = "blind", seed: int = 7,
                 legacy: bool = False) -> None:
        if legacy:
            raise SystemExit("the blind persona refers by id; an older schema is not measured")
        self.serial, self.truth, self.lang = serial, serial.truth, serial.lang
        self.ko = serial.lang == "ko"
        self.rng = random.Random(f"{seed}-blind-{serial.lang}")
        self.repairs = 0
        self.beat: Beat | None = None
        self.lists = Lists()
        self.entries: list[Entry] = []
        self.sent: dict[str, list[Entry]] = {}
        self.summary = ""
        self.turn = 0
        self.partial = False
        self.partial_sections: set[str] = set()

    def does(self, slip: str) -> bool:
        return self.rng.random() < SLIP[slip]

    def choose(self, *slips: str) -> str | None:
        """At most one of ``slips`` (each at its rate), or ``None``."""
        r = self.rng.random()
        for slip in slips:
            if r < SLIP[slip]:
                return slip
            r -= SLIP[slip]
        return None

    # ---------------------------------------------------------------- the harness's calls
    def start(self, beat: Beat) -> None:
        self.beat = beat

    def reply(self, prompt: str, repair: str | None) -> str:
        if repair is None:
            self.lists = Lists.read(prompt)
            self.turn, self.partial = 0, False
            self.entries = self.compose() if self.beat is not None else []
            return self.render()
        self.repairs += 1
        self.turn += 1
        self.mend(repair)
        return self.render()

    # ---------------------------------------------------------------- names
    def person(self, name: str) -> Person:
        return self.serial.person(name)

    def cid(self, name: str) -> str | None:
        return self.lists.names.get(name)

    def who(self, name: str) -> tuple[dict[str, Any], dict[str, Any]]:
        """The reference fields to a character: as written, and as meant."""
        cid = self.cid(name)
        p = self.person(name)
        if cid is None:
            meant = {"who": "new", "name": name}
            slip = self.choose("new_noname", "new_bare", "new_invent")
            if slip == "new_noname":
                return {"who": "new"}, meant
            if slip == "new_bare":
                return {"who": name}, meant
            if slip == "new_invent":
                return {"who": self.lists.next_id("c", self.lists.cast)}, meant
            return dict(meant), meant
        meant = {"who": cid}
        newcomer = self.beat is not None and self.beat.newcomer is not None \
            and self.beat.newcomer.name == name
        if newcomer and self.does("new_listed"):  # introduced in this beat: "new" to it
            return {"who": "new", "name": name}, meant
        made = {"who": self.form(p, cid)}
        if made["who"] == cid and self.does("empty_name"):
            made["name"] = ""
        return made, meant

    def form(self, p: Person, cid: str) -> str:
        """How it writes a reference to a listed character."""
        slip = self.choose("who_name", "who_given", "who_title", "who_label", "who_upper",
                           "who_neighbour", "who_pronoun")
        if slip == "who_name":
            return p.name
        if slip == "who_given":
            return p.given
        if slip == "who_title":
            return self.title(p)
        if slip == "who_label":
            return f"{cid} {p.name}"
        if slip == "who_upper":
            return cid.upper()
        if slip == "who_neighbour":
            return self.neighbour(cid)
        if slip == "who_pronoun":  # the subject as the beat's sentence has it
            return p.pronoun
        return cid

    def neighbour(self, cid: str) -> str:
        others = sorted(c for c in self.lists.cast if c != cid)
        number = int(cid[1:])
        return min(others, key=lambda c: abs(int(c[1:]) - number), default=cid)

    def title(self, p: Person) -> str:
        if self.ko:
            return self.rng.choice([f"{p.family} {p.title}", f"{p.name} {p.title}",
                                    f"{p.given} 님"])
        title = p.title.removeprefix("the ")
        return self.rng.choice([f"{title} {p.family}", f"{p.given} the {title.lower()}"])

    def called(self, name: str) -> str:
        """How a text names a character."""
        p = self.person(name)
        slip = self.choose("text_given", "text_title", "text_pronoun")
        if slip == "text_given":
            return p.given
        if slip == "text_title":
            return (f"{p.name} {p.title}" if self.ko
                    else f"{p.title.removeprefix('the ').capitalize()} {p.family}")
        if slip == "text_pronoun":
            return p.pronoun
        return name

    # ---------------------------------------------------------------- texts
    def clause(self, value: str) -> str:
        return CLAUSES[self.lang].get(value, value)

    def state_text(self, name: str, aspect: str, values: list[str], n: int) -> str:
        nm = self.called(name)
        clause = (" 그리고 " if self.ko else " and ").join(self.clause(v) for v in values)
        if self.ko and len(values) > 1:
            first = self.clause(values[0])
            clause = f"{first[:-1]}고 {self.clause(values[1])}" if first.endswith("다") \
                else clause
        scene = not self.does("no_scene")
        if self.ko:
            shapes = ([f"{nm}{_josa(nm, ('이', '가'))} {n}번째 장면에서 {clause}",
                       f"{n}번째 장면: {nm}{_josa(nm)} {clause}",
                       f"{nm}{_josa(nm)} {clause} (장면 {n})"] if scene else
                      [f"{nm}{_josa(nm, ('이', '가'))} {clause}", f"{nm}{_josa(nm)} {clause}"])
            return self.rng.choice(shapes)
        subject = nm[0].upper() + nm[1:]
        if scene:
            return self.rng.choice([f"{subject} {clause} in scene {n}",
                                    f"Scene {n}: {nm} {clause}"])
        return self.rng.choice([f"{subject} {clause}", f"{subject}: {aspect}, {clause}"])

    def mixed(self, made: dict[str, Any], name: str, aspect: str, values: list[str],
              *facts: tuple[Slot, str]) -> None:
        """Sometimes (Korean) the text mixes in the English slot label."""
        if self.ko and self.does("mixed"):
            clause = ", ".join(self.clause(v) for v in values)
            made["text"] = self.say(f"{self.called(name)} {aspect}: {clause}", *facts)

    def relation_text(self, a: str, b: str, value: str, n: int) -> str:
        na, nb = self.called(a), self.called(b)
        clause = self.clause(value)
        scene = not self.does("no_scene")
        if self.ko:
            with_ = _josa(na, ("과", "와"))
            if scene:
                return self.rng.choice([f"{na}{with_} {nb}{_josa(nb)} {clause}",
                                        f"{n}번째 장면 이후 {na}{with_} {nb}{_josa(nb)} {clause}"
                                        ])
            return f"{na}-{nb} 관계: {clause}"
        if scene:
            return self.rng.choice([f"{na} and {nb} are now {clause}",
                                    f"Since scene {n}, {na} and {nb} are {clause}"])
        return f"{na} / {nb}: {clause}"

    def rule_text(self, key: str, value: str, n: int) -> str:
        clause = self.clause(value)
        if self.does("no_scene"):
            return self.rng.choice([f"{key}: {clause}", ("세계 규칙 — " if self.ko
                                                         else "World rule: ") + clause])
        return (f"{clause} ({n}번째 장면부터)" if self.ko
                else f"{clause[0].upper()}{clause[1:]} (from scene {n})")

    def say(self, text: str, *facts: tuple[Slot, str]) -> str:
        return self.truth.say(text[:160], *facts)

    def fact_of(self, slot: Slot) -> tuple[Slot, str]:
        return slot, self.truth.current[slot]

    # ---------------------------------------------------------------- one reply
    def compose(self) -> list[Entry]:
        beat = self.beat
        assert beat is not None
        n = beat.number
        entries: list[Entry] = []
        for item in beat.items:
            if item.kind == "story":
                entries += self.story(item, n)
            elif item.kind == "plant":
                entries += self.plant(item, n)
            elif item.kind == "state":
                entries += self.state(item, n)
            elif item.kind == "rel":
                entries += self.relation(item, n)
            elif item.kind == "rule":
                entries += self.rule(item, n)
        entries += self.payoffs(beat)
        entries += self.invented(beat)
        kept: list[Entry] = []
        for section in SECTIONS:  # a model mostly keeps to maxItems: changes come first
            mine = [e for e in entries if e.section == section]
            mine.sort(key=lambda e: bool(e.meant and e.meant[0].get("_restated")))
            kept += mine[: LIMITS[section]]
        for e in kept:
            for d in [e.made, *e.meant]:
                if d is not None:
                    d.pop("_restated", None)
        self.summary = self.say(f"{n}번째 장면에서 성문 앞 대치가 이어졌다." if self.ko
                                else f"Scene {n}: a tense standoff at the gate.")
        return kept

    def story(self, item: Item, n: int) -> list[Entry]:
        if self.beat and self.beat.payoffs and ("비밀" in item.text or "revealed" in item.text):
            key = self.beat.payoffs[0]
            if key in self.serial.threads:
                planted, obj, _ = self.serial.threads[key]
                text = (f"{planted}번째 장면에 숨긴 {obj}의 정체가 밝혀졌다" if self.ko
                        else f"The secret of the {obj} from scene {planted} came out")
                return [Entry("story.facts", {"text": self.say(text)}, [{"text": text}])]
        text = self.say(f"{n}번째 장면, 성문 앞에서 소란이 일었다" if self.ko
                        else f"Trouble broke out at the gate in scene {n}")
        return [Entry("story.facts", {"text": text}, [{"text": text}])]

    def plant(self, item: Item, n: int) -> list[Entry]:
        _, obj, place = self.serial.threads[item.key]
        if self.ko:
            text = f"{n}번째 장면에서 {obj}{_josa(obj, ('이', '가'))} {place}에 감춰졌다"
            keyword = self.rng.choice([obj, obj, f"{place}의 {obj}", f"{obj} 복선"])
        else:
            text = f"The {obj} got hidden in the {place} during scene {n}"
            keyword = self.rng.choice([obj, obj, f"{obj} in the {place}", f"the {obj}"])
        self.truth.open_threads[item.key] = self.say(text)
        meant = {"text": text, "keyword": keyword, "foreshadow": True}
        made = dict(meant)
        if self.does("foreshadow_flag"):
            del made["foreshadow"]
        return [Entry("story.facts", made, [meant])]

    def state(self, item: Item, n: int) -> list[Entry]:
        assert item.slot is not None
        name, aspect = item.person, item.aspect
        fact = self.fact_of(item.slot)
        restated = not fact[1].startswith(f"{n}:")
        cid = self.cid(name)
        listed = self.lists.fact(f"{cid} {aspect}") if cid else None
        if restated:
            if self.does("restate_skip"):
                return []
            text = self.say(self.state_text(name, aspect, [item.value], n), fact)
            made_who, meant_who = self.who(name)
            meant = {**meant_who, "aspect": aspect, "text": text, "_restated": True}
            made = {**made_who, "aspect": aspect, "text": text, "_restated": True}
            self.mixed(made, name, aspect, [item.value], fact)
            if listed and self.does("restate_self"):
                made["replaces"] = [listed]
            return [Entry("characters.facts", made, [meant])]
        second = item.merged_with
        if second is not None and self.does("merge"):
            assert second.slot is not None
            other = self.fact_of(second.slot)
            text = self.say(self.state_text(name, aspect, [item.value, second.value], n),
                            fact, other)
            made_who, meant_who = self.who(name)
            ids = [i for i in (listed, self.lists.fact(f"{cid} {second.aspect}")) if i]
            made = {**made_who, "aspect": aspect, "text": text}
            self.mixed(made, name, aspect, [item.value, second.value], fact, other)
            if ids:
                made["replaces"] = ids[:1] if self.does("merge_one_id") else ids
            parts = [self.careful(name, aspect, item.value, fact, n),
                     self.careful(name, second.aspect, second.value, other, n)]
            return [Entry("characters.facts", made, parts)]
        out = [self.change(name, aspect, item.value, fact, n)]
        if second is not None:
            assert second.slot is not None
            out.append(self.change(name, second.aspect, second.value,
                                   self.fact_of(second.slot), n))
        return out

    def careful(self, name: str, aspect: str, value: str, fact: tuple[Slot, str],
                n: int) -> dict[str, Any]:
        cid = self.cid(name)
        listed = self.lists.fact(f"{cid} {aspect}") if cid else None
        text = self.say(self.state_text(name, aspect, [value], n), fact)
        meant: dict[str, Any] = ({"who": cid} if cid else {"who": "new", "name": name})
        meant.update(aspect=aspect, text=text)
        if listed:
            meant["replaces"] = [listed]
        return meant

    def change(self, name: str, aspect: str, value: str, fact: tuple[Slot, str],
               n: int) -> Entry:
        meant = self.careful(name, aspect, value, fact, n)
        made_who, _ = self.who(name)
        made = {**made_who, **{k: v for k, v in meant.items() if k not in ("who", "name")}}
        self.mixed(made, name, aspect, [value], fact)
        if self.does("bad_aspect") and aspect in BAD_ASPECT:
            made["aspect"] = BAD_ASPECT[aspect]
        cid = self.cid(name)
        right = list(meant.get("replaces", []))
        others = [f for f in (self.lists.facts_of(cid) if cid else []) if f not in right]
        dead = value == self.serial.values["dead"]
        slip = "replaces_all" if dead and self.does("death_all") else self.choose(
            "replaces_all", "replaces_omit", "replaces_other", "replaces_invent")
        if slip == "replaces_all" and others:  # everything listed of the character
            made["replaces"] = (right + others)[:3]
        elif slip == "replaces_omit":
            made.pop("replaces", None)
        elif slip == "replaces_other" and others:
            made["replaces"] = [self.rng.choice(others)]
        elif slip == "replaces_invent":
            made["replaces"] = [self.lists.next_id("f", self.lists.facts)]
        return Entry("characters.facts", made, [meant])

    def relation(self, item: Item, n: int) -> list[Entry]:
        assert item.slot is not None
        fact = self.fact_of(item.slot)
        restated = not fact[1].startswith(f"{n}:")
        a, b = (item.person, item.other) if not restated else (item.slot[1], item.slot[2])
        ca, cb = self.cid(a), self.cid(b)
        listed, placeholder = self.lists.relation(ca, cb) if ca and cb else (None, False)
        if restated and self.does("restate_skip"):
            return []
        text = self.say(self.relation_text(a, b, item.value, n), fact)
        meant: dict[str, Any] = {"a": ca or a, "b": cb or b, "text": text}
        if listed:
            meant["replaces"] = [listed]
        if restated:
            meant["_restated"] = True
        if not restated and self.does("misfile"):
            made_who, _ = self.who(a)
            made = {**made_who, "aspect": self.rng.choice(["other", "other", "emotion"]),
                    "text": text}
            if listed and self.rng.random() < 0.4:
                made["replaces"] = [listed]
            return [Entry("characters.facts", made, [meant])]
        made = {"a": self.who(a)[0]["who"] if ca else a, "b": self.who(b)[0]["who"] if cb else b,
                "text": text}
        if restated:
            made["_restated"] = True
            if listed and self.does("restate_self"):
                made["replaces"] = [listed]
        elif listed and placeholder:
            if self.does("placeholder"):
                made["replaces"] = [listed]
            elif self.does("placeholder_dash"):
                made["replaces"] = ["-"]
        elif listed and not self.does("replaces_omit"):
            made["replaces"] = [listed]
        out = [Entry("relations.facts", made, [meant])]
        if not restated and self.does("two_sides"):
            back = self.say(self.relation_text(b, a, item.value, n), fact)
            other = {"a": meant["b"], "b": meant["a"], "text": back}
            out.append(Entry("relations.facts", {**other, **({"replaces": made["replaces"]}
                                                              if "replaces" in made else {})},
                             [other]))
        return out

    def rule(self, item: Item, n: int) -> list[Entry]:
        assert item.slot is not None
        fact = self.fact_of(item.slot)
        restated = not fact[1].startswith(f"{n}:")
        listed = next((ref for ref, (_, text) in self.lists.rules.items()
                       if any(s == item.slot for s, _ in self.truth.facts(text))), None)
        if restated and self.does("rule_restate_skip"):
            return []
        text = self.say(self.rule_text(item.key, item.value, n), fact)
        keyword = item.key
        if listed:
            keyword = self.lists.rules[listed][0]
        elif self.does("rule_suffix"):
            keyword = item.key + RULE_SUFFIX[self.lang]
        elif self.does("rule_form"):
            keyword = RULE_FORMS[self.lang][item.key]
        meant: dict[str, Any] = {"keyword": keyword, "text": text, "rule": True,
                                 "revises": listed or "new"}
        made = dict(meant)
        if restated:
            meant["_restated"] = made["_restated"] = True
            if self.does("rule_restate_new"):
                made["revises"] = "new"
            return [Entry("settings.facts", made, [meant])]
        slip = self.choose("revises_omit", "revises_new", "revises_keyword", "revises_other",
                           "rule_flag")
        others = [ref for ref in self.lists.rules if ref != listed]
        if slip == "revises_omit":
            del made["revises"]
        elif slip == "revises_new" and listed:
            made["revises"] = "new"
        elif slip == "revises_keyword" and listed:
            made["revises"] = keyword[:12]
        elif slip == "revises_other" and listed and others:
            made["revises"] = self.rng.choice(others)
        elif slip == "rule_flag":  # a world rule written as a plain setting
            del made["rule"], made["revises"]
        return [Entry("settings.facts", made, [meant])]

    def listed_thread(self, key: str) -> str | None:
        text = self.truth.paid_threads.get(key) or self.truth.open_threads.get(key)
        if text is None:
            return None
        return next((ref for ref, (_, t) in self.lists.threads.items() if _key(t) == _key(text)),
                    None)

    def payoffs(self, beat: Beat) -> list[Entry]:
        out: list[Entry] = []
        for key in beat.payoffs:
            ref = self.listed_thread(key)
            if ref is None or self.does("pay_forget"):
                continue
            keyword = self.lists.threads[ref][0]
            meant = {"thread": ref, "keyword": keyword}
            made = dict(meant)
            _, obj, _ = self.serial.threads[key]
            twins = [t for t, (lab, text) in self.lists.threads.items()
                     if t != ref and obj in text]
            slip = self.choose("pay_nokeyword", "pay_keyword_form", "pay_slip",
                               "pay_as_keyword")
            if slip == "pay_nokeyword":
                del made["keyword"]
            elif slip == "pay_keyword_form":
                made["keyword"] = (obj if keyword != obj else f"{obj}의 비밀" if self.ko
                                   else f"the {obj}")
            elif slip == "pay_slip" and twins and self.does("pay_confuse"):
                twin = self.rng.choice(twins)  # two threads of one object: it takes the other
                made = {"thread": twin, "keyword": self.lists.threads[twin][0]}
                meant = dict(made)  # and believes it
            elif slip == "pay_slip":
                made["thread"] = self.neighbour_thread(ref)
            elif slip == "pay_as_keyword":
                made["thread"] = keyword[:12]
            out.append(Entry("story.pays_off", made, [meant]))
        for key in self.serial.mentioned:
            ref = self.listed_thread(key)
            if ref is None:
                continue
            _, obj, _ = self.serial.threads[key]
            if self.does("mention_story"):
                text = self.say(f"{obj} 이야기가 다시 언급되었다" if self.ko
                                else f"The {obj} came up again")
                out.append(Entry("story.facts", {"text": text}, [{"text": text}]))
            if self.does("mention_pay"):
                out.append(Entry("story.pays_off",
                                 {"thread": ref, "keyword": self.lists.threads[ref][0]}, []))
        return out

    def neighbour_thread(self, ref: str) -> str:
        others = sorted((t for t in self.lists.threads if t != ref),
                        key=lambda t: abs(int(t[1:]) - int(ref[1:])))
        return others[0] if others else ref

    def invented(self, beat: Beat) -> list[Entry]:
        if not self.does("emotion"):
            return []
        name = self.rng.choice(beat.cast)
        cid = self.cid(name)
        if cid is None:
            return []
        nm = self.called(name)
        text = self.say(f"{nm}{_josa(nm)} 잔뜩 긴장했다" if self.ko
                        else f"{nm[0].upper()}{nm[1:]} is on edge")
        made = {"who": cid, "aspect": "emotion", "text": text}
        return [Entry("characters.facts", made, [dict(made)])]

    # ---------------------------------------------------------------- a repair
    def mend(self, message: str) -> None:
        named: dict[tuple[str, int], set[str]] = {}
        for pattern in PATHS:
            for part, kind, index, fieldname in pattern.findall(message):
                named.setdefault((f"{part}.{kind}", int(index)), set()).add(fieldname or "")
        fix, drop = MEND[self.turn - 1] if self.turn <= len(MEND) else (1.0, 0.0)
        was_partial, self.partial = self.partial, False
        if not named:  # not about a reference: mend what the schema refuses
            for e in self.entries:
                if e.made is not None and e.made.get("aspect") in BAD_ASPECT.values():
                    e.made["aspect"] = e.meant[0]["aspect"]
            return
        mended: list[Entry] = []
        for (section, index), fields in sorted(named.items()):
            sent = self.sent.get(section, [])
            if index >= len(sent):
                continue
            entry = sent[index]
            r = self.rng.random()
            if r < fix:
                mended += self.fix(entry, fields)
            elif r < fix + drop:
                entry.made = None
        if self.turn == 1 and not was_partial and self.does("partial"):
            self.partial = True
            self.partial_sections = {e.section for e in self.entries
                                     if any(e is x for x in mended)} or {"characters.facts"}

    def fix(self, entry: Entry, fields: set[str]) -> list[Entry]:
        made = entry.made
        if made is None:
            return []
        if not entry.meant:  # a payoff it should not have claimed
            entry.made = None
            return []
        if len(entry.meant) > 1:  # a merged fact: one per change
            at = next(i for i, e in enumerate(self.entries) if e is entry)
            parts = [Entry(entry.section, copy.deepcopy(m), [m]) for m in entry.meant]
            self.entries[at:at + 1] = parts
            return parts
        meant = entry.meant[0]
        was = dict(made)
        fields = {f for f in fields if f} or set(meant) | set(made)
        for name in fields:
            if name in meant:
                made[name] = copy.deepcopy(meant[name])
            elif name in made and name != "name":
                del made[name]
        if "who" in fields and was.get("who") not in (meant.get("who"), "new") \
                and meant.get("who") != "new" and self.rng.random() < 0.5:
            form = str(was.get("who", ""))
            if not re.fullmatch(r"[cC]\d+", form):
                made["name"] = form.split(" ", 1)[-1] if re.match(r"c\d+ ", form) else form
        if made.get("name") == "" and meant.get("who") == "new":
            made["name"] = meant.get("name", "")
        return [entry]

    # ---------------------------------------------------------------- writing it out
    def render(self) -> str:
        reply: dict[str, Any] = {}
        self.sent = {s: [] for s in SECTIONS}
        for e in self.entries:
            if e.made is None:
                continue
            if self.partial and e.section not in self.partial_sections:
                continue
            self.sent[e.section].append(e)
            part, kind = e.section.split(".")
            reply.setdefault(part, {}).setdefault(kind, []).append(
                {k: v for k, v in e.made.items() if not k.startswith("_")})
        if not self.partial:
            reply["summary"] = self.summary
        ordered = {k: reply[k] for k in ("story", "characters", "relations", "settings",
                                         "summary") if k in reply}
        oneline = self.rng.random() < SLIP["oneline"]
        text = json.dumps(ordered, ensure_ascii=False, indent=None if oneline else 2)
        if self.rng.random() < SLIP["fence"]:
            text = f"```json\n{text}\n```"
        if self.turn == 0 and self.rng.random() < SLIP["preamble"]:
            text = f"{PREAMBLE[self.lang]}\n\n{text}"
        return text


# ------------------------------------------------------------------------------ the run
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--beats", type=int, nargs="*", default=[120])
    parser.add_argument("--lang", nargs="*", default=["ko", "en"])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--embedding", default="hash",
                        help="AIZAC_EMBEDDING spec (hash: lexical and fast; local: e5 here)")
    from smoke import parse_args  # bench/smoke.py: the --smoke size

    args = parse_args(parser, beats=[12], lang=["ko"])
    import aizac

    print(f"aizac from {Path(aizac.__file__).parent}; embedding {args.embedding}; "
          "extractor: the blind persona")
    print(HEADER, flush=True)
    for beats in args.beats:
        for lang in args.lang:
            r = run(beats, lang, args.seed, variant="blind", embedding=args.embedding,
                    extractor_factory=BlindExtractor)
            print(row("blind", r), flush=True)


if __name__ == "__main__":
    main()
