"""Degenerate structured output: caught before it becomes canon (pure functions, no I/O).

Small models fill a schema with junk that still validates: one sentence copied into every field,
a prompt label echoed as a value ("장르: 현대 판타지", "1화 제목", "## Recent summary"), English
text in a Korean project, or a sentence where a name belongs ("The mark confesses to a hidden
offshore,"). :func:`find_problems` names such defects in any model-facing value (plot, beat,
character profile, extraction) so the call can be retried with the problem stated, and finally
refused with a clear message instead of being stored.
"""

from __future__ import annotations

import functools
import re
import tomllib
import unicodedata
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from pydantic import BaseModel


@functools.cache
def _words() -> dict[str, Any]:
    """The check's language data (``quality.toml`` beside this module)."""
    with (resources.files("aizac.writer") / "quality.toml").open("rb") as handle:
        return tomllib.load(handle)


NAME_KEYS = frozenset({"name", "character_name", "character1", "character2", "speaker",
                       "listener", "who", "a", "b"})
"""Fields that hold the name of a person (or a named place or thing), or a reference to one
(an extraction's ``who``: ``c3`` or a name)."""
NAME_LISTS = frozenset({"characters", "aliases"})
"""List fields whose string items are names."""
PLACE_KEYS = frozenset({"location"})
"""Fields that name a place: they need at least one letter, as names do."""
REFERENCES = frozenset({"revises", "replaces", "pays_off", "thread"})
"""Fields that hold ids of what an extraction was shown (``r1``, ``f4``, ``t2``) or ``new``:
references, not text (:mod:`aizac.memory.references`)."""
SKIP_SCRIPT = frozenset({"stage", "aspect", "keywords", "keyword", *REFERENCES})
"""Fields not checked for the project's script (enum values; the writer's own keywords; names,
which may be romanised, are checked as names)."""
SKIP_REPEAT = NAME_KEYS | NAME_LISTS | REFERENCES | frozenset(
    {"stage", "aspect", "keywords", "keyword", "role", "genre", "feature"}
)
"""Fields whose values may legitimately repeat (a speaker talks twice, two allies)."""

MAX_NAME_WORDS = 5
_SENTENCE_MARKS = re.compile(r"[,!?;:，。！？；：\n]")
_WORDS = _words()
_LATIN_FUNCTION_WORDS = frozenset(_WORDS["name"]["function_words"])
_HANGUL_ENDINGS = tuple(_WORDS["name"]["hangul_endings"])
_HAN_ENDINGS = tuple(_WORDS["name"]["han_endings"])
_HEADING = re.compile(r"^\s*#{1,6}\s")
_PLACEHOLDER = re.compile(r"\$[A-Za-z_]\w*|\{[A-Za-z_]\w*\}|<[A-Za-z_][\w ]*>")
_EPISODE_TITLE = re.compile(
    r"^\s*(?:" + "|".join(_WORDS["episode_title"][lang] for lang in ("ko", "en", "zh"))
    + r")\s*$",
    re.IGNORECASE,
)
LABELS = frozenset(label for labels in _WORDS["labels"].values() for label in labels)
"""Prompt labels small models echo as values ("장르: 현대 판타지"), in every prompt language."""
SCHEMA_WORDS = frozenset(
    [
        "string",
        "integer",
        "number",
        "boolean",
        "null",
        "none",
        "n/a",
        "tbd",
        "todo",
        "title",
        "logline",
        "genre",
        "name",
        "role",
        "profile",
        "description",
        "goal",
        "episodes",
        "key_events",
        "stage",
        "exposition",
        "development",
        "crisis",
        "climax",
        "resolution",
        "location",
        "time",
        "characters",
        "events",
        "dialogue",
        "emotions",
        "conflicts",
        "sets_up",
        "pays_off",
        "summary",
        "text",
        "keyword",
        "speaker",
        "line",
        "aliases",
    ]
)
"""Schema field and enum names: as a whole value they are template echo, not content."""

