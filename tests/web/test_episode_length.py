"""Issue 13 in the web app: beats per episode and prose length are the writer's settings."""

from __future__ import annotations

import pytest

from aizac.application.service import ApplicationService
from aizac.errors import InvalidInputError
from aizac.text import describe
from aizac.web import episodes
from aizac.web import handlers as h
from tests.fakes import ScriptedChatModel


def _accept_next(service: ApplicationService, name: str) -> None:
    view = h.next_beat(service, name)
    h.accept(service, name, view.beat_id, view.version)


def test_a_new_project_gets_the_writers_episode_length(service: ApplicationService) -> None:
    name = h.create_project(service, "dawn", "fantasy", "regression", "ko", 6, "4,200")
    view = episodes.episode_view(service, name)
    assert (view.beats, view.length, view.unit) == (6, 4200, "characters")
    assert (view.own_beats, view.own_length) == (6, 4200)
    assert view.per_beat == 700
    assert service.agent(name).episodes.own() == {"beats": 6, "length": 4200}


def test_the_language_default_is_shown_when_the_writer_sets_nothing(
    service: ApplicationService,
) -> None:
    ko = h.create_project(service, "ko-story", "판타지", "회귀", "ko")
    en = h.create_project(service, "en-story", "fantasy", "revenge", "en", None, "")
    ko_view, en_view = (episodes.episode_view(service, n) for n in (ko, en))
    # The test studio was started with 3 beats per episode; lengths are the languages' own.
    assert (ko_view.length, ko_view.unit, ko_view.default_length) == (5000, "characters", 5000)
    assert (en_view.length, en_view.unit) == (2000, "words")
    assert ko_view.own_beats is None and ko_view.beats == ko_view.default_beats == 3
    assert episodes.defaults(service, "zh").length == 3000


@pytest.mark.parametrize(
    ("beats", "length", "says"),
    [(0, None, "between 1 and 50"), (2.5, None, "whole number"), ("abc", None, "whole number"),
     (None, 10, "between 50 and 100,000"), (None, "5천", "whole number"),
     (True, None, "whole number"), (float("nan"), None, "whole number")],
)
def test_bad_episode_lengths_are_refused_and_nothing_is_created(
    service: ApplicationService, beats: object, length: object, says: str
) -> None:
    with pytest.raises(InvalidInputError, match=says) as refused:
        h.create_project(service, "dawn", "fantasy", "regression", "ko", beats, length)
    assert h.project_names(service) == []
    korean = describe(refused.value, "ko").message
    assert korean != refused.value.message and "화" in korean


def test_a_changed_length_is_used_for_the_next_beat_and_prose(
    service: ApplicationService, model: ScriptedChatModel
) -> None:
    name = h.create_project(service, "dawn", "fantasy", "regression", "en")
    h.generate_plot(service, name)
    with pytest.raises(InvalidInputError):
        episodes.set_episode_length(service, name, 51, None)
    assert service.agent(name).episodes.own() == {}  # a refused value changes nothing
    view = episodes.set_episode_length(service, name, 2.0, 900)
    assert (view.beats, view.length, view.per_beat) == (2, 900, 450)
    _accept_next(service, name)
    _accept_next(service, name)
    assert h.next_beat(service, name).draft_position == "2-1"  # 2 beats made episode 1
    accepted = service.accepted(name)[0]
    "".join(h.write_prose(service, name, accepted.id))
    assert "about 450 words" in model.prompts[-1]
    with pytest.raises(InvalidInputError, match="waiting at 2-1") as refused:
        episodes.set_episode_length(service, name, None, "")  # 3 beats: 2-1 would become 1-3
    assert "초안 비트가 2-1" in describe(refused.value, "ko").message
    assert service.agent(name).episodes.own() == {"beats": 2, "length": 900}
    assert episodes.set_episode_length(service, name, 2, "").length == 2000  # beats unchanged
    h.undo(service, name)  # the draft is gone: the beat count may change
    cleared = episodes.set_episode_length(service, name, None, None)
    assert cleared.own_beats is None and cleared.beats == 3 and cleared.length == 2000
    assert h.next_beat(service, name).draft_position == "1-3"
