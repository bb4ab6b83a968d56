"""Start-up stays light: importing the CLI and listing projects load no provider SDK, LangChain,
Chroma or Gradio (checked in a fresh interpreter; timings live in bench/startup.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

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
)


def _loaded_after(code: str, tmp_path: Path) -> list[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    env = {**os.environ, "AIZAC_DATA_DIR": str(tmp_path)}
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
