"""Bearer-token authentication and role checks.

Roles (a token has exactly one):

| role | may |
| --- | --- |
| `admin` | everything a viewer may, plus register clips, start/cancel/retry jobs, manage venues and camera profiles, run manual calibration |
| `judge` | everything a viewer may, plus record decisions on events (the only role that may) |
| `viewer` | read: clips, jobs, events, evidence images, decisions, exports, venues, profiles, the live feed |
| `broadcast` | read, like a viewer (meant for overlay graphics machines on the live feed) |

A missing or unknown token answers 401 (with `WWW-Authenticate: Bearer`), a
known token without the needed role answers 403. Decisions are a judge's act
and are signed with the token holder's name, so not even `admin` can record
one. Tokens are looked up by their SHA-256 digest and are never logged or
echoed: only the holder's name and role appear in logs and the audit trail.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from fastapi import Depends, HTTPException, Request, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from rulesfromvideo.service.settings import Settings, TokenInfo

READ_ROLES = ("admin", "judge", "viewer", "broadcast")
JUDGE_ROLES = ("judge",)
ADMIN_ROLES = ("admin",)

_bearer = HTTPBearer(auto_error=False, description="`Authorization: Bearer TOKEN`")


@dataclass(frozen=True)
class Principal:
    """The authenticated caller."""

    name: str
    role: str


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class TokenTable:
    """Token digests → holders, built once from the settings."""

    def __init__(self, tokens: dict[str, TokenInfo]) -> None:
        self._by_digest: dict[str, TokenInfo] = {}
        for tok, info in tokens.items():
            key = tok[len("sha256:"):].lower() if tok.startswith("sha256:") else digest(tok)
            self._by_digest[key] = info

    @classmethod
    def from_settings(cls, settings: Settings) -> "TokenTable":
        return cls(settings.all_tokens())

    def lookup(self, token: str) -> Principal | None:
        info = self._by_digest.get(digest(token))
        return None if info is None else Principal(info.name, info.role)

    def __len__(self) -> int:
        return len(self._by_digest)


def _unauthorized(detail: str) -> HTTPException:
    return HTTPException(status.HTTP_401_UNAUTHORIZED, detail, headers={"WWW-Authenticate": "Bearer"})


async def get_principal(
    request: Request, creds: HTTPAuthorizationCredentials | None = Depends(_bearer)
) -> Principal:
    """The caller, from `Authorization: Bearer TOKEN` (a FastAPI dependency; tests override it)."""
    if creds is None or not creds.credentials:
        raise _unauthorized("missing bearer token")
    principal = request.app.state.tokens.lookup(creds.credentials)
    if principal is None:
        raise _unauthorized("unknown token")
    return principal


def require(*roles: str):
    """A dependency that admits only callers whose role is in `roles` (403 otherwise)."""

    # async: a dictionary look-up needs no worker thread (sync dependencies each cost a thread hop).
    async def check(principal: Principal = Depends(get_principal)) -> Principal:
        if principal.role not in roles:
            raise HTTPException(
                status.HTTP_403_FORBIDDEN, f"role {principal.role!r} may not do this (needs {' or '.join(roles)})"
            )
        return principal

    return check


reader = require(*READ_ROLES)
judge = require(*JUDGE_ROLES)
admin = require(*ADMIN_ROLES)
