"""The co-writing web app: a Gradio beat editor over the writer's projects.

:func:`create_app` builds the app over a :class:`~aizac.writer.service.Studio` (tests pass one
with fake chat models); :func:`serve` is what ``python app.py`` and ``aizac ui`` run.
"""

from __future__ import annotations

from aizac.web.app import create_app, serve

__all__ = ["create_app", "serve"]
