"""The application service over a real Studio and scripted fakes (the web app's fixtures)."""

from tests.web.conftest import cliche_db, model, service, settings, studio

__all__ = ["cliche_db", "model", "service", "settings", "studio"]
