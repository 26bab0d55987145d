"""Analysis jobs: start (queued in the database), list, progress, cancel, retry."""

from __future__ import annotations

from fastapi import APIRouter, Depends, HTTPException, Query
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from rulesfromvideo.service.auth import Principal, admin, reader
from rulesfromvideo.service.deps import get_db, get_runner
from rulesfromvideo.service.jobs import TERMINAL, job_dict
from rulesfromvideo.service.models import Clip, Job, utcnow
from rulesfromvideo.service.routers.common import get_or_404

router = APIRouter(prefix="/api", tags=["jobs"])


@router.post("/clips/{clip_id}/jobs", status_code=202, summary="Start analysing a clip in the background")
def start_job(clip_id: int, db: Session = Depends(get_db), runner=Depends(get_runner),
              _: Principal = Depends(admin)) -> dict:
    get_or_404(db, Clip, clip_id, "clip")
    job = Job(clip_id=clip_id, state="queued", progress=0.0, frames_done=0, frames_total=0, message="queued",
              attempts=0, cancel_requested=False, out_dir="")
    db.add(job)
    db.commit()
    runner.wake()
    return job_dict(job)


@router.get("/jobs", summary="List jobs (newest first)")
def list_jobs(clip_id: int | None = None, state: str | None = None, limit: int = Query(100, ge=1, le=1000),
              db: Session = Depends(get_db), _: Principal = Depends(reader)) -> list[dict]:
    q = select(Job)
    if clip_id is not None:
        q = q.where(Job.clip_id == clip_id)
    if state is not None:
        q = q.where(Job.state == state)
    return [job_dict(j) for j in db.scalars(q.order_by(Job.id.desc()).limit(limit))]


@router.get("/jobs/{job_id}", summary="A job's state and progress")
def get_job(job_id: int, db: Session = Depends(get_db), _: Principal = Depends(reader)) -> dict:
    return job_dict(get_or_404(db, Job, job_id, "job"))


@router.post("/jobs/{job_id}/cancel", summary="Cancel a queued or running job",
             responses={409: {"description": "the job already ended"}})
def cancel_job(job_id: int, db: Session = Depends(get_db), runner=Depends(get_runner),
               _: Principal = Depends(admin)) -> dict:
    job = get_or_404(db, Job, job_id, "job")
    if job.state in TERMINAL:
        raise HTTPException(409, f"job {job_id} already {job.state}")
    # A queued job is cancelled at once; a running one is flagged and its owner stops it.
    res = db.execute(update(Job).where(Job.id == job_id, Job.state == "queued").values(
        state="cancelled", message="cancelled before it started", finished_at=utcnow()))
    if res.rowcount == 0:
        db.execute(update(Job).where(Job.id == job_id, Job.state == "running").values(cancel_requested=True))
    db.commit()
    runner.request_cancel(job_id)
    db.refresh(job)
    return job_dict(job)


@router.post("/jobs/{job_id}/retry", status_code=202, summary="Run a failed or cancelled job again (a new job)",
             responses={409: {"description": "the job has not failed or been cancelled"}})
def retry_job(job_id: int, db: Session = Depends(get_db), runner=Depends(get_runner),
              _: Principal = Depends(admin)) -> dict:
    old = get_or_404(db, Job, job_id, "job")
    if old.state not in ("failed", "cancelled"):
        raise HTTPException(409, f"job {job_id} is {old.state}; only failed or cancelled jobs are retried")
    job = Job(clip_id=old.clip_id, state="queued", progress=0.0, frames_done=0, frames_total=0,
              message=f"retry of job {old.id}", attempts=0, cancel_requested=False, out_dir="", retry_of=old.id)
    db.add(job)
    db.commit()
    runner.wake()
    return job_dict(job)
