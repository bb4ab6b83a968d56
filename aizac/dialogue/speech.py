"""Speech levels and forms of address in a line of dialogue (pure; word lists in speech.toml).

A line is read sentence by sentence. In Korean the end of each sentence says its level:
``formal`` (하십시오체: -습니다, -ㅂ니까, -십시오), ``polite`` (해요체: -요, -죠) or ``plain``
(반말: -어, -야, -냐, -지 ...); formal and polite are both honorific (존댓말). English and Chinese
have no grammatical levels, so their register comes from markers ("sir", "gonna"; 您, 你).

A *vocative* is how the speaker calls the listener: a title (선배, 회장님, sir), a name
(수아야, 민호 씨, "Mira,") at the start or the end of a sentence, set off by punctuation. A title
with and without 님 is one form (선배 / 선배님); a name with 씨 or 님 is a form of its own.
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from aizac.memory.facts import name_key
from aizac.text.particles import VOCATIVE_PARTICLES

Level = Literal["formal", "polite", "plain"]
LEVELS: tuple[str, ...] = ("formal", "polite", "plain")
HONORIFIC = frozenset({"formal", "polite"})
NAME = "name"
"""The ``value`` of a bare-name address (수아야, "Mira,")."""

_DATA = Path(__file__).with_name("speech.toml")
_SENTENCE = re.compile(r"[^.!?…。！？\n]+[.!?…。！？~]*")
_HANGUL = re.compile(r"[\uac00-\ud7a3]")
_QUOTE_PAIRS = (("“", "”"), ('"', '"'), ("「", "」"), ("『", "』"), ("‘", "’"))


@dataclass(frozen=True)
class Lexicon:
    """The word lists of one language (see speech.toml)."""

    language: str
    formal: tuple[str, ...] = ()
    formal_bieup: tuple[str, ...] = ()
    polite: tuple[str, ...] = ()
    polite_exceptions: tuple[str, ...] = ()
    plain: tuple[str, ...] = ()
    polite_answers: tuple[str, ...] = ()
    plain_answers: tuple[str, ...] = ()
    casual: tuple[str, ...] = ()
    titles: tuple[str, ...] = ()
    honorifics: tuple[str, ...] = ()
    name_suffixes: tuple[str, ...] = ()
    bare_name_suffixes: tuple[str, ...] = ()
    title_suffixes: tuple[str, ...] = ()
    bare_name: tuple[str, ...] = ()
    trailing_letters: tuple[str, ...] = ()
    speech_verbs: tuple[str, ...] = ()
    interjections: tuple[str, ...] = ()
    not_calls: tuple[str, ...] = ()
    same_form: tuple[tuple[str, ...], ...] = ()
    addressee: tuple[str, ...] = ()
    """How narration names the listener of a line (``{name}`` stands for the name)."""

    def form(self, title: str) -> str:
        """The form a title belongs to (the first title of its :attr:`same_form` group)."""
        low = title.casefold()
        for group in self.same_form:
            if low in (g.casefold() for g in group):
                return group[0]
        return title


@functools.cache
def lexicon(language: str) -> Lexicon:
    """The word lists of ``language`` (``ko``, ``en``, ``zh``; another gets English's)."""
    data = tomllib.loads(_DATA.read_text(encoding="utf-8"))
    lang = language if language in data else "en"
    table = dict(data[lang])
    groups = tuple(tuple(g) for g in table.pop("same_form", ()))
    if lang == "ko":  # the vocative particles call the bare name ("수아야")
        table["name_suffixes"] = [*VOCATIVE_PARTICLES, *table["name_suffixes"]]
        table["bare_name_suffixes"] = list(VOCATIVE_PARTICLES)
    fields = {k: tuple(sorted(v, key=len, reverse=True)) for k, v in table.items()}
    return Lexicon(language=lang, same_form=groups, **fields)


_TRAILING = " \t.,!?…~;:\"'“”‘’「」『』()（）[]—―-♡♥^*。，！？、" + "".join(
    lexicon("ko").trailing_letters)


def language_of(text: str, default: str = "en") -> str:
    """``ko`` when the text has Hangul, ``zh`` when it has Han characters, else ``default``."""
    if _HANGUL.search(text):
        return "ko"
    if re.search(r"[\u4e00-\u9fff]", text):
        return "zh"
    return default


def final_consonant(syllable: str) -> int:
    """The final-consonant index (받침, 0 = none) of a Hangul syllable; -1 for anything else."""
    if len(syllable) != 1 or not 0xAC00 <= ord(syllable) <= 0xD7A3:
        return -1
    return (ord(syllable) - 0xAC00) % 28


BIEUP = 17
"""The final-consonant index of ㅂ (합니다, 습니까)."""


_ABBREVIATION = re.compile(r"\b(Mr|Mrs|Ms|Dr|St)\.")


def sentences(line: str) -> list[str]:
    """The sentences of a line (split after . ! ? … and their CJK forms), stripped; the dot
    of "Mr." and the like does not end one (it is dropped)."""
    text = _ABBREVIATION.sub(r"\1", line or "")
    return [s.strip() for s in _SENTENCE.findall(text) if s.strip(_TRAILING)]


def _strip(text: str) -> str:
    return text.strip(_TRAILING)


@dataclass(frozen=True)
class Reading:
    """The level of one line: the majority of its sentences' levels.

    ``evidence`` is the sentence end (or marker) that decided it."""

    level: Level
    evidence: str

    @property
    def honorific(self) -> bool:
        return self.level in HONORIFIC


def _korean_level(sentence: str, lex: Lexicon, vocative_words: Iterable[str]) -> Level | None:
    text = _strip(sentence)
    # A trailing vocative ("잘 가, 누나") is not the sentence's ending.
    if "," in text:
        head, _, tail = text.rpartition(",")
        if _is_vocative_word(_strip(tail), lex, vocative_words):
            text = _strip(head)
    if not text or _is_vocative_word(text, lex, vocative_words):
        return None
    last = text.split()[-1]
    if last in lex.polite_answers and len(text.split()) == 1:
        return "polite"
    if last in lex.plain_answers and len(text.split()) == 1:
        return "plain"
    for end in lex.formal_bieup:
        if (last.endswith(end) and len(last) > len(end)
                and final_consonant(last[-len(end) - 1]) == BIEUP):
            return "formal"
    if any(last.endswith(end) for end in lex.formal):
        return "formal"
    if any(last.endswith(end) for end in lex.polite) and last not in lex.polite_exceptions:
        return "polite"
    if any(last.endswith(end) for end in lex.plain):
        return "plain"
    return None


def _marker_level(sentence: str, lex: Lexicon) -> Level | None:
    low = f" {sentence.casefold()} "
    cjk = lex.language == "zh"

    def has(words: Sequence[str]) -> bool:
        if cjk:
            return any(w in sentence for w in words)
        return any(re.search(rf"(?<![\w']){re.escape(w)}(?![\w'])", low) for w in words)

    formal, casual = has(lex.formal), has(lex.casual)
    if formal and not casual:
        return "polite"
    if casual and not formal:
        return "plain"
    return None


def sentence_level(sentence: str, language: str) -> Level | None:
    """The level one sentence's ending shows (Korean; markers elsewhere), or ``None``."""
    lex = lexicon(language)
    if lex.language == "ko":
        return _korean_level(sentence, lex, ())
    return _marker_level(sentence, lex)


def level_of(line: str, language: str, vocative_words: Iterable[str] = ()) -> Reading | None:
    """The speech level of a line, or ``None`` when nothing in it decides (a lone vocative,
    a noun, a mixed line). ``vocative_words`` are names that may stand alone as a call."""
    lex = lexicon(language)
    words = tuple(vocative_words)
    votes: dict[str, list[str]] = {"honorific": [], "plain": []}
    levels: list[Level] = []
    for sentence in sentences(line):
        found = (_korean_level(sentence, lex, words) if lex.language == "ko"
                 else _marker_level(sentence, lex))
        if found is None:
            continue
        levels.append(found)
        votes["honorific" if found in HONORIFIC else "plain"].append(_strip(sentence))
    if not levels:
        return None
    honorific, plain = len(votes["honorific"]), len(votes["plain"])
    if honorific == plain:
        return None
    if plain > honorific:
        return Reading("plain", votes["plain"][-1])
    level: Level = "formal" if levels.count("formal") >= levels.count("polite") else "polite"
    return Reading(level, votes["honorific"][-1])


# ----------------------------------------------------------------------------- address
@dataclass(frozen=True)
class Address:
    """A form of address: a title (``value`` its base: 선배 for 선배님) or a name.

    ``name`` is the canonical character a name address names (``""`` for titles);
    ``surface`` the words as written."""

    kind: Literal["title", "name"]
    value: str
    surface: str
    name: str = ""

    @property
    def key(self) -> str:
        """What two addresses compare by (선배 == 선배님; 수아야 == 수아; 수아 씨 differs)."""
        return f"{self.kind}:{name_key(self.value)}"


def _title_base(title: str, lex: Lexicon) -> str:
    for suffix in lex.title_suffixes:
        if len(title) > len(suffix) and title.endswith(suffix):
            title = title[: -len(suffix)]
            break
    return lex.form(title)


def _given_names(name: str, aliases: Sequence[str]) -> list[str]:
    """Forms a name is called by: itself, its aliases, a Korean given name (윤수아 -> 수아),
    the first or last part of a name in Latin letters (Mira Kang -> Mira, Kang Jun -> Jun)."""
    out = [name, *aliases]
    for n in (name, *aliases):
        parts = n.split()
        if len(parts) > 1:  # "Mira Kang" is Mira; a romanised "Kang Jun" is Jun
            out += [parts[0], parts[-1]]
        elif _HANGUL.fullmatch(n[:1] or "x") and len(n) == 3:
            out.append(n[1:])
    return list(dict.fromkeys(o for o in out if o))


def _is_vocative_word(text: str, lex: Lexicon, names: Iterable[str]) -> bool:
    if not text:
        return False
    low = text.casefold()
    if any(low == t.casefold() or low.endswith(" " + t.casefold()) for t in lex.titles):
        return True
    for name in names:
        for suffix in ("", *lex.name_suffixes, *(f" {s}" for s in lex.name_suffixes)):
            if low == f"{name}{suffix}".casefold():
                return True
    return False


def _candidates(line: str, language: str) -> list[tuple[str, bool]]:
    """The parts of a sentence set off by punctuation (where a call stands: "선배, …",
    "…, sir.", "Yes, Ms. Lin, right away."), and short sentences that are a call by
    themselves; a part of more than three words is never a call. The flag says whether the
    part was set off from the rest of its sentence."""
    out: list[tuple[str, bool]] = []
    separators = "[,，、!！?？…]" if language != "en" else "[,!?]"
    for sentence in sentences(line):
        parts = [_strip(p) for p in re.split(separators, sentence.strip()) if _strip(p)]
        out += [(p, len(parts) > 1) for p in parts if len(p.split()) <= 3]
    return out


def _match(candidate: str, lex: Lexicon, cast: Mapping[str, Sequence[str]],
           set_off: bool = False) -> Address | None:
    for word in lex.interjections:  # "Hey Jun", "Oh, sir"
        if candidate.casefold().startswith(word.casefold() + " "):
            candidate = candidate[len(word) + 1:].strip()
            break
    low = candidate.casefold()
    language = lex.language
    # Names first: "수아 선배" is a title; "수아야" and "민호 씨" are names.
    for canonical, aliases in cast.items():
        for called in _given_names(canonical, aliases):
            c = called.casefold()
            if low == c:
                return Address("name", NAME, candidate, canonical)
            for suffix in lex.name_suffixes:
                if low in (f"{c}{suffix}", f"{c} {suffix}"):
                    form = NAME if suffix in lex.bare_name_suffixes else f"{NAME}+{suffix}"
                    return Address("name", form, candidate, canonical)
        if language == "en":  # "Mr. Hale", "Miss Mira"
            forms = {n.casefold() for n in _given_names(canonical, aliases)}
            forms |= {n.split()[-1].casefold() for n in (canonical, *aliases) if n.split()}
            for hon in lex.honorifics:
                if any(low == f"{hon} {c}" for c in forms):
                    return Address("title", lex.form(hon), candidate, canonical)
    words = low.split()
    if set_off and language == "en" and len(words) <= 2 and candidate[:1].isupper() and all(
            w.isalpha() for w in words) and low not in lex.not_calls and words[0] not in (
            lex.not_calls):
        # a capitalised word or two set off as a call, neither a known name nor a title:
        # a nickname ("Vic") or a name the memory does not know -- a form of its own
        known = [t for t in lex.titles if low == t.casefold()]
        if not known:
            return Address("title", candidate, candidate)
    for title in lex.titles:
        t = title.casefold()
        if low == t or (language != "zh" and low.endswith(" " + t) and len(words) <= 3) or (
            language == "zh" and low.endswith(t) and len(low) <= len(t) + 3
        ):
            return Address("title", _title_base(title, lex), candidate)
    return None


def vocatives(line: str, language: str, cast: Mapping[str, Sequence[str]]) -> list[Address]:
    """The forms of address a line calls someone by, in order (see the module docstring)."""
    lex = lexicon(language)
    found: list[Address] = []
    for candidate, set_off in _candidates(line, lex.language):
        address = _match(candidate, lex, cast, set_off)
        if address is not None and address not in found:
            found.append(address)
    return found


_BARE_NAME = frozenset(w for lang in ("en", "ko", "zh") for w in lexicon(lang).bare_name)


def parse_address(text: str, language: str, listener: str = "",
                  aliases: Sequence[str] = ()) -> Address | None:
    """A stored form of address (what an extractor or the writer wrote: 선배, 수아야, "bare
    name") as an :class:`Address`; ``None`` for an empty one."""
    value = _strip(_ABBREVIATION.sub(r"\1", text or ""))
    if not value:
        return None
    lex = lexicon(language)
    if value.casefold() in _BARE_NAME:
        return Address("name", NAME, value, listener)
    cast = {listener: tuple(aliases)} if listener else {}
    found = _match(value, lex, cast)
    if found is not None:
        return found
    return Address("title", _title_base(value, lex), value)


def quoted(text: str) -> list[tuple[int, str]]:
    """``(offset, words)`` of every quoted span in prose (“…”, "…", 「…」, 『…』)."""
    out: list[tuple[int, str]] = []
    for left, right in _QUOTE_PAIRS:
        start = 0
        while True:
            i = text.find(left, start)
            if i < 0:
                break
            j = text.find(right, i + 1)
            if j < 0:
                break
            inner = text[i + 1 : j].strip()
            if inner:
                out.append((i, inner))
            start = j + 1
    return sorted(out)


__all__ = [
    "HONORIFIC",
    "LEVELS",
    "NAME",
    "Address",
    "Level",
    "Lexicon",
    "Reading",
    "language_of",
    "level_of",
    "lexicon",
    "parse_address",
    "quoted",
    "sentence_level",
    "sentences",
    "vocatives",
]
