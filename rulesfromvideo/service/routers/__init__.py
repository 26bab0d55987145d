"""API routers, one per resource (FastAPI "bigger applications" layout)."""
