"""Shared manuscripts for the export tests: Korean first, with text that tempts every format."""

from __future__ import annotations

import pytest

from aizac.export.manuscript import EpisodeText, Manuscript

KOREAN_PROSE_1 = (
    "달빛이 검 끝에 맺혔다.\n\n"
    '"누구냐?" 서연이 물었다.\n\n'
    "# 이건 제목이 아니다 & <b>태그</b>도 아니다.\n"
    "- 목록도 아니고, *강조*도 아니다.\n"
    "1. 번호도 아니다."
)
KOREAN_PROSE_2 = "그날 밤, 두 사람은 다시 만났다.\r\n\r\n\t들여쓴 문단.\n---\n끝."


@pytest.fixture(scope="session")
def korean_manuscript() -> Manuscript:
    return Manuscript(
        title="달빛 검객: 서연의 길",
        author="김작가",
        language="ko",
        episodes=[
            EpisodeText(1, "검을 든 소녀", KOREAN_PROSE_1),
            EpisodeText(2, "", KOREAN_PROSE_2),
            EpisodeText(3, "재회", "세 번째 이야기."),
        ],
    )


@pytest.fixture(scope="session")
def chinese_manuscript() -> Manuscript:
    return Manuscript(
        title="剑与月",
        language="zh",
        episodes=[
            EpisodeText(1, "开端", "「你是谁？」她问。\n\n月光落在剑上。"),
            EpisodeText(2, "", "第二章的故事。"),
        ],
    )
