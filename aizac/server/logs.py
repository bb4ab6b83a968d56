"""Structured logs of ``aizac serve``: one JSON object per line on stderr.

Every line has ``ts``, ``level``, ``logger``, ``event`` (the message) and the ``request_id`` and
``user_id`` of the request it belongs to (context variables the gate sets, carried into worker
threads), plus whatever the call passed as ``extra`` (the access log's method, path, status and
milliseconds). The standard library's logging and ``json`` are enough for one fixed format.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any

from aizac.server.gate import REQUEST_ID, USER_ID

_STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime", "taskName"}


class JsonFormatter(logging.Formatter):
    """A log record as one JSON line."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": record.getMessage(),
            "request_id": getattr(record, "request_id", None) or REQUEST_ID.get(),
            "user_id": getattr(record, "user_id", None) or USER_ID.get(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and key not in line:
                line[key] = value
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


def configure(level: str = "info") -> None:
    """Send every log line of the process (uvicorn's too) to stderr as JSON."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers[:] = []
        logger.propagate = True
    logging.getLogger("uvicorn.access").disabled = True  # the gate writes the access log


__all__ = ["JsonFormatter", "configure"]
