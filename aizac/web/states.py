"""Which action buttons make sense in a project's current state (pure over the service)."""

from __future__ import annotations

from typing import Any

from aizac.application.service import ApplicationService

# The illustration panels' buttons (aizac.web.tab_illustrations): usable once there is a plan.
ILLUSTRATION_BUTTONS = (
    *(f"img-{panel}-{action}" for panel in ("beat", "cover")
      for action in ("generate", "reset", "confirm", "cancel", "place", "remove")),
    "img-save",
)
# The Style & voices tab's buttons (aizac.web.tab_style): usable once a project is open.
STYLE_BUTTONS = ("style-refresh", "voice-check", "voice-save")
# Buttons that work without a project (creating one, the Models panel).
ALWAYS = frozenset({"create", "refresh", "set-model", "save-key", "test-model", "use-all",
                    "open-models", "smtp-save",
                    "search-servers",
                    "check",  # Check says what is wrong with a damaged one
                    "import", "import-merge", "import-split", "import-reset"})  # a new project


def mail_ready(settings: Any) -> bool:
    """Whether mail can be sent: an SMTP server, a sender (and a password for a login) set in
    the environment or in the Export tab's mail settings."""
    from aizac.export.smtp_config import SmtpConfig

    try:
        return SmtpConfig(settings.data_dir).problem(settings) is None
    except Exception:  # an unreadable settings file: the tab says why
        return False


def button_states(service: ApplicationService, project: str | None) -> dict[str, bool]:
    """Button name -> enabled (a button not named is enabled only if it is in
    :data:`ALWAYS`). Cancel buttons are enabled only while an operation runs."""
    if not project:
        return dict.fromkeys(ALWAYS, True)
    agent = service.agent(project)
    has_plot = agent.plot() is not None
    draft = agent.current_draft() is not None
    history = service.history(project)
    story = service.accepted(project)
    accepted = bool(story)
    running = service.running(project)
    # a project made from a manuscript (its first beats are the imported scenes)
    imported = accepted and story[0].imported
    enabled = {
        **dict.fromkeys(ALWAYS, True), "save-project": True,
        "generate-plot": True, "save-plot": True,
        "next-beat": has_plot, "plan-episode": has_plot, "save-edit": draft, "accept": draft,
        "keep-mine": draft, "keep-theirs": draft,
        "regenerate": draft,
        "suggest": draft, "use-this": draft,
        "undo": history.can_undo, "redo": history.can_redo, "switch": bool(history.siblings),
        "write-prose": accepted, "write-episode": accepted, "save-prose": accepted,
        "download": accepted, "send": accepted and mail_ready(agent.settings),
        "backup": True,
        "read-estimate": imported, "read": imported, "plot-from-story": imported,
        "report": accepted, "report-dismiss": accepted,
        "save-episode": True,
        "pin": True, "unpin": True, "curves": True, "ask": True, "mem-refresh": True,
        "keep-newer": True, "keep-older": True, "keep-both": True, "reindex": True,
        **dict.fromkeys(ILLUSTRATION_BUTTONS, has_plot),
        **dict.fromkeys(STYLE_BUTTONS, True),
    }
    for name in ("cancel-plot", "cancel-beat", "cancel-prose", "read-cancel"):
        enabled[name] = running
    return enabled
