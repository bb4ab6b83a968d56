"""Text heuristics of the deterministic checks (pure): markers, places, similarity.

Claims and canon are short sentences written by the extractor or the planner (Korean, English
or Chinese). The checks compare them with small marker lists and character-bigram overlap,
which works without word segmentation in every language; names compare by
:func:`aizac.memory.facts.name_key`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from aizac.memory.facts import name_key, text_key

DEATH = (
    "죽었", "죽은", "죽음", "죽게", "사망", "숨졌", "숨을 거", "숨이 끊", "전사했", "전사한",
    "목숨을 잃", "살해당", "살해됐", "처형당", "처형됐", "시신", "유해", "독살", "익사", "사살",
    "참수", "순직", "별세", "타계", "절명", "최후를 맞",
    "dead", "died", "killed", "deceased", "slain", "passed away", "executed", "murdered",
    "drowned", "perished", "beheaded", "succumbed", "lost his life", "lost her life",
    "死了", "死亡", "去世", "身亡", "遇害", "被杀", "阵亡",
)
ALIVE = (
    "살아 있", "살아있", "살아남", "살아났", "부활", "되살아", "목숨을 건졌", "생존",
    "살아 돌아", "살아서 돌아",
    "alive", "survived", "survives", "revived", "came back to life", "not dead",
    "from the dead", "back to life", "resurrect",
    "活着", "复活", "幸存", "没死",
)
ABSENT = (
    "감옥", "수감", "투옥", "갇혀", "갇힌", "감금", "실종", "행방불명", "떠났", "떠나 ",
    "유학", "입대", "혼수", "의식불명", "해외", "추방", "망명", "잠적",
    "prison", "jail", "imprisoned", "locked", "missing", "left for", "abroad", "exiled",
    "coma", "vanished",
    "监狱", "被关", "失踪", "出国", "昏迷", "流放",
)
FLASHBACK = (
    "회상", "과거", "어린 시절", "년 전", "꿈속", "꿈 속",
    "flashback", "years ago", "memory of", "in a dream", "remembered",
    "回忆", "过去", "年前", "梦中",
)
MOURNING = (
    "장례", "무덤", "추모", "묘", "영정", "회상", "그리워", "떠올",
    "funeral", "grave", "mourn", "remember", "memory", "memorial",
    "葬礼", "坟", "悼念", "怀念", "回忆",
)
NEGATION = (
    "않", "아니", "없", "못 ", "못했", "거짓", "가짜",
    " not ", "n't", "cannot", "never", "no longer", "false", "fake", " no ",
    "不", "没", "非", "假",
)
FALSITY = (
    "거짓", "사실이 아니", "헛소문", "낭설", " lie ", " lie.", " a lie", "untrue", "a hoax",
    "was false", "is false", "假的", "谎言", "不是真的",
)
"""Words that call a whole statement false ("...라는 건 거짓이었다", "...was a lie")."""
LEARN = (
    "알게", "알아냈", "알아챘", "들었", "깨달", "눈치챘", "밝혀", "털어놓", "고백",
    "learn", "found out", "discover", "told", "realiz", "overheard", "confess",
    "得知", "发现", "知道了", "告诉",
)
RELATION_LABELS: dict[str, tuple[str, ...]] = {
    "friend": ("친구", "우정", "절친", "friend", "朋友"),
    "enemy": ("원수", "적대", "앙숙", "enemy", "enemies", "hostile", "敌"),
    "lover": ("연인", "사랑", "애인", "lover", "in love", "dating", "恋人", "爱人"),
    "engaged": ("약혼", "engaged", "fiance", "订婚"),
    "married": ("결혼", "부부", "married", "spouse", "结婚", "夫妻"),
    "ally": ("동맹", "협력", "동료", "한편", "ally", "allies", "partner", "盟友", "伙伴"),
    "rival": ("라이벌", "경쟁", "rival", "对手"),
    "betrayed": ("배신", "betray", "背叛"),
    "master": ("스승", "제자", "mentor", "disciple", "师父", "徒弟"),
    "family": ("형제", "자매", "남매", "부모", "아버지", "어머니", "sibling", "brother",
               "sister", "father", "mother", "兄弟", "姐妹"),
    "estranged": ("절교", "멀어", "결별", "헤어", "estranged", "broke up", "分手", "绝交"),
}
_PARTICLES = re.compile(
    r"(에서부터|에서|으로|로|에게|한테|에|의|은|는|이|가|을|를|과|와|도|만|님|씨)$"
)
_SPLIT = re.compile(r"[\s,./·()\[\]{}'\"“”‘’:;!?~\-]+")
_STOP = {"the", "and", "of", "in", "at", "on", "a", "an", "to", "near", "inside", "outside"}


def _norm(text: str) -> str:
    return unicodedata.normalize("NFKC", text or "").casefold()


def has_any(text: str, markers: Iterable[str]) -> bool:
    """Whether ``text`` contains one of ``markers`` (case-folded, NFKC)."""
    t = f" {_norm(text)} "
    return any(m in t for m in markers)


def is_dead(text: str) -> bool:
    """Whether a state text says the character is dead (and not that they survived)."""
    return has_any(text, DEATH) and not has_any(text, ALIVE) and not _negated_death(text)


def _negated_death(text: str) -> bool:
    t = _norm(text)
    return any(p in t for p in ("죽지 않", "죽지않", "죽지 않았", "did not die", "didn't die",
                                "never died", "没有死"))


def is_alive(text: str) -> bool:
    """Whether a state text says the character is alive or back to life."""
    return has_any(text, ALIVE)


def negated(text: str) -> bool:
    """Whether the sentence carries a negation marker."""
    return has_any(text, NEGATION)


def strip_markers(text: str, markers: Iterable[str] = NEGATION) -> str:
    out = _norm(text)
    for m in markers:
        out = out.replace(m.strip(), " ")
    return out


def stems(text: str) -> set[str]:
    """Content-word stems: the first two syllables of a Hangul or Han word, the first five
    letters of a longer Latin word (how "회귀자" and "회귀했다", "lived" and "lives" meet)."""
    out: set[str] = set()
    for raw in _SPLIT.split(_norm(text)):
        key = name_key(raw)
        if key.isascii():
            if len(key) >= 5:
                out.add(key[:5])
        elif len(key) >= 2:
            out.add(key[:2])
    return out


def bigrams(text: str) -> set[str]:
    """Character bigrams of ``text_key(text)`` (a one-character text is its own gram)."""
    key = text_key(text)
    if len(key) < 2:
        return {key} if key else set()
    return {key[i : i + 2] for i in range(len(key) - 1)}


def containment(part: str, whole: str) -> float:
    """The share of ``part``'s bigrams found in ``whole`` (0..1)."""
    grams = bigrams(part)
    return len(grams & bigrams(whole)) / len(grams) if grams else 0.0


