"""A Korean serial of the project's own for the manuscript import bench (issue 42), with its truth.

``generate(episodes, seed)`` writes a serial of ``episodes`` episodes of about 5,500 characters
each (characters with spaces, as platforms count them), twice: a *dirty* one with a planted
contradiction of every subtype of the ConStory-Bench taxonomy (plus a speech level switched
between a pair whose relation did not change, and a dead character acting), and its *clean twin*
where each planted paragraph says the consistent thing instead. The twins have the same episodes
and the same paragraphs in the same places; only the planted paragraphs differ (and, for the
abandoned thread, the clean twin touches and pays off the thread where the dirty one has
neutral paragraphs).

Everything is templated from the tables below (no data set is copied) and seeded: the same
``(episodes, seed)`` always gives the same bytes.

The truth (``Serial.truth()``, JSON) holds the cast (names, aliases, appearance, abilities),
the world's rules, each character's state changes (an injury and its healing, a death, a move
between cities), the relations and their changes with the speech level each says to the other,
the threads (planted, touched, paid off), every episode's title, first line, paragraphs,
scenes and characters (its heading in each format: ``layout.json``), and each planted
contradiction: its subtype and category, its episode and paragraph (1-based, counted as the
import counts them: text lines, scene breaks left out) with its quote, the clean twin's quote,
and the episode, paragraph and quote it contradicts (the abandoned thread: where the clean twin
comes back to the thread and the dirty one does not, and where it was planted; the tone: the
death it mourns; perspective and style break: the serial's opening narration).

``write(serial, twin, folder)`` writes one twin as txt (UTF-8 and CP949), docx (python-docx),
EPUB (a minimal EPUB 3 written here with zipfile: aizac's EPUB writer needs ebooklib) and a
folder of one txt file per episode, each with its own heading form and scene break
(:data:`HEADINGS`, :data:`BREAKS`; which one each format gets is seeded too).

    python bench/manuscript_gen.py --out /tmp/serial [--episodes 100] [--seed 42]
"""

from __future__ import annotations

import argparse
import io
import json
import math
import random
import sys
import tempfile
import zipfile
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TITLE = "검은 달의 서약"
AUTHOR = "벤치 작가"
TARGET = 5500
"""Characters per episode (with spaces, line breaks left out)."""
SCENES = 4

# ------------------------------------------------------------------------------ the world
CAST: list[dict[str, Any]] = [
    {"id": "seoa", "name": "한서아", "aliases": ["서아", "북문의 검"], "role": "북문 수비대 검사",
     "appearance": {"scar": "왼쪽 눈썹 위 흉터", "eyes": "잿빛 눈"},
     "abilities": ["검기: 열 걸음 밖의 촛불을 끌 만큼, 그 이상은 닿지 않는다"]},
    {"id": "mujin", "name": "백무진", "aliases": ["무진", "백 대주"], "role": "북문 수비대 대주",
     "appearance": {"hair": "은발", "height": "큰 키"}, "abilities": ["바람 읽기"]},
    {"id": "harin", "name": "윤하린", "aliases": ["하린", "달우물 약사"], "role": "약사",
     "appearance": {"ribbon": "붉은 머리끈", "eyes": "검은 눈"},
     "abilities": ["치유: 손을 얹어 상처를 아물게 한다 (낮에만)"]},
    {"id": "dohyeon", "name": "강도현", "aliases": ["도현", "재상의 아들"], "role": "재상의 아들",
     "appearance": {"ring": "오른손 검지의 은반지"},
     "abilities": ["한 번 읽은 글을 잊지 않는다"]},
    {"id": "jinu", "name": "서진우", "aliases": ["진우", "늙은 사서"], "role": "왕립 서고의 사서",
     "appearance": {"beard": "흰 수염"}, "abilities": ["고대 문자 해독"]},
    {"id": "minjae", "name": "오민재", "aliases": ["민재", "꼬마 전령"], "role": "전령",
     "appearance": {"cap": "낡은 털모자"}, "abilities": ["왕도의 골목을 모두 안다"]},
    {"id": "taeseok", "name": "최태석", "aliases": ["흑랑"], "role": "흑랑단 두목",
     "appearance": {"mask": "검은 늑대 가면"}, "abilities": ["그림자 걸음"]},
    {"id": "nayeon", "name": "임나연", "aliases": ["나연 공주"], "role": "공주",
     "appearance": {"hairpin": "옥비녀"}, "abilities": []},
]
NAME = {c["id"]: c["name"] for c in CAST}
SHORT = {c["id"]: c["aliases"][0] if c["id"] != "taeseok" else "태석" for c in CAST}
CAPITAL_PLACES = ["서문 시장", "달우물 사원", "왕궁 안뜰", "북문 초소", "왕립 서고", "돌다리 객잔"]
NORTH_PLACES = ["요새 성벽", "요새 병영", "잿빛 숲 어귀", "요새 망루"]
NORTH_GROUP = ("seoa", "dohyeon", "harin")
"""Who moves from the capital to the northern fortress."""

POLITE, PLAIN = "존댓말", "반말"


@dataclass(frozen=True)
class Relation:
    a: str
    b: str
    relation: str
    since: float
    """Fraction of the serial where it starts (0: from the beginning)."""
    a_to_b: str
    b_to_a: str


RELATIONS = [
    Relation("seoa", "mujin", "부하와 대주", 0, POLITE, PLAIN),
    Relation("seoa", "harin", "오랜 친구", 0, PLAIN, PLAIN),
    Relation("minjae", "harin", "심부름꾼과 약사", 0, POLITE, PLAIN),
    Relation("minjae", "seoa", "전령과 검사", 0, POLITE, PLAIN),
    Relation("dohyeon", "jinu", "제자와 스승", 0, POLITE, PLAIN),
    Relation("seoa", "dohyeon", "낯선 사이", 0, POLITE, POLITE),
    Relation("seoa", "dohyeon", "연인", 0.35, PLAIN, PLAIN),
    Relation("nayeon", "dohyeon", "공주와 신하", 0, PLAIN, POLITE),
]

# ------------------------------------------------------------------------------ Korean
_JOSA = {"은": ("은", "는"), "이": ("이", "가"), "을": ("을", "를"), "과": ("과", "와"),
         "으로": ("으로", "로"), "아": ("아", "야")}


