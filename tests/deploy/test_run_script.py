"""The Run command's first install says what it does as it does it (issue 39 item 11: 133 s of
silence while the script said "about a minute")."""

from __future__ import annotations

from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
RUN = (SCRIPTS / "run.sh").read_text(encoding="utf-8")
INSTALL = (SCRIPTS / "install.sh").read_text(encoding="utf-8")  # run.sh's install


def _commands(text: str) -> list[str]:
    """The script's command lines (comments left out, continuations joined)."""
    lines = [line.split(" #", 1)[0] for line in text.replace("\\\n", " ").splitlines()
             if not line.lstrip().startswith("#")]
    return [line.strip() for line in lines if line.strip()]


def test_the_package_installs_show_their_progress() -> None:
    installs = [part for command in _commands(INSTALL) for part in command.split("&&")
                if '".[$EXTRAS]"' in part or '"$MODEL"' in part]
    assert len(installs) == 4  # uv's two and pip's two
    for part in installs:
        assert " -q" not in part and "/dev/null" not in part, part


def test_the_first_install_promises_no_time_it_does_not_keep() -> None:
    assert "about a minute" not in RUN
    assert "progress below" in RUN and "scripts/install.sh" in RUN
    assert "[1/3]" in INSTALL and "[2/3]" in INSTALL and "[3/3]" in INSTALL