def dice(a: str, b: str) -> float:
    """Bigram Dice similarity of two texts (0..1)."""
    ga, gb = bigrams(a), bigrams(b)
    return 2 * len(ga & gb) / (len(ga) + len(gb)) if ga and gb else 0.0


def without_names(text: str, names: Iterable[str]) -> str:
    """``text`` with the given names removed (they are shared by every version of a fact)."""
    out = _norm(text)
    for name in sorted({_norm(n) for n in names if n}, key=len, reverse=True):
        out = out.replace(name, " ")
    return out


def relation_labels(text: str) -> set[str]:
    """The kinds of relation a relation text names (friend, enemy, lover ...)."""
    t = _norm(text)
    return {label for label, words in RELATION_LABELS.items() if any(w in t for w in words)}


def place_tokens(text: str) -> set[str]:
    """The words of a place name, without particles, as comparison keys."""
    out: set[str] = set()
    for raw in _SPLIT.split(_norm(text)):
        word = raw
        if re.search(r"[가-힣]", word) and len(word) > 1:
            word = _PARTICLES.sub("", word) or word
        key = name_key(word)
        if not key or key in _STOP:
            continue
        if key.isascii() and len(key) < 3:
            continue
        out.add(key)
    return out


def same_place(location: str, whereabouts: str, keyword: str = "") -> bool:
    """Whether a scene at ``location`` agrees with a whereabouts text (and its keyword)."""
    where_key = text_key(f"{whereabouts} {keyword}")
    loc_key = text_key(location)
    if keyword and name_key(keyword) and name_key(keyword) in loc_key:
        return True
    return any(tok in where_key for tok in place_tokens(location))


_SUBJECT_KO = ("이 ", "가 ", "은 ", "는 ", "께서 ")


def acts_as_subject(text: str, name: str) -> bool:
    """Whether a sentence opens with ``name`` as its subject ("박철수가 문을 열었다",
    "Victor walked in"), not as an owner ("박철수의 유언장", "Victor's will")."""
    t, n = _norm(text).strip(), _norm(name).strip()
    if not n or not t.startswith(n):
        return False
    rest = t[len(n):]
    if re.match(r"[가-힣]", n[-1:]):
        return rest.startswith(_SUBJECT_KO)
    return rest.startswith(" ") and not rest.startswith(("'s", "’s"))


def mentions(text: str, name: str) -> bool:
    """Whether ``text`` names ``name`` (keys compared, so spacing and case do not matter)."""
    key = name_key(name)
    return bool(key) and key in text_key(text)


__all__ = [
    "FALSITY",
    "acts_as_subject",
    "bigrams",
    "containment",
    "dice",
    "has_any",
    "is_alive",
    "is_dead",
    "mentions",
    "negated",
    "place_tokens",
    "relation_labels",
    "same_place",
    "stems",
    "strip_markers",
    "without_names",
]
