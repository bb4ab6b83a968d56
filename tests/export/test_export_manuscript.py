"""Manuscript validation, paragraph splitting and episode ranges."""

from __future__ import annotations

import pytest

from aizac.errors import InvalidInputError
from aizac.export.manuscript import EpisodeText, Manuscript, select_episodes


def _ms(*numbers: int) -> Manuscript:
    return Manuscript("제목", episodes=[EpisodeText(n, f"{n}", f"본문 {n}") for n in numbers])


class TestEpisodeText:
    def test_paragraphs_are_non_blank_lines_of_any_line_ending(self) -> None:
        episode = EpisodeText(1, prose="첫 줄\r\n\r\n  둘째 줄  \r셋째\n\n\n넷째\u2028다섯째\n")
        assert episode.paragraphs == ["첫 줄", "둘째 줄", "셋째", "넷째", "다섯째"]

    def test_xml_invalid_characters_are_dropped(self) -> None:
        episode = EpisodeText(1, "제\x07목", "가\x00나\x1f다\ufffe")
        assert episode.paragraphs == ["가나다"]
        assert episode.title == "제목"

    def test_title_becomes_one_line(self) -> None:
        assert EpisodeText(1, "  둘\n\t 줄 ").title == "둘 줄"

    @pytest.mark.parametrize("number", [0, -1, 1.5, "1", True])
    def test_bad_numbers_are_rejected(self, number: object) -> None:
        with pytest.raises(InvalidInputError, match="Episode number"):
            EpisodeText(number)  # type: ignore[arg-type]

    def test_overlong_title_is_rejected(self) -> None:
        with pytest.raises(InvalidInputError, match="limit"):
            EpisodeText(1, "가" * 301)


class TestManuscript:
    def test_episodes_become_a_tuple(self) -> None:
        ms = _ms(1, 2)
        assert isinstance(ms.episodes, tuple)
        assert [e.number for e in ms.episodes] == [1, 2]

    @pytest.mark.parametrize("title", ["", "   ", "\n"])
    def test_title_is_required(self, title: str) -> None:
        with pytest.raises(InvalidInputError, match="title"):
            Manuscript(title)

    def test_unknown_language_names_the_valid_ones(self) -> None:
        with pytest.raises(InvalidInputError) as info:
            Manuscript("t", language="fr")  # type: ignore[arg-type]
        assert "ko, en, zh" in info.value.hint

    def test_duplicate_episode_numbers_are_rejected(self) -> None:
        with pytest.raises(InvalidInputError, match="repeated: 2"):
            _ms(1, 2, 2)

    def test_non_episode_items_are_rejected(self) -> None:
        with pytest.raises(InvalidInputError, match="EpisodeText"):
            Manuscript("t", episodes=["본문"])  # type: ignore[list-item]


class TestSelectEpisodes:
    def test_whole_novel_by_default(self) -> None:
        ms = _ms(1, 2, 3)
        assert select_episodes(ms) == ms

    @pytest.mark.parametrize(
        ("first", "last", "expected"),
        [(2, 3, [2, 3]), (2, None, [2, 3, 5]), (None, 2, [1, 2]), (4, 5, [5]), (3, 3, [3])],
    )
    def test_inclusive_ranges(
        self, first: int | None, last: int | None, expected: list[int]
    ) -> None:
        selected = select_episodes(_ms(1, 2, 3, 5), first, last)
        assert [e.number for e in selected.episodes] == expected
        assert selected.title == "제목"

    def test_reversed_range(self) -> None:
        with pytest.raises(InvalidInputError, match="reversed") as info:
            select_episodes(_ms(1, 2, 3), 3, 1)
        assert "Swap" in info.value.hint

    @pytest.mark.parametrize(("first", "last"), [(0, 2), (1, -3), (1.0, 2), (True, 2)])
    def test_bounds_must_be_positive_whole_numbers(self, first: object, last: object) -> None:
        with pytest.raises(InvalidInputError, match="whole number"):
            select_episodes(_ms(1, 2), first, last)  # type: ignore[arg-type]

    def test_empty_range_names_what_exists(self) -> None:
        with pytest.raises(InvalidInputError, match="between 6 and 9") as info:
            select_episodes(_ms(1, 2, 5), 6, 9)
        assert "1-5 (3 in all)" in info.value.hint

    def test_no_episodes_at_all(self) -> None:
        with pytest.raises(InvalidInputError, match="no episodes"):
            select_episodes(Manuscript("빈 책"))
