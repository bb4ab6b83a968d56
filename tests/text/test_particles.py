"""Korean particles: chosen by the sound the word ends in, read from one home."""

from __future__ import annotations

import ast
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

import aizac
from aizac.text.particles import (
    NAME_PARTICLES,
    NAME_TITLES,
    NOUN_PARTICLES,
    SUBJECT_PARTICLES,
    VOCATIVE_PARTICLES,
    attach,
    final_consonant,
    name_stems,
)

PACKAGE = Path(aizac.__file__).parent


@pytest.mark.parametrize(("word", "particle", "expected"), [
    ("도준", "이", "도준이"), ("서아", "이", "서아가"), ("서아", "가", "서아가"),
    ("검", "를", "검을"), ("칼", "으로", "칼로"), ("집", "로", "집으로"), ("바다", "로", "바다로"),
    ("미라", "과", "미라와"), ("도준", "와", "도준과"), ("'검'", "이", "'검'이"),
    ("3", "이", "3이"), ("2", "이", "2가"), ("10", "이", "10이"), ("7", "로", "7로"),
    ("Baek Dohyun", "이", "Baek Dohyun이"), ("Yoon Jiwoo", "이", "Yoon Jiwoo가"),
    ("Kang", "은", "Kang은"), ("Mike", "는", "Mike는"), ("Jane", "이", "Jane이"),
    ("李明", "이", "李明이(가)"), ("李明", "로", "李明(으)로"),
])
def test_the_particle_agrees(word: str, particle: str, expected: str) -> None:
    assert attach(word, particle) == expected


def test_an_unknown_particle_is_refused() -> None:
    with pytest.raises(KeyError):
        attach("도준", "께서")


def test_punctuation_and_empty_values() -> None:
    assert final_consonant("") is None
    assert final_consonant("검.)") == 16


# ------------------------------------------------------------------ one home for the particles
# The words that are particles and nothing else: two of them in one list (or in one regular
# expression's alternatives) make it a particle list. Korean prose in a prompt or a catalogue
# ("{value}은(는)", "민호는 수아에게") and lists of endings or titles are no such list.
ONLY_PARTICLES = frozenset({"은", "는", "을", "를", "의", "에게", "에서", "께서", "한테"})
HOME = PACKAGE / "text" / "particles.toml"
_NOT_HANGUL = re.compile(r"[^\uac00-\ud7a3]")


def _is_particle_list(words: list[str]) -> bool:
    return len(ONLY_PARTICLES.intersection(w.strip() for w in words)) >= 2


def _alternatives(text: str) -> list[str]:
    """The Hangul of each alternative of a regular expression written as ``a|b|c`` (``(?:이``
    and ``는)$`` are 이 and 는)."""
    return [_NOT_HANGUL.sub("", part) for part in text.split("|")] if "|" in text else []


def _toml_lists(value: object) -> Iterator[list[str]]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _toml_lists(item)
    elif isinstance(value, list):
        yield [w for w in value if isinstance(w, str)]
        for item in value:
            yield from _toml_lists(item)
    elif isinstance(value, str):
        yield _alternatives(value)


def _py_lists(tree: ast.AST) -> Iterator[list[str]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            yield [e.value for e in node.elts
                   if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield _alternatives(node.value)


def particle_lists(root: Path, home: Path) -> list[str]:
    """``path:key`` (TOML) or ``path:line`` (Python) of every particle list under ``root``
    but in ``home``."""
    found: list[str] = []
    for path in sorted(root.rglob("*.toml")):
        if path != home:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
            found += [f"{path.relative_to(root)}: {words}" for words in _toml_lists(data)
                      if _is_particle_list(words)]
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [f"{path.relative_to(root)}: {words}" for words in _py_lists(tree)
                  if _is_particle_list(words)]
    return found


def test_the_particles_have_one_home() -> None:
    assert particle_lists(PACKAGE, HOME) == []


def test_the_home_scan_finds_a_particle_list_and_passes_korean_text(tmp_path: Path) -> None:
    (tmp_path / "words.toml").write_text(
        'names = ["님", "씨"]\nparticles = ["에서", "은", "는"]\n'
        '[prompt]\nrule = "{value}은(는) [{said}]이(가) 아니라 민호는 수아에게 말했다"\n'
        "[who]\nko = '(?P<name>.+?)(?:이|가|은|는)$'\n", encoding="utf-8")
    (tmp_path / "m.py").write_text('ENDINGS = ("다", "요")\nP = ["을", "를"]\n',
                                   encoding="utf-8")
    assert [hit.split(":")[0] for hit in particle_lists(tmp_path, tmp_path / "x.toml")] == [
        "words.toml", "words.toml", "m.py"]
    assert particle_lists(tmp_path / "none", tmp_path) == []


@pytest.mark.parametrize(("word", "stem"), [
    ("진도준님이", "진도준"), ("이영민과", "이영민"), ("도준이가", "도준"), ("미라 씨", "미라"),
    ("미라야", "미라"), ("할머니께서는", "할머니"), ("서울까지", "서울"), ("수아 선배에게", "수아"),
])
def test_a_name_is_found_without_what_it_carries(word: str, stem: str) -> None:
    assert stem in name_stems(word)


def test_a_stem_is_never_the_word_or_empty() -> None:
    assert name_stems("수아") == ["수"]  # the caller keeps "수아" when it names someone
    assert name_stems("이") == [] and name_stems("") == []
    assert name_stems("Mira") == []


def test_the_particle_sets_are_read_longest_first() -> None:
    for words in (NOUN_PARTICLES, NAME_PARTICLES, SUBJECT_PARTICLES, NAME_TITLES,
                  VOCATIVE_PARTICLES):
        assert [len(w) for w in words] == sorted((len(w) for w in words), reverse=True)
        assert len(set(words)) == len(words)
    assert set(NAME_PARTICLES) == {*NOUN_PARTICLES, *VOCATIVE_PARTICLES}
