"""Concurrency: one user's long generation blocks neither another user's pages nor their
generations; the same project in two sessions stays serialised; per-user generation slots.

The first user's model waits on a gate the test opens, so "still running" is a fact, not a
timing guess."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from fastapi import FastAPI
from langchain_core.messages import BaseMessage
from pydantic import PrivateAttr

from tests.fakes import ScriptedChatModel
from tests.server.conftest import PASSWORD, Models, browser, new_client, signup


class GatedModel(ScriptedChatModel):
    """Scripted replies, each only once the gate is open (``entered`` is set on the first)."""

    _gate: threading.Event = PrivateAttr(default_factory=threading.Event)
    _entered: threading.Event = PrivateAttr(default_factory=threading.Event)

    def _next(self, messages: list[BaseMessage]) -> str:
        self._entered.set()
        assert self._gate.wait(120), "the test never opened the gate"
        return super()._next(messages)


def _in_thread(fn: Callable[[], Any]) -> tuple[threading.Thread, dict[str, Any]]:
    out: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: out.setdefault("reply", fn()), daemon=True)
    thread.start()
    return thread, out


def test_a_long_generation_blocks_only_its_own_project(
    make_app: Callable[..., FastAPI], models: Models
) -> None:
    app = make_app(max_generations_per_user=2, max_generations=3, generation_wait_s=60)
    mina = browser(app)
    mina.__enter__()
    mina_id = signup(mina, "mina")
    gated = GatedModel()
    models.by_user[mina_id] = gated
    assert mina.post("/api/v1/projects", json={"name": "novel", "keywords": "ring"}
                     ).status_code == 201
    plan, plan_out = _in_thread(lambda: mina.post("/api/v1/projects/novel/plot/generate"))
    assert gated._entered.wait(60)

    # Another user: pages, a project and a whole generation while Mina's model is busy.
    jun = new_client(app, "jun")
    assert jun.post("/api/v1/projects", json={"name": "novel", "keywords": "sea"}
                    ).status_code == 201
    assert jun.post("/api/v1/projects/novel/plot/generate").status_code == 200
    assert jun.post("/api/v1/projects/novel/beats/next").status_code == 200
    assert plan.is_alive(), "Jun finished while Mina's generation is still running"

    # Mina in a second session: reads answer; a generation on the same project waits for it.
    second = browser(app)
    second.__enter__()
    assert second.post("/api/v1/auth/login", json={"name": "mina", "password": PASSWORD}
                       ).status_code == 200
    assert second.get("/api/v1/projects/novel").status_code == 200
    design, design_out = _in_thread(lambda: second.post("/api/v1/projects/novel/beats/next"))
    box = app.state.aizac.sandboxes.cached(mina_id)
    deadline = time.monotonic() + 120
    while box.slots._value > 0:  # until the second request holds Mina's second slot
        assert design.is_alive(), design_out["reply"].text  # queued, not failed for "no plot"
        assert time.monotonic() < deadline, "the second generation never started"
        time.sleep(0.05)
    design.join(0.5)
    assert design.is_alive()  # waiting for the project (serialised behind the plan)
    third = second.post("/api/v1/projects/novel/beats/next")
    assert third.status_code == 429  # Mina's two generation slots are taken
    from aizac.errors import LimitError
    from aizac.web import handlers as h
    from aizac.web.per_user import UserScopedService, acting_as

    scoped: Any = UserScopedService(lambda uid: app.state.aizac.sandboxes.cached(uid).service)
    with acting_as(mina_id), pytest.raises(LimitError):  # the web app counts the same slots
        h.generate_plot(scoped, "novel")

    gated._gate.set()
    plan.join(60)
    design.join(60)
    assert plan_out["reply"].status_code == 200
    assert design_out["reply"].status_code == 200, design_out["reply"].text
    beats = mina.get("/api/v1/projects/novel/beats").json()
    assert beats["draft"]["id"] == design_out["reply"].json()["id"]
    for c in (mina, jun, second):
        c.__exit__(None, None, None)
