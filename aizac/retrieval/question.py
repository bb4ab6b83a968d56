"""A question-to-filter strategy that small models can follow: fill a few fields, not a DSL.

LangChain's query constructor asks the model to write a filter in a small expression language
(``and(eq("tag", ...), ...)``). Large models do; SmolLM2-135M does not. Here the model fills
:class:`MemoryQuestion` instead — a handful of fields with closed choices and short strings —
requested through :func:`aizac.llm.structured.generate_structured`, so the local model decodes
under the JSON-schema constraint and its output always parses (validation errors are shown to
the model and retried). :func:`to_structured_query` then turns the answer, purely, into the
:class:`~langchain_core.structured_query.StructuredQuery` that
:class:`~aizac.retrieval.translator.MemoryFilterTranslator` already handles, so aliases, pair
order, history and the fallback for unknown characters behave exactly as on the LangChain path.

Conversion rules (the model's choices are hints; the translator has the last word):

- ``about`` picks the tag (``relationship`` -> CharacterRelation, ``character`` -> Character,
  ``place_or_thing`` -> NovelSetting, ``event`` -> Story); ``foreshadowed`` asks for pinned
  memories of any tag; ``any`` adds no clause. Plain words are easier for a small model to match
  to a question than the stored tag names.
- ``characters`` become ``character1``/``character2`` for a relationship (one name matches
  either side) and ``character_name`` for a character. Story and NovelSetting memories carry no
  character fields, so for the other choices the names only join the search text.
- The search text is the question itself (the model is not asked to rephrase it: with fewer
  fields to fill, SmolLM2-135M picks ``about`` better), plus the keyword and those names
  again, so they outweigh the question's filler words.
- ``history`` -> ``eq("superseded", true)``; ``recent_turns`` -> ``lt("time", n)``.
- ``keyword`` is never an exact filter (a small model's spelling of a place rarely matches the
  stored key character for character).
- Values the question does not contain are dropped: the words of a name that are not in the
  question (a name with none left goes), a keyword with a word that is not. Small
  models copy their few-shot examples ("Vela" in a question about someone else) and misspell
  ("Choi Jaeha" for "Cho Jaeha", kept as "Jaeha"); such names would otherwise send a good
  question to the fallback. A name that *is* in the question but names nobody the story knows
  still goes to the translator, which rejects it, so the retriever falls back and records why.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import Runnable, RunnableLambda
from langchain_core.structured_query import (
    Comparator,
    Comparison,
    FilterDirective,
    Operation,
    Operator,
    StructuredQuery,
)
from pydantic import BaseModel, ConfigDict, Field, StringConstraints
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaMode, JsonSchemaValue

from aizac.llm.structured import agenerate_structured, generate_structured
from aizac.retrieval.aliases import normalize_name

About = Literal["relationship", "character", "place_or_thing", "event", "foreshadowed", "any"]
TAG_OF: dict[str, str] = {
    "relationship": "CharacterRelation",
    "character": "Character",
    "place_or_thing": "NovelSetting",
    "event": "Story",
}
"""Stored tag of each ``about`` choice (plain words that small models match to questions)."""
Name = Annotated[str, StringConstraints(max_length=40)]
_SPLIT = re.compile(r"[\s,;:!?()\"]+")


class _NoTitles(GenerateJsonSchema):
    """JSON schema without titles or the class docstring: they cost prompt tokens and tell the
    model nothing that the instructions do not (the field rules are in :data:`INSTRUCTIONS`)."""

    def generate(self, schema: Any, mode: JsonSchemaMode = "validation") -> JsonSchemaValue:
        out = _drop_titles(super().generate(schema, mode=mode))
        out.pop("description", None)
        return out


def _drop_titles(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_titles(v) for k, v in value.items() if k != "title"}
    if isinstance(value, list):
        return [_drop_titles(v) for v in value]
    return value


class MemoryQuestion(BaseModel):
    """What a question asks of the story memory (filled in by a model)."""

    model_config = ConfigDict(extra="forbid")

    about: About
    characters: list[Name] = Field(max_length=2)
    keyword: str = Field(max_length=40)
    history: bool
    recent_turns: int | None = Field(ge=1, le=1000)

    @classmethod
    def model_json_schema(  # type: ignore[override]
        cls,
        by_alias: bool = True,
        ref_template: str = "#/$defs/{model}",
        schema_generator: type[GenerateJsonSchema] = _NoTitles,
        mode: JsonSchemaMode = "validation",
        **kwargs: Any,
    ) -> dict[str, Any]:
        """The schema without titles (shorter in the prompt, same constraints)."""
        return super().model_json_schema(
            by_alias=by_alias,
            ref_template=ref_template,
            schema_generator=schema_generator,
            mode=mode,
            **kwargs,
        )


INSTRUCTIONS = """\
You fill search fields for a question about a serial novel's memory.
about: relationship = how two characters stand towards each other; character = one \
character's profile or current state; place_or_thing = a place, object or world rule; \
event = something that happened; foreshadowed = a pinned core fact or what was foreshadowed; \
any = unsure.
characters: the character names written in the question, copied exactly (at most 2).
keyword: the place, object or topic named in the question, else "".
history: true only if the question asks how something changed or what it was before.
recent_turns: a number only if the question asks about recent events, else null."""


def _example(question: str, about: About, characters: Sequence[str] = (),
             keyword: str = "", history: bool = False) -> tuple[str, MemoryQuestion]:
    return question, MemoryQuestion(about=about, characters=list(characters),
                                    keyword=keyword, history=history, recent_turns=None)


EXAMPLES: tuple[tuple[str, MemoryQuestion], ...] = (
    _example("How has the bond between Vela and Zed changed over time?", "relationship",
             ["Vela", "Zed"], history=True),
    _example("What was foreshadowed about the golden bell?", "foreshadowed",
             keyword="golden bell"),
    _example("What do we know about the Glass Lighthouse?", "place_or_thing",
             keyword="Glass Lighthouse"),
    _example("How is Ilse Fenwick doing now?", "character", ["Ilse Fenwick"]),
    _example("What is the relationship between Vela Quill and Zed Ormand?", "relationship",
             ["Vela Quill", "Zed Ormand"]),
    _example("Did Vela lose her umbrella at the pier?", "event", ["Vela"], keyword="umbrella"),
)
"""Few-shot examples. Their names look like no romanised Korean name on purpose: with Korean
-looking examples SmolLM2 wrote the example's name for any name that began alike ("Sora" for
"Seo Jisoo"); names were right for 10 of 24 benchmark questions then, 24 of 24 with these."""


def question_messages(
    question: str, examples: Sequence[tuple[str, MemoryQuestion]] = EXAMPLES
) -> list[BaseMessage]:
    """The conversation asking for one :class:`MemoryQuestion` (instructions, examples, question).

    Examples are earlier chat turns: small instruct models copy a shown pattern far more
    reliably than they follow a description.
    """
    messages: list[BaseMessage] = [SystemMessage(content=INSTRUCTIONS)]
    for asked, answer in examples:
        messages.append(HumanMessage(content=asked))
        messages.append(AIMessage(content=answer.model_dump_json()))
    messages.append(HumanMessage(content=question))
    return messages


def _eq(field: str, value: Any) -> Comparison:
    return Comparison(comparator=Comparator.EQ, attribute=field, value=value)


def _words(text: str) -> list[str]:
    return [w for w in (normalize_name(p) for p in _SPLIT.split(text)) if len(w) >= 2]


def in_question(text: str, question: str, *, every_word: bool) -> bool:
    """Whether the question contains ``text`` (its words, or one of them), spacing and case
    ignored: how the conversion tells a copied value from one a small model made up."""
    key = normalize_name(question)
    words = _words(text)
    if not words:
        return False
    found = [w in key for w in words]
    return all(found) if every_word else any(found)


def grounded_name(name: str, question: str) -> str:
    """The words of ``name`` that the question contains ("" if none): a small model's
    "Choi Jaeha" for a question about "Cho Jaeha" becomes "Jaeha", which the alias resolver
    matches as a given name, instead of an unknown character."""
    key = normalize_name(question)
    kept = [w for w in name.split() if len(normalize_name(w)) >= 2 and normalize_name(w) in key]
    return " ".join(kept)


def _distinct(names: Sequence[str]) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for name in (n.strip() for n in names):
        key = normalize_name(name)
        if key and key not in seen:
            seen.add(key)
            out.append(name)
    return out


def _search_text(parts: Sequence[str]) -> str:
    """The parts joined; repeating a keyword already in the question weights it for similarity
    over the question's filler words."""
    return " ".join(p.strip() for p in parts if p.strip())


