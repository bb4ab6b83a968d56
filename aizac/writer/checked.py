"""Structured calls whose output is checked for degenerate content before anyone stores it.

:class:`CheckedRouter` wraps the writer's router: every ``structured``/``astructured`` call
(plot, beat, character profile, extraction, summary) goes through
:func:`aizac.writer.quality.find_problems`. A degenerate reply is answered with the problems
stated in the project's language and asked again (the changed conversation makes the model
sample anew); after the last attempt the call fails with a clear
:class:`~aizac.errors.UnusableReplyError` and nothing is stored. When the router's
``structured`` accepts a ``check`` callable (the LLM layer's validate -> retry loop), the check
runs inside that loop instead.

How strict the check is, and how often degenerate output is asked again, is the serving model's
:class:`~aizac.writer.model_policy.QualityPolicy` (its declared profile decides: the small
embedded model gets a lenient script rule and more tries with fresh seeds).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Generator, Iterable, Mapping
from typing import Any, TypeVar

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from pydantic import BaseModel

from aizac.errors import StructuredOutputError, UnusableReplyError
from aizac.llm.steps import arun, run
from aizac.text import Text, Verbatim, language_name
from aizac.text.message import Clauses
from aizac.writer import quality
from aizac.writer.field_labels import field_label
from aizac.writer.model_policy import (
    STRICT,
    QualityPolicy,
    policy_for,
    role_profile,
    small_retries_of,
)

M = TypeVar("M", bound=BaseModel)
Also = Callable[[BaseModel, list[quality.Problem]], None]
"""A caller's own check of a value, told what the quality check found in it (an extraction's
references: :class:`aizac.writer.extraction.ReferenceCheck`); raises ``ValueError``."""
ATTEMPTS = 3
"""Calls per structured request when the output keeps being degenerate."""
SCHEMA_NAMES = {
    "NovelPlot": "schema.plot", "BeatDesign": "schema.beat", "BeatDesignWithCast": "schema.beat",
    "BeatSummary": "schema.summary", "CharacterProfile": "schema.character",
    "BeatExtraction": "schema.extraction", "StoryExtraction": "schema.extraction_story",
    "CharacterExtraction": "schema.extraction_character",
    "RelationExtraction": "schema.extraction_relation",
    "SettingExtraction": "schema.extraction_setting", "EpisodeDesign": "schema.episode",
    "EpisodeExtraction": "schema.extraction_episode",
}
"""Every schema a checked structured call asks for, as the writer calls what it is."""
PROBLEM_KEYS = {"name": "quality.name", "echo": "quality.echo", "repeat": "quality.repeat",
                "script": "quality.script"}
"""What the quality check found wrong (:class:`~aizac.writer.quality.Problem` kinds)."""


def schema_name(schema: str) -> Text | Verbatim:
    """What a schema holds (``NovelPlot``: the plot), in the catalogue's words."""
    key = SCHEMA_NAMES.get(schema)
    return Text(key) if key else Verbatim(schema)


def problem_texts(problems: list[quality.Problem], project: str, *, limit: int = 3) -> Clauses:
    """The problems as the writer reads them: the field in the writer's words
    (:func:`~aizac.writer.field_labels.field_label`), the model's text quoted as written."""
    language = language_name(project)
    return Clauses(tuple(
        Text(PROBLEM_KEYS.get(p.kind, "quality.other"), path=field_label(p.path),
             text=Verbatim(p.text[:80]), detail=p.detail, language=language)
        for p in problems[:limit]))


class QualityCheck:
    """The check one structured call runs on its validated value (the LLM layer's ``check``
    contract): it raises ``ValueError`` carrying the message for the model, in the project's
    language, when the value is degenerate.

    ``fixed`` fields are the writer's (locked on a regenerated beat): their values replace the
    model's before the check, as they will in what is stored, so the model's filler there
    refuses nothing. ``names`` (the cast with aliases) count as names, not as words of a
    language, when the script is measured.
    """

    def __init__(
        self,
        language: str,
        policy: QualityPolicy = STRICT,
        schema: str = "output",
        fixed: Mapping[str, Any] | None = None,
        names: Iterable[str] = (),
        also: Also | None = None,
        each_value: bool = False,
    ) -> None:
        self.language = language
        self.policy = policy
        self.schema = schema
        self.fixed = dict(fixed or {})
        self.names = list(names)
        self.also = also
        self.each_value = each_value
        self.problems: list[quality.Problem] = []
        self.rejected = 0

    def __call__(self, value: BaseModel) -> None:
        checked = {**value.model_dump(mode="json"), **self.fixed} if self.fixed else value
        self.problems = quality.find_problems(
            checked, language=self.language, min_script_share=self.policy.min_script_share,
            names=self.names, each_value=self.each_value,
        )
        said = [quality.repair_text(self.problems, self.language)] if self.problems else []
        if self.also is not None:
            try:
                self.also(value, self.problems)
            except ValueError as e:
                said.append(str(e))
        if not said:
            return
        self.rejected += 1
        if self.rejected > self.policy.retries:  # bounded: stop the LLM layer's loop too
            raise _failure(self.schema, self, self.rejected)
        raise ValueError("\n".join(said))


