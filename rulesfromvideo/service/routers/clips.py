"""Clips: register by upload (size-limited, must be a video) or by path under the media root; frames."""

from __future__ import annotations

import json
import logging
import os
import re
import uuid
from pathlib import Path

from fastapi import APIRouter, Depends, File, Form, HTTPException, Query, Response, UploadFile
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from rulesfromvideo.service import evidence
from rulesfromvideo.service.auth import Principal, admin, reader
from rulesfromvideo.service.deps import get_app_settings, get_db
from rulesfromvideo.service.media import FRAMES, NotAVideo, UnreadableVideo, UnsafePath, probe_video, safe_media_path
from rulesfromvideo.service.models import CameraProfileRow, Clip, Job, Venue
from rulesfromvideo.service.routers.common import get_or_404, latest_job
from rulesfromvideo.service.schemas import RegisterPath, clip_dict
from rulesfromvideo.service.settings import Settings

router = APIRouter(prefix="/api/clips", tags=["clips"])
log = logging.getLogger("rulesfromvideo.service")
PNG = {"content": {"image/png": {}}, "description": "PNG image"}


def validate_game(game) -> str:
    """Check a GAME.json with the project's descriptor; 422 names the bad field."""
    if not isinstance(game, dict):
        raise HTTPException(422, "game must be a JSON object (GAME.json)")
    try:
        from rulesfromvideo.game import GameDescriptor
    except ImportError:  # descriptor module missing: store as given, analyze will check it
        return json.dumps(game)
    try:
        GameDescriptor.from_dict(game)
    except ValueError as exc:
        raise HTTPException(422, f"game: {exc}") from None
    return json.dumps(game)


def _check_refs(db: Session, venue_id: int | None, profile_id: int | None) -> None:
    if venue_id is not None and db.get(Venue, venue_id) is None:
        raise HTTPException(422, f"no venue {venue_id}")
    if profile_id is not None:
        prof = db.get(CameraProfileRow, profile_id)
        if prof is None:
            raise HTTPException(422, f"no camera profile {profile_id}")
        if venue_id is not None and prof.venue_id != venue_id:
            raise HTTPException(422, f"camera profile {profile_id} belongs to another venue")


def _create_clip(db: Session, path: Path, name: str, game_json: str, uploaded: bool, venue_id, profile_id,
                 display_name: str) -> Clip:
    try:
        info = probe_video(path, display_name)
    except NotAVideo as exc:
        raise HTTPException(415, str(exc)) from None
    except UnreadableVideo as exc:
        raise HTTPException(422, str(exc)) from None
    clip = Clip(name=name[:300], path=str(path), uploaded=uploaded, size_bytes=path.stat().st_size, fps=info.fps,
                width=info.width, height=info.height, n_frames=info.n_frames, game_json=game_json,
                venue_id=venue_id, camera_profile_id=profile_id)
    db.add(clip)
    db.commit()
    return clip


@router.post("", status_code=201, summary="Upload a clip (multipart)",
             responses={413: {"description": "larger than max_upload_bytes"},
                        415: {"description": "not a video"}, 422: {"description": "bad game / unreadable video"}})
def upload_clip(
    file: UploadFile = File(description="the video"),
    game: str = Form(description="GAME.json as a string"),
    name: str | None = Form(None),
    venue_id: int | None = Form(None),
    camera_profile_id: int | None = Form(None),
    db: Session = Depends(get_db),
    settings: Settings = Depends(get_app_settings),
    who: Principal = Depends(admin),
) -> dict:
    try:
        game_obj = json.loads(game)
    except ValueError as exc:
        raise HTTPException(422, f"game is not valid JSON: {exc}") from None
    game_json = validate_game(game_obj)
    _check_refs(db, venue_id, camera_profile_id)
    uploads = Path(settings.data_dir) / "uploads"
    uploads.mkdir(parents=True, exist_ok=True)
    orig = Path(file.filename or "clip").name
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", orig)[-100:] or "clip"
    dest = uploads / f"{uuid.uuid4().hex}_{safe}"
    tmp = dest.with_name(dest.name + ".part")
    size = 0
    try:
        with open(tmp, "wb") as out:
            while chunk := file.file.read(1 << 20):
                size += len(chunk)
                if size > settings.max_upload_bytes:  # belt and braces behind the body-size middleware
                    raise HTTPException(413, f"upload larger than {settings.max_upload_bytes} bytes")
                out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, dest)
        clip = _create_clip(db, dest, name or orig, game_json, True, venue_id, camera_profile_id, orig)
    except BaseException:
        tmp.unlink(missing_ok=True)
        dest.unlink(missing_ok=True)
        raise
    log.info("clip %s uploaded by %s (%d bytes)", clip.id, who.name, size)
    return clip_dict(clip)


@router.post("/register-path", status_code=201, summary="Register a clip under the media root",
             responses={400: {"description": "traversal or not a file"}, 403: {"description": "outside the media root"},
                        404: {"description": "no such file"}, 415: {"description": "not a video"}})
