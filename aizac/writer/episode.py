"""Episode length: beats per episode and target prose per episode (the writer's choice).

Lengths count characters in Korean and Chinese and words in English, as each market counts
them. Defaults follow each language's web-novel platforms:

- ko 5,000 characters: the usual length of a paid Korean web-novel episode (about 5,000
  characters with spaces, the unit 문피아/카카오페이지/네이버 시리즈 writers aim for);
- zh 3,000 characters: a common daily chapter on Chinese web-fiction sites (2,000-4,000 字,
  3,000 a typical update);
- en 2,000 words: a typical English web-serial chapter (Royal Road/Wattpad chapters mostly
  run 1,500-3,000 words), and about the reading time of a 5,000-character Korean episode.

Precedence (highest first): the project's own setting (stored in the project, set from the
CLI or the web app), the value the service was started with, ``AIZAC_BEATS_PER_EPISODE`` /
``AIZAC_EPISODE_LENGTH``, the language default.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aizac.errors import InvalidInputError

if TYPE_CHECKING:
    from aizac.settings import Settings
    from aizac.writer.project import ProjectStore

DEFAULT_BEATS = 4
DEFAULT_LENGTH: dict[str, int] = {"ko": 5000, "zh": 3000, "en": 2000}
UNITS: dict[str, str] = {"ko": "characters", "zh": "characters", "en": "words"}
MAX_BEATS = 50
LENGTH_RANGE = (50, 100_000)
STORE_KEY = "episode_length"
"""Project key-value entry holding the project's override as JSON ``{"beats", "length"}``."""


@dataclass(frozen=True)
class EpisodeLength:
    """How long an episode is: ``beats`` beats and ``length`` characters or words of prose."""

    beats: int
    length: int
    unit: str

    @property
    def per_beat(self) -> int:
        """Target prose length of one beat (characters or words; at least 1)."""
        return max(1, round(self.length / self.beats))


def check(beats: int | None, length: int | None) -> None:
    """Reject out-of-range values with a clear message (``None`` means "not set")."""
    if beats is not None and not 1 <= beats <= MAX_BEATS:
        raise InvalidInputError("error.episode.beats_range", high=MAX_BEATS, got=beats)
    low, high = LENGTH_RANGE
    if length is not None and not low <= length <= high:
        raise InvalidInputError("error.episode.length_range", low=f"{low:,}", high=f"{high:,}",
                                got=f"{length:,}")


def resolve(
    language: str,
    *,
    project: dict[str, Any] | None = None,
    service_beats: int | None = None,
    service_length: int | None = None,
    settings_beats: int | None = None,
    settings_length: int | None = None,
) -> EpisodeLength:
    """The episode length in force (pure): the first value set, in precedence order."""
    stored = project or {}

    def first(*values: Any) -> int | None:
        return next((int(v) for v in values if v is not None), None)

    beats = first(stored.get("beats"), service_beats, settings_beats) or DEFAULT_BEATS
    length = first(stored.get("length"), service_length, settings_length)
    if length is None:
        length = DEFAULT_LENGTH.get(language, DEFAULT_LENGTH["en"])
    return EpisodeLength(beats, length, UNITS.get(language, "words"))


def load(store: ProjectStore) -> dict[str, Any]:
    """The project's override (``{}`` if none) from its key-value table."""
    entry = store.kv_get(STORE_KEY)
    if entry is None:
        return {}
    try:
        value = json.loads(entry[0])
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def dumps(*, beats: int | None, length: int | None) -> str:
    """The stored form of the project's override (checked)."""
    check(beats, length)
    return json.dumps({"beats": beats, "length": length})


def save(store: ProjectStore, *, beats: int | None, length: int | None) -> None:
    """Store the project's override (``None`` clears that part: the defaults apply again)."""
    store.kv_set(STORE_KEY, dumps(beats=beats, length=length))


class ProjectEpisodes:
    """The episode length of one project: its own values, then the service's and settings'.

    Reads the project's values on every call, so a change from the web app or the CLI applies
    to the next beat without reopening the project.

    Args:
        store: the project's store (its key-value table holds the project's values).
        settings: aizac settings (``beats_per_episode``, ``episode_length``).
        beats, length: the values the service was started with (``None``: not set).
    """

    def __init__(
        self, store: ProjectStore, settings: Settings, *, beats: int | None = None,
        length: int | None = None,
    ) -> None:
        check(beats, length)
        self.store = store
        self.settings = settings
        self.beats = beats
        self.length = length

    def current(self) -> EpisodeLength:
        """The episode length in force for this project."""
        return resolve(
            self.store.info().language,
            project=load(self.store),
            service_beats=self.beats,
            service_length=self.length,
            settings_beats=self.settings.beats_per_episode,
            settings_length=self.settings.episode_length,
        )

    def own(self) -> dict[str, Any]:
        """The project's own values (``{}``, or ``{"beats": n | None, "length": n | None}``)."""
        return load(self.store)

    def set(self, *, beats: int | None, length: int | None) -> EpisodeLength:
        """Store the project's own values (``None`` clears one); the new length in force."""
        save(self.store, beats=beats, length=length)
        return self.current()
