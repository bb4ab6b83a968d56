"""The cliché and beat database's row schema and its CSV loader (pure; reads one file).

``data/beats.csv`` holds one story beat per row. Beats belong to a trope (a named story pattern
such as ``regression-revenge``) and are numbered by ``order`` within it; their ``stage`` follows
the five-act arc ``exposition < development < crisis < climax < resolution`` and never goes
backwards as ``order`` grows.

Columns (all required, UTF-8, standard CSV quoting): ``id`` (slug, ``<trope>-NN``), ``genre``
and ``trope`` (slugs; a trope belongs to one genre), ``order`` (1, 2, ... within the trope),
``stage``, ``keywords``, ``summary`` (what happens, in English), ``location``, ``time``, ``roles``
(who is involved), ``event`` (the beat's key event), ``emotion``, ``conflict`` and ``hook``
(what pulls the reader on).

List-valued columns (``keywords``, ``roles``) are separated by :data:`LIST_SEP` (``;``), so
commas stay free for prose. ``keywords`` must hold at least one Korean and one English keyword,
e.g. ``회귀;regression;복수;revenge``.

Each text column has an optional Korean twin, ``<column>_ko`` (:data:`KO_COLUMNS`): the beat as a
Korean web-novel editor writes it, not a translation of the English. A filled ``_ko`` cell must
contain Hangul; an empty one falls back to the English column (:meth:`BeatRow.localized`).
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from aizac.errors import InvalidInputError
from aizac.text import Text

Stage = Literal["exposition", "development", "crisis", "climax", "resolution"]
STAGES: tuple[str, ...] = get_args(Stage)
LIST_SEP = ";"
COLUMNS: tuple[str, ...] = (
    "id",
    "genre",
    "trope",
    "order",
    "stage",
    "keywords",
    "summary",
    "location",
    "time",
    "roles",
    "event",
    "emotion",
    "conflict",
    "hook",
)

LOCALIZED_FIELDS: tuple[str, ...] = (
    "summary",
    "location",
    "time",
    "roles",
    "event",
    "emotion",
    "conflict",
    "hook",
)
"""Text columns that have a Korean twin ``<column>_ko``."""
KO_COLUMNS: tuple[str, ...] = tuple(f"{c}_ko" for c in LOCALIZED_FIELDS)
"""Optional Korean columns (see the module docstring)."""

_SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_HANGUL = re.compile(r"[\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]")
_LATIN = re.compile(r"[A-Za-z]")


def read_names() -> dict[str, Any]:
    """The genre and stage names writers type (``names.toml`` beside this module)."""
    with (resources.files("aizac.cliches") / "names.toml").open("rb") as handle:
        return tomllib.load(handle)


STAGE_ALIASES: dict[str, str] = dict(read_names()["stages"])
"""The Korean names of the same five-stage structure, to the stage they name."""


def resolve_stage(stage: str) -> str:
    """The canonical stage for ``stage`` (any case, or its Korean name such as ``위기``)."""
    name = stage.strip().lower()
    name = STAGE_ALIASES.get(name, name)
    if name not in STAGES:
        raise InvalidInputError("error.cliches.stage", stage=str(stage),
                                choices=", ".join(STAGES), aliases=", ".join(STAGE_ALIASES))
    return name


def stage_index(stage: str) -> int:
    """Position of ``stage`` in the five-act arc (0 = exposition); Korean names accepted."""
    return STAGES.index(resolve_stage(stage))


def split_list(value: str) -> tuple[str, ...]:
    """Split a ``;``-separated cell into stripped, non-empty items (order kept, no duplicates)."""
    seen: dict[str, str] = {}  # case-folded -> first spelling
    for item in value.split(LIST_SEP):
        item = item.strip()
        if item:
            seen.setdefault(item.casefold(), item)
    return tuple(seen.values())


class BeatRow(BaseModel):
    """One validated row of ``beats.csv``."""

    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)

    id: str = Field(min_length=1)
    genre: str = Field(min_length=1)
    trope: str = Field(min_length=1)
    order: int = Field(ge=1)
    stage: Stage
    keywords: tuple[str, ...]
    summary: str = Field(min_length=1)
    location: str = Field(min_length=1)
    time: str = Field(min_length=1)
    roles: tuple[str, ...]
    event: str = Field(min_length=1)
    emotion: str = Field(min_length=1)
    conflict: str = Field(min_length=1)
    hook: str = Field(min_length=1)
    summary_ko: str = ""
    location_ko: str = ""
    time_ko: str = ""
    roles_ko: tuple[str, ...] = ()
    event_ko: str = ""
    emotion_ko: str = ""
    conflict_ko: str = ""
    hook_ko: str = ""

    @field_validator("id", "genre", "trope")
    @classmethod
    def _slug(cls, value: str) -> str:
        if not _SLUG.match(value):
            raise ValueError(f"{value!r} must be a lowercase slug like 'regression-revenge'")
        return value

    @field_validator("keywords", "roles", "roles_ko", mode="before")
    @classmethod
    def _split(cls, value: object) -> object:
        return split_list(value) if isinstance(value, str) else value

    @field_validator("keywords")
    @classmethod
    def _bilingual(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not any(_HANGUL.search(k) for k in value):
            raise ValueError("needs at least one Korean keyword (in Hangul)")
        if not any(_LATIN.search(k) for k in value):
            raise ValueError("needs at least one English keyword (e.g. 'regression')")
        return value

    @field_validator("roles")
    @classmethod
    def _some_roles(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value:
            raise ValueError("name at least one role (e.g. 'protagonist')")
        return value

    @field_validator(*KO_COLUMNS)
    @classmethod
    def _korean(cls, value: str | tuple[str, ...]) -> str | tuple[str, ...]:
        text = value if isinstance(value, str) else " ".join(value)
        if text and not _HANGUL.search(text):
            raise ValueError("a Korean column must be written in Korean (or left empty)")
        return value

    @property
    def stage_index(self) -> int:
        """Position of this beat's stage in the arc (0 = exposition)."""
        return STAGES.index(self.stage)

    @property
    def has_korean(self) -> bool:
        """Whether every Korean column is filled."""
        return all(getattr(self, c) for c in KO_COLUMNS)

    def localized(self, language: str) -> BeatRow:
        """This beat with its text columns in ``language`` where the database has them.

        Korean (``ko``) reads the ``_ko`` columns (an empty cell keeps the English one); the
        database has no Chinese columns, so ``zh`` and every other language get English.
        """
        if language != "ko":
            return self
        update = {f: getattr(self, f"{f}_ko") for f in LOCALIZED_FIELDS if getattr(self, f"{f}_ko")}
        return self.model_copy(update=update) if update else self


