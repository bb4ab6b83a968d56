"""The episodes for upload: a zip of one plain-text file per episode, and each episode's length
against the project's target (pure).

Serial platforms take an episode at a time: its title in a form field, its body pasted or
uploaded. So each file holds the episode's prose alone (paragraphs separated by a blank line,
UTF-8), named by number in the book's language from the catalogue (``001화.txt``,
``Episode 001.txt``, ``第001章.txt``), zero-padded so that every file manager lists them in
order. A platform also checks length (a paid Korean episode runs about 5,000 characters with
spaces): :func:`check_lengths` counts as the platforms do, characters with spaces and without
line breaks in Korean and Chinese, words in English, and reports the episodes far from the
target. It reports; it refuses nothing (the last episode may still be being written).
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from datetime import UTC, datetime

from aizac.export.manuscript import EpisodeText, Manuscript
from aizac.text import Text, t

TOLERANCE_PERCENT = 20
"""How far from the target an episode may be before it is reported (either way)."""
_NOTES = {  # the keys written out, so that the catalogue check sees them
    ("too_short", "characters"): "export.too_short.characters",
    ("too_short", "words"): "export.too_short.words",
    ("too_long", "characters"): "export.too_long.characters",
    ("too_long", "words"): "export.too_long.words",
}


def episode_length(episode: EpisodeText, unit: str) -> int:
    """The length of ``episode``'s prose: ``"characters"`` (with spaces, line breaks left out)
    or ``"words"``."""
    if unit == "words":
        return sum(len(p.split()) for p in episode.paragraphs)
    return sum(len(p) for p in episode.paragraphs)


@dataclass(frozen=True)
class LengthReport:
    """Each episode's length against the target.

    Attributes:
        target: the project's target length of an episode.
        unit: ``"characters"`` or ``"words"``.
        lengths: ``(episode number, length)`` of each episode exported, in order.
        too_short: ``(number, length)`` of each one more than :data:`TOLERANCE_PERCENT` short.
        too_long: ``(number, length)`` of each one more than :data:`TOLERANCE_PERCENT` long.
    """

    target: int
    unit: str
    lengths: tuple[tuple[int, int], ...]
    too_short: tuple[tuple[int, int], ...]
    too_long: tuple[tuple[int, int], ...]

    def notes(self) -> list[Text]:
        """What the writer is told: a sentence for the short episodes, one for the long ones
        (none when every episode is near the target)."""
        out = []
        for key, found in (("too_short", self.too_short), ("too_long", self.too_long)):
            if found:
                episodes = ", ".join(f"{n} ({length:,})" for n, length in found)
                out.append(Text(_NOTES[key, self.unit], target=f"{self.target:,}",
                                percent=TOLERANCE_PERCENT, episodes=episodes))
        return out


def check_lengths(manuscript: Manuscript, target: int, unit: str,
                  tolerance: int = TOLERANCE_PERCENT) -> LengthReport:
    """Each episode of ``manuscript`` against ``target`` (in ``unit``), ``tolerance`` percent
    either way."""
    lengths = tuple((e.number, episode_length(e, unit)) for e in manuscript.episodes)
    low, high = target * (100 - tolerance) / 100, target * (100 + tolerance) / 100
    return LengthReport(target, unit, lengths,
                        tuple(x for x in lengths if x[1] < low),
                        tuple(x for x in lengths if x[1] > high))


def episode_file_names(manuscript: Manuscript) -> list[str]:
    """The file name of each episode in the zip, in order (``001화.txt``...); numbers padded to
    three digits, or to as many as the largest one has."""
    width = max(3, *(len(str(e.number)) for e in manuscript.episodes))
    return [t("book.episode_file", manuscript.language, n=f"{e.number:0{width}d}") + ".txt"
            for e in manuscript.episodes]


def render_episodes_zip(manuscript: Manuscript, *, modified: datetime | None = None) -> bytes:
    """A zip of one UTF-8 text file per episode of ``manuscript`` (its prose), in order; the
    entries carry ``modified`` (UTC; the current time when omitted)."""
    stamp = (modified or datetime.now(UTC)).astimezone(UTC).timetuple()[:6]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for episode, name in zip(manuscript.episodes, episode_file_names(manuscript),
                                 strict=True):
            body = "\n\n".join(episode.paragraphs) + "\n"
            archive.writestr(zipfile.ZipInfo(name, stamp), body.encode("utf-8"),
                             compress_type=zipfile.ZIP_DEFLATED)
    return buffer.getvalue()


__all__ = ["TOLERANCE_PERCENT", "LengthReport", "check_lengths", "episode_file_names",
           "episode_length", "render_episodes_zip"]
