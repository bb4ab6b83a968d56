"""The roles a model plays in aizac: the names settings, the stored choices and the router share.

Below both :mod:`aizac.settings` (a ``<role>_model`` field per role) and
:mod:`aizac.llm.model_config` (``models.json``, keyed by role), which the settings read as a
source: the names live here so neither of the two imports the other to learn them.
"""

from __future__ import annotations

ROLES: tuple[str, ...] = ("planner", "writer", "extractor", "reviewer")
"""The chat roles, each a ``<role>_model`` setting with an optional fallback."""
IMAGE_ROLE = "image"
"""The role that draws covers and illustrations (an image model, not a chat model)."""
MODEL_ROLES: tuple[str, ...] = (*ROLES, IMAGE_ROLE)
"""Every role a model spec can be stored for (``aizac models set``, the Models tab)."""
