"""Alembic environment: runs on the connection that `db.migrate` hands over.

`alembic upgrade head` from a shell also works (`-x url=...` or the
`sqlalchemy.url` of an alembic.ini), but the service never needs it: it
migrates on start-up.
"""

from alembic import context
from sqlalchemy import create_engine

from rulesfromvideo.service.models import Base

config = context.config
target_metadata = Base.metadata


def _run(connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        # SQLite cannot ALTER most things in place; batch mode rebuilds tables.
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


connection = config.attributes.get("connection")
if connection is not None:
    _run(connection)
else:
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option("sqlalchemy.url")
    engine = create_engine(url)
    with engine.connect() as conn:
        _run(conn)
