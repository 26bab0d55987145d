"""A judge's decisions on events: append-only, committed before the answer."""

from __future__ import annotations

import logging

from fastapi import APIRouter, Depends, Query
from sqlalchemy import select
from sqlalchemy.orm import Session

from rulesfromvideo.service.auth import Principal, judge, reader
from rulesfromvideo.service.deps import get_db
from rulesfromvideo.service.models import Decision, Event
from rulesfromvideo.service.routers.common import get_or_404
from rulesfromvideo.service.schemas import DecisionIn, decision_dict

router = APIRouter(prefix="/api", tags=["decisions"])
log = logging.getLogger("rulesfromvideo.service")


@router.post("/events/{event_id}/decisions", status_code=201, summary="Record a decision (judge only)")
def record_decision(event_id: int, body: DecisionIn, db: Session = Depends(get_db),
                    who: Principal = Depends(judge)) -> dict:
    get_or_404(db, Event, event_id, "event")
    d = Decision(event_id=event_id, decision=body.decision, note=body.note, judge=who.name)
    db.add(d)
    db.commit()  # durable before the judge sees "recorded"
    log.info("decision %s on event %s by %s: %s", d.id, event_id, who.name, body.decision)
    return decision_dict(d)


@router.get("/events/{event_id}/decisions", summary="The audit trail of one event (oldest first)")
def event_decisions(event_id: int, db: Session = Depends(get_db), _: Principal = Depends(reader)) -> list[dict]:
    get_or_404(db, Event, event_id, "event")
    rows = db.scalars(select(Decision).where(Decision.event_id == event_id).order_by(Decision.id))
    return [decision_dict(d) for d in rows]


@router.get("/decisions", summary="The whole audit trail (oldest first), optionally for one clip")
def all_decisions(clip_id: int | None = None, limit: int = Query(1000, ge=1, le=100000),
                  offset: int = Query(0, ge=0), db: Session = Depends(get_db),
                  _: Principal = Depends(reader)) -> list[dict]:
    q = select(Decision)
    if clip_id is not None:
        q = q.join(Event, Event.id == Decision.event_id).where(Event.clip_id == clip_id)
    return [decision_dict(d) for d in db.scalars(q.order_by(Decision.id).limit(limit).offset(offset))]
