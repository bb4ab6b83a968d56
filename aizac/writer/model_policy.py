"""What the writer expects of a model, decided by its declared profile (pure but for asking the
router which model serves a role).

Real models (API or served) keep the strict quality check: the values must be written in the
project's script, and degenerate output is asked again twice before the call fails. The small
embedded demo model (``profile.small_local``: SmolLM2-135M) is English-first: held to that rule,
a Korean plot is retried for minutes and still refused. So for it the script rule is lenient
(:data:`SMALL`), degenerate output is asked again more often than a real model's (a call costs it
seconds, and a new seed is what helps it; its grammar already rules out the commonest defects,
:mod:`aizac.llm.grammar`), and the writer is told plainly, in the project's language, that the
demo model is small and how to configure a real one (:func:`demo_model_note`; the CLI prints it,
the web app shows it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aizac.errors import AizacError
from aizac.llm.profiles import GENERIC, ModelProfile, profile_of
from aizac.text import Text, language_name
from aizac.writer import quality

if TYPE_CHECKING:
    from aizac.writer.ports import Router


@dataclass(frozen=True)
class QualityPolicy:
    """How strictly one structured call's output is checked.

    Attributes:
        min_script_share: the least share of letters in the project's script.
        retries: how many times degenerate output is asked again before the call fails.
        small: the policy of the small embedded demo model (its failures say so).
    """

    min_script_share: float
    retries: int
    small: bool = False


SMALL_RETRIES = 5
"""Degenerate replies of the small model asked again (``AIZAC_STRUCTURED_SMALL_RETRIES``)."""
STRICT = QualityPolicy(quality.MIN_SCRIPT_SHARE, 2)
"""Real models: values in the project's script, two more tries."""
SMALL = QualityPolicy(0.0, SMALL_RETRIES, small=True)
"""The embedded demo model: any script is accepted (the writer is told why), five more tries
with fresh seeds."""


def policy_for(profile: ModelProfile, small_retries: int | None = None) -> QualityPolicy:
    """The quality policy of a model with ``profile``; ``small_retries`` (the router's setting)
    replaces the small model's default number of tries."""
    if not profile.small_local:
        return STRICT
    if small_retries is None or small_retries == SMALL.retries:
        return SMALL
    return QualityPolicy(SMALL.min_script_share, small_retries, small=True)


def small_retries_of(router: Any) -> int | None:
    """The router's ``structured_small_retries`` setting, if it has settings."""
    value = getattr(getattr(router, "settings", None), "structured_small_retries", None)
    return value if isinstance(value, int) else None


def role_profile(router: Router, role: str) -> ModelProfile:
    """The declared profile of the model serving ``role`` (:data:`GENERIC` when the router
    cannot say: a router without models (a test's: AttributeError), or a role whose model
    cannot be built)."""
    try:
        return profile_of(router.model(role))
    except (AizacError, KeyError, AttributeError):
        return GENERIC


NOTE_ROLES = ("planner", "writer")
"""The roles whose model writes what the writer reads (plot, beats, prose)."""


EMBEDDED = "local"
"""The provider of the embedded model (the ``local`` spec)."""


def serves_embedded(router: Any, role: str) -> bool:
    """Whether the model serving ``role`` is the embedded one: its declared provider (the row
    of :mod:`aizac.llm.registry` that built it) is ``local``, whatever its name or size."""
    return role_profile(router, role).provider == EMBEDDED


def demo_model_note(router: Any, language: str) -> Text | None:
    """The note (``note.demo_model``, say it in the project's language) when a ``ko``/``zh``
    project's planner or writer is served by the embedded model; ``None`` otherwise (English
    projects, real models)."""
    if language not in ("ko", "zh"):
        return None
    if not any(serves_embedded(router, role) for role in NOTE_ROLES):
        return None
    return Text("note.demo_model", language=language_name(language))


def cannot_write(router: Any, language: str) -> list[str]:
    """The roles of :data:`NOTE_ROLES` whose model declares it cannot write ``language`` (its
    profile's ``writes``; the bundled SmolLM2 writes English only)."""
    out = []
    for role in NOTE_ROLES:
        writes = role_profile(router, role).writes
        if writes and language not in writes:
            out.append(role)
    return out
