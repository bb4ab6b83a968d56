"""Start-up stays light: importing the CLI and listing projects load no provider SDK, LangChain,
Chroma, Gradio or SQLAlchemy (checked in a fresh interpreter; timings live in
bench/startup.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
"""The tree under test: children import aizac (and tests.fakes) from here, whatever the
installed copy points at."""

HEAVY = (
    "chromadb",
    "gradio",
    "langchain_core",
    "langchain_classic",
    "langchain_openai",
    "langchain_anthropic",
    "langchain_ollama",
    "langchain_naver",
    "openai",
    "anthropic",
    "xllamacpp",
    "llama_cpp",
    "matplotlib",
    "numpy",
    "rich",
    "sqlalchemy",  # an embedded project at its schema's head is read with sqlite3 (issue 41)
    "alembic",
    "psycopg",
    "langgraph",
    "fastapi",
)


def _loaded_after(code: str, tmp_path: Path) -> list[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    env = {**os.environ, "AIZAC_DATA_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    env.pop("TYPER_USE_RICH", None)
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr
    modules = set(json.loads(done.stdout.strip().splitlines()[-1]))
    return [h for h in HEAVY if h in modules]


def test_importing_the_cli_and_registering_commands_is_light(tmp_path: Path) -> None:
    code = "from aizac.cli import _register, app\n_register.register_all(app)"
    assert _loaded_after(code, tmp_path) == []


def test_help_and_projects_load_nothing_heavy(tmp_path: Path) -> None:
    for argv in (["aizac", "--help"], ["aizac", "projects"], ["aizac", "models", "--help"]):
        code = (
            "import sys\nfrom aizac.cli import main\n"
            f"sys.argv = {argv!r}\ntry:\n    main()\nexcept SystemExit:\n    pass"
        )
        assert _loaded_after(code, tmp_path) == [], argv


# What only some commands use: the web UI, exports, the self-query stack (``aizac ask``), the
# server, the autopilot's graph, and the providers a project is not configured with.
NOT_FOR_A_BEAT = (
    "gradio",
    "matplotlib",
    "docx",  # python-docx: only the .docx export and import
    "langchain_classic",
    "langchain_anthropic",
    "langchain_ollama",
    "langchain_naver",
    "anthropic",
    "xllamacpp",
    "llama_cpp",
    "fastapi",
    "uvicorn",
    "langgraph",
)


def _run(argv: list[str], env: dict[str, str], code: str = "") -> set[str]:
    """The top-level packages loaded when ``aizac ARGV`` ends (here: at its first model call,
    refused by a closed loopback port)."""
    probe = (
        f"import sys, json\n{code}\nfrom aizac.cli import main\nsys.argv = {['aizac', *argv]!r}\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def _closed_models_env(data_dir: Path) -> dict[str, str]:
    """The environment of a child ``aizac`` whose every role's model is a closed loopback port
    (a call is refused at once), with this tree first on its path."""
    spec = "openai-compatible:http://127.0.0.1:9/v1:closed"  # nothing listens: refused at once
    env = {k: v for k, v in os.environ.items() if not k.startswith("AIZAC_")}
    env.update(
        AIZAC_DATA_DIR=str(data_dir),
        AIZAC_TRANSIENT_RETRIES="0",
        PYTHONPATH=str(ROOT),
        **{f"AIZAC_{role}_MODEL": spec for role in ("PLANNER", "WRITER", "EXTRACTOR", "REVIEWER")},
    )
    return env


def test_a_beat_loads_only_what_it_uses_before_its_first_model_call(tmp_path: Path) -> None:
    env = _closed_models_env(tmp_path)
    _run(["new", "saga", "--keywords", "회귀, 복수"], env)
    setup = (
        "from pathlib import Path\nfrom aizac.writer.project import ProjectStore\n"
        "from aizac.writer.schemas import NovelPlot\nfrom tests.fakes.routed import plot_json\n"
        f"ProjectStore(Path({str(tmp_path / 'projects' / 'saga')!r})).save_plot("
        "NovelPlot.model_validate_json(plot_json()))"
    )
    done = subprocess.run([sys.executable, "-c", setup], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    loaded = _run(["beat"], env)
    assert {"langchain_openai", "chromadb"} <= loaded  # it did get to its model call
    assert sorted(loaded & set(NOT_FOR_A_BEAT)) == []


def test_listing_projects_reads_no_story_schema(tmp_path: Path) -> None:
    code = (
        "import sys\nfrom aizac.cli import main\nsys.argv = ['aizac', 'projects']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "import json; print(json.dumps(sorted(m for m in sys.modules if m.startswith('aizac'))))"
    )
    env = {**os.environ, "AIZAC_DATA_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    modules = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert "aizac.writer.schemas" not in modules and "aizac.memory.facts" not in modules


def _bare_env(tmp_path: Path) -> dict[str, str]:
    """The environment of a user who configured nothing but the data directory."""
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("AIZAC_")}
    env.pop("TYPER_USE_RICH", None)
    env.update(AIZAC_DATA_DIR=str(tmp_path), PYTHONPATH=str(ROOT))
    return env


# Removed from `aizac --help` and a bare `aizac projects` (issue 10 item 6): pydantic and
# pydantic-settings (the settings are not read when nothing but the data directory is set) and
# typer's pydantic adapters (``--help`` is a plain bool flag); the other commands' modules;
# filelock (a listing takes no project lock: a store builds its locks at its first lock()).
NOT_FOR_LISTING = ("pydantic", "pydantic_settings", "typer._adapters", "aizac.settings",
                   "aizac.cli.autopilot", "aizac.cli.serve", "aizac.cli.models", "filelock")


def test_help_and_a_bare_projects_listing_load_no_pydantic(tmp_path: Path) -> None:
    from aizac.writer.project import ProjectStore

    ProjectStore.create(tmp_path / "projects", "saga", language="ko", keywords=["회귀"])
    cwd = tmp_path / "work"  # no .env or aizac.toml here
    cwd.mkdir()
    for argv in (["projects"], ["projects", "--help"]):
        code = (
            "import sys, json\nfrom aizac.cli import main\n"
            f"sys.argv = {['aizac', *argv]!r}\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
            "print(json.dumps(sorted(sys.modules)))"
        )
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env=_bare_env(tmp_path), cwd=cwd, timeout=300)  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert argv != ["projects"] or "saga\tko\t회귀" in done.stdout  # a project was read
        modules = set(json.loads(done.stdout.strip().splitlines()[-1]))
        assert sorted(modules & set(NOT_FOR_LISTING)) == [], argv
    code = (
        "import sys, json\nfrom aizac.cli import main\nsys.argv = ['aizac', '--help']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\nprint(json.dumps(sorted(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=_bare_env(tmp_path), cwd=cwd, timeout=300)  # fmt: skip
    modules = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert {"pydantic", "typer._adapters"} & modules == set()


def test_the_command_table_names_every_command_s_module() -> None:
    import importlib

    import typer

    from aizac.cli._register import COMMAND_HOMES, COMMAND_MODULES

    everything = typer.Typer()
    for module in COMMAND_MODULES:
        alone = typer.Typer()
        importlib.import_module(module).register(alone)
        names = [c.name for c in alone.registered_commands]
        names += [g.name for g in alone.registered_groups]
        assert names and all(COMMAND_HOMES.get(str(n)) == module for n in names), module
        importlib.import_module(module).register(everything)
    every = [c.name for c in everything.registered_commands]
    every += [g.name for g in everything.registered_groups]
    assert sorted(str(n) for n in every) == sorted(COMMAND_HOMES)


def _output(argv: list[str], tmp_path: Path, lazy: bool) -> tuple[int, str, str]:
    register = "from aizac.cli import main\nmain()" if lazy else (
        "from aizac.cli import _register, app\n_register.register_all(app)\napp()"
    )
    code = f"import sys\nsys.argv = {['aizac', *argv]!r}\n{register}"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=_bare_env(tmp_path), timeout=300)  # fmt: skip
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize(
    "argv",
    [["--help"], ["projects", "--help"], ["beat", "--help"], ["ui", "--help"],
     ["length", "--help"], ["models", "--help"], ["runs", "--help"], ["projcts"], ["new"]],
)
def test_registering_only_the_invoked_command_s_module_changes_no_output(
    argv: list[str], tmp_path: Path
) -> None:
    assert _output(argv, tmp_path, lazy=True) == _output(argv, tmp_path, lazy=False)


def test_a_plot_reads_the_trope_index_from_its_file_once_built(tmp_path: Path) -> None:
    """``aizac plot`` builds the trope index of beats.csv (validation and stems, about 0.1 s)
    only when the CSV changed; later runs read it from the data directory (issue 10 item 6)."""
    env = _closed_models_env(tmp_path)
    _run(["new", "saga", "--keywords", "회귀, 복수"], env)
    count = (  # counts the index builds of the command that follows
        "import atexit\nfrom aizac.cliches import index\nbuilt = []\n_build = index.build_index\n"
        "index.build_index = lambda src: built.append(1) or _build(src)\n"
        "atexit.register(lambda: print('builds', len(built), file=sys.stderr))"
    )
    probe = f"import sys\n{count}\nfrom aizac.cli import main\nsys.argv = ['aizac', 'plot']\nmain()"
    builds = []
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                              env=env, timeout=300)  # fmt: skip
        assert "could not connect" in done.stderr  # it got to its first model call
        builds.append(done.stderr.split("builds ")[-1].strip())
    assert builds == ["1", "0"]
    assert (tmp_path / "cliches" / "trope-index.json").is_file()
