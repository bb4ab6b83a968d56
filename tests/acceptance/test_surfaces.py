"""The same session through the other surfaces: the web app's handlers, ``aizac demo`` and the
CLI in child processes (kills at every named step, a full disk, a cut prose stream)."""

from __future__ import annotations

import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from aizac.application.service import ApplicationService
from aizac.web import handlers
from aizac.writer.project import ProjectStore

from .invariants import check_project
from .killtrials import NAME, NEW, aizac, model_env, run_all, table
from .openai_server import OpenAIServer, cut
from .story import complete_prose
from .test_pipeline import KEYWORDS, studio_on


def test_twenty_beats_through_the_web_handlers(
    story_server: OpenAIServer, tmp_path: Path
) -> None:
    service = ApplicationService(studio_on(story_server, tmp_path / "data"),
                                 export_dir=tmp_path / "x")
    name = handlers.create_project(service, "웹소설", "현대판타지", KEYWORDS, "ko")
    handlers.generate_plot(service, name)
    for _ in range(20):
        handlers.next_beat(service, name)
        draft = service.pending_draft(name)
        assert draft is not None
        handlers.accept(service, name, draft.id, draft.version)
        assert "".join(handlers.write_prose(service, name, draft.id))
    directory = service.agent(name).store.directory
    report = check_project(directory, complete_prose=complete_prose)
    assert report.problems == [] and report.accepted == 20


def test_demo_in_a_child_process(story_server: OpenAIServer, tmp_path: Path) -> None:
    env = model_env(story_server, tmp_path / "unused")
    done = aizac(["demo", "--out", str(tmp_path / "demo"), "--beats", "6", "--lang", "ko",
                  "--keywords", KEYWORDS], env, timeout=300)
    assert done.returncode == 0, done.stderr
    projects = list((tmp_path / "demo" / "aizac-data" / "projects").iterdir())
    assert len(projects) == 1
    report = check_project(projects[0], complete_prose=complete_prose)
    assert report.problems == [] and report.accepted == 6
    assert sorted(p.suffix for p in (tmp_path / "demo").glob("*.*")) == [".md", ".txt"]


@pytest.mark.timeout(1800)  # about 25 child processes; minutes on a quiet 2-core machine
def test_kill_at_every_named_step(story_server: OpenAIServer, tmp_path: Path) -> None:
    results = run_all(story_server, tmp_path, trials=1)
    print(table(results))
    assert all(r.killed for r in results), table(results)
    problems = [(r.step, r.note, r.report.problems) for r in results if r.lost or r.duplicated]
    assert problems == []


def test_cli_write_with_a_cut_stream_fails_and_keeps_whole_prose(
    story_server: OpenAIServer, tmp_path: Path
) -> None:
    env = model_env(story_server, tmp_path / "data")
    for args in (NEW, ["plot"], ["beat"], ["beat", "--accept"], ["write"]):
        assert aizac(args, env).returncode == 0
    store = ProjectStore(tmp_path / "data" / "projects" / NAME)
    beat = store.last_accepted()
    assert beat is not None and beat.prose and complete_prose(beat.prose)
    story_server.fault(cut(after=2))
    done = aizac(["write", "--beat", str(beat.id)], env)
    assert done.returncode == 1
    assert "error:" in done.stderr and "Traceback" not in done.stderr
    assert store.beat(beat.id).prose == beat.prose


def _full_disk(limit: int) -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


def test_disk_full_during_accept_is_a_clear_error(
    story_server: OpenAIServer, tmp_path: Path
) -> None:
    env = model_env(story_server, tmp_path / "data")
    for args in (NEW, ["plot"], ["beat"]):
        assert aizac(args, env).returncode == 0
    directory = tmp_path / "data" / "projects" / NAME
    done = subprocess.run(
        [sys.executable, "-c", "from aizac.cli import main; main()", "beat", "--accept"],
        capture_output=True, text=True, timeout=180, env=env,
        preexec_fn=lambda: _full_disk(64 * 1024),
    )
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and "OperationalError" not in done.stderr
    assert "error:" in done.stderr
    report = check_project(directory, complete_prose=complete_prose)
    assert report.problems == [] and report.accepted == 0
    again = aizac(["beat", "--accept"], env)  # space again: the accept goes through once
    assert again.returncode == 0, again.stderr
    report = check_project(directory, complete_prose=complete_prose)
    assert report.problems == [] and report.accepted == 1
