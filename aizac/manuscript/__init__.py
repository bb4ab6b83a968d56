"""Continue an existing serial: read a manuscript and split it into episodes and scenes.

One module per concept: :mod:`~aizac.manuscript.formats` reads the files (txt in any encoding
Korean tools write, Markdown, docx, EPUB, HWPX), :mod:`~aizac.manuscript.splitting` finds the
episodes and scenes and keeps the writer's adjustments (pure), :mod:`~aizac.manuscript.preview`
is what the writer sees and adjusts before anything is saved, and what an import saves
(:func:`~aizac.manuscript.preview.read`). Front ends call
:meth:`aizac.application.service.ApplicationService.preview_manuscript` and
:meth:`~aizac.application.service.ApplicationService.import_manuscript` (the rows it saves:
:mod:`aizac.application.importing`); nothing here imports a front end.

Still to come (issue 42): the memory built from an import (with its cost estimate), and the
continuity report of the manuscript.

Heavy readers (python-docx, charset-normalizer, lxml, python-hwpx) are imported inside the
functions that use them.
"""
