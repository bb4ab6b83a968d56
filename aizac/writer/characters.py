"""Dynamic characters: a beat names someone memory does not know -> a fitting profile."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from aizac.writer.extraction import canonical_names, name_key
from aizac.writer.ports import Router
from aizac.writer.prompt_words import prompt_words
from aizac.writer.prompts import PromptLibrary
from aizac.writer.schemas import BeatDesign, CharacterProfile, NovelBeat

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


def create_profiles(
    router: Router,
    beat: NovelBeat,
    known: Mapping[str, Sequence[str]],
    *,
    story_so_far: str,
    genre: str,
    language: str,
    prompts: PromptLibrary,
) -> list[CharacterProfile]:
    """A profile for every character of ``beat`` that ``known`` does not contain."""
    known = {k: list(v) for k, v in known.items()}
    profiles: list[CharacterProfile] = []
    for name in unknown_names(beat.characters, known):
        messages = prompts.render(
            "character",
            language,
            name=name,
            known=", ".join(known) or "-",
            context=story_so_far or "-",
            beat=beat.render(labels=prompt_words(language).labels),
            genre=genre,
        )
        raw = router.structured("planner", CharacterProfile, messages)
        profile = settle_profile(raw, name, known)
        known[profile.name] = list(profile.aliases)
        profiles.append(profile)
    return profiles
