"""What the writer expects of a model, decided by its declared profile (pure but for asking the
router which model serves a role).

Real models (API or served) keep the strict quality check: the values must be written in the
project's script, and degenerate output is asked again twice before the call fails. The small
embedded demo model (``profile.small_local``: SmolLM2-135M) is English-first: held to that rule,
a Korean plot is retried for minutes and still refused. So for it the script rule is lenient
(:data:`SMALL`), degenerate output is asked again once, and the writer is told plainly, in the
project's language, that the demo model is small and how to configure a real one
(:func:`demo_model_note`; the CLI prints it, the web app shows it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aizac.errors import AizacError
from aizac.llm.profiles import GENERIC, ModelProfile, profile_of
from aizac.text import Text, language_name
from aizac.writer import quality


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


STRICT = QualityPolicy(quality.MIN_SCRIPT_SHARE, 2)
"""Real models: values in the project's script, two more tries."""
SMALL = QualityPolicy(0.0, 1, small=True)
"""The embedded demo model: any script is accepted (the writer is told why), one more try."""


def policy_for(profile: ModelProfile) -> QualityPolicy:
    """The quality policy of a model with ``profile``."""
    return SMALL if profile.small_local else STRICT


def role_profile(router: Any, role: str) -> ModelProfile:
    """The declared profile of the model serving ``role`` (:data:`GENERIC` when the router
    cannot say: a fake router, or a role whose model cannot be built)."""
    model_of = getattr(router, "model", None)
    if model_of is None:
        return GENERIC
    try:
        return profile_of(model_of(role))
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
