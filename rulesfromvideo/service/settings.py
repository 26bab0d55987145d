"""Service settings, read from `RFV_*` environment variables (pydantic-settings).

Every field has a safe default so `rulesfromvideo serve` runs on a laptop with
no configuration at all: data in `./rfv-data`, SQLite in WAL mode, no CORS
origins allowed, no tokens (so every authenticated endpoint answers 401 until
tokens are configured — closed by default, never open).

Tokens come from `RFV_TOKENS` (JSON: `{"TOKEN": {"role": "judge", "name": "alice"}}`)
or from a JSON file of the same shape named by `RFV_TOKENS_FILE`. A token value
may also be given as `sha256:<hex digest>` so that the file holds no secrets.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

ROLES = ("admin", "judge", "viewer", "broadcast")


class TokenInfo(BaseModel):
    """Who holds a token.

    Attributes:
        role: one of `admin`, `judge`, `viewer`, `broadcast` (see `auth.py`).
        name: the holder, written into the audit trail of decisions.
    """

    role: str
    name: str = "anonymous"

    @field_validator("role")
    @classmethod
    def _known_role(cls, v: str) -> str:
        if v not in ROLES:
            raise ValueError(f"role must be one of {ROLES}, got {v!r}")
        return v


class Settings(BaseSettings):
    """Configuration of the review service.

    Attributes:
        data_dir: where uploads, job outputs and the SQLite database live.
        media_root: clips may be registered by a path under this folder
            (None: registration by path is disabled).
        database_url: SQLAlchemy URL; `DATA` in it is replaced by `data_dir`
            (default `sqlite:///DATA/review.db`). PostgreSQL:
            `postgresql+psycopg://user:pw@host/db`.
        tokens: bearer token → `TokenInfo`.
        tokens_file: JSON file with more tokens (same shape as `tokens`).
        cors_origins: origins allowed by CORS; empty = same-origin only.
        max_upload_bytes: largest accepted clip upload (413 above).
        job_workers: analysis jobs run at the same time.
        job_max_attempts: a job whose worker died is re-queued until it has
            been started this many times, then marked failed.
        job_stale_s: a running job whose heartbeat is older than this is
            considered orphaned (its worker died).
        job_heartbeat_s: how often a running job writes progress/heartbeat.
        analyze_max_frames: cap on frames per analysis (None: whole clip).
    """

    model_config = SettingsConfigDict(env_prefix="RFV_", extra="ignore")

    data_dir: Path = Path("rfv-data")
    media_root: Path | None = None
    database_url: str = "sqlite:///DATA/review.db"
    tokens: dict[str, TokenInfo] = Field(default_factory=dict)
    tokens_file: Path | None = None
    cors_origins: list[str] = Field(default_factory=list)
    max_upload_bytes: int = 2 * 1024**3
    job_workers: int = 1
    job_max_attempts: int = 3
    job_stale_s: float = 30.0
    job_heartbeat_s: float = 1.0
    analyze_max_frames: int | None = None

    def resolved_database_url(self) -> str:
        """The database URL with `DATA` replaced by the absolute data dir."""
        url = self.database_url
        if "DATA" in url:
            url = url.replace("DATA", str(self.data_dir.resolve()))
        return url

    def all_tokens(self) -> dict[str, TokenInfo]:
        """Tokens from `tokens` and `tokens_file` (the file cannot override inline ones).

        Raises:
            ValueError: the tokens file is unreadable or malformed (names the file).
        """
        out: dict[str, TokenInfo] = {}
        if self.tokens_file is not None:
            try:
                raw = json.loads(Path(self.tokens_file).read_text(encoding="utf-8"))
                out.update({k: TokenInfo.model_validate(v) for k, v in raw.items()})
            except (OSError, ValueError, AttributeError) as exc:
                # The message names the file, never a token value.
                raise ValueError(f"tokens file {self.tokens_file}: {type(exc).__name__}") from None
        out.update(self.tokens)
        return out

    def __repr_args__(self):
        # Never print token values (logs, tracebacks, `repr(settings)`).
        for k, v in super().__repr_args__():
            yield (k, f"<{len(v)} tokens>") if k == "tokens" else (k, v)


@lru_cache
def get_settings() -> Settings:
    """Process-wide settings from the environment (a FastAPI dependency)."""
    return Settings()
