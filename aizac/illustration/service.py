"""Illustrating a project: draw a prompt, confirm, generate within the budget, store, place.

:class:`Illustrator` works over one open project (a :class:`~aizac.writer.agent.WriterAgent`:
its store, memory, router and plan). A picture is made only with the writer's confirmation of
that one generation (``confirmed=True``, given by the page's Confirm button or the CLI's
``--yes``), and a billable provider's picture only while the project's image budget has room;
the free typographic default is not counted. The prompt sent is the writer's (edited) text,
kept with the picture and as the slot's prompt.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aizac.errors import InvalidInputError, LimitError, NotFoundError
from aizac.illustration.drafting import prompt_for_beat, prompt_for_cover
from aizac.illustration.prompts import MAX_PROMPT_CHARS, ImagePrompt
from aizac.illustration.store import COVER, ImageRecord, ImageStore, beat_slot, check_slot
from aizac.llm.images.base import ImageRequest
from aizac.settings_values import parse_size


@dataclass(frozen=True)
class Quote:
    """What one generation would cost: shown before the writer confirms it.

    Attributes:
        model: the image role's spec.
        billable: it counts against the budget.
        used: billable pictures this project already has.
        budget: the project's budget.
    """

    model: str
    billable: bool
    used: int
    budget: int

    @property
    def left(self) -> int:
        return max(0, self.budget - self.used)


@dataclass(frozen=True)
class SlotPrompt:
    """A slot's prompt as shown: the text (the writer's edit if any) and what it was drawn
    from."""

    slot: str
    prompt: ImagePrompt
    text: str
    edited: bool


class Illustrator:
    """Covers and scene illustrations of one project (see the module docstring)."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.images = ImageStore(agent.store)

    # ------------------------------------------------------------------------ prompts
    def _beat(self, beat_id: int) -> Any:
        record = self.agent.store.beat(beat_id)
        if record.status == "rejected":
            raise NotFoundError("error.image.no_beat", beat=str(beat_id))
        return record

    def drawn_prompt(self, slot: str) -> ImagePrompt:
        """The prompt drawn from the story for ``slot`` (no edit)."""
        check_slot(slot)
        info = self.agent.info
        style = self.images.style()
        if slot == COVER:
            plot = self.agent.require_plot().plot
            return prompt_for_cover(self.agent.memory, plot, language=info.language,
                                    keywords=info.keywords or plot.keywords,
                                    author=self.images.author(), style=style)
        beat = self._beat(int(slot.split(":", 1)[1])).beat
        return prompt_for_beat(self.agent.memory, beat, language=info.language, style=style)

    def prompt(self, slot: str) -> SlotPrompt:
        """``slot``'s prompt: the writer's own text when they edited it, else the drawn one."""
        drawn = self.drawn_prompt(slot)
        saved = self.images.saved_prompt(slot)
        return SlotPrompt(slot, drawn, saved or drawn.text, bool(saved and saved != drawn.text))

    def save_prompt(self, slot: str, text: str | None) -> SlotPrompt:
        """Keep the writer's wording (empty: back to the drawn prompt)."""
        self.images.save_prompt(slot, _checked(text) if text and text.strip() else None)
        return self.prompt(slot)

    # ------------------------------------------------------------------------ cost
    def quote(self) -> Quote:
        model = self.agent.router.image_model()
        budget = self.images.budget(self.agent.settings.image_budget)
        return Quote(model.label, bool(model.billable), self.images.billable_count(), budget)

    # ------------------------------------------------------------------------ making
    def generate(self, slot: str, text: str | None = None, *, confirmed: bool) -> ImageRecord:
        """Make one picture for ``slot`` from ``text`` (default: its prompt) and store it (not
        placed). Needs the writer's confirmation; a billable one needs room in the budget.

        Raises:
            InvalidInputError: not confirmed, or an empty or too long prompt.
            LimitError: the budget is spent (nothing was asked of the provider).
            ModelError: the provider failed or refused (nothing was stored or counted).
        """
        if not confirmed:
            raise InvalidInputError("error.image.unconfirmed")
        shown = self.prompt(slot)
        prompt_text = _checked(text if text is not None else shown.text)
        quote = self.quote()
        if quote.billable and quote.left <= 0:
            raise LimitError("error.image.budget_spent", used=quote.used, budget=quote.budget)
        drawn = shown.prompt
        settings = self.agent.settings
        size = settings.image_cover_size if drawn.kind == "cover" else settings.image_scene_size
        width, height = parse_size(size)
        request = ImageRequest(drawn.kind, prompt_text, width, height, negative=drawn.negative,
                               card=drawn.card, language=self.agent.info.language)
        model = self.agent.router.image_model()
        image = model.generate(request)
        beat_id = int(slot.split(":", 1)[1]) if slot != COVER else 0
        with self.agent.store.lock():
            record = self.images.add(
                image, kind=drawn.kind, prompt=prompt_text, negative=drawn.negative,
                episode=drawn.episode, beat=drawn.beat, beat_id=beat_id,
                billable=bool(model.billable), sources=drawn.sources)
            if prompt_text != drawn.text:
                self.images.save_prompt(slot, prompt_text)
            self.agent.store.log_step("image", {"id": record.id, "slot": slot,
                                                "model": record.model,
                                                "billable": record.billable})
        return record

    # ------------------------------------------------------------------------ placing
    def place(self, slot: str, image_id: str | None) -> str | None:
        """Place ``image_id`` in ``slot`` (``None``: remove); returns what was there. A beat's
        slot takes only an accepted beat (the export shows accepted prose)."""
        check_slot(slot)
        if slot != COVER and image_id is not None:
            record = self._beat(int(slot.split(":", 1)[1]))
            if record.status != "accepted":
                raise InvalidInputError("error.image.not_accepted",
                                        where=f"{record.episode}-{record.index}")
        with self.agent.store.lock():
            return self.images.place(slot, image_id)

    def placed(self, slot: str) -> ImageRecord | None:
        found = self.images.placed(slot)
        return self.images.get(found) if found else None

    def placements(self) -> dict[str, str]:
        """Slot -> the picture placed there."""
        return self.images.placements()

    # ------------------------------------------------------------------------ reading
    def picture(self, image_id: str) -> ImageRecord:
        return self.images.get(image_id)

    def pictures(self) -> list[ImageRecord]:
        """Every picture of the project, newest first."""
        return self.images.all()

    def data(self, record: ImageRecord) -> bytes:
        """The picture's file."""
        return self.images.data(record)

    def look(self) -> tuple[str, str]:
        """(the pictures' style, the author named on the cover)."""
        return self.images.style(), self.images.author()

    def set_look(self, style: str, author: str, budget: int) -> None:
        """The pictures' style, the cover's author and the project's image budget."""
        self.images.set_style(style, author)
        self.images.set_budget(budget)

    def of_slot(self, slot: str) -> list[ImageRecord]:
        """The pictures made for ``slot``, newest first."""
        check_slot(slot)
        if slot == COVER:
            return self.images.all(kind="cover")
        beat_id = int(slot.split(":", 1)[1])
        return [r for r in self.images.all(kind="scene") if r.beat_id == beat_id]


def _checked(text: str | None) -> str:
    clean = (text or "").strip()
    if not clean:
        raise InvalidInputError("error.image.empty_prompt")
    if len(clean) > MAX_PROMPT_CHARS:
        raise InvalidInputError("error.image.long_prompt", n=len(clean), limit=MAX_PROMPT_CHARS)
    return clean


__all__ = ["Illustrator", "Quote", "SlotPrompt", "beat_slot"]
