"""Alembic migrations of the review database, run programmatically by `db.migrate`."""