def _batchim(word: str) -> int:
    last = word[-1]
    return (ord(last) - 0xAC00) % 28 if "가" <= last <= "힣" else 0


def josa(word: str, kind: str) -> str:
    """``word`` with the particle ``kind`` in the form its last syllable takes (은/는 ...)."""
    with_final, without = _JOSA[kind]
    final = _batchim(word)
    if kind == "으로" and final == 8:  # ㄹ takes 로
        return word + "로"
    return word + (with_final if final else without)


def fill(template: str, **names: str) -> str:
    """``template`` with ``{a}``/``{a|은}`` replaced by the name (and its particle)."""
    out = template
    for key, value in names.items():
        for kind in _JOSA:
            out = out.replace("{" + key + "|" + kind + "}", josa(value, kind))
        out = out.replace("{" + key + "}", value)
    return out


NARRATION = [
    "{a|은} 창가에 기대어 {p}의 지붕들을 내려다보았다. 저녁 연기가 낮게 깔려 있었고, 어디선가 개 "
    "짖는 소리가 들려왔다. 하루가 또 이렇게 저물고 있었다.",
    "{a|은} 말없이 찻잔을 돌렸다. 식은 차 위로 등불이 흔들렸다. 생각이 많은 밤이었고, 답은 쉽게 "
    "나오지 않았다.",
    "{a|은} 칼집의 끈을 다시 묶었다. 손끝이 기억하는 매듭이었다. 오래된 습관은 마음을 조금 "
    "가라앉혀 주었다.",
    "바람이 방향을 바꾸었다. {p}의 골목마다 깃발이 펄럭였고, 상인들은 서둘러 좌판을 거두었다. "
    "{a|은} 옷깃을 여미며 그 사이를 지나갔다.",
    "{a|과} {b|은} 한동안 아무 말도 하지 않았다. 침묵이 길어질수록 서로의 숨소리가 또렷해졌다. "
    "먼저 입을 연 것은 결국 {b} 쪽이었다.",
    "{a|은} 지도 위에 손가락을 올려 길을 짚었다. 강을 건너고, 고개를 넘고, 다시 숲을 지나야 하는 "
    "길이었다. 어느 하나 만만한 곳이 없었다.",
    "멀리서 종이 울렸다. {p}의 사람들은 그 소리에 맞추어 하루를 접었다. {a|은} 종소리가 다 "
    "사라질 때까지 그 자리에 서 있었다.",
    "{a|은} {b|을} 힐끗 보았다. {b|은} 무언가를 숨기고 있는 얼굴이었다. 그러나 {a|은} 캐묻지 "
    "않았다. 때가 되면 말해 줄 것이라고 믿었다.",
    "빗방울이 처마 끝에서 떨어졌다. {a|은} 젖은 소매를 털며 안으로 들어섰다. 화로 곁에는 이미 "
    "{b|이} 앉아 손을 녹이고 있었다.",
    "{a|은} 오래전 들은 말을 떠올렸다. 칼은 손이 아니라 마음이 먼저 움직인다는 말이었다. 그 말의 "
    "뜻을 이제야 조금 알 것 같았다.",
    "{p}의 아침은 일찍 시작되었다. 물지게를 진 사람들이 오갔고, 아이들이 그 사이를 뛰어다녔다. "
    "{a|은} 그 풍경을 오래 바라보았다.",
    "{a|은} 붓을 들어 짧은 글을 쓰다 말고 종이를 접었다. 아직은 남길 때가 아니라고 생각했다. "
    "접은 종이는 품속 깊이 넣어 두었다.",
    "해가 기울자 담장의 그림자가 길게 늘어졌다. {a|은} 그림자의 끝을 밟으며 천천히 걸었다. "
    "발소리가 돌바닥에 또박또박 울렸다.",
    "{a|은} 주먹을 쥐었다 폈다. 지난밤의 피로가 아직 어깨에 남아 있었다. 그래도 멈출 수는 "
    "없었다. 해야 할 일이 너무 많았다.",
    "{b|은} 등잔 심지를 돋우었다. 불빛이 커지자 벽에 걸린 낡은 지도가 드러났다. {a|은} 그 "
    "앞으로 다가가 오래 들여다보았다.",
    "{a|은} 낮게 한숨을 쉬었다. 일이 이렇게 꼬일 줄은 몰랐다. 하지만 후회한다고 달라질 것은 "
    "없었다. {a|은} 다시 고개를 들었다.",
    "{p}에는 낯선 사람들이 부쩍 늘어 있었다. {a|은} 그들의 신발과 짐을 눈여겨보았다. 먼 길을 "
    "온 사람들의 차림이었다.",
    "{a|과} {b|은} 나란히 걸었다. 누가 먼저랄 것도 없이 걸음이 느려졌다. 이야기할 것이 많았지만 "
    "둘 다 쉽게 꺼내지 못했다.",
    "밤이 깊어지자 {p}에도 정적이 내려앉았다. 풀벌레 소리만 간간이 들렸다. {a|은} 잠들지 못하고 "
    "뒤척였다.",
    "{a|은} 손에 쥔 작은 돌을 만지작거렸다. 어릴 적부터 지니고 다닌 것이었다. 돌은 언제나처럼 "
    "차갑고 매끄러웠다.",
    "{b|은} 보따리를 풀어 마른 떡과 말린 감을 꺼냈다. {a|은} 고맙다는 말 대신 고개를 한 번 "
    "숙였다. 둘은 말없이 끼니를 때웠다.",
    "구름이 달을 가렸다가 다시 내놓았다. {a|은} 그 빛을 따라 고개를 들었다. 하늘은 생각보다 "
    "넓었고, 별은 생각보다 멀었다.",
    "{a|은} 소맷자락에서 먼지를 털어 냈다. 오늘도 길은 멀었고 몸은 무거웠다. 그래도 {p}에 "
    "돌아오니 마음이 조금 놓였다.",
    "{a|은} 책상 위에 흩어진 문서를 한데 모았다. 글자마다 누군가의 사정이 묻어 있었다. 쉽게 "
    "넘길 수 있는 장은 하나도 없었다.",
]
DIALOGUE = [
    ("오늘은 바람이 찹니다.", "오늘은 바람이 차."),
    ("그 일은 제가 맡겠습니다.", "그 일은 내가 맡을게."),
    ("조금만 더 기다려 주십시오.", "조금만 더 기다려."),
    ("길이 생각보다 멉니다.", "길이 생각보다 멀어."),
    ("무슨 일이 있었습니까?", "무슨 일 있었어?"),
    ("저는 괜찮습니다.", "나는 괜찮아."),
    ("내일 아침에 떠나겠습니다.", "내일 아침에 떠날 거야."),
    ("그 말을 믿어도 되겠습니까?", "그 말 믿어도 돼?"),
    ("누군가 우리를 지켜보고 있습니다.", "누가 우리를 지켜보고 있어."),
    ("지금은 쉬셔야 합니다.", "지금은 좀 쉬어."),
    ("이 길이 맞는지 모르겠습니다.", "이 길이 맞는지 모르겠어."),
    ("먼저 가 계십시오. 곧 따라가겠습니다.", "먼저 가. 곧 따라갈게."),
    ("그 사람을 다시 만나 보겠습니다.", "그 사람 다시 만나 볼게."),
    ("오늘 밤은 여기서 묵어야겠습니다.", "오늘 밤은 여기서 묵자."),
    ("생각보다 일이 커졌습니다.", "생각보다 일이 커졌어."),
    ("아무에게도 말하지 마십시오.", "아무한테도 말하지 마."),
]
REACTION = [
    "{b|은} 잠시 생각하다가 고개를 끄덕였다.", "{b|은} 대답 대신 작게 웃었다.",
    "{b|은} 눈을 가늘게 뜨고 {a|을} 바라보았다.", "{b|은} 손을 멈추고 천천히 돌아섰다.",
]


