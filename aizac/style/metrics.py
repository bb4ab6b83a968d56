"""The measurable habits of a piece of prose (pure; word lists in lexicon.toml).

:func:`count` reads a text into :class:`Counts` — plain sums, so the counts of many passages
add up (:meth:`Counts.add`) and a profile over a writer's passages is the same whatever order
they come in. :meth:`Counts.metrics` turns them into the :class:`StyleMetrics` a profile, a
drift report and the panel show:

* narration sentence length (characters for Korean and Chinese, words for English), the share
  of long sentences, sentences per paragraph and the share of one-line paragraphs (the
  line-break rhythm of web novels);
* the share of the text inside quotes (dialogue);
* narration endings in Korean (-다, -어/-야, -요, -습니다, others: a noun or a fragment) and the
  honorific share of the dialogue's speech levels (any language, :mod:`aizac.dialogue.speech`);
* punctuation habits per 1,000 characters (…, ―, !?, !, ?, ~) and onomatopoeia per 1,000.
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections import Counter
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from aizac.dialogue.speech import HONORIFIC, level_of, quoted, sentence_level, sentences
from aizac.text.particles import NOUN_PARTICLES

_DATA = Path(__file__).with_name("lexicon.toml")
LONG_SENTENCE = {"ko": 35, "zh": 30, "en": 25}
"""A narration sentence longer than this (characters; words in English) is long."""
ENDINGS: tuple[str, ...] = ("da", "eo", "yo", "formal", "other")
PUNCTUATION: dict[str, re.Pattern[str]] = {
    "ellipsis": re.compile(r"…+|\.{3,}"),
    "dash": re.compile(r"[―—]+|--+"),
    "interrobang": re.compile(r"!\?|\?!|！？|？！"),
    "exclamation": re.compile(r"(?<![!?！？])[!！](?![!?！？])"),
    "question": re.compile(r"(?<![!?！？])[?？](?![!?！？])"),
    "tilde": re.compile(r"[~～]+"),
}
_WORD = re.compile(r"[^\s\"'“”‘’「」『』()（）\[\].,!?…~―—:;，。！？、]+")
_HAN = re.compile(r"[\u4e00-\u9fff]")
_HANGUL_WORD = re.compile(r"[\uac00-\ud7a3]*")

__all__ = ["ENDINGS", "PUNCTUATION", "Counts", "StyleMetrics", "count", "style_lexicon",
           "words"]


@dataclass(frozen=True)
class StyleLexicon:
    language: str
    ending_da: tuple[str, ...] = ()
    ending_eo: tuple[str, ...] = ()
    particles: tuple[str, ...] = ()
    """Stripped from a word before it is counted (Korean: :data:`NOUN_PARTICLES`)."""
    onomatopoeia: frozenset[str] = frozenset()
    sound_suffixes: tuple[str, ...] = ()


@functools.cache
def style_lexicon(language: str) -> StyleLexicon:
    data = tomllib.loads(_DATA.read_text(encoding="utf-8"))
    lang = language if language in data else "en"
    table = data[lang]
    return StyleLexicon(
        lang,
        tuple(sorted(table["ending_da"], key=len, reverse=True)),
        tuple(sorted(table["ending_eo"], key=len, reverse=True)),
        NOUN_PARTICLES if lang == "ko" else (),
        frozenset(table["onomatopoeia"]),
        tuple(table.get("sound_suffixes", ())),
    )


def _units(text: str, language: str) -> int:
    """Length of a sentence: characters without spaces (ko, zh) or words (en)."""
    if language == "en":
        return len(text.split())
    return len(re.sub(r"\s+", "", text))


def words(text: str, language: str) -> list[str]:
    """The words of ``text`` for counting deletions and additions: Korean without particles,
    English case-folded, Chinese as single characters (no segmenter needed)."""
    if language == "zh":
        return _HAN.findall(text)
    lex = style_lexicon(language)
    out = []
    for word in _WORD.findall(text):
        if language == "en":
            out.append(word.casefold())
            continue
        for particle in lex.particles:
            if word.endswith(particle) and len(word) > len(particle) + 1:
                word = word[: -len(particle)]
                break
        out.append(word)
    return out


def _onomatopoeia(word: str, lex: StyleLexicon) -> bool:
    if lex.language == "en":
        return word.casefold().strip("-") in lex.onomatopoeia
    if lex.language == "zh":
        return False  # counted by substring below (no word boundaries in Chinese)
    for suffix in lex.sound_suffixes:
        if word.endswith(suffix) and len(word) > len(suffix):
            word = word[: -len(suffix)]
            break
    if word in lex.onomatopoeia:
        return True
    hangul = _HANGUL_WORD.fullmatch(word) is not None
    for unit in (1, 2, 3):  # 쿵쿵, 두근두근, 쿠구궁쿠구궁
        if hangul and len(word) in (unit * 2, unit * 3) and word == word[:unit] * (
                len(word) // unit):
            return True
    return False


def _ending(sentence: str, language: str) -> str | None:
    """The narration ending class of a Korean sentence (see :data:`ENDINGS`)."""
    if language != "ko":
        return None
    style = style_lexicon("ko")
    level = sentence_level(sentence, "ko")
    text = sentence.strip(" .!?…~\"'”’")
    if not text:
        return None
    last = text.split()[-1]
    if level == "formal":
        return "formal"
    if level == "polite":
        return "yo"
    if any(last.endswith(e) for e in style.ending_da):
        return "da"
    if any(last.endswith(e) for e in style.ending_eo):
        return "eo"
    return "other"


@dataclass
class Counts:
    """Sums over one or more texts (the raw material of :class:`StyleMetrics`)."""

    chars: int = 0
    dialogue_chars: int = 0
    sentences: int = 0
    sentence_units: int = 0
    long_sentences: int = 0
    paragraphs: int = 0
    one_line_paragraphs: int = 0
    paragraph_sentences: int = 0
    endings: Counter[str] = field(default_factory=Counter)
    levels: Counter[str] = field(default_factory=Counter)
    punctuation: Counter[str] = field(default_factory=Counter)
    onomatopoeia: Counter[str] = field(default_factory=Counter)

    def add(self, other: Counts) -> Counts:
        """These counts plus ``other`` (a new value)."""
        out = Counts()
        for f in fields(Counts):
            a, b = getattr(self, f.name), getattr(other, f.name)
            setattr(out, f.name, a + b if not isinstance(a, Counter) else Counter(a) + b)
        return out

    def metrics(self, language: str) -> StyleMetrics:
        def share(part: int, whole: int) -> float:
            return part / whole if whole else 0.0

        per_k = 1000.0 / self.chars if self.chars else 0.0
        ended = sum(self.endings.values())
        spoken = sum(self.levels.values())
        return StyleMetrics(
            language=language,
            chars=self.chars,
            sentence_len=share(self.sentence_units, self.sentences),
            long_share=share(self.long_sentences, self.sentences),
            paragraph_len=share(self.paragraph_sentences, self.paragraphs),
            one_line_share=share(self.one_line_paragraphs, self.paragraphs),
            dialogue_share=share(self.dialogue_chars, self.chars),
            endings={e: share(self.endings[e], ended) for e in ENDINGS} if ended else {},
            honorific_share=share(sum(self.levels[k] for k in HONORIFIC), spoken)
            if spoken else None,
            punctuation={k: self.punctuation[k] * per_k for k in PUNCTUATION},
            onomatopoeia=sum(self.onomatopoeia.values()) * per_k,
            onomatopoeia_words=tuple(w for w, _ in sorted(
                self.onomatopoeia.items(), key=lambda p: (-p[1], p[0]))[:5]),
        )


@dataclass(frozen=True)
class StyleMetrics:
    """What a text's style measures (see the module docstring). Shares are 0..1; rates are
    per 1,000 characters; ``endings`` is empty outside Korean, ``honorific_share`` ``None``
    without dialogue whose level can be read."""

    language: str
    chars: int = 0
    sentence_len: float = 0.0
    long_share: float = 0.0
    paragraph_len: float = 0.0
    one_line_share: float = 0.0
    dialogue_share: float = 0.0
    endings: dict[str, float] = field(default_factory=dict)
    honorific_share: float | None = None
    punctuation: dict[str, float] = field(default_factory=dict)
    onomatopoeia: float = 0.0
    onomatopoeia_words: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {f.name: (list(v) if isinstance(v := getattr(self, f.name), tuple) else v)
                for f in fields(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> StyleMetrics:
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        values["onomatopoeia_words"] = tuple(values.get("onomatopoeia_words", ()))
        return cls(**values)


def count(text: str, language: str) -> Counts:
    """The counts of one text in ``language`` (``ko``, ``en``, ``zh``)."""
    out = Counts()
    lex = style_lexicon(language)
    long_at = LONG_SENTENCE.get(lex.language, 40)
    for paragraph in (p.strip() for p in (text or "").splitlines()):
        if not paragraph:
            continue
        spans = quoted(paragraph)
        out.chars += len(re.sub(r"\s+", "", paragraph))
        out.dialogue_chars += sum(len(re.sub(r"\s+", "", w)) for _, w in spans)
        narration = paragraph
        for _, spoken in spans:
            narration = narration.replace(spoken, " ")
            reading = level_of(spoken, language)
            if reading is not None:
                out.levels[reading.level] += 1
        narration = re.sub(r"[\"“”「」『』]", " ", narration)
        told = sentences(narration)
        said = sum(len(sentences(w)) for _, w in spans)
        out.paragraphs += 1
        out.paragraph_sentences += len(told) + said
        out.one_line_paragraphs += (len(told) + said) == 1
        for sentence in told:
            units = _units(sentence, lex.language)
            out.sentences += 1
            out.sentence_units += units
            out.long_sentences += units > long_at
            ending = _ending(sentence, lex.language)
            if ending is not None:
                out.endings[ending] += 1
        for name, pattern in PUNCTUATION.items():
            out.punctuation[name] += len(pattern.findall(paragraph))
        if lex.language == "zh":
            for word in lex.onomatopoeia:
                if (n := paragraph.count(word)):
                    out.onomatopoeia[word] += n
        else:
            for word in _WORD.findall(paragraph):
                if _onomatopoeia(word, lex):
                    out.onomatopoeia[word.casefold()] += 1
    return out