_SCRIPTS: dict[str, re.Pattern[str]] = {
    "ko": re.compile(r"[\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]"),
    "zh": re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf]"),
    "en": re.compile(r"[A-Za-z]"),
}
_LETTER = re.compile(r"[^\W\d_]")
MIN_SCRIPT_LETTERS = 20
"""Below this many letters a reply is too short to judge its script."""
MIN_SCRIPT_SHARE = 0.5
"""A reply whose letters are less than half in the project's script is in the wrong language."""
MIN_VALUE_LETTERS = 4
"""Letters a value needs before its own script is judged (shorter ones go with the reply)."""


@dataclass(frozen=True)
class Leaf:
    """One string in a model's value: where it is and what it says."""

    path: str
    key: str
    text: str


def leaves(value: BaseModel | dict[str, Any]) -> list[Leaf]:
    """Every string of ``value`` with its path (``acts[2].goal``) and field name (pure)."""
    data = value.model_dump() if isinstance(value, BaseModel) else value
    return list(_walk(data, "", ""))


def _walk(node: Any, path: str, key: str) -> Iterator[Leaf]:
    if isinstance(node, str):
        yield Leaf(path, key, node)
    elif isinstance(node, dict):
        for k, v in node.items():
            yield from _walk(v, f"{path}.{k}" if path else str(k), str(k))
    elif isinstance(node, list | tuple):
        for i, v in enumerate(node):
            yield from _walk(v, f"{path}[{i}]", key)


def _norm(text: str) -> str:
    return re.sub(r"[\W_]+", " ", unicodedata.normalize("NFKC", text).casefold()).strip()


# ------------------------------------------------------------------------------- names
def looks_like_name(name: str) -> bool:
    """Whether ``name`` can be a name, not a sentence or a fragment of one (pure).

    Refused: sentence punctuation (``,`` ``:`` ``!`` ...), more than five words, a trailing
    period after several words, English function words inside ("An alien ship arrives, and
    the team is a"), or a Korean predicate ending ("그는 복수를 다짐한다")."""
    text = " ".join(name.split())
    if not _has_letter(text) or _SENTENCE_MARKS.search(text):
        return False
    words = text.split(" ")
    if len(words) > MAX_NAME_WORDS or (text.endswith(".") and len(words) > 2):
        return False
    inner = [w.casefold() for w in words[1:]]
    if len(words) >= 3 and sum(w in _LATIN_FUNCTION_WORDS for w in inner) >= 1:
        return False
    if _SCRIPTS["ko"].search(text) and len(words) >= 2 and text.endswith(_HANGUL_ENDINGS):
        return False
    cjk = _SCRIPTS["zh"].findall(text)
    return not (len(cjk) > 10 or (cjk and text.endswith(_HAN_ENDINGS)))


def _has_letter(text: str) -> bool:
    # "12345678" as a name or a place was stored as canon by the embedded model.
    return any(ch.isalpha() for ch in text)


def _is_name_leaf(leaf: Leaf) -> bool:
    return leaf.key in NAME_KEYS or (leaf.key in NAME_LISTS and leaf.path.endswith("]"))


# ------------------------------------------------------------------------------- echo
def is_echo(text: str, labels: frozenset[str] = LABELS) -> bool:
    """Whether ``text`` is template scaffolding rather than content (pure): a Markdown
    heading, a ``$placeholder``, "1화 제목", a prompt label with its value ("장르: 현대
    판타지"), or a bare schema word ("development", "title")."""
    value = text.strip()
    if not value:
        return False
    if _HEADING.match(value) or _PLACEHOLDER.search(value) or _EPISODE_TITLE.match(value):
        return True
    head = re.split(r"[:：]", value, maxsplit=1)
    if len(head) == 2 and head[0].strip().casefold() in labels:
        return True
    bare = value.casefold().strip(" .\"'")
    return bare in SCHEMA_WORDS or bare in labels


