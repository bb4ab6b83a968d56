"""The interface's words (the catalogue): every string draws with ordinary text fonts (no emoji
glyphs), and what the pipeline reports reads in the page's language."""

from __future__ import annotations

import re

from aizac.text import LANGUAGES, Text
from aizac.text.catalogue import entries
from aizac.web.labels import labels
from aizac.web.runner import SPINNER, Ui

# Characters drawn from an emoji font by default (Unicode Emoji_Presentation in the BMP, the
# emoji variation selector, and everything in the supplementary symbol planes). A browser
# without an emoji font (Debian chromium here) shows them as empty boxes.
EMOJI_BMP = set("⌚⌛⏩⏪⏫⏬⏰⏳◽◾☔☕♿⚓⚡⚪⚫⚽⚾⛄⛅⛎⛔⛪⛲⛳⛵⛺⛽"
                "✅✊✋✨❌❎❓❔❕❗➕➖➗➰➿⬛⬜⭐⭕")


def _emoji(text: str) -> set[str]:
    return {c for c in text if c in EMOJI_BMP or c == "\ufe0f" or ord(c) >= 0x1F000}


def test_no_label_needs_an_emoji_font() -> None:
    for language in LANGUAGES:
        found = {key: _emoji(value) for key, value in entries(language).items() if _emoji(value)}
        assert found == {}


def test_the_busy_status_is_a_css_spinner_and_text() -> None:
    step = Text("progress.extract", where="1-1")
    for language in LANGUAGES:
        line = Ui(None, labels(language), language).progress_line(  # type: ignore[arg-type]
            "ui.busy.accept", step)
        assert line.startswith(SPINNER) and 'class="aizac-spinner"' in SPINNER
        assert not _emoji(line)
    korean = Ui(None, labels("ko"), "ko").progress_line(  # type: ignore[arg-type]
        "ui.busy.accept", step)
    assert korean.endswith("비트 1-1의 기억을 추출하는 중 (추출 모델)")
    chinese = Ui(None, labels("zh"), "zh").progress_line(  # type: ignore[arg-type]
        "ui.busy.accept", step)
    assert chinese.endswith("正在提取节拍 1-1 的记忆（提取模型）")


def test_a_refused_model_reply_reads_in_korean() -> None:
    """The quality check's failure (English in the pipeline) reaches a Korean page in Korean,
    with what to do; the quoted model text stays as it was (seen on the embedded model)."""
    from aizac.web.labels import labels
    from aizac.writer import checked, quality
    from aizac.writer.model_policy import SMALL, STRICT

    ui = Ui(service=None, L=labels("ko"), language="ko")  # type: ignore[arg-type]
    for policy, who in ((SMALL, "내장 데모 모델의 비트 설계 응답을 2번"),
                        (STRICT, "모델의 비트 설계 응답을 2번")):
        check = checked.QualityCheck("ko", policy, "BeatDesign")
        check.problems = [quality.Problem("repeat", "events", "10000001", "9/10")]
        said = ui.message(checked._failure("BeatDesign", check, 2))
        assert who in said and "모델 탭" in said and "10000001" in said
        assert "unusable" not in said and "Nothing was saved" not in said


def test_a_refused_reply_names_its_fields_in_korean() -> None:
    """What the check found wanting reads in the writer's words on a Korean page: the field is
    named as the editor names it, not by its JSON path (the embedded model's refusal read
    ``characters[0] is not a name``), and the model's own words are quoted as they were."""
    from aizac.web.labels import labels
    from aizac.writer import checked, quality
    from aizac.writer.model_policy import SMALL

    ui = Ui(service=None, L=labels("ko"), language="ko")  # type: ignore[arg-type]
    check = checked.QualityCheck("ko", SMALL, "NovelPlot")
    check.problems = [quality.Problem("name", "characters[0].name", "Awesome! I'm,"),
                      quality.Problem("echo", "acts[2].goal", "exposition")]
    said = _read(ui.message(checked._failure("NovelPlot", check, 2)))
    assert "'인물 1의 이름' 칸의 값은 이름이 아닙니다" in said
    assert "'막 3의 목표' 칸에 내용 대신 지시문의 표현을 옮겼습니다" in said
    assert "'Awesome! I'm,'" in said and "'exposition'" in said  # the model's words, quoted
    for english in ("characters", "acts[", "is not a name", "repeats the prompt"):
        assert english not in said
    english_page = Ui(service=None, L=labels("en"), language="en")  # type: ignore[arg-type]
    assert "name of characters 1 is not a name" in _read(english_page.message(
        checked._failure("NovelPlot", check, 2)))
    chinese = Ui(service=None, L=labels("zh"), language="zh")  # type: ignore[arg-type]
    refused = checked._failure("NovelPlot", check, 2)
    assert "“人物 1的名字”不是名字" in _read(chinese.message(refused))


def _read(markdown: str) -> str:
    """What the status area shows of ``markdown`` once its backslash escapes are rendered."""
    return re.sub(r"\\(.)", r"\1", markdown)


def test_a_model_quoted_in_a_message_shows_literally() -> None:
    """The embedded model gave a character the name '<name>'; quoted in the refusal, Markdown
    took it for an HTML tag and the status area showed nothing after "옮겼습니다: '"."""
    from aizac.errors import InvalidInputError
    from aizac.web.labels import labels

    ui = Ui(service=None, L=labels("ko"), language="ko")  # type: ignore[arg-type]
    said = ui.message(InvalidInputError("error.beat.edit_invalid",
                                        cause="'<name>' and **not bold** and [x](y)."))
    assert "\\<name>" in said and "\\*\\*not bold\\*\\*" in said and "\\[x\\](y)" in said
    assert said.startswith("⚠ **오류:**")  # the label's own emphasis stays
    assert "'<name>'" in _read(said)
    line = ui.progress_line("ui.busy.next", Text("progress.new_characters", names="<b>Mira</b>"))
    assert "\\<b>Mira\\</b>" in line and line.startswith(SPINNER)  # the spinner stays HTML


def test_every_checked_schema_has_a_korean_name_in_a_refusal() -> None:
    """Over the wire (the loopback OpenAI-compatible server, real SDK) a capable model's refused
    beat read "모델의 BeatDesignWithCast 응답을 3번 받았지만…": the combined schemas had no name."""
    from aizac.autopilot.episode_design import episode_schema
    from aizac.autopilot.episode_extract import extraction_schema
    from aizac.web.labels import labels
    from aizac.writer import checked, combined, quality, schemas
    from aizac.writer.model_policy import STRICT

    ui = Ui(service=None, L=labels("ko"), language="ko")  # type: ignore[arg-type]
    asked = [schemas.NovelPlot, schemas.BeatDesign, combined.BeatDesignWithCast,
             schemas.BeatSummary, schemas.CharacterProfile, combined.BeatExtraction,
             schemas.StoryExtraction, schemas.CharacterExtraction, schemas.RelationExtraction,
             schemas.SettingExtraction, episode_schema(4), extraction_schema(4)]
    for schema in asked:
        check = checked.QualityCheck("ko", STRICT, schema.__name__)
        check.problems = [quality.Problem("name", "beat_2.characters[0]", "Awesome! I'm,")]
        said = _read(ui.message(checked._failure(schema.__name__, check, 3)))
        assert schema.__name__ not in said and "'비트 2의 인물 1'" in said, said
