"""The order of aizac's packages: each imports only itself and the layers below it.

Written down once, as data: :data:`LAYERS` lists the layers from the bottom up, each a tuple of
the subpackages and top-level modules of ``aizac`` (by their name under ``aizac``; ``__init__``
is ``aizac/__init__.py`` itself). An import from a package goes to that package or to a lower
layer; packages in one layer do not import each other, except along an edge of
:data:`SAME_LAYER`. Every ``import`` statement counts, at module level, inside a function or
under ``TYPE_CHECKING``: a deferred import keeps start-up fast but may not hide a wrong direction.
``tests/test_layers.py`` checks the code against this order.

Nothing imports this module at run time; it is the architecture as data (``docs/architecture.md``,
"Layers", says it in words).
"""

from __future__ import annotations

LAYERS: tuple[tuple[str, ...], ...] = (
    ("text", "layers"),
    ("errors", "tokens", "plotting", "offline", "settings_fast", "settings_values"),
    ("__init__", "keywords", "private_files", "storage", "stored_models"),
    ("settings",),
    ("llm",),
    ("memory",),
    ("continuity", "retrieval", "cliches"),
    ("dialogue",),
    ("style", "export", "manuscript"),
    ("writer",),
    ("illustration",),
    ("upkeep",),
    ("application",),
    ("autopilot",),
    ("web",),
    ("server",),
    ("cli",),
)
"""The layers, lowest first."""

SAME_LAYER: frozenset[tuple[str, str]] = frozenset()
"""Imports allowed between two packages of one layer, as (importer, imported)."""

UPWARD: dict[tuple[str, str], str] = {
    ("writer", "upkeep"): "Studio (writer/service.py) backs up, checks and restores projects "
                          "with upkeep, which reads writer's project store: Studio belongs in "
                          "application (issue 40)",
}
"""Known imports against the order, as (importer, imported) -> why and where it goes; the test
fails when one disappears (remove it here) as when a new one appears."""


def layer_of(package: str) -> int:
    """The index in :data:`LAYERS` of ``package`` (``KeyError`` for one not placed)."""
    for index, layer in enumerate(LAYERS):
        if package in layer:
            return index
    raise KeyError(package)