def accepts_keyword(method: Callable[..., Any], name: str) -> bool:
    """Whether ``method`` takes the keyword argument ``name`` (routers differ: a plain one takes
    neither ``check`` nor ``fixed``)."""
    try:
        return name in inspect.signature(method).parameters
    except (TypeError, ValueError):
        return False


def _failure(schema: str, check: QualityCheck, attempts: int) -> UnusableReplyError:
    key = "error.model.unusable_small" if check.policy.small else "error.model.unusable"
    return UnusableReplyError(key, schema=schema_name(schema), attempts=attempts,
                              problems=problem_texts(check.problems, check.language))


def _refused(
    schema: type[BaseModel], check: QualityCheck, error: StructuredOutputError
) -> StructuredOutputError:
    """The LLM layer's failure, or, when its last attempt was the check's refusal (its retries
    ran out before the check's own bound), the check's account of what it refused."""
    if error.content_rejected and check.problems:
        return _failure(schema.__name__, check, check.rejected)
    return error


def _again(
    conversation: list[BaseMessage], value: BaseModel, error: ValueError
) -> list[BaseMessage]:
    """The conversation with the rejected reply and the problem added (the model samples anew)."""
    return [*conversation, AIMessage(value.model_dump_json()), HumanMessage(str(error))]


class CheckedRouter:
    """A router whose structured output is checked by :mod:`aizac.writer.quality`.

    Args:
        router: the wrapped router (anything with ``structured``/``astructured``).
        language: returns the project's language at call time.
        attempts: calls per request when the output is degenerate.
        names: returns the cast's names and aliases at call time (the project's memory):
            names are not words of a language, so a Korean sentence about Baek Dohyun is
            Korean.
    """

    def __init__(
        self, router: Any, language: Callable[[], str], *, attempts: int = ATTEMPTS,
        names: Callable[[], Iterable[str]] | None = None,
    ) -> None:
        self.router = router
        self._language = language
        self.attempts = attempts
        self._names = names

    def __getattr__(self, name: str) -> Any:
        return getattr(self.router, name)

    def structured(
        self, role: str, schema: type[M], messages: list[BaseMessage], *,
        fixed: Mapping[str, Any] | None = None, names: Iterable[str] = (),
        also: Also | None = None, each_value: bool = False,
    ) -> M:
        """``router.structured`` with the quality check (see the module docstring); ``fixed``:
        the fields the writer set, which the caller puts in place of the model's; ``names``:
        names this call may use besides the cast (a beat's new characters); ``also``: the
        caller's own check, run on the same value in the same repair loop; ``each_value``:
        judge every value's script on its own (a reply whose refused values are set aside
        and the rest kept: an extraction), not only a reply mostly in another script."""
        check = self._check(role, schema, fixed, names, also, each_value)
        if accepts_keyword(self.router.structured, "check"):
            try:
                return self.router.structured(role, schema, messages, check=check)
            except StructuredOutputError as e:
                raise _refused(schema, check, e) from e
        rounds = self._rounds(schema, messages, check)
        return run(rounds, lambda conversation: self.router.structured(role, schema, conversation))

    async def astructured(
        self, role: str, schema: type[M], messages: list[BaseMessage], *,
        fixed: Mapping[str, Any] | None = None, names: Iterable[str] = (),
        also: Also | None = None, each_value: bool = False,
    ) -> M:
        """Async :meth:`structured`."""
        check = self._check(role, schema, fixed, names, also, each_value)
        if accepts_keyword(self.router.astructured, "check"):
            try:
                return await self.router.astructured(role, schema, messages, check=check)
            except StructuredOutputError as e:
                raise _refused(schema, check, e) from e
        rounds = self._rounds(schema, messages, check)
        return await arun(rounds, lambda conv: self.router.astructured(role, schema, conv))

    def _check(
        self, role: str, schema: type[BaseModel], fixed: Mapping[str, Any] | None = None,
        names: Iterable[str] = (), also: Also | None = None, each_value: bool = False,
    ) -> QualityCheck:
        """The check of one call, with the policy of the model serving ``role``."""
        policy = policy_for(role_profile(self.router, role), small_retries_of(self.router))
        cast = list(self._names()) if self._names is not None else []
        return QualityCheck(self._language(), policy, schema.__name__, fixed, [*cast, *names],
                            also, each_value)

    def _rounds(
        self, schema: type[M], messages: list[BaseMessage], check: QualityCheck
    ) -> Generator[list[BaseMessage], M, M]:
        """The check-and-ask-again rounds, written once (:mod:`aizac.llm.steps`): yields the
        conversation to send, gets the validated value back."""
        conversation = list(messages)
        # The small model's policy sets its own (larger) number of tries; others are capped.
        tries = check.policy.retries + 1
        for _ in range(tries if check.policy.small else min(self.attempts, tries)):
            value = yield conversation
            try:
                check(value)
            except ValueError as e:
                conversation = _again(conversation, value, e)
                continue
            return value
        raise _failure(schema.__name__, check, check.rejected)