def dialogue(rng: random.Random, a: str, b: str, level: str) -> str:
    """A paragraph: ``a`` says a line to ``b`` at ``level``, and ``b`` reacts."""
    line = rng.choice(DIALOGUE)[0 if level == POLITE else 1]
    reaction = fill(rng.choice(REACTION), a=SHORT[a], b=SHORT[b])
    return f"{josa(SHORT[a], '이')} {SHORT[b]}에게 말했다. “{line}” {reaction}"


# ------------------------------------------------------------------------------ the plan
@dataclass
class Para:
    """One paragraph: its text in the dirty serial and in the clean twin, and what it is."""

    dirty: str
    clean: str
    tag: str = ""
    """``plant:<subtype>``, ``source:<subtype>``, ``state:..``, ``rule:..``, ``thread:..``."""


@dataclass(frozen=True)
class Event:
    """A paragraph the plan puts at ``at`` (a fraction of the serial), in one twin or both."""

    at: float
    tag: str
    dirty: str
    clean: str | None = None


@dataclass
class Plant:
    """A planted contradiction as the truth records it."""

    subtype: str
    category: str
    deterministic: bool
    episode: int
    paragraph: int
    quote: str
    clean_quote: str
    source_episode: int
    source_paragraph: int
    source_quote: str


SUBTYPES: dict[str, tuple[str, bool]] = {
    "memory_contradiction": ("characterization", False),
    "knowledge_conflict": ("characterization", False),
    "skill_power_fluctuation": ("characterization", False),
    "forgotten_ability": ("characterization", False),
    "appearance": ("factual", False),
    "nomenclature": ("factual", True),
    "quantity": ("factual", True),
    "perspective": ("narrative_style", False),
    "tone": ("narrative_style", False),
    "style_break": ("narrative_style", False),
    "time_contradiction": ("timeline_plot", False),
    "duration": ("timeline_plot", False),
    "causality": ("timeline_plot", False),
    "abandoned_thread": ("timeline_plot", True),
    "rule_violation": ("world_building", False),
    "social_norm": ("world_building", False),
    "geography": ("world_building", True),
    "speech_level": ("characterization", True),
    "dead_character": ("characterization", True),
}
"""Each planted subtype: its ConStory-Bench category, and whether the memory alone can decide it
(issue 42's deterministic checks) or it needs the reviewer model."""

SOURCES = {"dead_character": "state:mujin:dead", "tone": "state:mujin:dead",
           "perspective": "source:appearance", "style_break": "source:appearance"}
"""What a plant contradicts where it is not a ``source:<subtype>`` paragraph: a death, or the
serial's own narration (third person, past tense, written register) as it opens."""

# When things happen, as a fraction of the serial (the state timeline the plants lean on).
INJURY, HEALED, LOVERS, DEATH, FUNERAL, DEPART, ARRIVE, SNOW = (
    0.30, 0.38, 0.35, 0.45, 0.46, 0.55, 0.56, 0.62)


