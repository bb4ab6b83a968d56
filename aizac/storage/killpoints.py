"""Named kill points for crash tests: the process kills itself where ``AIZAC_KILL_AT`` says.

Every step boundary of new / plot / accept / write calls :func:`checkpoint` with its name
(``"accept:committed"``, ...). Unless ``AIZAC_KILL_AT`` names that step, nothing happens; when it
does, the process is killed with SIGKILL on the spot, exactly as a power cut or ``kill -9`` would
(no ``finally`` blocks, no flushing). The acceptance suite uses it to kill a child process at
every named step and check that the next command repairs or refuses cleanly.
"""

from __future__ import annotations

import os
import signal

KILL_ENV = "AIZAC_KILL_AT"

STEPS: dict[str, tuple[str, ...]] = {
    "new": ("new:meta-written",),
    "plot": ("plot:planned", "plot:memory-seeded"),
    "accept": (
        "accept:extracted",
        "accept:logged",
        "accept:committed",
        "accept:summarised",  # summary and turn: one write (WriterMemory.finish_beat)
    ),
    "write": ("write:streaming", "write:streamed"),
    "import": ("import:beats-written",),  # inside the creating transaction: no project
    "read": (  # reading an imported scene into memory (aizac.writer.accepting.commit_read)
        "read:extracted",
        "read:logged",
        "read:committed",
        "read:summarised",
        "read:marked",  # inside the transaction that marks the scene read
    ),
}
"""Every named step, by command (what the kill trials iterate over)."""


def checkpoint(step: str) -> None:
    """Kill this process with SIGKILL if ``AIZAC_KILL_AT`` names ``step`` (test hook)."""
    if os.environ.get(KILL_ENV) == step:
        os.kill(os.getpid(), getattr(signal, "SIGKILL", signal.SIGTERM))
