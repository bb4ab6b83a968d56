"""The base of every model-facing schema, and the strings every schema shares.

A schema is closed (``extra="forbid"``), its class docstring is not sent (small models copy it
into their answers), and a string may say what it holds for the small model's grammar
(:func:`string_kind`, read by :mod:`aizac.llm.grammar`). The writer's schemas
(:mod:`aizac.writer.schemas`) and the dialogue plan (:mod:`aizac.dialogue.plan`) build on it.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from aizac.llm.grammar import KIND


def string_kind(kind: str) -> Any:
    """What a string holds, for the small model's grammar (a name is a name)."""
    return Field(json_schema_extra={KIND: kind})


def _drop_description(schema: dict[str, Any], _cls: type) -> None:
    # Class docstrings are for readers of the code; small models copy them into answers.
    schema.pop("description", None)


class ClosedSchema(BaseModel):
    """A model-facing schema: no field beyond its own, no description sent."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=_drop_description)


Name = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=40), string_kind("name")
]
Short = Annotated[str, StringConstraints(strip_whitespace=True, max_length=60)]