def events() -> list[Event]:
    """Every paragraph the plan puts in the serial (truth, sources and plants)."""
    e = Event
    return [
        # --- introductions, appearance, rules (sources)
        e(0.0, "source:appearance", "한서아는 북문 수비대의 검사였다. 왼쪽 눈썹 위에 가느다란 "
          "흉터가 있었고, 잿빛 눈은 웃을 때조차 차가워 보였다. "
          "사람들은 그녀를 북문의 검이라 불렀다."),
        e(0.0, "source:nomenclature", "수비대를 이끄는 것은 백무진이었다. 은발에 키가 큰 사내로, "
          "바람의 냄새만 맡고도 내일 날씨를 맞혔다. 대원들은 그를 백 대주라 불렀다."),
        e(0.001, "source:speech_level", "민재가 하린에게 말했다. “약초를 받아 왔습니다. 말씀하신 "
          "만큼 다 챙겼습니다.” 하린은 보따리를 받아 들고 아이의 머리를 쓰다듬었다."),
        e(0.002, "source:forgotten_ability", "윤하린은 달우물 사원의 약사였다. 그녀가 상처에 손을 "
          "얹으면 살이 천천히 아물었다. 다만 그 힘은 해가 떠 있는 동안에만 깃들었다."),
        e(0.003, "source:rule_violation", "이 나라의 마력은 해가 지면 잠든다. 해가 진 뒤에는 "
          "누구도 마력을 쓸 수 없다. 그것이 이 땅의 오래된 법칙이었다."),
        e(0.004, "source:social_norm", "평민은 왕궁 안에서 칼을 찰 수 없었다. 궁문에서 칼을 맡기는 "
          "것이 법이었고, 그 법을 어긴 자는 그 자리에서 끌려 나갔다."),
        e(0.005, "source:duration", "왕도에서 북방 요새까지는 말을 달려도 열흘이 걸렸다. 중간에 "
          "쉬어 갈 마을도 드물어, 그 길을 가는 사람은 열흘 치 식량을 챙겨야 했다."),
        e(0.006, "source:quantity", "재상은 장부를 덮으며 말했다. 왕실 금고에 남은 금화는 삼백 "
          "냥뿐이었다. 그 돈으로 겨울을 나야 했다."),
        e(0.03, "source:memory_contradiction", "서아와 하린은 열두 살 되던 해, 달우물 사원의 "
          "우물가에서 처음 만났다. 물을 긷다 넘어진 하린을 서아가 일으켜 준 것이 시작이었다."),
        e(0.04, "source:skill_power_fluctuation", "서아의 검기는 열 걸음 밖의 촛불을 끌 만큼 "
          "자라 있었다. 그러나 그 이상은 아무리 애써도 닿지 않았다. "
          "스승은 서두르지 말라고만 했다."),
        # --- threads
        e(0.05, "thread:bronze_box:planted", "서고 맨 안쪽 선반에서 진우는 봉인된 청동 상자를 "
          "찾아냈다. 상자에는 열쇠 구멍이 없었다. 그는 상자를 다시 제자리에 두었다."),
        e(0.10, "thread:ring:planted", "왕자가 사라진 날 밤, 왕자의 반지도 함께 사라졌다고 "
          "나연 공주는 말했다. 반지를 찾는 자에게 상을 내리겠다는 방이 붙었다."),
        e(0.15, "source:abandoned_thread", "달우물 사원의 우물 밑에서 누군가 이름을 부르는 "
          "소리가 들린다는 소문이 돌았다. 하린은 그 소리를 직접 들었다고 했다."),
        e(0.20, "thread:bronze_box:touched", "진우는 다시 청동 상자를 꺼내 보았다. 봉인 위의 "
          "문양이 고대 문자라는 것을 알아보았지만, 아직 뜻은 읽히지 않았다."),
        e(0.22, "source:knowledge_conflict", "진우는 서고 깊은 곳의 기록을 맞추어 보다가 왕자의 "
          "반지가 가짜라는 것을 알아냈다. 그는 이 사실을 아무에게도 말하지 않았다."),
        # --- states
        e(INJURY, "state:minjae:injured", "골목을 달리던 민재가 무너진 담장에 깔렸다. 왼쪽 다리가 "
          "부러져 민재는 한동안 걸을 수 없게 되었다."),
        e(LOVERS, "relation:seoa:dohyeon:lovers", "그날 밤 도현은 서아에게 마음을 털어놓았다. "
          "서아는 오래 망설이다 그의 손을 잡았다. 둘은 그날부터 서로에게 말을 놓았다."),
        e(HEALED, "state:minjae:healed", "하린이 매일 아침 민재의 다리에 손을 얹은 지 여드레 "
          "만에 뼈가 붙었다. 민재는 다시 골목을 달릴 수 있게 되었다."),
        e(0.40, "plant:speech_level", "민재가 하린에게 말했다. “약초 다 떨어졌어. 내가 가서 구해 "
          "올게.” 하린은 아이의 등을 떠밀며 조심하라고 일렀다.",
          "민재가 하린에게 말했다. “약초가 다 떨어졌습니다. 제가 가서 구해 오겠습니다.” 하린은 "
          "아이의 등을 떠밀며 조심하라고 일렀다."),
        e(0.42, "plant:nomenclature", "백무신은 성문 위에서 바람의 방향을 살폈다. 내일은 비가 "
          "올 것이라고 그는 짧게 말했다.",
          "백무진은 성문 위에서 바람의 방향을 살폈다. 내일은 비가 올 것이라고 그는 짧게 말했다."),
        e(0.43, "plant:knowledge_conflict", "민재가 서아에게 말했다. “그 반지가 가짜라는 건 이제 "
          "다들 아는 일이잖아요.” 서아는 대꾸하지 않고 창밖을 보았다.",
          "민재가 서아에게 말했다. “그 반지가 정말 왕자님의 것일까요?” 서아는 대꾸하지 않고 "
          "창밖을 보았다."),
        e(DEATH, "state:mujin:dead", "흑랑의 칼이 백무진의 가슴을 꿰뚫었다. 그는 북문 계단에 "
          "주저앉아 마지막 숨을 몰아쉬었다. 백무진은 그렇게 죽었다."),
        e(FUNERAL, "plant:tone", "백무진의 장례식은 신나는 잔치 같았다. 사람들은 깔깔 웃으며 "
          "술잔을 부딪쳤고, 누군가 관 위에 올라가 춤을 추었다. 정말이지 배꼽 빠지게 웃긴 "
          "하루였다!",
          "백무진의 장례식은 조용했다. 사람들은 고개를 숙인 채 술잔을 비웠고, 누군가 낮게 "
          "만가를 불렀다. 서아는 끝내 울지 않았다."),
        e(0.48, "plant:quantity", "재상은 금고 문을 열어 보였다. 그동안 한 푼도 쓰지 않은 "
          "금고에는 금화 오백 냥이 쌓여 있었다.",
          "재상은 금고 문을 열어 보였다. 그동안 한 푼도 쓰지 않은 금고에는 금화 삼백 냥이 "
          "쌓여 있었다."),
        e(0.50, "plant:memory_contradiction", "서아는 하린을 처음 만났던 은빛 항구의 부둣가를 "
          "떠올렸다. 그때의 하린은 지금보다 훨씬 작고 겁이 많았다.",
          "서아는 하린을 처음 만났던 달우물 사원의 우물가를 떠올렸다. 그때의 하린은 지금보다 "
          "훨씬 작고 겁이 많았다."),
        e(0.52, "plant:causality", "서아는 도현이 보낸 편지를 읽고서야 북으로 갈 마음을 "
          "굳혔다. 편지에는 요새가 위태롭다는 말뿐이었다.",
          "서아는 누구의 부름도 받지 않은 채 스스로 북으로 갈 마음을 굳혔다. 요새가 위태롭다는 "
          "소문만으로 충분했다."),
        e(0.53, "source:causality", "도현은 그날 밤 처음으로 서아에게 보낼 편지를 썼다. 몇 번을 "
          "고쳐 쓰고서야 붓을 내려놓았다."),
        e(DEPART, "state:north:depart", "서아와 도현과 하린은 왕도를 떠나 북방 요새로 향했다. "
          "북문을 나서는 그들을 민재가 오래 배웅했다."),
        e(ARRIVE, "plant:duration", "서아 일행은 왕도를 떠난 지 이틀 만에 북방 요새에 닿았다. "
          "성벽은 낡았고 병사들은 지쳐 있었다.",
          "서아 일행은 왕도를 떠난 지 열흘 만에 북방 요새에 닿았다. 성벽은 낡았고 병사들은 "
          "지쳐 있었다."),
        e(0.58, "plant:perspective", "나는 성벽 위에 서서 북쪽을 바라보았다. 내 손은 떨리고 "
          "있었다. 이곳에서 누군가를 또 잃을 수는 없었다.",
          "서아는 성벽 위에 서서 북쪽을 바라보았다. 그녀의 손은 떨리고 있었다. 이곳에서 누군가를 "
          "또 잃을 수는 없었다."),
        e(0.60, "plant:appearance", "등불 아래에서 서아의 오른쪽 눈썹 위 흉터가 유난히 붉어 "
          "보였다. 도현은 그 흉터에서 눈을 떼지 못했다.",
          "등불 아래에서 서아의 왼쪽 눈썹 위 흉터가 유난히 붉어 보였다. 도현은 그 흉터에서 "
          "눈을 떼지 못했다."),
        e(SNOW, "source:time_contradiction", "아침부터 첫눈이 내렸다. 북방의 겨울이 시작된 "
          "것이다. 병사들은 성벽 위의 눈을 쓸어 내렸다."),
        e(SNOW + 0.0001, "plant:time_contradiction", "그날 오후, 벚꽃이 흩날리는 봄볕 아래에서 "
          "하린은 요새 마당에 약초를 널어 말렸다.",
          "그날 오후, 눈발이 흩날리는 찬바람 속에서 하린은 요새 병영 안에 약초를 널어 말렸다."),
        e(0.64, "plant:skill_power_fluctuation", "서아가 검을 휘두르자 검기가 백 걸음 밖 망루의 "
          "깃대를 베어 넘겼다. 병사들이 입을 벌렸다.",
          "서아가 검을 휘두르자 검기가 열 걸음 앞으로 날아드는 화살을 쳐 냈다. 병사들이 "
          "숨을 삼켰다."),
        e(0.66, "plant:forgotten_ability", "한낮의 정찰에서 돌아온 병사의 팔이 깊게 베여 "
          "있었다. 하린에게는 상처를 치료할 방법이 없었다. 그들은 피가 멎기만을 기다렸다.",
          "한낮의 정찰에서 돌아온 병사의 팔이 깊게 베여 있었다. 하린이 상처에 손을 얹자 "
          "벌어진 살이 천천히 붙었다."),
        e(0.68, "plant:style_break", "그래서 서아는요, 진짜 완전 화가 나서 요새 문을 확 "
          "열어 버렸어요. 대박이죠? ㅋㅋ 다들 완전 놀람.",
          "서아는 분을 누르지 못하고 요새 문을 거칠게 열어젖혔다. 병사들이 놀라 물러섰다."),
        e(0.70, "plant:rule_violation", "자정이 넘은 시각, 태석은 마력을 끌어올려 손바닥 위에 "
          "푸른 불꽃을 피웠다. 그 빛으로 그는 지도를 읽었다.",
          "자정이 넘은 시각, 태석은 마력 대신 부싯돌을 쳐 불을 피웠다. 그 빛으로 그는 "
          "지도를 읽었다."),
        e(0.72, "plant:social_norm", "평민인 민재는 허리에 칼을 찬 채 왕궁 안뜰을 가로질렀다. "
          "아무도 그를 막지 않았다.",
          "민재는 궁문에서 칼을 맡기고 빈손으로 왕궁 안뜰을 가로질렀다. 문지기가 고개를 "
          "끄덕였다."),
        e(0.74, "source:geography", "서아는 요새 성벽 위에서 밤새 북쪽 능선을 지켰다. 횃불 "
          "하나 없는 어둠 속에서 그녀는 한 번도 자리를 뜨지 않았다."),
        e(0.7401, "plant:geography", "같은 시각, 서아는 왕도 서문 시장의 국밥집에서 민재와 마주 "
          "앉아 있었다. 국밥은 식어 가고 있었다.",
          "같은 시각, 왕도 서문 시장의 국밥집에서는 민재가 홀로 국밥을 먹고 있었다. 국밥은 "
          "식어 가고 있었다."),
        e(0.76, "thread:ring:paid_off", "진우가 서고에서 찾아낸 기록으로, 사라진 왕자의 반지가 "
          "처음부터 가짜였다는 것이 밝혀졌다. 진짜 반지는 왕자가 직접 묻었다."),
        e(0.80, "plant:dead_character", "요새의 문이 열리고 백무진이 들어왔다. 그는 말없이 "
          "서아의 어깨를 두드리고 화로 곁에 앉았다.",
          "요새의 문이 열리고 찬바람이 들어왔다. 서아는 백무진의 낡은 칼을 꺼내 닦으며 그가 "
          "살아 있었다면 뭐라고 했을지 생각했다."),
        e(0.85, "thread:bronze_box:paid_off", "청동 상자의 봉인이 마침내 풀렸다. 진우가 "
          "밤새 풀어낸 해독문대로 고대 문자를 읽자 상자가 열렸고, "
          "그 안에는 선왕의 유언장이 있었다."),
        # --- the thread the dirty serial abandons (the clean twin touches and pays it off)
        e(0.35 + 0.003, "thread:well_voice:touched", "달우물 사원에 다시 간 하린은 우물 밑에서 "
          "들려오는 목소리가 전보다 또렷해졌다고 느꼈다. 목소리는 같은 이름을 불렀다.",
          "달우물 사원에 다시 간 하린은 우물가의 이끼를 걷어 내고 새 두레박을 달았다."),
        e(0.90, "thread:well_voice:paid_off", "우물 밑의 목소리는 오래전 우물에 빠진 왕자의 "
          "메아리였다. 하린이 우물에 내려가 그 이름을 불러 주자 목소리는 그쳤다.",
          "달우물 사원의 우물은 그해 겨울에도 얼지 않았다. 하린은 우물물로 약을 달였다."),
    ]


