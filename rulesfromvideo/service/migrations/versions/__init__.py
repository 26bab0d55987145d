"""Alembic revision scripts (one file per schema change, never edited once landed)."""