def _combine(clauses: list[FilterDirective]) -> FilterDirective | None:
    if not clauses:
        return None
    if len(clauses) == 1:
        return clauses[0]
    return Operation(operator=Operator.AND, arguments=clauses)


def to_structured_query(answer: MemoryQuestion, question: str) -> StructuredQuery:
    """The structured query for a model's :class:`MemoryQuestion` (pure; rules in the module doc).

    Args:
        answer: the model's fields.
        question: the original question: values it does not contain are dropped, and it is the
            search text when the model's words are not in it.
    """
    names = _distinct([grounded_name(n, question) for n in answer.characters])
    keyword = answer.keyword if in_question(answer.keyword, question, every_word=True) else ""
    clauses: list[FilterDirective] = []
    tag = TAG_OF.get(answer.about)
    if tag is not None:
        clauses.append(_eq("tag", tag))
    text_names: list[str] = []
    if tag == "CharacterRelation" and names:
        clauses.extend(_eq(f"character{n}", name) for n, name in enumerate(names, 1))
    elif tag == "Character" and len(names) == 1:
        clauses.append(_eq("character_name", names[0]))
    elif tag == "Character" and names:
        clauses.append(Comparison(comparator=Comparator.IN, attribute="character_name",
                                  value=names))
    else:
        text_names = names
    if answer.about == "foreshadowed":
        clauses.append(_eq("pinned", True))
    if answer.history:
        clauses.append(_eq("superseded", True))
    if answer.recent_turns is not None:
        clauses.append(Comparison(comparator=Comparator.LT, attribute="time",
                                  value=answer.recent_turns))
    return StructuredQuery(query=_search_text([question, keyword, *text_names]),
                           filter=_combine(clauses))


def structured_query_constructor(
    model: BaseChatModel,
    *,
    retries: int = 2,
    examples: Sequence[tuple[str, MemoryQuestion]] = EXAMPLES,
) -> Runnable[dict[str, Any], StructuredQuery]:
    """A query constructor for ``SelfQueryRetriever``: ``{"query": question}`` -> StructuredQuery.

    Args:
        model: the chat model filling :class:`MemoryQuestion` (schema-constrained when local).
        retries: extra attempts after output that does not validate.
        examples: few-shot examples shown before the question.

    Raises (from ``invoke``):
        StructuredOutputError: still invalid after the retries (the retriever falls back).
        ModelError: the model call failed.
    """

    def run(inputs: dict[str, Any]) -> StructuredQuery:
        question = str(inputs["query"])
        answer = generate_structured(
            model, MemoryQuestion, question_messages(question, examples), retries=retries
        )
        return to_structured_query(answer, question)

    async def arun(inputs: dict[str, Any]) -> StructuredQuery:
        question = str(inputs["query"])
        answer = await agenerate_structured(
            model, MemoryQuestion, question_messages(question, examples), retries=retries
        )
        return to_structured_query(answer, question)

    return RunnableLambda(run, afunc=arun, name="structured_query_constructor")