def register_path(body: RegisterPath, db: Session = Depends(get_db),
                  settings: Settings = Depends(get_app_settings), who: Principal = Depends(admin)) -> dict:
    if settings.media_root is None:
        raise HTTPException(403, "registration by path is disabled (no media root configured)")
    try:
        path = safe_media_path(Path(settings.media_root), body.path)
    except UnsafePath as exc:
        raise HTTPException(exc.status, str(exc)) from None
    game_json = validate_game(body.game)
    _check_refs(db, body.venue_id, body.camera_profile_id)
    clip = _create_clip(db, path, body.name or path.name, game_json, False, body.venue_id, body.camera_profile_id,
                        body.path)
    log.info("clip %s registered by %s from the media root", clip.id, who.name)
    return clip_dict(clip)


@router.get("", summary="List clips (newest first) with their latest job")
def list_clips(limit: int = Query(100, ge=1, le=1000), offset: int = Query(0, ge=0),
               db: Session = Depends(get_db), _: Principal = Depends(reader)) -> list[dict]:
    clips = db.scalars(select(Clip).order_by(Clip.id.desc()).limit(limit).offset(offset)).all()
    # One query for every clip's newest job (not one per clip).
    newest = (select(func.max(Job.id)).where(Job.clip_id.in_([c.id for c in clips]))
              .group_by(Job.clip_id).scalar_subquery())
    jobs = {j.clip_id: j for j in db.scalars(select(Job).where(Job.id.in_(newest)))} if clips else {}
    return [clip_dict(c, jobs.get(c.id)) for c in clips]


@router.get("/{clip_id}", summary="One clip")
def get_clip(clip_id: int, db: Session = Depends(get_db), _: Principal = Depends(reader)) -> dict:
    clip = get_or_404(db, Clip, clip_id, "clip")
    return clip_dict(clip, latest_job(db, clip_id))


def render_clip_frame(db: Session, clip: Clip, frame: int, job_id: int | None, layers: str | None):
    """Decode frame `frame` of `clip` and draw the overlay from the job's files; returns (image, job)."""
    try:
        wanted = evidence.parse_layers(layers)
    except ValueError as exc:
        raise HTTPException(422, str(exc)) from None
    if job_id is not None:
        job = get_or_404(db, Job, job_id, "job")
        if job.clip_id != clip.id:
            raise HTTPException(422, f"job {job_id} is not a job of clip {clip.id}")
    else:
        job = latest_job(db, clip.id, "succeeded") or latest_job(db, clip.id)
    img = FRAMES.get(Path(clip.path), frame)
    if img is None:
        if clip.n_frames and frame >= clip.n_frames:
            raise HTTPException(404, f"frame {frame} is past the end of the clip ({clip.n_frames} frames)")
        img = evidence.placeholder(clip.width, clip.height, f"frame {frame} does not decode")
        return img, job
    if job is not None and job.out_dir:
        out = Path(job.out_dir)
        calib = evidence.frame_index(out / "calibration.jsonl").get(frame)
        rec = evidence.frame_index(out / "tracks.jsonl").get(frame)
        img = evidence.overlay_frame(img, evidence.rink_for_game(clip.game_json), calib, rec, wanted)
    return img, job


@router.get("/{clip_id}/frames/{frame}.png", summary="Frame N with overlay layers", response_class=Response,
            responses={200: PNG})
def clip_frame(clip_id: int, frame: int, job_id: int | None = None,
               layers: str | None = Query(None, description="comma list of lines,puck,blades (default all; 'none')"),
               db: Session = Depends(get_db), _: Principal = Depends(reader)) -> Response:
    clip = get_or_404(db, Clip, clip_id, "clip")
    if frame < 0:
        raise HTTPException(422, "frame must be ≥ 0")
    return Response(render_clip_frame_png(db, clip, frame, job_id, layers), media_type="image/png",
                    headers={"Cache-Control": "private, max-age=60"})


def render_clip_frame_png(db: Session, clip: Clip, frame: int, job_id: int | None, layers: str | None) -> bytes:
    """`render_clip_frame` as PNG bytes, cached on everything the picture depends on."""
    job = None
    if job_id is None:
        job = latest_job(db, clip.id, "succeeded") or latest_job(db, clip.id)
        job_id = job.id if job is not None else None
    out = Path(job.out_dir) if job is not None and job.out_dir else None
    if out is None and job_id is not None:
        j = db.get(Job, job_id)
        out = Path(j.out_dir) if j is not None and j.out_dir else None
    video = Path(clip.path)
    key = (clip.id, evidence.file_sig(video), frame, job_id, layers,
           evidence.file_sig(out / "tracks.jsonl") if out else (),
           evidence.file_sig(out / "calibration.jsonl") if out else ())
    data = evidence.PNGS.get(key)
    if data is None:
        img, _job = render_clip_frame(db, clip, frame, job_id, layers)
        data = evidence.png_bytes(img)
        evidence.PNGS.put(key, data)
    return data

