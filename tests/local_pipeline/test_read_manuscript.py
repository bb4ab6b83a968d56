"""The embedded default model reads an imported scene into memory (the path a writer without an
API key takes): a beat design from the text, extraction, one turn. One short English scene: the
small model writes English only, and each of its calls takes seconds on a shared core.
Marked ``local_model``: it loads the bundled GGUF model."""

from __future__ import annotations

from pathlib import Path

import pytest

from aizac.application.service import ApplicationService
from aizac.settings import Settings
from aizac.text import Text
from aizac.writer.project_rows import UNREAD_CAST
from aizac.writer.service import Studio
from tests.local_pipeline.test_pipeline import needs_llama

SCENE = ("Chapter 1\n\nMara Quill walked into the harbour at dusk with a lantern in her left hand. "
         "Her brother Tomas waited by the boats. \"You are late,\" he said. She told him the "
         "lighthouse keeper had vanished, and that the lamp had gone dark for the first time in "
         "forty years. Tomas frowned and promised to row out with her at dawn.\n\n"
         "They stood together on the pier while the wind rose, and neither of them spoke of "
         "their father, who had drowned in the same water ten winters ago.\n")


@pytest.mark.local_model
@needs_llama
@pytest.mark.timeout(3600)
def test_the_embedded_model_reads_a_scene_into_memory(tmp_path: Path) -> None:
    story = tmp_path / "story.txt"
    story.write_text(SCENE, encoding="utf-8")
    studio = Studio(Settings(data_dir=tmp_path / "data"), beats_per_episode=2)
    service = ApplicationService(studio, export_dir=tmp_path / "x")
    service.import_manuscript("harbour", [story], language="en")
    said: list[Text] = []
    report = service.read_manuscript("harbour", said.append)
    assert report.done and report.read_now == 1
    beat = service.accepted("harbour")[0]
    assert beat.summary and beat.beat.characters and UNREAD_CAST not in beat.beat.characters
    assert service.agent("harbour").memory.turn == 1
    assert report.spent.calls >= 2  # the read call and the extraction's
    assert "progress.read.read" in [t.key for t in said]