def place(at: float, n: int) -> int:
    """The episode (1-based) a fraction of the serial falls in (``[0, 1/n)`` is episode 1);
    two events a hair apart (``at`` and ``at + 0.0001``) fall in the same one."""
    return min(n, max(1, math.floor(at * n) + 1))


def _swap(event: Event) -> Event:
    """The abandoned thread: the clean twin has the thread's lines, the dirty one the filler."""
    if event.tag.startswith("thread:well_voice") and event.clean is not None:
        return Event(event.at, event.tag, event.clean, event.dirty)
    return event


# ------------------------------------------------------------------------------ generation
@dataclass
class EpisodeText:
    number: int
    title: str
    scenes: list[list[Para]]

    def paragraphs(self, twin: str) -> list[str]:
        return [getattr(p, twin) for s in self.scenes for p in s]

    def characters(self, twin: str) -> int:
        return sum(len(p.strip()) for p in self.paragraphs(twin))


EPISODE_TITLES = ["북문", "달우물", "청동 상자", "흉터", "금고", "편지", "그림자", "첫눈", "요새",
                  "서약", "국밥", "두레박", "망루", "만가", "반지", "바람", "돌다리", "전령"]


@dataclass
class Serial:
    seed: int
    episodes: list[EpisodeText]
    plan: list[tuple[int, Event]] = field(default_factory=list)

    # -- the truth -----------------------------------------------------------------------
    def where(self, tag: str) -> tuple[int, int, str, str]:
        """``(episode, paragraph, dirty, clean)`` of the paragraph tagged ``tag``."""
        for ep in self.episodes:
            for index, para in enumerate(p for s in ep.scenes for p in s):
                if para.tag == tag:
                    return ep.number, index + 1, para.dirty, para.clean
        raise KeyError(tag)

    def plants(self) -> list[Plant]:
        out = []
        for subtype, (category, deterministic) in SUBTYPES.items():
            if subtype == "abandoned_thread":
                # where the clean twin comes back to the thread, the dirty one does not
                e0, p0, q0, _ = self.where("source:abandoned_thread")
                e1, p1, q1, c1 = self.where("thread:well_voice:touched")
                out.append(Plant(subtype, category, deterministic, e1, p1, q1, c1, e0, p0, q0))
                continue
            e1, p1, q1, c1 = self.where(f"plant:{subtype}")
            source = SOURCES.get(subtype, f"source:{subtype}")
            e0, p0, q0, _ = self.where(source)
            out.append(Plant(subtype, category, deterministic, e1, p1, q1, c1, e0, p0, q0))
        return out

    def _at(self, tag: str) -> dict[str, Any]:
        e, p, text, _ = self.where(tag)
        return {"episode": e, "paragraph": p, "quote": text}

    def truth(self) -> dict[str, Any]:
        """Everything the serial holds, for both twins (JSON-ready)."""
        n = len(self.episodes)
        relations = []
        for r in RELATIONS:
            item = {"a": NAME[r.a], "b": NAME[r.b], "relation": r.relation,
                    "since_episode": place(r.since, n) if r.since else 1,
                    "speech": {f"{NAME[r.a]}->{NAME[r.b]}": r.a_to_b,
                               f"{NAME[r.b]}->{NAME[r.a]}": r.b_to_a}}
            if r.since:
                item["at"] = self._at("relation:seoa:dohyeon:lovers")
            relations.append(item)
        states = [
            {"character": NAME["minjae"], "state": "injured (왼쪽 다리 골절)",
             **self._at("state:minjae:injured")},
            {"character": NAME["minjae"], "state": "healed", **self._at("state:minjae:healed")},
            {"character": NAME["mujin"], "state": "dead", **self._at("state:mujin:dead")},
            *({"character": NAME[c], "state": "moved: 왕도 -> 북방 요새 (departs)",
               **self._at("state:north:depart")} for c in NORTH_GROUP),
        ]
        rules = [{"kind": k, **self._at(f"source:{s}")} for k, s in (
            ("rule", "rule_violation"), ("social_norm", "social_norm"),
            ("distance", "duration"), ("quantity", "quantity"))]

        def threads(twin: str) -> list[dict[str, Any]]:
            out = []
            for key, planted in (("bronze_box", "thread:bronze_box:planted"),
                                 ("ring", "thread:ring:planted"),
                                 ("well_voice", "source:abandoned_thread")):
                item: dict[str, Any] = {"thread": key, "planted": self._at(planted),
                                        "touched": [], "paid_off": None}
                for tag in (f"thread:{key}:touched", f"thread:{key}:paid_off"):
                    try:
                        e, p, dirty, clean = self.where(tag)
                    except KeyError:
                        continue
                    if key == "well_voice" and twin == "dirty":
                        continue  # the dirty serial never comes back to it
                    text = clean if twin == "clean" else dirty
                    spot = {"episode": e, "paragraph": p, "quote": text}
                    if tag.endswith("touched"):
                        item["touched"].append(spot)
                    else:
                        item["paid_off"] = spot
                out.append(item)
            return out

        def episodes(twin: str) -> list[dict[str, Any]]:
            return [{"number": ep.number, "title": ep.title,
                     "paragraphs": len(ep.paragraphs(twin)), "scenes": len(ep.scenes),
                     "characters": ep.characters(twin), "first_line": ep.paragraphs(twin)[0]}
                    for ep in self.episodes]

        return {
            "title": TITLE, "seed": self.seed, "episodes": n,
            "cast": [{k: v for k, v in c.items() if k != "id"} for c in CAST],
            "places": {"왕도": CAPITAL_PLACES, "북방 요새": NORTH_PLACES},
            "rules": rules, "states": states, "relations": relations,
            "dirty": {"episodes": episodes("dirty"), "threads": threads("dirty"),
                      "contradictions": [asdict(p) for p in self.plants()]},
            "clean": {"episodes": episodes("clean"), "threads": threads("clean"),
                      "contradictions": []},
        }


