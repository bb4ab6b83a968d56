"""Dynamic characters: a beat names someone memory does not know -> a fitting profile."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, cast

from pydantic import BaseModel

from aizac.errors import StructuredOutputError, UnusableReplyError
from aizac.memory.references import build_offer, parse_ref, render_cast
from aizac.text import Text, Verbatim
from aizac.writer.extraction import canonical_names, name_key
from aizac.writer.ports import Router
from aizac.writer.prompt_words import prompt_words
from aizac.writer.prompts import PromptLibrary
from aizac.writer.schemas import BeatDesign, CharacterProfile, NovelBeat

log = logging.getLogger(__name__)

_SENTENCE_MARKS = frozenset(",!?;:\n")
_MAX_NAME_WORDS = 5


def looks_like_name(name: str) -> bool:
    """False for a model's sentence in a name slot ("The team pays off the damage.")."""
    text = name.strip()
    return (
        bool(text)
        and not _SENTENCE_MARKS.intersection(text)
        and not text.endswith(".")
        and len(text.split()) <= _MAX_NAME_WORDS
    )


def keep_plausible_names(design: BeatDesign) -> BeatDesign:
    """``design`` without character entries that are sentences, not names (pure).

    Applied to model output only: each unknown name becomes a stored character profile, so a
    sentence there would become canon. A writer's own edits are never filtered. If nothing
    name-like is left, the design is returned unchanged rather than left without characters.
    """
    names = [n for n in design.characters if looks_like_name(n)]
    if not names or len(names) == len(design.characters):
        return design
    return design.model_copy(update={"characters": names})


def unknown_names(
    names: Iterable[str], known: Mapping[str, Sequence[str]]
) -> list[str]:
    """Names (in order, deduplicated) that are neither a known name nor a known alias."""
    canon = canonical_names(known)
    out: list[str] = []
    for raw in names:
        name = " ".join(raw.split())
        if name and name_key(name) not in canon and name_key(name) not in map(name_key, out):
            out.append(name)
    return out


def settle_profile(
    profile: CharacterProfile, name: str, known: Mapping[str, Sequence[str]]
) -> CharacterProfile:
    """The profile under exactly ``name``, without aliases that clash with anyone else (pure)."""
    taken = set(canonical_names(known)) | {name_key(name)}
    aliases: list[str] = []
    for alias in profile.aliases:
        key = name_key(alias)
        if key and key not in taken:
            taken.add(key)
            aliases.append(alias.strip())
    return profile.model_copy(update={"name": name, "aliases": aliases})


def same_as(profile: CharacterProfile, known: Mapping[str, Sequence[str]]) -> str:
    """The canonical name of the known character a profile says its name belongs to (its
    ``same_as``: an id of the cast as it was listed, ``c1`` in ``known``'s order, or a known
    name), else ``""`` (pure)."""
    said = profile.same_as.strip()
    if not said:
        return ""
    ref = parse_ref(said)
    names = list(known)
    if ref is not None and ref[0] == "c":
        n = int(ref[1][1:])
        return names[n - 1] if 1 <= n <= len(names) else ""
    return canonical_names(known).get(name_key(said), "")


def resolved(profile: CharacterProfile, name: str, known: Mapping[str, Sequence[str]]
             ) -> CharacterProfile:
    """``profile`` under exactly ``name``: a new character's (aliases that clash with anyone
    dropped), or, when it says it is a known character's, that character's canonical name in
    ``same_as`` (an alias to learn; pure)."""
    owner = same_as(profile, known)
    if owner:
        return profile.model_copy(update={"name": name, "aliases": [], "same_as": owner})
    return settle_profile(profile, name, known).model_copy(update={"same_as": ""})


def profile_name_check(name: str, language: str) -> Callable[..., None]:
    """The check of a profile reply for ``name`` (the structured call's ``also`` contract):
    a reply that profiles someone else (a model asked for the antagonist 顾衡 that answered
    with a bystander named 配角) raises ``ValueError`` telling the model, in the prompt's
    language, whose profile was asked for; the repair loop asks again, then reports."""
    def check(value: BaseModel, _problems: object = None) -> None:
        said = str(getattr(value, "name", ""))
        if name_key(said) != name_key(name):
            table = prompt_words(language).reference
            raise ValueError(table["profile_name"].format(value=said.strip(), name=name))

    return check


def _profile_of(router: Router, name: str, messages: list[Any], language: str
                ) -> CharacterProfile:
    """The planner's profile of ``name``, refused (asked again, then an error) when it
    profiles another name. A router without the repair loop's ``also`` gets one call and
    the same refusal as an error."""
    from aizac.writer.checked import accepts_keyword

    check = profile_name_check(name, language)
    call: Any = router.structured  # the checked router's takes ``also``; a plain one does not
    if accepts_keyword(call, "also"):
        return cast(CharacterProfile, call("planner", CharacterProfile, messages, also=check))
    raw = router.structured("planner", CharacterProfile, messages)
    try:
        check(raw)
    except ValueError as e:
        raise UnusableReplyError("error.model.unusable", schema=Text("schema.character"),
                                 attempts=1, problems=Verbatim(str(e))) from e
    return raw


def create_profiles(
    router: Router,
    beat: NovelBeat,
    known: Mapping[str, Sequence[str]],
    *,
    story_so_far: str,
    genre: str,
    language: str,
    prompts: PromptLibrary,
    say: Callable[[Text], None] | None = None,
) -> list[CharacterProfile]:
    """A profile for every character of ``beat`` that ``known`` does not contain; a name the
    model says is a known character's (``same_as``) comes back as that (an alias to learn).

    A newcomer the model gives no usable profile of (it keeps profiling someone else, after
    the repair loop's retries) gets no profile: nothing of the wrong reply is kept, ``say``
    reports it, and the beat goes on (a small model, the embedded one, must not stop the story
    over one profile); the name is asked about again when a later design or the accept meets
    it."""
    cast = {k: list(v) for k, v in known.items()}
    profiles: list[CharacterProfile] = []
    for name in unknown_names(beat.characters, cast):
        messages = prompts.render(
            "character",
            language,
            name=name,
            known=", ".join(render_cast(build_offer(list(cast.items())))) or "-",
            context=story_so_far or "-",
            beat=beat.render(labels=prompt_words(language).labels),
            genre=genre,
        )
        try:
            raw = _profile_of(router, name, messages, language)
        except StructuredOutputError as e:  # the profile call's failure, after its retries
            log.warning("no usable profile of %s: %s", name, e)
            if say is not None:
                say(Text("progress.profile_refused", name=name))
            continue
        profile = resolved(raw, name, cast)
        if profile.same_as:
            cast[profile.same_as].append(profile.name)
        else:
            cast[profile.name] = list(profile.aliases)
        profiles.append(profile)
    return profiles
