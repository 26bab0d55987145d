"""The review service: FastAPI review API, web review UI, durable storage, live overlay feed.

`create_app(settings)` builds the app (see `app.py`); `rulesfromvideo serve`
and `rulesfromvideo live SOURCE` run it (see `cli.py`). Documented in
`docs/service.md`.
"""

from rulesfromvideo.service.app import create_app
from rulesfromvideo.service.settings import Settings

__all__ = ["create_app", "Settings"]
