"""Exports of events (with their latest decision) and of the decision audit trail, as CSV or JSON."""

from __future__ import annotations

import csv
import io
import json
from typing import Literal

from fastapi import APIRouter, Depends, Response
from sqlalchemy import select
from sqlalchemy.orm import Session

from rulesfromvideo.service.auth import Principal, reader
from rulesfromvideo.service.deps import get_db
from rulesfromvideo.service.models import Clip, Decision, Event, Job
from rulesfromvideo.service.routers.common import latest_decisions
from rulesfromvideo.service.schemas import decision_dict, event_dict

router = APIRouter(prefix="/api/export", tags=["export"])

EVENT_COLUMNS = ["event_id", "clip_id", "clip_name", "job_id", "index", "type", "t", "frame", "team", "verdict",
                 "confidence", "margin_m", "rule", "evidence", "decision", "decision_note", "decision_judge",
                 "decision_at"]
DECISION_COLUMNS = ["id", "event_id", "clip_id", "event_type", "event_verdict", "decision", "note", "judge",
                    "created_at"]


def _cell(v):
    # Spreadsheet formula injection: a text cell starting with = + - @ is executed by Excel/LibreOffice.
    if isinstance(v, str) and v[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + v
    return "" if v is None else v


def _csv(columns: list[str], rows: list[dict]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: _cell(r.get(k)) for k in columns})
    return buf.getvalue()


def _events(db: Session, clip_id: int | None, all_jobs: bool) -> list[dict]:
    q = select(Event, Clip.name).join(Clip, Clip.id == Event.clip_id)
    if clip_id is not None:
        q = q.where(Event.clip_id == clip_id)
    if not all_jobs:
        # Only each clip's newest succeeded job: older runs are superseded, not merged.
        newest = select(Job.id).where(Job.state == "succeeded", Job.clip_id == Event.clip_id).order_by(
            Job.id.desc()).limit(1).correlate(Event).scalar_subquery()
        q = q.where(Event.job_id == newest)
    rows = db.execute(q.order_by(Event.clip_id, Event.job_id, Event.idx)).all()
    latest = latest_decisions(db, [e.id for e, _ in rows])
    out = []
    for e, clip_name in rows:
        d = event_dict(e, latest.get(e.id))
        dec = d.pop("decision") or {}
        out.append({**d, "event_id": e.id, "clip_name": clip_name, "decision": dec.get("decision"),
                    "decision_note": dec.get("note"), "decision_judge": dec.get("judge"),
                    "decision_at": dec.get("created_at")})
    return out


@router.get("/events.{fmt}", summary="Events with their latest decision (CSV or JSON)")
def export_events(fmt: Literal["csv", "json"], clip_id: int | None = None, all_jobs: bool = False,
                  db: Session = Depends(get_db), _: Principal = Depends(reader)) -> Response:
    rows = _events(db, clip_id, all_jobs)
    if fmt == "json":
        for r in rows:
            r.pop("event_id", None)
        return Response(json.dumps({"events": rows}, indent=1), media_type="application/json")
    for r in rows:
        r["evidence"] = json.dumps(r["evidence"], sort_keys=True)
    return Response(_csv(EVENT_COLUMNS, rows), media_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition": 'attachment; filename="events.csv"'})


@router.get("/decisions.{fmt}", summary="The decision audit trail (CSV or JSON)")
def export_decisions(fmt: Literal["csv", "json"], clip_id: int | None = None, db: Session = Depends(get_db),
                     _: Principal = Depends(reader)) -> Response:
    q = select(Decision, Event).join(Event, Event.id == Decision.event_id)
    if clip_id is not None:
        q = q.where(Event.clip_id == clip_id)
    rows = [{**decision_dict(d), "clip_id": e.clip_id, "event_type": e.type, "event_verdict": e.verdict}
            for d, e in db.execute(q.order_by(Decision.id)).all()]
    if fmt == "json":
        return Response(json.dumps({"decisions": rows}, indent=1), media_type="application/json")
    return Response(_csv(DECISION_COLUMNS, rows), media_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition": 'attachment; filename="decisions.csv"'})
