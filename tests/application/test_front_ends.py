"""The front ends call the application service and never reach a project's store.

Read with :mod:`ast` from the source of :mod:`aizac.web` (the Gradio app) and
:mod:`aizac.server` (the REST API): no project store is read (``agent.store``,
``box.service.agent(name).store``; the pictures' store, ``illustrator.images``), no ``.lock()``
is called (the service takes the project's lock, in one place) and no row or store module of
the memory or the project is imported.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import aizac

PACKAGE = Path(aizac.__file__).parent
FRONT_ENDS = ("web", "server")
STORES = ("store", "images")
ROW_MODULES = ("aizac.memory.store", "aizac.memory.rows", "aizac.memory.key_index",
               "aizac.memory.journal", "aizac.memory.commits", "aizac.writer.project_rows")


def nodes(package: Path) -> Iterator[tuple[str, ast.AST]]:
    """``(file, node)`` for every syntax node of every module of ``package``."""
    for path in sorted(package.rglob("*.py")):
        where = str(path.relative_to(package.parent))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            yield where, node


def called(node: ast.AST) -> ast.Attribute | None:
    """The attribute a call calls (``x.lock()``: ``x.lock``), else ``None``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func
    return None


def reaches(package: Path) -> list[str]:
    """``file:line what`` for every store read, lock taken or row module imported."""
    found = []
    for where, node in nodes(package):
        if isinstance(node, ast.Attribute) and node.attr in STORES:
            found.append(f"{where}:{node.lineno} .{node.attr}")
        elif (call := called(node)) is not None and call.attr == "lock":
            found.append(f"{where}:{call.lineno} .lock()")
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names])
            found += [f"{where}:{node.lineno} import {n}" for n in names
                      if n in ROW_MODULES]
    return found


def test_web_and_rest_handlers_go_through_the_service() -> None:
    for front_end in FRONT_ENDS:
        assert any((PACKAGE / front_end).rglob("*.py"))  # the package was read
        assert reaches(PACKAGE / front_end) == [], (
            f"aizac.{front_end} reaches past the application service: add a method to "
            "aizac.application.service.ApplicationService and call that")


def test_the_check_finds_each_way_past_the_service(tmp_path: Path) -> None:
    package = tmp_path / "front"
    package.mkdir()
    (package / "handler.py").write_text(
        "from aizac.memory.store import WriterMemory\n"
        "from aizac.writer import project_rows\n"
        "def get(service, name, beat_id):\n"
        "    with service.agent(name).store.lock():\n"
        "        return service.beat(name, beat_id)\n"
        "def pictures(service, name):\n"
        "    return service.illustrator(name).images.all()\n", encoding="utf-8")
    assert sorted(reaches(package)) == [
        "front/handler.py:1 import aizac.memory.store",
        "front/handler.py:2 import aizac.writer.project_rows",
        "front/handler.py:4 .lock()",
        "front/handler.py:4 .store",
        "front/handler.py:7 .images",
    ]


STORY_WRITES = ("add_draft", "update_draft", "set_status", "save_prose", "save_plot", "log_step",
                "set_episode_title")
"""The project store's writes of story: a front end asks the application service for them."""
WRITERS = ("cli", "autopilot", "web", "server")


def writes_past_the_service(package: Path) -> list[str]:
    """``file:line what`` for every lock taken and every story write on a project's store."""
    found = []
    for where, node in nodes(package):
        call = called(node)
        if call is None:
            continue
        if call.attr == "lock":
            found.append(f"{where}:{call.lineno} .lock()")
        elif (call.attr in STORY_WRITES and isinstance(call.value, ast.Attribute)
              and call.value.attr == "store"):
            found.append(f"{where}:{call.lineno} .store.{call.attr}()")
    return found


def test_every_front_end_changes_a_story_through_the_service() -> None:
    for front_end in WRITERS:
        assert any((PACKAGE / front_end).rglob("*.py"))
        assert writes_past_the_service(PACKAGE / front_end) == [], (
            f"aizac.{front_end} changes a story past the application service (its lock, "
            "history and checks): call an ApplicationService method")


def test_the_check_finds_each_story_write_past_the_service(tmp_path: Path) -> None:
    package = tmp_path / "front"
    package.mkdir()
    (package / "node.py").write_text(
        "def rewrite(agent, record, text):\n"
        "    with agent.store.lock():\n"
        "        agent.store.save_prose(record.id, text)\n"
        "    agent.store.log_step('export', {})\n"
        "    agent.store.beats()\n"
        "    service.save_prose('p', record.id, text)\n", encoding="utf-8")
    assert sorted(writes_past_the_service(package)) == [
        "front/node.py:2 .lock()",
        "front/node.py:3 .store.save_prose()",
        "front/node.py:4 .store.log_step()",
    ]
