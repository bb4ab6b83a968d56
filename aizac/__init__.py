"""aizac: an AI co-writing agent for long-form serial fiction."""

from aizac.offline import apply_offline_defaults

apply_offline_defaults()

__version__ = "0.1.0"

__all__ = ["__version__"]
