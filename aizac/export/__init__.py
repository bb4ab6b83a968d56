"""Export a novel as .txt, .md, EPUB 3, .docx or a zip of episodes, to a file or by email.

Pure parts: :mod:`aizac.export.manuscript` (what is exported), :mod:`aizac.export.render`
(formats; EPUB in :mod:`aizac.export.epub`, Word in :mod:`aizac.export.word`, the upload zip and
the length check in :mod:`aizac.export.upload`). Edges: :mod:`aizac.export.files` (atomic
writes), :mod:`aizac.export.email` (SMTP).
"""

from aizac.export.files import default_export_name, safe_export_name, write_export
from aizac.export.manuscript import EpisodeText, Manuscript, select_episodes
from aizac.export.render import (
    FORMATS,
    MEDIA_TYPES,
    render,
    render_epub,
    render_md,
    render_txt,
)

__all__ = [
    "FORMATS",
    "MEDIA_TYPES",
    "EpisodeText",
    "Manuscript",
    "default_export_name",
    "render",
    "render_epub",
    "render_md",
    "render_txt",
    "safe_export_name",
    "select_episodes",
    "write_export",
]
