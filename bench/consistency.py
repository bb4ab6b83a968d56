"""Consistency through aizac's own pipeline: does a changed fact replace the old one?

A seeded serial (12 characters; changes of condition, whereabouts and allegiance; deaths;
relation arcs; world rules and their revisions; foreshadowing planted and paid off; facts
restated in later beats, verbatim or nearly; aliases and swapped pair order) is driven through
``aizac.writer.service.Studio`` — design beat -> accept -> extraction -> commit — by scripted
LangChain fake chat models passed through the constructor, in ONE process. After the run the
memory is checked against the serial's ground truth:

- ``accuracy``: share of current facts (state per character and aspect, relation per pair, rule
  per key) that memory holds, alone, as the current version (``decayed``: how many of them the
  forgetting curve has put to sleep because no scene mentioned them for many beats);
- ``leak``: share of the facts served by ``character_state()``, ``relations()``, world rules
  and filtered ``recall()`` that are outdated;
- ``dups``: live memories that repeat another live memory of the same subject;
- ``coverage``: share of planner prompts that carry every current state of every character of
  the scene (and ``stale``: outdated state lines found in planner prompts);
- ``closed``: share of paid-off foreshadowing no longer listed as open (``still_open``: threads
  not yet paid off that are listed).

Run: ``python bench/consistency.py`` (40, 120 and 500 beats, ko and en); ``--beats 40 --lang ko``
for one run; ``--code DIR`` measures the aizac package in DIR (an older checkout: the scripted
replies then leave out the extraction fields it does not know). The test
``tests/consistency`` drives the same harness for 120 Korean beats.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

ROOT = Path(__file__).resolve().parents[1]

ASPECTS = ("condition", "whereabouts", "allegiance")
KO_FAMILY = "김이박최정강조윤장임한오서신권황안송"
KO_GIVEN = ["도준", "서연", "민호", "지우", "하린", "태오", "유나", "재현", "소율", "건우",
            "다인", "시온", "예린", "준서", "은호", "나래"]
EN_FIRST = ["Mira", "Jun", "Ada", "Theo", "Lena", "Omar", "Iris", "Cole", "Nina", "Hugo",
            "Vera", "Ezra", "Lia", "Max", "Zoe", "Finn"]
EN_LAST = ["Kang", "Hart", "Voss", "Reed", "Lowe", "Park", "Quinn", "Shaw", "Moss", "Frey",
           "Cruz", "Dale"]
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


def _josa(name: str, pair: tuple[str, str] = ("은", "는")) -> str:
    last = name[-1]
    if "가" <= last <= "힣":
        return pair[0] if (ord(last) - 0xAC00) % 28 else pair[1]
    return pair[1]


@dataclass
class Person:
    name: str
    alias: str
    in_plot: bool
    introduced: bool = False
    alive: bool = True


@dataclass
class Truth:
    """Ground truth of the serial so far (by canonical name / sorted pair / rule key)."""

    state: dict[tuple[str, str], str] = field(default_factory=dict)
    stale_state: dict[tuple[str, str], set[str]] = field(default_factory=dict)
    relation: dict[tuple[str, str], str] = field(default_factory=dict)
    stale_relation: dict[tuple[str, str], set[str]] = field(default_factory=dict)
    rule: dict[str, str] = field(default_factory=dict)
    stale_rule: dict[str, set[str]] = field(default_factory=dict)
    open_threads: dict[str, str] = field(default_factory=dict)
    paid_threads: dict[str, str] = field(default_factory=dict)


class Serial:
    """A seeded serial: per beat, the planner's beat and the extractor's replies, plus truth.

    Args:
        lang: ``"ko"`` or ``"en"``.
        seed: the random seed.
        legacy: leave out the extraction fields older schemas do not have (aspect, rule,
            paid_off) so the same serial runs against older code.
    """

    def __init__(self, lang: str = "ko", seed: int = 7, legacy: bool = False) -> None:
        self.lang, self.rng, self.legacy = lang, random.Random(seed), legacy
        self.values = VALUES[lang]
        self.people = self._cast()
        self.truth = Truth()
        self.beat_no = 0
        self.thread_no = 0
        self.planted: list[tuple[int, str]] = []  # (beat, keyword)
        self.value: dict[tuple[str, str], str] = {}  # current value per (name, aspect)
        self.stamp = ""

    def _cast(self) -> list[Person]:
        people = []
        for n in range(12):
            if self.lang == "ko":
                given = KO_GIVEN[n]
                name, alias = KO_FAMILY[n] + given, given + "이" if n % 2 else given
                alias = given
            else:
                name, alias = f"{EN_FIRST[n]} {EN_LAST[n]}", EN_FIRST[n]
            people.append(Person(name, alias, in_plot=n < 5, introduced=n < 5))
        return people

    # ------------------------------------------------------------------ plot
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
        acts = [{"stage": s, "goal": g, "episodes": 40, "key_events": [e]}
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

    # ------------------------------------------------------------------ beats
    def next_beat(self) -> dict[str, str]:
        """Advance the serial by one beat; the replies for its design and extraction."""
        self.beat_no += 1
        n = self.beat_no
        rng = self.rng
        self.stamp = f"{n}"
        newcomer = next((p for p in self.people if not p.introduced), None)
        alive = [p for p in self.people if p.alive and p.introduced]
        cast = rng.sample(alive, k=min(len(alive), rng.choice((2, 3))))
        if newcomer is not None and n % 3 == 0:
            newcomer.introduced = True
            cast = [*cast[:2], newcomer]
        story: list[dict[str, Any]] = [{"text": self._say("event", n), "keyword": ""}]
        chars: list[dict[str, Any]] = []
        rels: list[dict[str, Any]] = []
        sets: list[dict[str, Any]] = []
        paid: list[dict[str, Any]] = []
        self._changes(n, cast, chars, rels, sets)
        self._restatements(cast, chars, rels, sets)
        self._threads(n, story, paid)
        replies = {
            "beat": self._beat_reply(n, cast),
            "story": json.dumps(self._legacy({"facts": story, "paid_off": paid}),
                                ensure_ascii=False),
            "character": json.dumps(self._legacy({"facts": chars}), ensure_ascii=False),
            "relation": json.dumps({"facts": rels[:4]}, ensure_ascii=False),
            "setting": json.dumps(self._legacy({"facts": sets[:4]}), ensure_ascii=False),
            "summary": json.dumps({"summary": self._say("summary", n)}, ensure_ascii=False),
            "profile": self._profile(newcomer) if newcomer is not None else "",
        }
        self.cast = [p.name for p in cast]
        return replies

    def _changes(self, n: int, cast: list[Person], chars: list[Any], rels: list[Any],
                 sets: list[Any]) -> None:
        rng = self.rng
        for person in rng.sample(cast, k=min(2, len(cast))):
            aspect = rng.choice(ASPECTS)
            held = self.value.get((person.name, aspect))
            value = rng.choice([v for v in self.values[aspect] if v != held])
            if n > 15 and n % 17 == 0 and person is cast[0] and not person.in_plot:
                aspect, value = "condition", self.values["dead"]
                person.alive = False
            self.value[(person.name, aspect)] = value
            chars.append(self._state(person, aspect, value, n))
        if len(cast) >= 2 and rng.random() < 0.7:
            a, b = rng.sample(cast, 2)
            text = self._relation_text(a, b, rng.choice(self.values["relation"]), n)
            key = tuple(sorted((a.name, b.name)))
            self._replace(self.truth.relation, self.truth.stale_relation, key, text)
            rels.append(self._rel_fact(a, b, text))
        if n == 1 or (n % 9 == 0):
            keys = RULE_KEYS[self.lang] if n == 1 else [rng.choice(RULE_KEYS[self.lang])]
            for key in keys:
                text = self._rule_text(key, rng.choice(self.values["rule"]), n)
                self._replace(self.truth.rule, self.truth.stale_rule, key, text)
                sets.append({"keyword": key, "text": text, "rule": True})

    def _restatements(self, cast: list[Person], chars: list[Any], rels: list[Any],
                      sets: list[Any]) -> None:
        rng = self.rng
        changed = {c["character_name"] for c in chars}
        for person in cast:
            held = [(a, t) for (name, a), t in self.truth.state.items()
                    if name == person.name and name not in changed]
            if held and rng.random() < 0.6:
                aspect, text = rng.choice(held)
                chars.append({"character_name": self._called(person), "aspect": aspect,
                              "text": self._near(text), "keyword": ""})
        pairs = [k for k in self.truth.relation if all(x in {p.name for p in cast} for x in k)]
        if pairs and not rels and rng.random() < 0.6:
            a, b = rng.choice(pairs)
            pa, pb = (self._person(a), self._person(b))
            rels.append(self._rel_fact(pb, pa, self._near(self.truth.relation[(a, b)])))
        if self.truth.rule and not sets and rng.random() < 0.4:
            key = rng.choice(sorted(self.truth.rule))
            sets.append({"keyword": key, "text": self._near(self.truth.rule[key]), "rule": True})
        chars[:] = chars[:4]

    def _threads(self, n: int, story: list[Any], paid: list[Any]) -> None:
        if n % 6 == 2:
            self.thread_no += 1
            key = ("복선" if self.lang == "ko" else "omen") + str(self.thread_no)
            text = self._say("omen", n)
            story.append({"text": text, "keyword": key, "foreshadow": True})
            self.truth.open_threads[key] = text
            self.planted.append((n, key))
        due = [k for b, k in self.planted if n - b >= 10 and k in self.truth.open_threads]
        if due and n % 5 == 0:
            key = due[0]
            text = self.truth.open_threads.pop(key)
            self.truth.paid_threads[key] = text
            paid.append({"keyword": key, "text": text})

    # ------------------------------------------------------------------ texts
    def _say(self, kind: str, n: int) -> str:
        if self.lang == "ko":
            return {"event": f"{n}번째 장면에서 성문 앞 소동이 벌어졌다",
                    "omen": f"{n}번째 장면에서 깨진 인장이 우물 속에 숨겨졌다",
                    "summary": f"{n}번째 장면: 인물들이 성문 앞에서 맞섰다."}[kind]
        return {"event": f"In scene {n} a riot broke out at the gate",
                "omen": f"In scene {n} a cracked seal was hidden in the well",
                "summary": f"Scene {n}: the characters faced each other at the gate."}[kind]

    def _state(self, person: Person, aspect: str, value: str, n: int) -> dict[str, Any]:
        said = self._called(person)
        if self.lang == "ko":
            text = f"{said}{_josa(said)} {n}번째 장면에서 {value}"
        else:
            text = f"In scene {n}, {said} {value}"
        self._replace(self.truth.state, self.truth.stale_state, (person.name, aspect), text)
        return {"character_name": said, "aspect": aspect, "text": text, "keyword": ""}

    def _relation_text(self, a: Person, b: Person, value: str, n: int) -> str:
        if self.lang == "ko":
            return f"{a.name}와 {b.name}는 {n}번째 장면부터 {value}"
        return f"From scene {n}, {a.name} and {b.name} are {value}"

    def _rule_text(self, key: str, value: str, n: int) -> str:
        if self.lang == "ko":
            return f"{key} 규칙({n}번째 장면): {value}"
        return f"Rule of {key} (scene {n}): {value}"

    def _rel_fact(self, a: Person, b: Person, text: str) -> dict[str, Any]:
        return {"character1": self._called(a), "character2": self._called(b), "text": text,
                "keyword": ""}

    def _called(self, person: Person) -> str:
        """The canonical name, or (a third of the time) an alias of a profiled newcomer."""
        if not person.in_plot and self.rng.random() < 0.33:
            return person.alias
        return person.name

    def _near(self, text: str) -> str:
        """The same fact said again: verbatim, or with spacing and punctuation changed."""
        return self.rng.choice([text, text + ".", "  " + text.replace(" ", "  ", 1)])

    def _person(self, name: str) -> Person:
        return next(p for p in self.people if p.name == name)

    @staticmethod
    def _replace(current: dict[Any, str], stale: dict[Any, set[str]], key: Any, text: str) -> None:
        old = current.get(key)
        if old is not None and old != text:
            stale.setdefault(key, set()).add(old)
        current[key] = text
        stale.setdefault(key, set()).discard(text)

    def _beat_reply(self, n: int, cast: list[Person]) -> str:
        ko = self.lang == "ko"
        return json.dumps({
            "location": "성문 앞" if ko else "the gate", "time": "밤" if ko else "night",
            "characters": [p.name for p in cast],
            "events": [self._say("event", n)], "dialogue": [], "emotions": [],
            "conflicts": [], "sets_up": [], "pays_off": [],
        }, ensure_ascii=False)

    def _profile(self, person: Person) -> str:
        ko = self.lang == "ko"
        return json.dumps({
            "name": person.name, "aliases": [person.alias], "role": "조연" if ko else "support",
            "profile": f"{person.name}의 과거" if ko else f"{person.name}'s past",
            "goal": "살아남기" if ko else "survive",
        }, ensure_ascii=False)

    def _legacy(self, reply: dict[str, Any]) -> dict[str, Any]:
        if not self.legacy:
            return reply
        reply.pop("paid_off", None)
        for fact in reply.get("facts", []):
            fact.pop("aspect", None)
            fact.pop("rule", None)
        return reply


# --------------------------------------------------------------------------- the fake model
SCHEMA_KINDS = {
    "NovelPlot": "plot", "BeatDesign": "beat", "CharacterProfile": "profile",
    "StoryExtraction": "story", "CharacterExtraction": "character",
    "RelationExtraction": "relation", "SettingExtraction": "setting", "BeatSummary": "summary",
}


class ScriptedModel(FakeListChatModel):
    """A LangChain fake chat model answering each structured request from the serial's current
    beat, by the schema it is asked for; it records every prompt by kind."""

    replies: dict[str, str] = Field(default_factory=dict)
    prompts: list[tuple[str, str]] = Field(default_factory=list)
    responses: list[str] = Field(default_factory=lambda: [""])

    def _kind(self, text: str, kwargs: dict[str, Any]) -> str:
        blob = text + json.dumps(kwargs, default=str)
        found = [(blob.find(f'"{title}"'), kind) for title, kind in SCHEMA_KINDS.items()]
        found += [(blob.find(f"title: {title}"), kind) for title, kind in SCHEMA_KINDS.items()]
        hits = sorted((pos, kind) for pos, kind in found if pos >= 0)
        if hits:
            return hits[0][1]
        titles = [kind for title, kind in SCHEMA_KINDS.items() if title in blob]
        return titles[0] if titles else "prose"

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None,
                  **kwargs: Any) -> ChatResult:
        text = "\n".join(str(m.content) for m in messages)
        kind = self._kind(text, kwargs)
        self.prompts.append((kind, text))
        reply = self.replies.get(kind, "" if kind != "prose" else "...")
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=reply))])

    def _stream(self, *args: Any, **kwargs: Any) -> Iterator[Any]:
        raise NotImplementedError("the consistency bench writes no prose")


class NoCliches:
    """The cliché database's slice the pipeline calls, with no tropes (not measured here)."""

    def expand_keywords(self, keywords: list[str], k_tropes: int = 3) -> list[Any]:
        return []

    def suggest_next(self, current_beat: str, stage: str, *, trope: str | None = None,
                     k: int = 5) -> list[Any]:
        return []

    def genres(self) -> list[str]:
        return []


