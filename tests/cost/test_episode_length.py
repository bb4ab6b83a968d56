"""Episode length: language defaults, precedence, per-project override, validation."""

from __future__ import annotations

from pathlib import Path

import pytest

from aizac.errors import InvalidInputError
from aizac.settings import Settings
from aizac.writer import episode
from aizac.writer.project import ProjectStore


def test_language_defaults_are_web_novel_lengths() -> None:
    ko = episode.resolve("ko")
    assert (ko.beats, ko.length, ko.unit, ko.per_beat) == (4, 5000, "characters", 1250)
    assert episode.resolve("zh").length == 3000 and episode.resolve("zh").unit == "characters"
    en = episode.resolve("en")
    assert (en.length, en.unit, en.per_beat) == (2000, "words", 500)


def test_project_beats_service_beats_settings_beats_default() -> None:
    r = episode.resolve("ko", project={"beats": 5, "length": None}, service_beats=3,
                        service_length=4000, settings_beats=2, settings_length=6000)
    assert (r.beats, r.length, r.per_beat) == (5, 4000, 800)
    r = episode.resolve("ko", service_beats=None, settings_beats=2, settings_length=6000)
    assert (r.beats, r.length) == (2, 6000)


def test_settings_read_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIZAC_BEATS_PER_EPISODE", "6")
    monkeypatch.setenv("AIZAC_EPISODE_LENGTH", "4200")
    s = Settings()
    assert (s.beats_per_episode, s.episode_length) == (6, 4200)
    monkeypatch.setenv("AIZAC_BEATS_PER_EPISODE", "0")
    with pytest.raises(ValueError):
        Settings()


def test_project_override_round_trips_and_is_validated(tmp_path: Path) -> None:
    store = ProjectStore.create(tmp_path, "p", language="ko", genre="", keywords=["회귀"])
    assert episode.load(store) == {}
    episode.save(store, beats=5, length=None)
    assert episode.load(store) == {"beats": 5, "length": None}
    with pytest.raises(InvalidInputError, match="between 50"):
        episode.save(store, beats=None, length=10)
    with pytest.raises(InvalidInputError, match="Beats per episode"):
        episode.save(store, beats=0, length=None)
    assert episode.load(store) == {"beats": 5, "length": None}  # a refused value changes nothing