def _present(number: int, n: int, scene: int) -> tuple[str, list[str]]:
    """Where a filler scene of episode ``number`` takes place and who is there: the living (the
    dead from the episode they die in), in that city (the travellers in neither from the
    episode they leave until the one after they arrive)."""
    alive = [c["id"] for c in CAST
             if c["id"] != "taeseok" and not (c["id"] == "mujin" and number >= place(DEATH, n))]
    if number > place(ARRIVE, n) and scene % 2 == 0:
        return "north", [c for c in alive if c in NORTH_GROUP]
    if number >= place(DEPART, n):
        return "capital", [c for c in alive if c not in NORTH_GROUP]
    return "capital", alive


def _level(a: str, b: str, number: int, n: int) -> str | None:
    """The speech level ``a`` uses to ``b`` in episode ``number`` (the latest relation), else
    ``None`` (no relation, or it changes in this very episode: no filler line then)."""
    found = None
    for r in RELATIONS:
        if {r.a, r.b} != {a, b}:
            continue
        since = place(r.since, n) if r.since else 0
        if since == number:
            return None
        if since < number:
            found = r.a_to_b if r.a == a else r.b_to_a
    return found


def generate(n_episodes: int = 100, seed: int = 42) -> Serial:
    """The serial of ``n_episodes`` episodes (at least 5), the same for the same seed."""
    if n_episodes < 5:
        raise ValueError("a serial of at least 5 episodes")
    plan = sorted(((place(ev.at, n_episodes), _swap(ev)) for ev in events()),
                  key=lambda item: (item[0], item[1].at))
    out: list[EpisodeText] = []
    for number in range(1, n_episodes + 1):
        rng = random.Random(f"{seed}:{number}")
        fixed = [ev for ep, ev in plan if ep == number]
        scenes: list[list[Para]] = [[] for _ in range(SCENES)]
        for index, ev in enumerate(fixed):  # spread over the scenes, in order
            scenes[index * SCENES // max(1, len(fixed))].append(
                Para(ev.dirty, ev.clean if ev.clean is not None else ev.dirty, ev.tag))
        size = sum(len(p.dirty) for s in scenes for p in s)
        scene = 0
        while size < TARGET - 60:
            city, present = _present(number, n_episodes, scene)
            spot = rng.choice(NORTH_PLACES if city == "north" else CAPITAL_PLACES)
            a, b = rng.sample(present, 2)
            level = _level(a, b, number, n_episodes)
            if level is not None and rng.random() < 0.4:
                text = dialogue(rng, a, b, level)
            else:
                text = fill(rng.choice(NARRATION), a=SHORT[a], b=SHORT[b], p=spot)
            target = scenes[scene]
            # anywhere among the scene's planned paragraphs (their order stays)
            target.insert(rng.randint(0, len(target)), Para(text, text))
            size += len(text)
            scene = (scene + 1) % SCENES
        title = EPISODE_TITLES[(number * 7 + seed) % len(EPISODE_TITLES)]
        out.append(EpisodeText(number, title, [s for s in scenes if s]))
    return Serial(seed, out, plan)


