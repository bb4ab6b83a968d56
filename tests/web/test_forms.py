"""Form <-> record conversions (pure)."""

from __future__ import annotations

import re

import pytest

from aizac.errors import InvalidInputError
from aizac.web import forms
from aizac.writer.schemas import NovelBeat, NovelPlot
from tests.fakes import PLOT, beat_design


def _beat() -> NovelBeat:
    return NovelBeat(episode=2, index=3, **beat_design(0))


def test_beat_round_trips_through_the_form() -> None:
    beat = _beat()
    fields = forms.beat_to_fields(beat)
    assert fields["dialogue"] == "Mira: You are not who you were (1)."
    assert forms.fields_to_beat(beat, dict(fields)) == beat


def test_edited_fields_are_parsed_into_lists() -> None:
    fields = dict(forms.beat_to_fields(_beat()))
    fields.update(
        characters="Aren, Mira, Duke Veil",
        events="- The gate opens.\n\n- A bell rings.",
        dialogue='Aren: "Run."\nMira：Where?',
    )
    beat = forms.fields_to_beat(_beat(), fields)
    assert beat.characters == ["Aren", "Mira", "Duke Veil"]
    assert beat.events == ["The gate opens.", "A bell rings."]
    assert [(d.speaker, d.line) for d in beat.dialogue] == [("Aren", "Run."), ("Mira", "Where?")]
    assert (beat.episode, beat.index) == (2, 3)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("dialogue", "just a line without speaker", "Speaker: line"),
        ("characters", "", "not valid"),
        ("events", "x" * (forms.MAX_FIELD_CHARS + 1), "limit"),
        ("location", "x" * 61, "not valid"),
    ],
)
def test_bad_beat_edits_are_clear_errors(field: str, value: str, message: str) -> None:
    fields = dict(forms.beat_to_fields(_beat()))
    fields[field] = value
    with pytest.raises(InvalidInputError, match=message):
        forms.fields_to_beat(_beat(), fields)


@pytest.mark.parametrize("text", ["", "  ", ", ,", None])
def test_empty_keywords_are_rejected(text: str | None) -> None:
    with pytest.raises(InvalidInputError, match="No keywords given"):
        forms.split_keywords(text)


def test_keywords_split_on_commas_in_any_script() -> None:
    assert forms.split_keywords("회귀, 복수，빙의") == ["회귀", "복수", "빙의"]
    with pytest.raises(InvalidInputError, match="limit"):
        forms.split_keywords("a" * 400)


def test_plot_round_trips_through_the_tables() -> None:
    plot = NovelPlot.model_validate(PLOT)
    chars, settings, acts = forms.plot_tables(plot)
    chars[0][2] = "A knight who came back."
    edited = forms.tables_to_plot(plot, "New title", plot.logline, chars, settings, acts)
    assert edited.title == "New title"
    assert edited.characters[0].profile == "A knight who came back."
    assert edited.acts == plot.acts
    assert edited.genre == plot.genre


def test_plot_tables_need_five_acts_and_skip_blank_rows() -> None:
    plot = NovelPlot.model_validate(PLOT)
    chars, settings, acts = forms.plot_tables(plot)
    with pytest.raises(InvalidInputError, match="exactly 5 acts"):
        forms.tables_to_plot(plot, "T", "L", chars, settings, acts[:4])
    edited = forms.tables_to_plot(plot, "T", "L", [*chars, ["", "", ""]], settings, acts)
    assert len(edited.characters) == len(plot.characters)
    with pytest.raises(InvalidInputError, match="Title"):
        forms.tables_to_plot(plot, "x" * 301, "L", chars, settings, acts)


def test_act_episode_counts_must_be_whole_numbers() -> None:
    plot = NovelPlot.model_validate(PLOT)
    chars, settings, acts = forms.plot_tables(plot)
    acts[2][2] = "two"
    with pytest.raises(InvalidInputError, match="crisis act's episode count"):
        forms.tables_to_plot(plot, "T", "L", chars, settings, acts)
    acts[2][2] = "4"
    assert forms.tables_to_plot(plot, "T", "L", chars, settings, acts).acts[2].episodes == 4


def test_an_invalid_hand_written_plot_is_explained_in_korean_on_a_korean_page() -> None:
    """A setting row with a description but no name: the Korean page said "The plot is not
    valid: settings.0.name: String should have at least 1 character" (chromium, the walk)."""
    from aizac.web.labels import labels
    from aizac.web.runner import Ui

    plot = NovelPlot.model_validate(PLOT)
    chars, _, acts = forms.plot_tables(plot)
    acts[0][3] = ""
    with pytest.raises(InvalidInputError) as err:
        forms.tables_to_plot(None, "T", "L", chars, [["", "버려진 재벌가의 회사."]], acts)
    said = Ui(None, labels("ko"), "ko").message(err.value)  # type: ignore[arg-type]
    said = re.sub(r"\\(.)", r"\1", said)  # as rendered
    assert "플롯이 올바르지 않습니다" in said
    assert "'배경 1의 이름'이 비어 있습니다" in said  # the particle agrees with 름
    assert "'막 1의 주요 사건'이 비어 있습니다" in said
    assert not re.search(r"[A-Za-z]{3,}", said), said
    english = Ui(None, labels("en"), "en").message(err.value)  # type: ignore[arg-type]
    assert "The plot is not valid" in english and "settings" in english


@pytest.mark.parametrize("table", ["characters", "settings", "acts"])
def test_a_table_that_lost_a_column_names_that_table(table: str) -> None:
    """Issue 23 item 8: a column deleted from Gradio's column menu (the acts' episode count)
    made the save say the crisis act's episode count was 'Hide the future' (the next column)."""
    from aizac.web.labels import labels
    from aizac.web.runner import Ui

    plot = NovelPlot.model_validate(PLOT)
    tables = dict(zip(("characters", "settings", "acts"), forms.plot_tables(plot), strict=True))
    tables[table] = [row[:-2] + row[-1:] for row in tables[table]]  # one column gone
    with pytest.raises(InvalidInputError) as err:
        forms.tables_to_plot(plot, "T", "L", tables["characters"], tables["settings"],
                             tables["acts"])
    assert err.value.key == "error.form.table_columns"
    said = Ui(None, labels("ko"), "ko").message(err.value)  # type: ignore[arg-type]
    name = {"characters": "인물", "settings": "설정 표", "acts": "막 표"}[table]
    assert name in said and "열" in said, said