# --------------------------------------------------------------------------- the run
@dataclass
class Report:
    beats: int
    lang: str
    accuracy: float
    leak: float
    dups: int
    coverage: float
    stale_in_prompts: int
    closed: float
    still_open: float
    seconds: float
    details: dict[str, Any] = field(default_factory=dict)


def _same(a: str, b: str) -> bool:
    key = re.compile(r"[\W_]+")
    return key.sub("", a.casefold()) == key.sub("", b.casefold())


def _contains(texts: list[str], wanted: str) -> bool:
    return any(_same(t, wanted) for t in texts)


def run(beats: int, lang: str = "ko", seed: int = 7, data_dir: Path | None = None) -> Report:
    """Drive ``beats`` beats of the serial through Studio in this process; measure memory."""
    from aizac.llm.embeddings import HashingEmbeddings
    from aizac.settings import Settings
    from aizac.writer.schemas import CharacterFact
    from aizac.writer.service import Studio

    legacy = "aspect" not in CharacterFact.model_fields
    serial = Serial(lang, seed, legacy=legacy)
    model = ScriptedModel()
    shm = Path("/dev/shm")  # memory-backed: the figures measure aizac, not the disk's fsync
    own_dir = (tempfile.TemporaryDirectory(dir=shm if shm.is_dir() else None)
               if data_dir is None else None)
    root = Path(own_dir.name) if own_dir is not None else Path(data_dir or ".")
    settings = Settings(data_dir=root, language=lang, structured_retries=0)
    studio = Studio(settings, models={"planner": model, "extractor": model, "writer": model},
                    embeddings=HashingEmbeddings(), cliches=NoCliches(),
                    concurrent_extraction=False)
    started = time.perf_counter()
    try:
        agent = studio.create("consistency", "회귀, 복수" if lang == "ko" else "revenge",
                              genre="판타지" if lang == "ko" else "fantasy", language=lang)
        model.replies = {"plot": serial.plot_reply()}
        agent.plan()
        covered, planner_prompts, stale_lines = 0, 0, 0
        previous_cast: list[str] = []
        misses: list[dict[str, Any]] = []
        for _ in range(beats):
            truth_before = {k: v for k, v in serial.truth.state.items()}
            stale_before = {k: set(v) for k, v in serial.truth.stale_state.items()}
            model.replies = serial.next_beat()
            seen = len(model.prompts)
            draft = agent.next_beat()
            prompt = next((t for k, t in model.prompts[seen:] if k == "beat"), "")
            if previous_cast:
                planner_prompts += 1
                wanted = [t for (name, _), t in truth_before.items() if name in previous_cast]
                missing = [t for t in wanted if not _state_in(prompt, t)]
                covered += not missing
                stale = [t for (name, _), olds in stale_before.items() if name in previous_cast
                         for t in olds if _state_in(prompt, t)]
                stale_lines += len(stale)
                if (missing or stale) and len(misses) < 3:
                    misses.append({"missing": missing, "stale": stale, "prompt": prompt})
            agent.accept(draft.id)
            previous_cast = serial.cast
        memory = agent.memory
        scores = _score(memory, serial)
    finally:
        if own_dir is not None:
            own_dir.cleanup()
    return Report(
        beats=beats, lang=lang, accuracy=scores["accuracy"], leak=scores["leak"],
        dups=scores["dups"], coverage=covered / planner_prompts if planner_prompts else 1.0,
        stale_in_prompts=stale_lines, closed=scores["closed"], still_open=scores["still_open"],
        seconds=time.perf_counter() - started, details={**scores, "misses": misses},
    )