# ------------------------------------------------------------------------------ writing
HEADINGS = {
    "hwa": ("{n}화 {title}", "{n}화"),
    "je_hwa": ("제{n}화 - {title}", "제{n}화"),
    "ep": ("EP.{n} {title}", "EP.{n}"),
    "hash": ("#{n} {title}", "#{n}"),
    "zero": ("{n:03d}", "{n:03d}"),
}
"""Heading forms (with the episode's title, and without)."""
BREAKS = {"stars": "***", "diamond": "◆", "blank": ""}
"""Scene breaks (``blank``: a run of three blank lines between scenes)."""
FORMATS = ("txt-utf8", "txt-cp949", "docx", "epub", "folder")


@dataclass(frozen=True)
class Layout:
    """How one format writes headings and scene breaks."""

    heading: str
    titled: bool
    scene_break: str

    def heading_text(self, ep: EpisodeText) -> str:
        form = HEADINGS[self.heading][0 if self.titled else 1]
        return form.format(n=ep.number, title=ep.title)


def layouts(seed: int) -> dict[str, Layout]:
    """Each format's heading form and scene break: every heading form used once, seeded."""
    rng = random.Random(f"layouts:{seed}")
    forms = list(HEADINGS)
    rng.shuffle(forms)
    return {fmt: Layout(form, rng.random() < 0.6 and form != "zero",
                        rng.choice(list(BREAKS)))
            for fmt, form in zip(FORMATS, forms, strict=True)}


def _txt_lines(ep: EpisodeText, twin: str, layout: Layout) -> list[str]:
    lines = [layout.heading_text(ep), ""]
    for index, scene in enumerate(ep.scenes):
        if index:
            lines += ["", ""] if layout.scene_break == "blank" else [
                BREAKS[layout.scene_break], ""]
        for para in scene:
            lines += [getattr(para, twin), ""]
    return lines


def write_txt(serial: Serial, twin: str, layout: Layout, path: Path, encoding: str) -> None:
    """One txt file: a title and author (front matter), then every episode."""
    lines = [TITLE, AUTHOR, ""]
    for ep in serial.episodes:
        lines += [*_txt_lines(ep, twin, layout), ""]
    path.write_bytes("\n".join(lines).encode(encoding))


def write_folder(serial: Serial, twin: str, layout: Layout, folder: Path) -> None:
    """One UTF-8 txt file per episode, named as platforms take them (``001화.txt``)."""
    folder.mkdir(parents=True, exist_ok=True)
    for ep in serial.episodes:
        (folder / f"{ep.number:03d}화.txt").write_text("\n".join(_txt_lines(ep, twin, layout)),
                                                       "utf-8")


def write_docx(serial: Serial, twin: str, layout: Layout, path: Path) -> None:
    """A docx: the book's title in the Title style, each episode's heading in Heading 1."""
    import docx

    document = docx.Document()
    document.add_paragraph(TITLE, style="Title")
    document.add_paragraph(AUTHOR)
    for ep in serial.episodes:
        document.add_paragraph(layout.heading_text(ep), style="Heading 1")
        for index, scene in enumerate(ep.scenes):
            if index:
                if layout.scene_break == "blank":
                    document.add_paragraph("")
                    document.add_paragraph("")
                else:
                    document.add_paragraph(BREAKS[layout.scene_break])
            for para in scene:
                document.add_paragraph(getattr(para, twin))
    when = datetime(2026, 1, 1, tzinfo=UTC)
    props = document.core_properties
    props.title, props.author, props.created, props.modified = TITLE, AUTHOR, when, when
    buffer = io.BytesIO()
    document.save(buffer)
    _fixed_zip(buffer.getvalue(), path)


_FIXED = (2026, 1, 1, 0, 0, 0)
"""Every zip entry's time, so that the same serial gives the same bytes."""


