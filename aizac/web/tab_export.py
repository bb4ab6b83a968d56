"""The Export tab: download the novel as txt/md/epub/docx or a zip of its episodes, or send it by
email."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import gradio as gr

from aizac.application.exports import ExportResult
from aizac.export.render import FORMATS
from aizac.web import handlers as h
from aizac.web.runner import Ui


def _left_out(ui: Ui, result: ExportResult) -> str:
    if not result.without_prose:
        return ""
    beats = ", ".join(result.without_prose[:12]) + ("…" if len(result.without_prose) > 12 else "")
    return ui.L.t("ui.without_prose", n=len(result.without_prose), beats=beats)


def _lengths(ui: Ui, result: ExportResult) -> str:
    """The upload zip's length check: the episodes far from the target, or nothing."""
    notes = result.lengths.notes() if result.lengths is not None else []
    return "".join(" " + ui.L.t(note.key, **note.params) for note in notes)


def smtp_form(ui: Ui) -> list[Any]:
    """The mail server settings (host, port, user, password, sender, STARTTLS), filled from
    what is in force; the password box is always empty (a stored one is only said "set")."""
    L = ui.L
    try:  # the settings in force when the app starts; saving shows the saved ones
        now = smtp_values(ui)
    except Exception:  # an unreadable file: the state line says why
        now = ["", "587", "", "", "", True]
    with gr.Accordion(L["ui.smtp.title"], open=False, elem_id="aizac-smtp"):
        with gr.Row():
            host = gr.Textbox(label=L["ui.smtp.host"], value=now[0], elem_id="aizac-smtp-host",
                              scale=3)
            port = gr.Textbox(label=L["ui.smtp.port"], value=now[1], elem_id="aizac-smtp-port",
                              scale=1)
        with gr.Row():
            user = gr.Textbox(label=L["ui.smtp.user"], value=now[2], elem_id="aizac-smtp-user")
            password = gr.Textbox(label=L["ui.smtp.password"], type="password",
                                  elem_id="aizac-smtp-password")
        sender = gr.Textbox(label=L["ui.smtp.sender"], value=now[4],
                            elem_id="aizac-smtp-sender")
        starttls = gr.Checkbox(label=L["ui.smtp.starttls"], value=bool(now[5]),
                               elem_id="aizac-smtp-starttls")
        ui.button("smtp-save", L["ui.smtp.save"])
    return [host, port, user, password, sender, starttls]


def smtp_state(ui: Ui) -> str:
    """What the mail settings allow: the server mail goes through (and whether a password is
    set), or why the send button waits."""
    from aizac.export.smtp_config import SmtpConfig
    from aizac.text import describe

    studio: Any = ui.service.studio
    settings: Any = studio.settings
    config = SmtpConfig(settings.data_dir)
    problem = config.problem(settings)
    if problem is not None:
        return ui.L.t("ui.smtp.not_ready", reason=describe(problem, ui.language, "web").line())
    view = config.view(settings)
    return ui.L.t("ui.smtp.ready", server=f"{view.host}:{view.port}",
                  password=ui.L["ui.smtp.password_set" if view.password_set
                               else "ui.smtp.password_none"])


def smtp_values(ui: Ui) -> list[Any]:
    """The form's boxes as the settings in force (the password box empty)."""
    from aizac.export.smtp_config import SmtpConfig

    studio: Any = ui.service.studio
    settings: Any = studio.settings
    view = SmtpConfig(settings.data_dir).view(settings)
    return [view.host, str(view.port), view.user, "", view.sender, view.starttls]


@runtime_checkable
class VerifiedMail(Protocol):
    """The export service of ``aizac serve`` (:class:`aizac.server.mail.ServerExports`): mail
    goes only to an address the user verified with a code mailed to it."""

    def verified_address(self) -> str | None: ...
    def send_code(self, address: str) -> str: ...
    def verify(self, code: str) -> str: ...


def verified_mail(ui: Ui) -> VerifiedMail:
    """The current user's verifying export service (only the server's app asks)."""
    exports = ui.service.exports
    if not isinstance(exports, VerifiedMail):
        raise TypeError("this app's export service does not verify addresses")
    return exports


