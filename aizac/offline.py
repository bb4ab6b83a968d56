"""Keep third-party libraries from phoning home.

aizac must run with no network at all, so telemetry and hub look-ups are switched off before
Gradio, Chroma or Hugging Face code is imported. Values the user set explicitly win.
"""

from __future__ import annotations

import os

OFFLINE_DEFAULTS: dict[str, str] = {
    "GRADIO_ANALYTICS_ENABLED": "False",
    "ANONYMIZED_TELEMETRY": "False",  # Chroma's posthog client
    "HF_HUB_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "DO_NOT_TRACK": "1",
}


def apply_offline_defaults() -> None:
    """Set the telemetry-off environment variables unless the user already set them."""
    for key, value in OFFLINE_DEFAULTS.items():
        os.environ.setdefault(key, value)