def _fixed_zip(data: bytes, path: Path) -> None:
    """``data`` (a zip python-docx wrote, stamped with the clock) rewritten with fixed times."""
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(path, "w") as out:
        for info in source.infolist():
            out.writestr(zipfile.ZipInfo(info.filename, _FIXED), source.read(info),
                         compress_type=zipfile.ZIP_DEFLATED)


_CONTAINER = ('<?xml version="1.0" encoding="UTF-8"?>\n<container version="1.0" '
              'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
              '<rootfile full-path="OEBPS/content.opf" '
              'media-type="application/oebps-package+xml"/></rootfiles></container>')


def _xhtml(title: str, body: str) -> str:
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE html>\n'
            '<html xmlns="http://www.w3.org/1999/xhtml" '
            'xmlns:epub="http://www.idpf.org/2007/ops" lang="ko" xml:lang="ko">'
            f"<head><title>{escape(title)}</title></head><body>{body}</body></html>")


def write_epub(serial: Serial, twin: str, layout: Layout, path: Path) -> None:
    """A minimal EPUB 3 (mimetype first and stored, container, package, nav, one XHTML per
    episode with its heading in ``h2``), written with zipfile."""
    docs: list[tuple[str, str, str]] = []  # (file, heading, xhtml)
    for ep in serial.episodes:
        heading = layout.heading_text(ep)
        body = [f"<h2>{escape(heading)}</h2>"]
        for index, scene in enumerate(ep.scenes):
            if index:
                body += (["<p></p>", "<p></p>"] if layout.scene_break == "blank"
                         else [f'<p class="break">{BREAKS[layout.scene_break]}</p>'])
            body += [f"<p>{escape(getattr(p, twin))}</p>" for p in scene]
        docs.append((f"ep{ep.number:04d}.xhtml", heading, _xhtml(heading, "".join(body))))
    nav = _xhtml(TITLE, '<nav epub:type="toc"><ol>' + "".join(
        f'<li><a href="{f}">{escape(h)}</a></li>' for f, h, _ in docs) + "</ol></nav>")
    manifest = "".join(f'<item id="e{i}" href="{f}" media-type="application/xhtml+xml"/>'
                       for i, (f, _, _) in enumerate(docs))
    spine = "".join(f'<itemref idref="e{i}"/>' for i in range(len(docs)))
    opf = ('<?xml version="1.0" encoding="UTF-8"?>\n<package xmlns="http://www.idpf.org/2007/opf" '
           'version="3.0" unique-identifier="uid" xml:lang="ko"><metadata '
           'xmlns:dc="http://purl.org/dc/elements/1.1/">'
           f'<dc:identifier id="uid">urn:aizac-bench:{serial.seed}:{twin}</dc:identifier>'
           f"<dc:title>{escape(TITLE)}</dc:title><dc:language>ko</dc:language>"
           '<meta property="dcterms:modified">2026-01-01T00:00:00Z</meta></metadata>'
           '<manifest><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" '
           f'properties="nav"/>{manifest}</manifest><spine>{spine}</spine></package>')
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(zipfile.ZipInfo("mimetype", _FIXED), "application/epub+zip",
                   compress_type=zipfile.ZIP_STORED)
        for name, text in (("META-INF/container.xml", _CONTAINER), ("OEBPS/content.opf", opf),
                           ("OEBPS/nav.xhtml", nav), *((f"OEBPS/{f}", x) for f, _, x in docs)):
            z.writestr(zipfile.ZipInfo(name, _FIXED), text, compress_type=zipfile.ZIP_DEFLATED)


def outputs(folder: Path) -> dict[str, Path]:
    """Where :func:`write` puts each format of a twin written to ``folder``."""
    return {"txt-utf8": folder / "serial_utf8.txt", "txt-cp949": folder / "serial_cp949.txt",
            "docx": folder / "serial.docx", "epub": folder / "serial.epub",
            "folder": folder / "episodes"}


def write(serial: Serial, twin: str, folder: Path,
          formats: tuple[str, ...] = FORMATS) -> dict[str, Path]:
    """Write the twin ``twin`` (``dirty`` or ``clean``) in ``formats`` into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    where, lay = outputs(folder), layouts(serial.seed)
    for fmt in formats:
        if fmt == "txt-utf8":
            write_txt(serial, twin, lay[fmt], where[fmt], "utf-8")
        elif fmt == "txt-cp949":
            write_txt(serial, twin, lay[fmt], where[fmt], "cp949")
        elif fmt == "docx":
            write_docx(serial, twin, lay[fmt], where[fmt])
        elif fmt == "epub":
            write_epub(serial, twin, lay[fmt], where[fmt])
        else:
            write_folder(serial, twin, lay[fmt], where[fmt])
    return {fmt: where[fmt] for fmt in formats}


def write_all(serial: Serial, out: Path) -> dict[str, Any]:
    """Both twins in every format, ``truth.json`` and ``layout.json`` under ``out``."""
    written = {twin: write(serial, twin, out / twin) for twin in ("dirty", "clean")}
    (out / "truth.json").write_text(json.dumps(serial.truth(), ensure_ascii=False, indent=1),
                                    "utf-8")
    lay = {fmt: asdict(v) for fmt, v in layouts(serial.seed).items()}
    (out / "layout.json").write_text(json.dumps(lay, ensure_ascii=False, indent=1), "utf-8")
    return {twin: {fmt: str(p) for fmt, p in paths.items()} for twin, paths in written.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=100)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--out", type=Path, default=None,
                        help="folder to write to (default: a new temporary folder)")
    from smoke import parse_args  # bench/smoke.py: the --smoke size

    args = parse_args(parser, episodes=5)
    out = args.out or Path(tempfile.mkdtemp(prefix="aizac-manuscript-"))
    serial = generate(args.episodes, args.seed)
    write_all(serial, out)
    sizes = [ep.characters("dirty") for ep in serial.episodes]
    print(f"{args.episodes} episodes, seed {args.seed}: {sum(sizes):,} characters "
          f"({min(sizes):,}-{max(sizes):,} per episode), {len(SUBTYPES)} planted subtypes "
          f"-> {out}")
    for fmt, lay in layouts(args.seed).items():
        print(f"  {fmt:10} heading {lay.heading}{' + title' if lay.titled else ''}, "
              f"scene break {lay.scene_break}")


if __name__ == "__main__":
    main()
