"""The catalogues: every key in en, ko and zh with the same placeholders, each template fills."""

from __future__ import annotations

import string

import pytest

from aizac.text import LANGUAGES, Text, render
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
