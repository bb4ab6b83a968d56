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
