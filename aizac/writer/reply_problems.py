"""A refused model reply said in the writer's words, where the error meets the writer.

The structured layer (:mod:`aizac.llm.structured`) keeps what was wrong with the last reply as
the validator wrote it (``- beat_1: Field required``) and names the reply by its schema class
(``EpisodeDesign``): right for the model, which is shown it in the repair turn, and for the log,
but a Korean writer read it as English inside a Korean error. :func:`in_writers_words` is called
where an error becomes a message for the writer (the web status, the server's error body, the
command line, the autopilot's run record): the reply is named as the writer calls it (the
episode plan), the fields the validator named are said in the writer's words (``비트 1``,
:func:`~aizac.writer.field_labels.field_label`), and the validator's own text goes to the log.
The error keeps its key (the REST ``code``).
"""

from __future__ import annotations

import logging
import re
from typing import Any, TypeVar

from aizac.errors import StructuredOutputError
from aizac.text import Text, Verbatim
from aizac.writer.checked import SCHEMA_NAMES
from aizac.writer.field_labels import field_label

log = logging.getLogger(__name__)
E = TypeVar("E", bound=BaseException)

REPLY_NAMES = {**SCHEMA_NAMES, "DialoguePlan": "schema.dialogue_plan",
               "ModelReview": "schema.review", "EpisodeReview": "schema.review",
               "Verdict": "schema.verdict", "SteeringPlan": "schema.steering",
               "ArcOutline": "schema.outline"}
"""What each structured reply holds, as the writer calls it (any other: ``schema.reply``)."""
MAX_FIELDS = 4
"""Fields named at most (then how many more)."""
_LINE = re.compile(r"^- (\S+?): ", re.MULTILINE)  # a problem line of the structured layer
_INDEX = re.compile(r"^\d+$")


def reply_name(schema: str) -> Text:
    """The reply a schema class asks for, in the writer's words (the plot, the episode plan)."""
    return Text(REPLY_NAMES.get(schema, "schema.reply"))


def fields_named(detail: str) -> list[str]:
    """The field paths of the structured layer's problem lines (``- acts.2.goal: ...`` ->
    ``acts[2].goal``; ``(root)`` -> ``*``), each once, in order (pure)."""
    paths: list[str] = []
    for raw in _LINE.findall(detail):
        path = ""
        for part in raw.split("."):
            path += f"[{part}]" if _INDEX.match(part) and path else f".{part}"
        path = path.lstrip(".")
        path = "*" if path == "(root)" else path
        if path not in paths:
            paths.append(path)
    return paths


def _problem(text: Text) -> Text:
    """The last attempt's problem with the validator's words left out."""
    detail = text.params.get("detail")
    raw = detail.text if isinstance(detail, Verbatim) else str(detail or "")
    if text.key == "error.structured.mismatch":
        paths = fields_named(raw)
        if not paths:
            return Text("error.structured.unfit")
        labels: list[Any] = [field_label(p) if p != "*" else Text("field.whole")
                             for p in paths[:MAX_FIELDS]]
        if len(paths) > MAX_FIELDS:
            labels.append(Text("error.structured.more", n=len(paths) - MAX_FIELDS))
        return Text("error.structured.fields", fields=labels)
    if text.key == "error.structured.not_json":
        return Text("error.structured.unreadable")
    if text.key == "error.structured.rejected" and isinstance(detail, Verbatim):
        return Text("error.structured.refused")
    return text


def _said(text: Text) -> Text:
    params = dict(text.params)
    if isinstance(params.get("schema"), str):
        params["schema"] = reply_name(params["schema"])
    for key in ("last", "problem"):
        if isinstance(params.get(key), Text):
            params[key] = _problem(params[key])
    return Text(text.key, params)


def in_writers_words(error: E) -> E:
    """``error`` as the writer reads it: a structured reply's failure names the reply and
    its fields in the catalogue's words (the raw validator text is logged); any other error
    is returned as it is."""
    if not isinstance(error, StructuredOutputError):
        return error
    said = _said(error.text)
    if said == error.text:
        return error
    log.warning("a model reply was refused: %s", error.english())
    # the same error with other words (copy.copy would re-run __init__ on the English text)
    shown = type(error).__new__(type(error))
    shown.__dict__.update(vars(error))
    shown.args = error.args
    shown.text, shown.params = said, dict(said.params)
    shown.__cause__ = error.__cause__
    return shown


__all__ = ["REPLY_NAMES", "fields_named", "in_writers_words", "reply_name"]
