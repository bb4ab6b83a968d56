"""Serve the aizac co-writing web app: ``python app.py [--host H] [--port P]``.

Without any key configured it runs on the embedded offline defaults (local model, hashing
embeddings, embedded Chroma, SQLite under the data directory).
"""

from __future__ import annotations

import argparse

import aizac  # noqa: F401  (applies the telemetry-off environment defaults first)
from aizac.web import serve


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Serve the aizac co-writing web app.")
    parser.add_argument(
        "--host", default=None, help="Interface to bind (default: AIZAC_HOST or 127.0.0.1)."
    )
    parser.add_argument(
        "--port", type=int, default=None, help="Port (default: AIZAC_PORT or 7860)."
    )
    parser.add_argument(
        "--ui-language", choices=["en", "ko", "zh"], default=None,
        help="Interface language (default: AIZAC_UI_LANGUAGE, else the one last chosen on the "
             "first screen, else English).",
    )
    args = parser.parse_args(argv)
    serve(host=args.host, port=args.port, language=args.ui_language)


if __name__ == "__main__":
    main()
