"""A project's pictures: files under the project folder, rows in the project database.

``<project>/images/<id>.<ext>`` holds each picture, written atomically (a temporary file, then a
rename) *before* its row is inserted, so a row never names a missing file; a crash in between
leaves only an unnamed file. Two tables sit beside the project's own (in ``project.sqlite3``, or
the server database; :mod:`aizac.storage.tables`):

- ``images``: one row per picture (its kind, the beat it shows, the prompt it was made from, the
  model, whether it was billable, the file, its size and digest);
- ``image_places``: which picture is placed where — the ``cover`` slot, or ``beat:<id>`` for an
  accepted beat (where the export puts it). Placing and removing change only this table, so an
  undo or redo of a placement never makes a picture again.

The project's image settings (its budget, art style and author) live in the project's meta.
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import delete, func, or_, select

from aizac.errors import InvalidInputError, NotFoundError, StorageError
from aizac.llm.images.base import JPEG, PNG, WEBP, GeneratedImage
from aizac.storage.tables import image_places, images
from aizac.storage.tables import meta as t_meta
from aizac.writer.project import ProjectStore

IMAGES_DIR = "images"
COVER = "cover"
_EXT = {PNG: "png", JPEG: "jpg", WEBP: "webp"}


def beat_slot(beat_id: int) -> str:
    """The slot of an accepted beat's illustration."""
    return f"beat:{int(beat_id)}"


def check_slot(slot: str) -> str:
    """``slot`` if it is ``cover`` or ``beat:<id>``, else :class:`InvalidInputError`."""
    if slot == COVER:
        return slot
    kind, _, number = str(slot).partition(":")
    if kind == "beat" and number.isdigit() and int(number) > 0:
        return slot
    raise InvalidInputError("error.image.slot", slot=str(slot))


@dataclass(frozen=True)
class ImageRecord:
    """One stored picture."""

    id: str
    kind: str
    episode: int
    beat: int
    beat_id: int
    prompt: str
    negative: str
    model: str
    billable: bool
    file: str
    media_type: str
    width: int
    height: int
    size: int
    sha256: str
    sources: tuple[str, ...]
    created_at: float

    @property
    def file_name(self) -> str:
        return Path(self.file).name


def _record(row: Mapping[Any, Any]) -> ImageRecord:
    return ImageRecord(
        row["id"], row["kind"], row["episode"], row["beat"], row["beat_id"], row["prompt"],
        row["negative"], row["model"], bool(row["billable"]), row["file"], row["media_type"],
        row["width"], row["height"], row["bytes"], row["sha256"],
        tuple(json.loads(row["sources"])), row["created_at"],
    )


def _image_size(data: bytes) -> tuple[int, int]:
    import io

    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as image:
            return int(image.width), int(image.height)
    except Exception:  # Pillow raises many kinds for a picture it cannot read: size unknown
        return 0, 0