def _state_in(prompt: str, text: str) -> bool:
    key = re.compile(r"[\W_]+")
    return key.sub("", text.casefold()) in key.sub("", prompt.casefold())


def _current(hits: list[Any]) -> list[str]:
    """Texts of the versions that are current (not superseded), decayed or not."""
    return [h.text for h in hits if not h.metadata.get("superseded_by")]


def _score(memory: Any, serial: Serial) -> dict[str, Any]:
    """Compare memory with the truth. A current fact that decayed (the forgetting curve: not
    mentioned for many beats) still counts as right when it is the current version and no
    outdated version is current; ``forgotten`` counts them."""
    truth = serial.truth
    served: list[tuple[str, bool]] = []  # (text, stale?)
    right = total = forgotten = 0
    names = {p.name for p in serial.people if p.introduced}
    everything = memory.get_where(None, include_forgotten=True)
    by_name: dict[str, list[Any]] = {}
    by_pair: dict[tuple[str, str], list[Any]] = {}
    for hit in everything:
        meta = hit.metadata
        if hit.tag == "Character":
            by_name.setdefault(str(meta.get("character_name", "")), []).append(hit)
        elif hit.tag == "CharacterRelation":
            pair = tuple(sorted((str(meta.get("character1")), str(meta.get("character2")))))
            by_pair.setdefault((pair[0], pair[1]), []).append(hit)
    for name in sorted(names):
        texts = [h.text for h in memory.character_state(name)]
        kept = _current(by_name.get(name, []))
        for aspect in ASPECTS:
            current = truth.state.get((name, aspect))
            if current is None:
                continue
            total += 1
            olds = truth.stale_state.get((name, aspect), set())
            right += _contains(kept, current) and not any(_contains(kept, o) for o in olds)
            forgotten += not _contains(texts, current)
        stale = set().union(*(truth.stale_state.get((name, a), set()) for a in ASPECTS))
        served += [(t, _contains(list(stale), t)) for t in texts]
    for (a, b), current in sorted(truth.relation.items()):
        texts = [h.text for h in memory.relations(a, b)]
        kept = _current(by_pair.get((a, b), []))
        total += 1
        olds = truth.stale_relation.get((a, b), set())
        right += _contains(kept, current) and not any(_contains(kept, o) for o in olds)
        forgotten += not _contains(texts, current)
        served += [(t, _contains(list(olds), t)) for t in texts]
    settings = [h.text for h in memory.get_where({"tag": "NovelSetting"})]
    kept = _current([h for h in everything if h.tag == "NovelSetting"])
    for key, current in sorted(truth.rule.items()):
        total += 1
        olds = truth.stale_rule.get(key, set())
        right += _contains(kept, current) and not any(_contains(kept, o) for o in olds)
        forgotten += not _contains(settings, current)
    all_stale = set().union(*truth.stale_rule.values()) if truth.stale_rule else set()
    served += [(t, _contains(list(all_stale), t)) for t in settings]
    for name in sorted(names)[:6]:
        hits = memory.recall(name, k=5, where={"character_name": name}, reinforce=False)
        stale = set().union(*(truth.stale_state.get((name, a), set()) for a in ASPECTS))
        served += [(h.text, _contains(list(stale), h.text)) for h in hits]
    live = memory.get_where(None)
    groups: dict[tuple[str, str], list[str]] = {}
    for hit in live:
        meta = hit.metadata
        subject = meta.get("character_name") or "|".join(
            sorted((meta.get("character1", ""), meta.get("character2", ""))))
        groups.setdefault((hit.tag, subject), []).append(hit.text)
    dups = sum(len(texts) - len({re.sub(r"[\W_]+", "", t.casefold()) for t in texts})
               for texts in groups.values())
    open_texts = [h.text for h in memory.open_foreshadowing()]
    closed = [not _contains(open_texts, t) for t in truth.paid_threads.values()]
    still = [_contains(open_texts, t) for t in truth.open_threads.values()]
    return {
        "accuracy": right / total if total else 1.0,
        "leak": sum(s for _, s in served) / len(served) if served else 0.0,
        "dups": dups,
        "closed": sum(closed) / len(closed) if closed else 1.0,
        "still_open": sum(still) / len(still) if still else 1.0,
        "facts": total, "served": len(served), "paid": len(closed),
        "forgotten": forgotten,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--beats", type=int, nargs="*", default=[40, 120, 500])
    parser.add_argument("--lang", nargs="*", default=["ko", "en"])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--code", help="run against the aizac package in this directory "
                        "(e.g. an older checkout, for before/after figures)")
    args = parser.parse_args()
    if args.code:
        sys.path.insert(0, str(Path(args.code).resolve()))
        for name in [m for m in sys.modules if m == "aizac" or m.startswith("aizac.")]:
            del sys.modules[name]
    import aizac

    print(f"aizac from {Path(aizac.__file__).parent}")
    print(f"{'beats':>5} {'lang':>4} {'accuracy':>8} {'leak':>6} {'dups':>5} {'coverage':>8} "
          f"{'stale@prompt':>12} {'closed':>6} {'open ok':>7} {'decayed':>7} {'secs':>6}")
    for beats in args.beats:
        for lang in args.lang:
            r = run(beats, lang, args.seed)
            print(f"{r.beats:>5} {r.lang:>4} {r.accuracy:>8.3f} {r.leak:>6.3f} {r.dups:>5} "
                  f"{r.coverage:>8.3f} {r.stale_in_prompts:>12} {r.closed:>6.2f} "
                  f"{r.still_open:>7.2f} {r.details['forgotten']:>7} {r.seconds:>6.1f}",
                  flush=True)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
