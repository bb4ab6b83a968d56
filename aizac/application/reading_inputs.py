"""What the reading estimate is computed from, read off a project (:mod:`.reading_estimate`).

The prompts' fixed parts are measured here (each template rendered with empty values, and the
outline of the schema its call sends, as a ``json_object`` provider receives it), the models are
the router's configured ones (their spec, declared profile and price; no model is built for a
configured spec, so a missing key does not stop an estimate), and the unread scenes are the
imported beats whose design is still :data:`~aizac.writer.project_rows.UNREAD_CAST`.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel

from aizac.application.reading_estimate import (
    API_SPEED,
    EMBEDDED_SPEED,
    TAGS,
    PromptSizes,
    RoleModel,
)
from aizac.errors import AizacError
from aizac.llm import registry
from aizac.llm.methods import shape_instruction
from aizac.llm.prices import Price, price_of
from aizac.llm.profiles import GENERIC, ModelProfile, profile_of
from aizac.llm.specs import parse_spec
from aizac.tokens import count_tokens
from aizac.writer.combined import BeatDesignWithCast, BeatExtraction
from aizac.writer.prompts import PromptLibrary
from aizac.writer.schemas import (
    BeatSummary,
    CharacterExtraction,
    RelationExtraction,
    SettingExtraction,
    StoryExtraction,
)

READ_PROMPT = "read_scene"
"""The read call's template (:mod:`aizac.writer.reading`)."""
_TAG_SCHEMAS: dict[str, type[BaseModel]] = {
    "Story": StoryExtraction, "Character": CharacterExtraction,
    "CharacterRelation": RelationExtraction, "NovelSetting": SettingExtraction,
}
# ASCII names, as string.Template reads them: "$episode화" is $episode, then a Korean word.
_PLACEHOLDER = re.compile(r"\$(?:\{(\w+)\}|(\w+))", re.ASCII)


def _fixed(prompts: PromptLibrary, kind: str, language: str, schema: type[BaseModel]) -> int:
    template = prompts.get(kind, language)
    names = {a or b for a, b in _PLACEHOLDER.findall(template.system + template.user)}
    names.discard("language_name")
    messages = template.render(**dict.fromkeys(names, ""))
    text = "\n".join(m.text for m in messages)
    return count_tokens(text) + count_tokens(
        shape_instruction(schema.model_json_schema(), language))


def prompt_sizes(prompts: PromptLibrary, language: str) -> PromptSizes:
    """Tokens of each reading prompt's fixed part in ``language``."""
    return PromptSizes(
        read=_fixed(prompts, READ_PROMPT, language, BeatDesignWithCast),
        combined=_fixed(prompts, "extract_combined", language, BeatExtraction),
        tags={tag: _fixed(prompts, f"extract_{tag}", language, _TAG_SCHEMAS[tag])
              for tag in TAGS},
        summary=_fixed(prompts, "summary", language, BeatSummary),
    )


def role_model(router: Any, role: str) -> RoleModel:
    """The model configured for ``role``: its spec, profile, price and speed.

    A model injected into the router (a test's, a notebook's) is described by its own profile
    (:func:`~aizac.llm.profiles.profile_of`); a configured spec by its provider's row, unbuilt.
    """
    label, profile, price = "", GENERIC, None
    status = next((s for s in _describe(router) if s.role == role), None)
    if status is not None and status.provider != "injected":
        label = status.spec
        try:
            spec = parse_spec(status.spec, role)
        except AizacError:
            spec = None
        row = registry.row(spec.provider) if spec is not None else None
        if spec is not None and row is not None:
            profile, price = row.profile, _price(spec.provider, spec.model)
    else:
        model = router.model(role)
        label = status.spec if status is not None else f"injected:{type(model).__name__}"
        profile = profile_of(model)
    speed = EMBEDDED_SPEED if profile.small_local else API_SPEED
    return RoleModel(role, label, _unrouted(profile), price, speed)


def _describe(router: Any) -> list[Any]:
    describe = getattr(router, "describe", None)
    return list(describe()) if callable(describe) else []


def _unrouted(profile: ModelProfile) -> ModelProfile:
    return profile if not profile.routed else ModelProfile(
        **{**profile.__dict__, "routed": False})


def _price(provider: str, model: str) -> Price | None:
    try:
        return price_of(provider, model)
    except AizacError:  # not in the table: no money figure, said so
        return None


__all__ = ["READ_PROMPT", "prompt_sizes", "role_model"]