# ------------------------------------------------------------------------------- script
_QUOTED = re.compile(r"\"([^\"]{1,40})\"|'([^']{1,40})'|“([^”]{1,40})”|‘([^’]{1,40})’"
                     r"|「([^」]{1,40})」|『([^』]{1,40})』|«([^»]{1,40})»|《([^》]{1,40})》")
MAX_QUOTED_WORDS = 4
"""A quoted span of at most this many words, without sentence punctuation, is a proper noun
("the 'Black Lotus' guild"); a longer one is a quoted sentence and counts."""


def _quoted_names(text: str) -> list[str]:
    """Short quoted spans that name something ("Black Lotus", 『월하검』), not sentences."""
    out = []
    for match in _QUOTED.finditer(text):
        span = next(g for g in match.groups() if g is not None).strip()
        if span and len(span.split()) <= MAX_QUOTED_WORDS and not _SENTENCE_MARKS.search(span) \
                and not span.endswith((".", "。")):
            out.append(span)
    return out


def without_names(text: str, names: Sequence[str]) -> str:
    """``text`` with the given names and its short quoted proper nouns taken out (pure): they
    are names, not words of a language ("Yoon Jiwoo와 Baek Dohyun이 ...")."""
    out = text
    spans = [*(n for n in names if len(n.strip()) >= 2), *_quoted_names(text)]
    for name in sorted({" ".join(n.split()) for n in spans}, key=len, reverse=True):
        out = re.sub(re.escape(name).replace("\\ ", r"\s+"), " ", out, flags=re.IGNORECASE)
    return out


def script_share(
    texts: Sequence[str], language: str, names: Sequence[str] = ()
) -> tuple[float, int]:
    """The share of letters in ``language``'s script and the number of letters (pure), with
    ``names`` (the cast, the reply's own name fields) and quoted proper nouns left out: the
    share is measured on what is left."""
    pattern = _SCRIPTS.get(language)
    letters = [c for t in texts for c in _LETTER.findall(without_names(t, names))]
    if pattern is None or not letters:
        return 1.0, len(letters)
    return sum(1 for c in letters if pattern.match(c)) / len(letters), len(letters)


# ------------------------------------------------------------------------------- repeats
def repeated_value(items: Sequence[Leaf]) -> tuple[str, int, int] | None:
    """The value filling more than half of ``items`` (at least three of them), if any."""
    texts = [_norm(i.text) for i in items if _norm(i.text)]
    if len(texts) < 3:
        return None
    value, count = Counter(texts).most_common(1)[0]
    if count >= 3 and count * 2 > len(texts):
        original = next(i.text for i in items if _norm(i.text) == value)
        return original, count, len(texts)
    return None


def _sibling_groups(items: Sequence[Leaf]) -> dict[str, list[Leaf]]:
    groups: dict[str, list[Leaf]] = {}
    for leaf in items:
        groups.setdefault(re.sub(r"\[\d+\]", "[]", leaf.path), []).append(leaf)
    return {k: v for k, v in groups.items() if "[]" in k}


# ------------------------------------------------------------------------------- the check
@dataclass(frozen=True)
class Problem:
    """One defect of a model's value: its kind, where, and the offending text."""

    kind: str  # "repeat" | "echo" | "script" | "name"
    path: str
    text: str
    detail: str = ""


