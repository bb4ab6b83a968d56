"""The README and docs/ say what the code has: every setting, every command, every package.

A setting, a command or a package added without a word in the docs fails here, so the newcomer's
page cannot fall behind the code again (as the old README's missing ``aizac length`` and its
missing autopilot, continuity and server packages did).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = {name: (ROOT / "docs" / f"{name}.md").read_text(encoding="utf-8")
        for name in ("architecture", "benchmarks", "operations")}


def _env_names(field: str, info: object, prefix: str) -> set[str]:
    names = {f"{prefix}{field.upper()}"}
    alias = getattr(info, "validation_alias", None)
    names |= {str(choice) for choice in getattr(alias, "choices", ())}
    return names


def _undocumented_settings(text: str) -> list[str]:
    from aizac.settings import ROLES, Settings

    by_pattern = ({f"{role}_fallback" for role in ROLES}
                  if "AIZAC_<ROLE>_FALLBACK" in text else set())
    return [field for field, info in Settings.model_fields.items()
            if field not in by_pattern
            and not any(f"`{name}`" in text for name in _env_names(field, info, "AIZAC_"))]


def test_every_setting_is_in_the_readme_configuration() -> None:
    section = README.split("## Configuration", 1)[1].split("\n## ", 1)[0]
    assert _undocumented_settings(section) == []


def test_the_settings_scan_finds_a_missing_setting() -> None:
    assert "data_dir" in _undocumented_settings("| `AIZAC_LANGUAGE` | `ko` | story language |")


def test_every_server_setting_is_in_the_operations_guide() -> None:
    from aizac.server.config import ServerConfig

    text = DOCS["operations"]
    missing = [field for field in ServerConfig.model_fields
               if f"`{field.upper()}`" not in text and f"AIZAC_SERVER_{field.upper()}" not in text
               and not re.search(rf"`{field.upper()}`,|, `{field.upper()}`", text)]
    assert missing == []


def test_every_command_is_in_the_readme() -> None:
    from aizac.cli._register import COMMAND_HOMES  # checked against the registered commands

    commands = sorted(COMMAND_HOMES)  # by tests/cli/test_startup.py
    assert len(commands) > 10
    section = README.split("## The command line", 1)[1].split("\n## ", 1)[0]
    assert [name for name in commands if f"`aizac {name}" not in section] == []


def _packages() -> list[str]:
    return sorted(p.parent.name for p in (ROOT / "aizac").glob("*/__init__.py"))


def test_how_it_works_covers_every_package() -> None:
    assert len(_packages()) > 10
    assert [name for name in _packages() if f"| `{name}/` |" not in DOCS["architecture"]] == []


def _package_rows(text: str) -> list[str]:
    return [name for name in _packages() if f"| `{name}/` |" in text]


def test_the_package_table_has_one_home() -> None:
    """Issue 40 item 5: the README repeated docs/architecture.md's package table, and the two
    drifted (the README's said the application service served only the web app and the REST
    API). The table lives in docs/architecture.md; the README's *How it works* links to it."""
    section = README.split("## How it works", 1)[1].split("\n## ", 1)[0]
    assert "](docs/architecture.md)" in section
    assert _package_rows(README) == []


def test_the_row_scan_finds_a_package_row() -> None:
    assert _package_rows("| `memory/` | the four-tag memory |") == ["memory"]


def test_each_docs_page_is_linked_once_from_the_readme() -> None:
    assert {name: README.count(f"](docs/{name}.md)") for name in DOCS} == {
        name: 1 for name in DOCS}


def test_the_readme_says_on_its_first_screen_that_the_embedded_model_cannot_write() -> None:
    first_screen = "\n".join(README.splitlines()[:40])
    assert "embedded model cannot write fiction" in first_screen
    assert "bash scripts/run.sh" in first_screen


def test_the_test_command_is_what_ci_runs() -> None:
    assert "bash scripts/test.sh" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    section = README.split("## Test", 1)[1].split("\n## ", 1)[0]
    assert "```bash\nbash scripts/test.sh\n```" in section


def _readme_tabs(text: str) -> list[str]:
    section = text.split("### Every tab", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^- \*\*(.+?)\*\* — ", section, flags=re.MULTILINE)


def test_the_readme_names_every_tab_of_the_web_app_and_no_other(tmp_path: Path) -> None:
    """Issue 39 item 14: the README described a "History" tab that does not exist and said
    nothing of the Style & voices and Autopilot tabs. Its *Every tab* list is the app's tabs,
    in the app's order, by the labels an English page shows."""
    import gradio as gr

    from aizac.cliches import ClicheDB
    from aizac.llm.embeddings import HashingEmbeddings
    from aizac.settings import Settings
    from aizac.web.app import create_app
    from aizac.writer.service import Studio
    from tests.fakes import ScriptedChatModel

    model = ScriptedChatModel()
    studio = Studio(Settings(data_dir=tmp_path), embeddings=HashingEmbeddings(),
                    models=dict.fromkeys(("planner", "writer", "extractor", "reviewer"), model),
                    cliches=ClicheDB(embeddings=HashingEmbeddings()))
    app, _ = create_app(studio, language="en")
    tabs = [block.label for block in app.blocks.values() if isinstance(block, gr.Tab)]
    assert len(tabs) >= 8
    assert _readme_tabs(README) == tabs


def test_the_tab_scan_finds_a_tab_the_app_lacks() -> None:
    text = "### Every tab\n\n- **Start** — a\n- **History** — b\n\n## Next\n"
    assert _readme_tabs(text) == ["Start", "History"]
