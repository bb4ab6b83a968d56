"""`aizac new --beats-per-episode/--episode-length` and `aizac length` (show, set, reset)."""

from __future__ import annotations

from pathlib import Path

import typer
from typer.testing import CliRunner

from aizac.cli import episode, story
from aizac.cliches import ClicheDB
from aizac.llm.embeddings import HashingEmbeddings
from aizac.settings import Settings
from aizac.writer.service import Studio


def app_for(data_dir: Path) -> typer.Typer:
    def make(**options: object) -> Studio:  # the CLI's Studio factory
        settings = Settings(data_dir=data_dir, language="ko")
        return Studio(settings, embeddings=HashingEmbeddings(),
                      cliches=ClicheDB(embeddings=HashingEmbeddings()))

    app = typer.Typer()
    story.register(app, make)
    episode.register(app, make)
    return app


def test_new_sets_the_projects_length_and_length_changes_it(tmp_path: Path) -> None:
    app, run = app_for(tmp_path), CliRunner()
    made = run.invoke(app, ["new", "북문", "--keywords", "회귀, 열쇠", "--lang", "ko",
                            "--beats-per-episode", "5", "--episode-length", "6000"])
    assert made.exit_code == 0, made.output
    shown = run.invoke(app, ["length"])
    assert shown.output.strip() == "북문: 5 beats, 6,000 characters (1,200 per beat)"
    changed = run.invoke(app, ["length", "--episode-length", "4000"])
    assert changed.output.strip() == "북문: 5 beats, 4,000 characters (800 per beat)"
    reset = run.invoke(app, ["length", "--reset"])
    assert reset.output.strip() == "북문: 4 beats, 5,000 characters (1,250 per beat)"


def test_english_counts_words_and_bad_values_are_refused(tmp_path: Path) -> None:
    app, run = app_for(tmp_path), CliRunner()
    made = run.invoke(app, ["new", "gate", "--keywords", "regression", "--lang", "en"])
    assert made.exit_code == 0, made.output
    assert run.invoke(app, ["length"]).output.strip() == "gate: 4 beats, 2,000 words (500 per beat)"
    bad = run.invoke(app, ["length", "--episode-length", "10"])
    assert bad.exit_code == 1 and "between 50" in bad.output
    refused = run.invoke(app, ["new", "x", "--keywords", "a", "--beats-per-episode", "99"])
    assert refused.exit_code == 1 and "Beats per episode" in refused.output
    assert run.invoke(app, ["length", "-p", "gate"]).output.strip().startswith("gate: 4 beats")
