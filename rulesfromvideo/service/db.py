"""Database engine, sessions and start-up migrations (SQLAlchemy 2.x + Alembic).

SQLite (the default) runs in WAL mode with a busy timeout, so the job runner's
threads and the request handlers can write concurrently without "database is
locked" errors; foreign keys are switched on per connection. PostgreSQL is
used through a `postgresql+psycopg://` URL with no special setup.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.orm import Session, sessionmaker

MIGRATIONS_DIR = Path(__file__).with_name("migrations")


def _sqlite_pragmas(dbapi_conn, _record) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")  # durable at each commit in WAL mode except on power loss
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA busy_timeout=10000")
    cur.close()


def make_engine(url: str) -> Engine:
    """Create an engine for `url`; creates the SQLite file's folder when needed.

    Args:
        url: SQLAlchemy URL (`sqlite:///path.db`, `postgresql+psycopg://...`).
            A bare `postgresql://` URL is given the psycopg (v3) driver.

    Returns:
        The engine.
    """
    u = make_url(url)
    if u.drivername == "postgresql":
        u = u.set(drivername="postgresql+psycopg")
    if u.get_backend_name() == "sqlite":
        if u.database and u.database != ":memory:":
            Path(u.database).parent.mkdir(parents=True, exist_ok=True)
        # Enough pooled connections for every request thread (anyio: 40) plus the job runner,
        # so a burst of requests never queues on the pool (SQLite connections are cheap).
        engine = create_engine(u, connect_args={"check_same_thread": False, "timeout": 10},
                               pool_size=16, max_overflow=48)
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(u, pool_pre_ping=True, pool_size=10, max_overflow=40)


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest Alembic revision (idempotent)."""
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")


class Database:
    """An engine plus its session factory; one per app.

    Args:
        url: SQLAlchemy URL.
        run_migrations: upgrade the schema to head on construction.
    """

    def __init__(self, url: str, run_migrations: bool = True) -> None:
        self.url = url
        self.engine = make_engine(url)
        if run_migrations:
            migrate(self.engine)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)

    def session(self) -> Session:
        return self.sessions()

    def dispose(self) -> None:
        self.engine.dispose()


def session_dependency(database: Database) -> Iterator[Session]:
    """Yield a session that is closed (and rolled back if uncommitted) afterwards."""
    with database.session() as s:
        yield s
