"""The catalogues: every key in en, ko and zh with the same placeholders, each template fills."""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import pytest

from aizac.text import LANGUAGES, Text, known, render
from aizac.text.catalogue import entries, po_path
from aizac.text.particles import PARTICLES
from aizac.text.render import placeholders


def test_every_language_has_every_key_and_no_other() -> None:
    english = set(entries("en"))
    assert english, "the English catalogue is empty"
    for language in LANGUAGES:
        assert po_path(language).exists()
        keys = set(entries(language))
        assert keys == english, (language, sorted(english - keys)[:10], sorted(keys - english)[:10])


@pytest.mark.parametrize("language", [x for x in LANGUAGES if x != "en"])
def test_a_translation_uses_the_same_placeholders_as_the_english(language: str) -> None:
    english = entries("en")
    wrong = {key: (placeholders(english[key]), placeholders(text))
             for key, text in entries(language).items()
             if placeholders(text) != placeholders(english.get(key, text))}
    assert not wrong, wrong


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_template_fills_with_sample_values(language: str) -> None:
    for key, text in entries(language).items():
        specs = {spec for _, _, spec, _ in string.Formatter().parse(text) if spec}
        # a Korean format spec must be a particle the filter knows; no other language uses one
        if language == "ko":
            assert all(s in PARTICLES or not s[0].isalpha() for s in specs), (key, specs)
        rendered = render(Text(key, {n: "값" for n in placeholders(text)}), language)
        assert "{" not in rendered.replace("{{", ""), (key, rendered)


def test_a_korean_particle_agrees_with_the_value_it_follows() -> None:
    assert render(Text("test.sample", name="도준"), "ko") == "test.sample"  # unknown key: as is
    from aizac.text.render import _Formatter

    fill = _Formatter("ko").format
    assert fill("{a:이} {b:이} {c:을} {d:로} {e:로}", a="도준", b="서아", c="검", d="길",
                e="집") == "도준이 서아가 검을 길로 집으로"
    assert fill("{a:는}", a="Baek Dohyun") == "Baek Dohyun은"
    assert fill("{a:가}", a="李明") == "李明이(가)"


# ------------------------------------------------------------------ keys the code uses
PACKAGE = Path(__file__).resolve().parents[2] / "aizac"
SURFACE_VARIANTS = (".web", ".api", ".cli")
FILE_SUFFIXES = (".sqlite3", ".sqlite", ".toml", ".json", ".txt")  # a file name is no key


def _namespaces() -> set[str]:
    return {key.split(".", 1)[0] for key in entries("en")}


def _key_literals() -> dict[str, str]:
    """Every string literal in the package shaped like a catalogue key (``error.x.y``), with
    where it is; a key is written out whole in the code (a key built at run time would be
    invisible here, so the code lists such keys in a dict of literals instead)."""
    shaped = re.compile(r"^(?:" + "|".join(sorted(_namespaces())) + r")(?:\.[A-Za-z0-9_]+)+$")
    found: dict[str, str] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and shaped.match(node.value) and not node.value.endswith(FILE_SUFFIXES):
                found.setdefault(node.value, f"{path.relative_to(PACKAGE)}:{node.lineno}")
    return found


def test_every_key_the_code_names_is_in_the_catalogue() -> None:
    missing = {key: where for key, where in _key_literals().items() if not known(key)}
    assert missing == {}


def test_no_key_is_unused() -> None:
    """A key is used when the code names it, or when it is the hint (``<key>.hint``) or a
    surface's variant (``.web``, ``.api``, ``.cli``) of a key the code names."""
    used = set(_key_literals())
    derived = {f"{key}.hint" for key in used}
    derived |= {f"{key}{surface}" for key in used | derived for surface in SURFACE_VARIANTS}
    unused = sorted(set(entries("en")) - used - derived)
    assert unused == [], unused


def test_the_key_scan_finds_a_key_and_ignores_the_rest() -> None:
    literals = _key_literals()
    assert "error.project.exists" in literals and "ui.tab.start" in literals
    assert not any(key.startswith("aizac.") for key in literals)


def test_a_korean_template_never_says_a_value_twice_by_mistake() -> None:
    """``{name}{name:이}`` says the name twice (the spec already renders it with its
    particle); the quoted form is ``{name:'이}``."""
    doubled = re.compile(r"'?\{([a-z_]+)\}'?\{\1:[^}]*\}")
    wrong = {key: text for key, text in entries("ko").items() if doubled.search(text)}
    assert wrong == {}


def test_a_quoted_particle_agrees_with_the_quoted_value() -> None:
    from aizac.text.render import _Formatter

    fill = _Formatter("ko").format
    assert fill("{a:'이} {b:'을}", a="배경 1의 이름", b="회귀") == "'배경 1의 이름'이 '회귀'를"


# ------------------------------------------------------------ no words in the wrong place
# What a module says to a reader comes from the catalogue, and the words a module looks for
# (endings, particles, labels, a prompt's feedback) from a data file beside it: no module of
# the package holds a Hangul or Chinese literal (docstrings and comments may quote the words
# they are about; a script's range is written as escapes in a raw pattern).
_SCRIPT = re.compile(r"[\u3131-\u318e\uac00-\ud7a3\u3400-\u4dbf\u4e00-\u9fff]")


def _script_literals(paths: list[Path]) -> list[str]:
    """Hangul or Han in string literals of ``paths`` (docstrings and comments may quote the
    words they are about)."""
    found = []
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {id(node.value) for node in ast.walk(tree)
                if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)}
        found += [f"{path.relative_to(PACKAGE)}:{node.lineno}" for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str)
                  and id(node) not in docs and _SCRIPT.search(node.value)]
    return found


def test_no_hangul_or_chinese_literal_in_any_module() -> None:
    assert _script_literals(sorted(PACKAGE.rglob("*.py"))) == []


def test_the_script_scan_finds_a_literal(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text('"""문서는 괜찮다."""\nX = "일시 정지"  # 주석도\n'
                      'Y = "\\uac00"\nZ = r"[\\uac00-\\ud7a3]"\n'
                      'def f():\n    """함수의 문서."""\n    return ("다", "요")\n',
                      encoding="utf-8")
    global PACKAGE
    kept, PACKAGE = PACKAGE, tmp_path
    try:
        assert _script_literals([module]) == ["m.py:2", "m.py:3", "m.py:7", "m.py:7"]
    finally:
        PACKAGE = kept


# ------------------------------------------------------------------ every raise names a key
NOT_MOVED_YET = ("server/",)
"""Raise sites still to move to the catalogue (the server, with its own change)."""


def _unkeyed_raises() -> list[str]:
    """Calls of an AizacError whose first argument is a literal that is not a catalogue key
    (an English sentence, an f-string)."""
    import aizac.errors

    classes = {name for name, value in vars(aizac.errors).items()
               if isinstance(value, type) and issubclass(value, aizac.errors.AizacError)}
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        where = str(path.relative_to(PACKAGE))
        if where.startswith(NOT_MOVED_YET):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            first = node.args[0]
            literal = isinstance(first, ast.JoinedStr) or (
                isinstance(first, ast.Constant) and isinstance(first.value, str)
                and not known(first.value))
            if name in classes and literal:
                found.append(f"{where}:{node.lineno}")
    return found


def test_every_error_is_raised_with_a_catalogue_key() -> None:
    assert _unkeyed_raises() == []


def test_an_english_sentence_is_kept_but_marked_unkeyed() -> None:
    from aizac.errors import InvalidInputError

    error = InvalidInputError("Something broke.")
    assert error.key == "error.unkeyed" and str(error).startswith("Something broke.")
