"""``aizac serve``: the multi-user server (accounts, per-user sandboxes, REST API, web app).

:func:`create_app` builds the FastAPI app; :class:`ServerConfig` holds its settings
(``AIZAC_SERVER_*``). See README "Server".
"""

from aizac.server.app import create_app
from aizac.server.config import ServerConfig
from aizac.server.sandbox import StudioFactory

__all__ = ["ServerConfig", "StudioFactory", "create_app"]