def find_problems(
    value: BaseModel | dict[str, Any],
    *,
    language: str,
    labels: frozenset[str] = LABELS,
    min_script_share: float = MIN_SCRIPT_SHARE,
    names: Sequence[str] = (),
    each_value: bool = False,
) -> list[Problem]:
    """Every degenerate feature of ``value`` for a project in ``language`` (pure).

    Args:
        value: the validated model output.
        language: the project's language (``ko``, ``zh``, ``en``).
        labels: prompt labels that must not open a value.
        min_script_share: the least share of letters in the project's script (the small
            embedded model's policy lowers it: :mod:`aizac.writer.model_policy`).
        names: the cast's names and aliases. They, the names the value itself gives in its
            name fields and quoted proper nouns do not count for or against the script: a
            Korean sentence about Baek Dohyun is Korean.
        each_value: judge every value's script on its own, even when the reply as a whole is
            in the project's language (a reply whose other values are kept when these are
            refused: an extraction); otherwise only a reply mostly in another script is.
    """
    items = leaves(value)
    problems: list[Problem] = []
    for leaf in items:
        not_a_name = (_is_name_leaf(leaf) and bool(leaf.text.strip())
                      and not looks_like_name(leaf.text)) or (
            leaf.key in PLACE_KEYS and not _has_letter(leaf.text)
        )
        if not_a_name:
            problems.append(Problem("name", leaf.path, leaf.text))
        elif leaf.key not in ("stage", "aspect", *REFERENCES) and is_echo(leaf.text, labels):
            problems.append(Problem("echo", leaf.path, leaf.text))
    content = [i for i in items if i.key not in SKIP_REPEAT]
    repeat = repeated_value(content)
    if repeat is None:
        for path, group in _sibling_groups(content).items():
            repeat = repeated_value(group)
            if repeat is not None:
                problems.append(Problem("repeat", path, repeat[0], f"{repeat[1]}/{repeat[2]}"))
                break
    else:
        problems.append(Problem("repeat", "*", repeat[0], f"{repeat[1]}/{repeat[2]}"))
    texts = [i for i in items if i.key not in SKIP_SCRIPT and not _is_name_leaf(i)]
    given = [i.text for i in items if _is_name_leaf(i) and looks_like_name(i.text)]
    known = [*names, *given]
    share, letters = script_share([i.text for i in texts], language, known)
    if each_value or (letters >= MIN_SCRIPT_LETTERS and share < min_script_share):
        # Name the values that are in another language (what the model can fix), not the
        # reply as a whole: the rest is kept.
        for leaf in texts:
            own, count = script_share([leaf.text], language, known)
            if count >= MIN_VALUE_LETTERS and own < min_script_share:
                problems.append(Problem("script", leaf.path, leaf.text, f"{own:.0%}"))
    return problems


_LANGUAGE_NAMES: dict[str, list[str]] = _WORDS["language_names"]
_TEMPLATES: dict[str, dict[str, str]] = _WORDS["feedback"]


def describe(
    problems: Sequence[Problem],
    language: str,
    *,
    limit: int = 3,
    project: str | None = None,
) -> str:
    """The problems as one message in ``language`` (``ko``, ``zh``, else English) (pure);
    ``project`` is the project's language when the message is in another one (an English
    error about a Korean project). The model is told the JSON path of a field (the writer
    reads :func:`aizac.writer.checked.problem_texts`).
    """
    lang = language if language in _TEMPLATES else "en"
    table = _TEMPLATES[lang]
    index = {"en": 0, "ko": 1, "zh": 2}[lang]
    named = project or language
    project = _LANGUAGE_NAMES.get(named, _LANGUAGE_NAMES["en"])[index]
    parts = [
        table[p.kind].format(
            path=p.path,
            text=p.text[:80],
            detail=p.detail,
            language=project,
        )
        for p in problems[:limit]
    ]
    return "; ".join(parts)


REPAIR_LIMIT = 8
"""Problems one repair turn names (each value the model can fix; the writer is shown fewer)."""


def repair_text(problems: Sequence[Problem], language: str) -> str:
    """The follow-up asking the model to answer again without ``problems`` (pure)."""
    table = _TEMPLATES.get(language, _TEMPLATES["en"])
    return (table["lead"] + describe(problems, language, limit=REPAIR_LIMIT) + "."
            + table["tail"])
