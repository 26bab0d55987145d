"""Events of a clip (stored from the job's events.json) and their evidence images."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from fastapi import APIRouter, Depends, HTTPException, Query, Response
from sqlalchemy import select
from sqlalchemy.orm import Session

from rulesfromvideo.report import evidence_puck_xy
from rulesfromvideo.service import evidence
from rulesfromvideo.service.auth import Principal, reader
from rulesfromvideo.service.deps import get_db
from rulesfromvideo.service.models import Clip, Event, Job
from rulesfromvideo.service.routers.clips import PNG, render_clip_frame, render_clip_frame_png
from rulesfromvideo.service.routers.common import get_or_404, latest_decisions, latest_job
from rulesfromvideo.service.schemas import event_dict

router = APIRouter(prefix="/api", tags=["events"])


@router.get("/clips/{clip_id}/events", summary="Events of a clip (latest succeeded job unless job_id is given)")
def clip_events(clip_id: int, job_id: int | None = None, db: Session = Depends(get_db),
                _: Principal = Depends(reader)) -> dict:
    get_or_404(db, Clip, clip_id, "clip")
    job = get_or_404(db, Job, job_id, "job") if job_id is not None else latest_job(db, clip_id, "succeeded")
    if job is None:
        return {"clip_id": clip_id, "job_id": None, "events": []}
    if job.clip_id != clip_id:
        raise HTTPException(422, f"job {job.id} is not a job of clip {clip_id}")
    events = db.scalars(select(Event).where(Event.job_id == job.id).order_by(Event.idx)).all()
    latest = latest_decisions(db, [e.id for e in events])
    return {"clip_id": clip_id, "job_id": job.id, "events": [event_dict(e, latest.get(e.id)) for e in events]}


@router.get("/events/{event_id}", summary="One event with its latest decision")
def get_event(event_id: int, db: Session = Depends(get_db), _: Principal = Depends(reader)) -> dict:
    ev = get_or_404(db, Event, event_id, "event")
    return event_dict(ev, latest_decisions(db, [ev.id]).get(ev.id))


@router.get("/events/{event_id}/frame.png", summary="The event's frame (or frame N) with overlay layers",
            response_class=Response, responses={200: PNG})
def event_frame(event_id: int, frame: int | None = Query(None, ge=0), layers: str | None = None,
                db: Session = Depends(get_db), _: Principal = Depends(reader)) -> Response:
    ev = get_or_404(db, Event, event_id, "event")
    clip = db.get(Clip, ev.clip_id)
    data = render_clip_frame_png(db, clip, ev.frame if frame is None else frame, ev.job_id, layers)
    return Response(data, media_type="image/png")


@router.get("/events/{event_id}/zoom.png", summary="Zoomed crop around the puck, a line or a point",
            response_class=Response, responses={200: PNG, 409: {"description": "no calibration / puck on that frame"}})
def event_zoom(
    event_id: int,
    target: Literal["puck", "goal_line", "blue_line", "centre_line", "point"] = "puck",
    end: Literal["+x", "-x"] | None = Query(None, description="which goal/blue line (default: the puck's side)"),
    x: float | None = Query(None, description="rink x (m) for target=point"),
    y: float | None = Query(None, description="rink y (m) for target=point"),
    frame: int | None = Query(None, ge=0),
    half: int = Query(80, ge=8, le=400, description="half size of the crop, source px"),
    zoom: int = Query(3, ge=1, le=8),
    layers: str | None = None,
    db: Session = Depends(get_db),
    _: Principal = Depends(reader),
) -> Response:
    ev = get_or_404(db, Event, event_id, "event")
    clip = db.get(Clip, ev.clip_id)
    fi = ev.frame if frame is None else frame
    img, job = render_clip_frame(db, clip, fi, ev.job_id, layers)
    out = Path(job.out_dir) if job is not None and job.out_dir else None
    calib = evidence.frame_index(out / "calibration.jsonl").get(fi) if out else None
    rec = evidence.frame_index(out / "tracks.jsonl").get(fi) if out else None
    puck = (rec or {}).get("puck")
    puck_xy = (puck["x"], puck["y"]) if puck else evidence_puck_xy({"evidence": ev.evidence})
    if target == "point":
        if x is None or y is None:
            raise HTTPException(422, "target=point needs x and y (rink metres)")
        xy = (x, y)
    elif target == "puck":
        if puck_xy is None:
            raise HTTPException(409, f"no puck position on frame {fi}")
        xy = tuple(puck_xy)
    else:
        rink = evidence.rink_for_game(clip.game_json)
        if rink is None:
            raise HTTPException(409, "the rink model cannot be built for this clip's game")
        xy = evidence.line_point_rink(rink, target, end, tuple(puck_xy) if puck_xy is not None else None)
    uv = evidence.image_from_rink_xy(calib, xy)
    if uv is None:
        raise HTTPException(409, f"frame {fi} has no calibration; the point cannot be located in the image")
    return Response(evidence.png_bytes(evidence.crop_zoom(img, uv, half, zoom)), media_type="image/png")