class ImageStore:
    """The pictures of one project (see the module docstring)."""

    def __init__(self, store: ProjectStore) -> None:
        self.store = store
        self.folder = store.directory / IMAGES_DIR
        self.key = store.key

    # ------------------------------------------------------------------------ pictures
    def add(self, image: GeneratedImage, *, kind: str, prompt: str, negative: str = "",
            episode: int = 0, beat: int = 0, beat_id: int = 0, billable: bool,
            sources: tuple[str, ...] = ()) -> ImageRecord:
        """Store a picture: its file first (atomically), then its row."""
        from aizac.export.files import atomic_write_bytes

        ext = _EXT.get(image.media_type)
        if ext is None:
            raise InvalidInputError("error.image.media_type", media_type=image.media_type)
        image_id = f"img-{uuid.uuid4().hex[:16]}"
        relative = f"{IMAGES_DIR}/{image_id}.{ext}"
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StorageError("error.image.folder", path=str(self.folder),
                               cause=e.strerror or str(e)) from e
        atomic_write_bytes(self.store.directory / relative, image.data)
        width, height = (image.width, image.height) if image.width else _image_size(image.data)
        with self.store.transaction() as db:
            db.execute(images.insert().values(
                project=self.key, id=image_id, kind=kind, episode=episode, beat=beat,
                beat_id=beat_id, prompt=prompt, negative=negative, model=image.model,
                billable=int(billable), file=relative, media_type=image.media_type,
                width=width, height=height, bytes=len(image.data),
                sha256=hashlib.sha256(image.data).hexdigest(), sources=json.dumps(list(sources)),
                created_at=time.time(),
            ))
        return self.get(image_id)

    def _images(self) -> Any:
        return select(images).where(images.c.project == self.key)

    def get(self, image_id: str) -> ImageRecord:
        with self.store.reading() as db:
            row = db.execute(self._images().where(images.c.id == image_id)).mappings().first()
        if row is None:
            raise NotFoundError("error.image.unknown", image=str(image_id))
        return _record(row)

    def all(self, *, kind: str | None = None) -> list[ImageRecord]:
        """Every picture, newest first (optionally of one kind)."""
        query = self._images()
        if kind is not None:
            query = query.where(images.c.kind == kind)
        with self.store.reading() as db:
            rows = db.execute(query.order_by(images.c.created_at.desc(), images.c.id.desc())
                              ).mappings().all()
        return [_record(r) for r in rows]

    def path(self, record: ImageRecord) -> Path:
        return self.store.directory / record.file

    def data(self, record: ImageRecord) -> bytes:
        try:
            return self.path(record).read_bytes()
        except OSError as e:
            raise StorageError("error.image.file", path=str(self.path(record)),
                               cause=e.strerror or str(e)) from e

    def billable_count(self) -> int:
        """Pictures a paid provider made for this project (what the budget counts)."""
        with self.store.reading() as db:
            return int(db.execute(select(func.count()).select_from(images).where(
                images.c.project == self.key, images.c.billable == 1)).scalar() or 0)

    # ------------------------------------------------------------------------ places
    def placements(self) -> dict[str, str]:
        """slot -> image id of every placed picture."""
        with self.store.reading() as db:
            rows = db.execute(select(image_places.c.slot, image_places.c.image_id)
                              .where(image_places.c.project == self.key)).all()
        return {str(slot): str(image) for slot, image in rows}

    def placed(self, slot: str) -> str | None:
        return self.placements().get(check_slot(slot))

    def place(self, slot: str, image_id: str | None) -> str | None:
        """Put ``image_id`` in ``slot`` (``None``: empty it); returns what was there."""
        check_slot(slot)
        if image_id is not None:
            self.get(image_id)
        here = (image_places.c.project == self.key) & (image_places.c.slot == slot)
        with self.store.transaction() as db:
            was = db.execute(select(image_places.c.image_id).where(here)).scalar()
            if image_id is None:
                db.execute(delete(image_places).where(here))
            else:
                stmt = self.store.db.insert(image_places).values(
                    project=self.key, slot=slot, image_id=image_id, placed_at=time.time())
                db.execute(stmt.on_conflict_do_update(
                    index_elements=["project", "slot"],
                    set_={"image_id": stmt.excluded.image_id,
                          "placed_at": stmt.excluded.placed_at}))
        return str(was) if was is not None else None

    # ------------------------------------------------------------------------ settings
    def _meta(self) -> dict[str, str]:
        with self.store.reading() as db:
            rows = db.execute(select(t_meta.c.key, t_meta.c.value).where(
                t_meta.c.project == self.key,
                or_(t_meta.c.key.like("image_%"), t_meta.c.key == "author"))).all()
        return {str(k): str(v) for k, v in rows}

    def budget(self, default: int) -> int:
        """The project's image budget (``default`` when it has none of its own)."""
        value = self._meta().get("image_budget")
        return int(value) if value and value.isdigit() else default

    def set_budget(self, budget: int) -> None:
        if isinstance(budget, bool) or not isinstance(budget, int) or not 0 <= budget <= 100_000:
            raise InvalidInputError("error.image.budget_value", value=str(budget))
        self.store.set_meta(image_budget=str(budget))

    def style(self) -> str:
        return self._meta().get("image_style", "")

    def author(self) -> str:
        return self._meta().get("author", "")

    def set_style(self, style: str, author: str) -> None:
        if len(style) > 300 or len(author) > 120:
            raise InvalidInputError("error.image.style_long")
        self.store.set_meta(image_style=" ".join(style.split()), author=" ".join(author.split()))

    # ------------------------------------------------------------------------ prompts
    def saved_prompt(self, slot: str) -> str | None:
        """The writer's own wording of ``slot``'s prompt, if they edited it."""
        found = self.store.kv_get(f"image.prompt.{check_slot(slot)}")
        return (found[0] or None) if found else None

    def save_prompt(self, slot: str, text: str | None) -> None:
        """Keep the writer's prompt for ``slot`` (``None`` or empty: back to the drawn one)."""
        self.store.kv_set(f"image.prompt.{check_slot(slot)}", (text or "").strip())


def as_dict(record: ImageRecord) -> dict[str, Any]:
    """A record as JSON-ready data (the server and the gallery)."""
    return {**record.__dict__, "sources": list(record.sources)}


__all__ = ["COVER", "IMAGES_DIR", "ImageRecord", "ImageStore", "as_dict", "beat_slot",
           "check_slot"]