@dataclass(frozen=True)
class BeatSource:
    """The raw CSV text and where it came from (its hash identifies the database version)."""

    text: str
    origin: str
    sha256: str


def default_csv_text() -> BeatSource:
    """The packaged ``beats.csv`` (``data/beats.csv`` in a checkout, package data in a wheel)."""
    res = resources.files("aizac.cliches").joinpath("beats.csv")
    try:
        raw = res.read_bytes()
    except OSError as e:
        raise InvalidInputError("error.cliches.packaged", path=str(res), cause=str(e)) from e
    return _source(raw, "aizac.cliches/beats.csv")


def read_csv_source(path: Path | str | None = None) -> BeatSource:
    """Read ``path`` (or the packaged database when None) as UTF-8 and hash it."""
    if path is None:
        return default_csv_text()
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as e:
        raise InvalidInputError("error.cliches.read", path=str(p),
                                cause=e.strerror or str(e)) from e
    return _source(raw, str(p))


def _source(raw: bytes, origin: str) -> BeatSource:
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InvalidInputError("error.cliches.utf8", origin=origin, byte=e.start) from e
    return BeatSource(text=text, origin=origin, sha256=hashlib.sha256(raw).hexdigest())


def parse_beats(text: str, origin: str = "beats.csv") -> list[BeatRow]:
    """Parse and validate CSV text; raise :class:`InvalidInputError` naming the row and column.

    Row numbers count the header as row 1, as a spreadsheet shows them.
    """
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = [h.strip() for h in (reader.fieldnames or [])]
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise InvalidInputError("error.cliches.missing_columns", origin=origin,
                                columns=", ".join(missing), required=", ".join(COLUMNS))
    extra = [h for h in header if h not in COLUMNS and h not in KO_COLUMNS]
    if extra:
        raise InvalidInputError("error.cliches.extra_columns", origin=origin,
                                columns=", ".join(extra), allowed=", ".join(COLUMNS + KO_COLUMNS))
    rows: list[BeatRow] = []
    for line_no, raw in enumerate(reader, start=2):
        if None in raw:
            raise InvalidInputError("error.cliches.extra_cells", origin=origin, row=line_no)
        cells = {k.strip(): (v or "") for k, v in raw.items()}
        if not any(v.strip() for v in cells.values()):
            continue  # blank line
        rows.append(_validate_row(cells, line_no, origin))
    if not rows:
        raise InvalidInputError("error.cliches.no_beats", origin=origin)
    _check_consistency(rows, origin)
    return rows


def _validate_row(cells: dict[str, str], line_no: int, origin: str) -> BeatRow:
    try:
        return BeatRow.model_validate(cells)
    except ValidationError as e:
        err = e.errors()[0]
        column = ".".join(str(p) for p in err["loc"][:1]) or "?"
        value = cells.get(column, "")
        ident = cells.get("id", "").strip() or "?"
        more = Text("error.cliches.more", n=e.error_count() - 1) if e.error_count() > 1 else ""
        raise InvalidInputError("error.cliches.cell", origin=origin, row=line_no, id=ident,
                                column=column, problem=err["msg"], got=repr(value),
                                more=more) from e


def _check_consistency(rows: Iterable[BeatRow], origin: str) -> None:
    ids: set[str] = set()
    genre_of: dict[str, str] = {}
    last: dict[str, BeatRow] = {}
    for row in rows:
        if row.id in ids:
            raise InvalidInputError("error.cliches.duplicate_id", origin=origin, id=row.id)
        ids.add(row.id)
        genre = genre_of.setdefault(row.trope, row.genre)
        if genre != row.genre:
            raise InvalidInputError("error.cliches.trope_genre", origin=origin, id=row.id,
                                    trope=row.trope, genre=row.genre, earlier=genre)
        prev = last.get(row.trope)
        if prev is not None:
            if row.order <= prev.order:
                raise InvalidInputError("error.cliches.order", origin=origin, id=row.id,
                                        order=row.order, prev=prev.id, prev_order=prev.order)
            if row.stage_index < prev.stage_index:
                raise InvalidInputError("error.cliches.stage_order", origin=origin, id=row.id,
                                        stage=row.stage, prev=prev.id, prev_stage=prev.stage,
                                        order=" < ".join(STAGES))
        last[row.trope] = row


def load_beats(path: Path | str | None = None) -> list[BeatRow]:
    """Load and validate ``beats.csv`` (the packaged one when ``path`` is None)."""
    src = read_csv_source(path)
    return parse_beats(src.text, src.origin)
