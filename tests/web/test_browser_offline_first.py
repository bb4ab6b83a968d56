"""The first screen on the embedded model, in a real browser (issue 30 items 3 and 5).

The app runs on the product's default models (every role on the embedded SmolLM2, which no step
here calls) with a loopback server speaking Ollama's ``/api/tags`` as the writer's own model
server. In Korean and in English the first screen says, in one sentence, what the demo model can
and cannot do, and its button opens the Models tab; the tab lists the Ollama that answered on
127.0.0.1, and "use for every role" writes the found model to every role (the ``models.json``
that ``aizac models use`` writes), after which the note is gone.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from acceptance.listing_servers import OllamaServer

from aizac.cliches import ClicheDB
from aizac.llm.embeddings import HashingEmbeddings
from aizac.settings import ROLES, Settings
from aizac.text import t
from aizac.writer.service import Studio
from tests.web.browser_kit import (
    CHROMIUM,
    browser_page,
    click,
    free_port,
    shot,
    status_says,
    table_shows,
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium (/usr/bin/chromium) absent"),
]
SCREENS = Path(__file__).resolve().parents[2] / "docs" / "screens" / "offline-first"


@contextmanager
def served_on_embedded(
    tmp_path: Path, cliche_db: ClicheDB, ollama: OllamaServer, language: str
) -> Iterator[tuple[str, Studio]]:
    from aizac.web.app import create_app
    from aizac.web.ui import launch

    # a limit a loopback server meets at load 15 on two cores (the default 0.5 s may not)
    settings = Settings(data_dir=tmp_path / "data", discover=True, discover_timeout=5.0,
                        discover_ports=str(ollama.port), ollama_base_url=ollama.url)
    studio = Studio(settings, embeddings=HashingEmbeddings(), cliches=cliche_db)
    app, export_dir = create_app(studio, language=language)
    port = free_port()
    launch(app, host="127.0.0.1", port=port, allowed_paths=[str(export_dir)],
           prevent_thread_lock=True, quiet=True)
    try:
        yield f"http://127.0.0.1:{port}/", studio
    finally:
        app.close()


def keep(page: Any, name: str) -> None:
    """A screenshot in the test's artifacts; with ``DOC_SCREENS=1`` also the docs' copy (the
    visible page, a small PNG), so a test run does not rewrite the committed ones."""
    shot(page, f"offline-first-{name}")
    if os.environ.get("DOC_SCREENS") == "1":
        SCREENS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENS / f"{name}.png"))


@pytest.mark.parametrize("language", ["ko", "en"])
def test_the_first_screen_says_what_the_demo_model_can_do_and_opens_the_models_tab(
    tmp_path: Path, cliche_db: ClicheDB, language: str
) -> None:
    with OllamaServer("qwen2.5:7b", "exaone3.5:7.8b") as ollama, \
            served_on_embedded(tmp_path, cliche_db, ollama, language) as (url, studio), \
            browser_page(url, locale="ko-KR" if language == "ko" else "en-US") as page:
        note = page.locator("#aizac-embedded-note")
        note.wait_for()
        said = note.inner_text()
        assert said.strip() == t("ui.embedded.note", language)
        assert "SmolLM2" in said and said.count(".") + said.count("。") <= 2  # one sentence
        keep(page, f"first-screen-{language}")
        click(page, "aizac-open-models")
        servers = page.locator("#aizac-servers")
        servers.get_by_text("ollama:qwen2.5:7b").first.wait_for()
        assert f"127.0.0.1:{ollama.port}" in servers.inner_text()
        assert page.locator("#aizac-found-model input").first.input_value() == (
            "ollama:qwen2.5:7b")
        keep(page, f"models-tab-found-{language}")
        click(page, "aizac-use-all")
        status_says(page, t("ui.models.used_all", language, spec="ollama:qwen2.5:7b"))
        stored = json.loads((tmp_path / "data" / "models.json").read_text(encoding="utf-8"))
        assert stored == dict.fromkeys(ROLES, "ollama:qwen2.5:7b")
        assert studio.router.settings.role_spec("writer") == "ollama:qwen2.5:7b"
        table_shows(page, "aizac-roles", "ollama:qwen2.5:7b")
        page.locator("#aizac-embedded").wait_for(state="hidden")  # no longer the demo model
        keep(page, f"every-role-{language}")
        assert [r.path for r in ollama.requests] and all(
            r.method == "GET" for r in ollama.requests)  # it listed; nothing was generated
        assert page.outside_requests == []
