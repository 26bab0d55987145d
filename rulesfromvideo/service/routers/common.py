"""Look-ups shared by the routers."""

from __future__ import annotations

from fastapi import HTTPException
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from rulesfromvideo.service.models import Decision, Job


def get_or_404(db: Session, model, obj_id: int, what: str):
    obj = db.get(model, obj_id)
    if obj is None:
        raise HTTPException(404, f"no {what} {obj_id}")
    return obj


def latest_job(db: Session, clip_id: int, state: str | None = None) -> Job | None:
    q = select(Job).where(Job.clip_id == clip_id)
    if state is not None:
        q = q.where(Job.state == state)
    return db.scalars(q.order_by(Job.id.desc()).limit(1)).first()


def latest_decisions(db: Session, event_ids: list[int]) -> dict[int, Decision]:
    """event id → its most recent decision (the audit trail keeps all of them)."""
    if not event_ids:
        return {}
    newest = (
        select(func.max(Decision.id)).where(Decision.event_id.in_(event_ids)).group_by(Decision.event_id)
    ).scalar_subquery()
    return {d.event_id: d for d in db.scalars(select(Decision).where(Decision.id.in_(newest)))}