def build(ui: Ui, *, smtp_settings: bool = True) -> Callable[[], None]:
    """Lay out the tab (inside an open ``gr.Tab``); returns its wiring. ``smtp_settings``:
    the writer sets the mail server here and mails to any address (``aizac serve``: the
    server's administrator sets it, and a user mails only to an address of theirs that they
    verified with a code; the tab has a box for the code then)."""
    L = ui.L
    with gr.Row():
        with gr.Column():
            fmt = gr.Radio(list(FORMATS), value="txt", label=L["ui.format"],
                           elem_id="aizac-format")
            with gr.Row():
                first = gr.Number(label=L["ui.first"], value=0, precision=0, minimum=0)
                last = gr.Number(label=L["ui.last"], value=0, precision=0, minimum=0)
            filename = gr.Textbox(label=L["ui.file_name"], elem_id="aizac-file-name")
            ui.button("download", L["ui.download"], variant="primary")
            ui.note("download")
            exported = gr.File(label=L["ui.file"], interactive=False, elem_id="aizac-exported")
        with gr.Column():
            address = gr.Textbox(label=L["ui.email"], type="email", elem_id="aizac-email")
            verifying = None
            if not smtp_settings:  # aizac serve: mail only to an address the user verified
                with gr.Row(equal_height=True):
                    send_code = gr.Button(L["ui.mail.send_code"], elem_id="aizac-mail-send-code")
                    code = gr.Textbox(label=L["ui.mail.code"], elem_id="aizac-mail-code",
                                      max_lines=1, scale=2)
                    verify = gr.Button(L["ui.mail.verify"], elem_id="aizac-mail-verify")
                verifying = (send_code, code, verify)
            ui.button("send", L["ui.send"])
            ui.note("send")
            mail_state = gr.Markdown("", elem_id="aizac-smtp-state")
            smtp = smtp_form(ui) if smtp_settings else None

    def export(project: str | None, fmt_v: str, f: float, la: float, fn: str) -> Any:
        result = h.export_file(ui.service, project, fmt_v, f, la, fn)
        said = L.t("ui.exported", file=result.target.rsplit("/", 1)[-1])
        return [result.target], said + _left_out(ui, result) + _lengths(ui, result)

    def email(project: str | None, addr: str, fmt_v: str, f: float, la: float) -> Any:
        result = h.send_email(ui.service, project, addr, fmt_v, f, la)
        return [], (L.t("ui.emailed", fmt=fmt_v, to=result.target) + _left_out(ui, result)
                    + _lengths(ui, result))

    def wire() -> None:
        ui.buttons["download"].click(ui.act(export, 1, "download"),
                                     [ui.project, fmt, first, last, filename],
                                     ui.outputs([exported], "download"))
        ui.buttons["send"].click(ui.act(email, 0, "send"), [ui.project, address, fmt, first, last],
                                 ui.outputs([], "send"))

        def said(project: str | None) -> str:
            try:
                state = smtp_state(ui)
                if verifying is not None:
                    to = verified_mail(ui).verified_address()
                    state += "\n\n" + (L.t("ui.mail.to_verified", address=to) if to
                                         else L["ui.mail.none_verified"])
                return state
            except Exception as e:  # an unreadable settings file says so here
                return ui.message(e)

        ui.project.change(said, ui.project, mail_state)
        ui.buttons["refresh"].click(said, ui.project, mail_state)
        if verifying is not None:
            send_code, code, verify = verifying

            def mail_code(addr: str | None) -> list[str]:
                try:
                    to = verified_mail(ui).send_code(addr or "")
                except Exception as e:
                    return [ui.message(e)] * 2
                return [L.t("ui.mail.code_sent", address=to)] * 2

            def check_code(typed: str | None) -> list[Any]:
                try:
                    to = verified_mail(ui).verify(typed or "")
                except Exception as e:
                    return [gr.skip(), *[ui.message(e)] * 2, gr.skip()]
                return ["", *[L.t("ui.mail.verified", address=to)] * 2, said(None)]

            send_code.click(mail_code, address, [ui.status, ui.notes["send"]])
            verify.click(check_code, code, [code, ui.status, ui.notes["send"], mail_state])
        if smtp is None:
            return

        def save(project: str | None, *boxes: Any) -> tuple[list[Any], str]:
            from aizac.export.smtp_config import SmtpConfig

            host, port, user, password, sender, starttls = boxes
            studio: Any = ui.service.studio
            settings: Any = studio.settings
            SmtpConfig(settings.data_dir).save(host=host, port=port, user=user,
                                               password=password, sender=sender,
                                               starttls=bool(starttls))
            return [*smtp_values(ui), smtp_state(ui)], L["ui.smtp.saved"]

        ui.buttons["smtp-save"].click(ui.act(save, len(smtp) + 1, "send"), [ui.project, *smtp],
                                      ui.outputs([*smtp, mail_state], "send"))

    return wire
