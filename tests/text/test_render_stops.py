"""A value that ends its own sentence is not followed by the template's full stop (issue 23
item 7: ".." on Korean pages, where an error's cause ended with a period)."""

from __future__ import annotations

import pytest

from aizac.text import t


@pytest.mark.parametrize("language", ["en", "ko", "zh"])
def test_one_full_stop_after_a_value_that_ends_a_sentence(language: str) -> None:
    said = t("error.smtp.write", language, file="smtp.json", cause="Permission denied.")
    assert said.endswith("Permission denied.") and ".." not in said and ".。" not in said


def test_a_value_without_its_own_stop_keeps_the_templates() -> None:
    assert t("error.smtp.write", "en", file="smtp.json", cause="Permission denied").endswith(
        "Permission denied.")
    assert t("error.smtp.write", "zh", file="smtp.json", cause="拒绝").endswith("拒绝。")


def test_braces_particles_and_lists_still_render() -> None:
    assert t("ui.created", "ko", name="새벽").startswith("프로젝트 '새벽'을")


def test_a_right_to_left_value_is_isolated_in_the_line() -> None:
    """Issue 39 item 12: a refused Hebrew project name reversed the whole Korean error line
    (the bidirectional algorithm reorders around it); set apart, the line reads as written."""
    said = t("error.project.name", "ko", name="שלום")
    assert said.startswith("'\u2068שלום\u2069'") and said.endswith("쓸 수 없습니다.")
    assert "\u2068" not in t("error.project.name", "ko", name="회귀")  # nothing to set apart
    listed = t("error.project.name", "en", name="عربي")
    assert listed.startswith("'\u2068عربي\u2069' is not")


def test_values_written_as_sentences_join_without_doubled_punctuation() -> None:
    from aizac.text.joining import bare, joined

    assert bare(" 차분하고  정중함. ") == "차분하고 정중함" and bare("맹세가.") == "맹세가"
    assert joined(["a scar.", "", "grey eyes. ", "短发。"], ", ") == "a scar, grey eyes, 短发"
