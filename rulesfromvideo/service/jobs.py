"""Background analysis jobs: a durable queue in the database, worker threads, progress, cancel, retry.

The database *is* the queue: a job row is `queued` until a worker thread
claims it with a conditional UPDATE (safe with several server processes on
one PostgreSQL database), `running` while its owner writes a heartbeat, and
ends `succeeded`, `failed` (with a message a person can act on) or
`cancelled`. Nothing lives only in memory:

* a job whose worker died (server killed, machine rebooted) keeps a stale
  heartbeat; on start-up and periodically after, such jobs are re-queued
  (`resumed: ...`) until they have been started `job_max_attempts` times, then
  marked failed with the reason — never silently lost;
* a server shut down cleanly puts its running jobs back in the queue;
* the video is probed before analysis, so a corrupt or truncated clip fails
  its job with "video unreadable: ..." instead of a traceback.

The analysis itself is an injectable `AnalyzeFn(ctx)`; the default,
`subprocess_analyze`, runs `rulesfromvideo.pipeline.analyze` in a child
process (so a crash in native decoding code cannot take the server down and
a cancel is a SIGINT, which `analyze` turns into partial results).
"""

from __future__ import annotations

import json
import logging
import math
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from sqlalchemy import select, update

from rulesfromvideo.service.db import Database
from rulesfromvideo.service.media import NotAVideo, UnreadableVideo, probe_video
from rulesfromvideo.service.models import CameraProfileRow, Clip, Event, Job, utcnow
from rulesfromvideo.service.settings import Settings

log = logging.getLogger("rulesfromvideo.service.jobs")

TERMINAL = ("succeeded", "failed", "cancelled")
EVENT_REQUIRED = ("type", "t", "verdict")


class JobCancelled(Exception):
    """Raised by an `AnalyzeFn` (or `JobContext.check_cancel`) when the job was cancelled."""


@dataclass
class JobContext:
    """What an analyze function gets for one job attempt.

    Attributes:
        job_id: the job.
        video_path: the clip.
        game_path: GAME.json written for this job.
        out_dir: the attempt's output folder (receives events.json, tracks.jsonl, calibration.jsonl).
        camera_profile_path: the clip's stored camera profile as JSON, or None.
        max_frames: frame cap (None: whole clip).
        frames_total: frames expected (0: unknown).
    """

    job_id: int
    video_path: Path
    game_path: Path
    out_dir: Path
    camera_profile_path: Path | None = None
    max_frames: int | None = None
    frames_total: int = 0
    frames_done: int = 0
    _cancel: threading.Event = field(default_factory=threading.Event)
    shutdown: bool = False

    def report(self, frames_done: int, frames_total: int | None = None) -> None:
        """Record progress (written to the database by the runner's heartbeat)."""
        self.frames_done = int(frames_done)
        if frames_total:
            self.frames_total = int(frames_total)

    @property
    def progress(self) -> float:
        if self.frames_total <= 0:
            return 0.0
        return max(0.0, min(1.0, self.frames_done / self.frames_total))

    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def check_cancel(self) -> None:
        """Raise `JobCancelled` when a cancel was requested."""
        if self._cancel.is_set():
            raise JobCancelled()

    def request_cancel(self, shutdown: bool = False) -> None:
        self.shutdown = self.shutdown or shutdown
        self._cancel.set()


AnalyzeFn = Callable[[JobContext], None]


def _set_pdeathsig() -> None:
    # Linux: the worker dies with the server instead of writing into an attempt that nobody owns.
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def subprocess_analyze(ctx: JobContext) -> None:
    """Run `rulesfromvideo.pipeline.analyze` in a child process (`python -m rulesfromvideo.service.worker`).

    Progress is the number of lines in the growing tracks.jsonl; a cancel sends
    SIGINT (analyze then writes partial results) and SIGKILL after 10 s.

    Raises:
        JobCancelled: the job was cancelled.
        AnalyzeError: the pipeline refused the input (message from the worker).
        RuntimeError: the worker crashed or was killed.
    """
    from rulesfromvideo.pipeline import AnalyzeError

    cmd = [sys.executable, "-m", "rulesfromvideo.service.worker", str(ctx.video_path), str(ctx.game_path),
           str(ctx.out_dir)]
    if ctx.camera_profile_path is not None:
        cmd += ["--camera-profile", str(ctx.camera_profile_path)]
    if ctx.max_frames is not None:
        cmd += ["--max-frames", str(ctx.max_frames)]
    log_path = ctx.out_dir / "worker.log"
    with open(log_path, "wb") as log_fh:
        proc = subprocess.Popen(
            cmd, stdin=subprocess.DEVNULL, stdout=log_fh, stderr=subprocess.STDOUT,
            preexec_fn=_set_pdeathsig if sys.platform.startswith("linux") else None,
        )
        tracks, offset, lines, interrupted_at = ctx.out_dir / "tracks.jsonl", 0, 0, None
        while True:
            try:
                rc = proc.wait(timeout=0.25)
                break
            except subprocess.TimeoutExpired:
                pass
            try:
                with open(tracks, "rb") as fh:
                    fh.seek(offset)
                    chunk = fh.read()
                offset += len(chunk)
                lines += chunk.count(b"\n")
                ctx.report(lines)
            except OSError:
                pass
            if ctx.cancelled():
                if interrupted_at is None:
                    proc.send_signal(signal.SIGINT)
                    interrupted_at = time.monotonic()
                elif time.monotonic() - interrupted_at > 10:
                    proc.kill()
    if ctx.cancelled():
        raise JobCancelled()
    err_file = ctx.out_dir / "worker_error.txt"
    message = err_file.read_text(encoding="utf-8").strip() if err_file.is_file() else ""
    if rc == 0:
        return
    if rc == 2:
        raise AnalyzeError(message or "the pipeline refused the input")
    tail = log_path.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-1:] if log_path.is_file() else []
    raise RuntimeError(message or f"analysis worker exited with status {rc}: {' '.join(tail)[:500]}")


def load_events(path: Path) -> list[dict]:
    """Read and check a contract `events.json` (design: `{"events": [...]}`).

    Raises:
        ValueError: the file is unreadable or an event lacks a field (names it).
    """
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError("the analysis wrote no events.json") from None
    except (OSError, ValueError) as exc:
        raise ValueError(f"events.json is not valid JSON: {exc}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("events"), list):
        raise ValueError('events.json must be {"events": [...]}')
    out = []
    for i, ev in enumerate(doc["events"]):
        if not isinstance(ev, dict):
            raise ValueError(f"events.json: event {i} is not an object")
        for key in EVENT_REQUIRED:
            if key not in ev:
                raise ValueError(f"events.json: event {i} has no {key!r}")
        try:
            t = float(ev["t"])
        except (TypeError, ValueError):
            raise ValueError(f"events.json: event {i} has a non-numeric 't'") from None
        if not math.isfinite(t):
            raise ValueError(f"events.json: event {i} has a non-finite 't'")
        out.append(ev)
    return out


def _num(v) -> float | None:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


class JobRunner:
    """Worker threads that claim queued jobs from the database and run them.

    Args:
        database: the service database.
        settings: data dir, worker count, attempts, heartbeat and staleness.
        resolve_analyze_fn: returns the `AnalyzeFn` to use (called per job, so a
            test's `dependency_overrides` applies to resumed jobs too).
    """

    def __init__(self, database: Database, settings: Settings, resolve_analyze_fn: Callable[[], AnalyzeFn]):
        self.db, self.settings, self.resolve = database, settings, resolve_analyze_fn
        self.owner = uuid.uuid4().hex
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._threads: list[threading.Thread] = []
        self._active: dict[int, JobContext] = {}
        self._lock = threading.Lock()

    # -- lifecycle ----------------------------------------------------------
    def start(self) -> None:
        self.recover()
        for i in range(max(1, self.settings.job_workers)):
            th = threading.Thread(target=self._worker, name=f"rfv-job-{i}", daemon=True)
            th.start()
            self._threads.append(th)
        th = threading.Thread(target=self._monitor, name="rfv-job-monitor", daemon=True)
        th.start()
        self._threads.append(th)

    def stop(self, timeout: float = 15.0) -> None:
        """Stop the workers; running jobs go back to the queue for the next start."""
        self._stop.set()
        self._wake.set()
        with self._lock:
            for ctx in self._active.values():
                ctx.request_cancel(shutdown=True)
        deadline = time.monotonic() + timeout
        for th in self._threads:
            th.join(max(0.0, deadline - time.monotonic()))
        self._threads.clear()

    def wake(self) -> None:
        """A job was queued: let an idle worker look now rather than at its next poll."""
        self._wake.set()

    def request_cancel(self, job_id: int) -> bool:
        with self._lock:
            ctx = self._active.get(job_id)
        if ctx is not None:
            ctx.request_cancel()
        return ctx is not None

    # -- recovery -------------------------------------------------------------
    def recover(self) -> int:
        """Re-queue (or fail, past the attempt limit) running jobs whose worker died.

        Returns:
            How many jobs were recovered.
        """
        cutoff = utcnow() - timedelta(seconds=self.settings.job_stale_s)
        n = 0
        with self.db.session() as s:
            rows = s.scalars(select(Job).where(Job.state == "running")).all()
            for job in rows:
                if job.owner == self.owner:
                    continue
                hb = job.heartbeat_at
                if hb is not None and hb.tzinfo is None:  # SQLite returns naive datetimes
                    from datetime import timezone

                    hb = hb.replace(tzinfo=timezone.utc)
                if hb is not None and hb > cutoff:
                    continue
                values = {"owner": None, "cancel_requested": False}
                if job.cancel_requested:
                    values.update(state="cancelled", finished_at=utcnow(),
                                  message="cancelled (its worker died before it could stop)")
                elif job.attempts >= self.settings.job_max_attempts:
                    values.update(state="failed", finished_at=utcnow(),
                                  message=f"worker died during attempt {job.attempts} of "
                                          f"{self.settings.job_max_attempts}; not resumed again (use retry)")
                else:
                    values.update(state="queued", message=f"resumed: worker died during attempt {job.attempts}")
                res = s.execute(update(Job).where(Job.id == job.id, Job.state == "running",
                                                  Job.owner == job.owner).values(**values))
                n += res.rowcount
            s.commit()
        if n:
            log.warning("recovered %d orphaned job(s)", n)
            self._wake.set()
        return n

    # -- workers ---------------------------------------------------------------
    def _claim(self) -> int | None:
        with self.db.session() as s:
            for job_id in s.scalars(select(Job.id).where(Job.state == "queued").order_by(Job.id).limit(5)):
                res = s.execute(
                    update(Job)
                    .where(Job.id == job_id, Job.state == "queued")
                    .values(state="running", owner=self.owner, heartbeat_at=utcnow(), started_at=utcnow(),
                            attempts=Job.attempts + 1, cancel_requested=False)
                )
                s.commit()
                if res.rowcount == 1:
                    return job_id
        return None

    def _worker(self) -> None:
        while not self._stop.is_set():
            try:
                job_id = self._claim()
            except Exception:  # database briefly unavailable: keep the thread alive
                log.exception("claiming a job failed")
                job_id = None
            if job_id is None:
                self._wake.wait(1.0)
                self._wake.clear()
                continue
            try:
                self._run(job_id)
            except Exception:
                log.exception("job %s: runner error", job_id)
                self._finish(job_id, "failed", "internal error in the job runner (see server log)")

    def _finish(self, job_id: int, state: str, message: str, events: list[dict] | None = None,
                clip_id: int | None = None) -> None:
        """End a job; its events are stored in the same transaction as the state change."""
        with self.db.session() as s:
            values = {"state": state, "message": message, "finished_at": utcnow(), "owner": None}
            if state == "queued":
                values.pop("finished_at")
            if state == "succeeded":
                values["progress"] = 1.0
            res = s.execute(update(Job).where(Job.id == job_id, Job.owner == self.owner).values(**values))
            if res.rowcount != 1:  # someone reclaimed it meanwhile; their outcome wins
                s.rollback()
                return
            for i, ev in enumerate(events or []):
                s.add(Event(
                    job_id=job_id, clip_id=clip_id, idx=i, type=str(ev["type"])[:40], t=float(ev["t"]),
                    frame=int(ev["frame"]) if _num(ev.get("frame")) is not None else -1,
                    team=None if ev.get("team") is None else str(ev["team"])[:40],
                    verdict=str(ev["verdict"])[:40], confidence=_num(ev.get("confidence")),
                    margin_m=_num(ev.get("margin_m")),
                    rule=None if ev.get("rule") is None else str(ev["rule"])[:80],
                    evidence_json=json.dumps(ev.get("evidence") or {}),
                ))
            s.commit()

    def _run(self, job_id: int) -> None:
        with self.db.session() as s:
            job = s.get(Job, job_id)
            clip = s.get(Clip, job.clip_id)
            profile = s.get(CameraProfileRow, clip.camera_profile_id) if clip.camera_profile_id else None
            attempt, clip_id = job.attempts, clip.id
            video, game, n_frames, clip_name = Path(clip.path), clip.game_json, clip.n_frames, clip.name
            profile_json = profile.profile_json if profile is not None else None
        job_dir = Path(self.settings.data_dir) / "jobs" / str(job_id)
        out_dir = job_dir / f"attempt-{attempt}"
        if out_dir.exists():
            shutil.rmtree(out_dir)
        out_dir.mkdir(parents=True)
        with self.db.session() as s:
            s.execute(update(Job).where(Job.id == job_id).values(out_dir=str(out_dir), message="running",
                                                                 progress=0.0, frames_done=0))
            s.commit()
        try:
            info = probe_video(video, clip_name)
        except FileNotFoundError:
            return self._finish(job_id, "failed", f"video unreadable: {clip_name} no longer exists")
        except (NotAVideo, UnreadableVideo, OSError) as exc:
            return self._finish(job_id, "failed", f"video unreadable: {exc}")
        game_path = job_dir / "game.json"
        game_path.write_text(game, encoding="utf-8")
        profile_path = None
        if profile_json is not None:
            profile_path = job_dir / "camera_profile.json"
            profile_path.write_text(profile_json, encoding="utf-8")
        max_frames = self.settings.analyze_max_frames
        total = info.n_frames or n_frames
        if max_frames is not None:
            total = min(total, max_frames) if total else max_frames
        ctx = JobContext(job_id, video, game_path, out_dir, profile_path, max_frames, total)
        with self._lock:
            self._active[job_id] = ctx
        from rulesfromvideo.pipeline import AnalyzeError

        try:
            self.resolve()(ctx)
            if ctx.cancelled():
                raise JobCancelled()
            events = load_events(out_dir / "events.json")
        except JobCancelled:
            if ctx.shutdown:
                return self._finish(job_id, "queued", "resumed: the server shut down during the analysis")
            return self._finish(job_id, "cancelled", f"cancelled at frame {ctx.frames_done}")
        except AnalyzeError as exc:
            return self._finish(job_id, "failed", str(exc))
        except ValueError as exc:
            return self._finish(job_id, "failed", str(exc))
        except Exception as exc:
            log.exception("job %s: analysis failed", job_id)
            return self._finish(job_id, "failed", f"analysis failed: {type(exc).__name__}: {exc}"[:2000])
        finally:
            with self._lock:
                self._active.pop(job_id, None)
        self._finish(job_id, "succeeded", f"{len(events)} events from {ctx.frames_done} frames", events, clip_id)

    def _monitor(self) -> None:
        """Write progress and heartbeats, pick up cancels from the database, recover orphans."""
        last_recover = time.monotonic()
        while not self._stop.wait(self.settings.job_heartbeat_s):
            with self._lock:
                active = list(self._active.items())
            try:
                with self.db.session() as s:
                    for job_id, ctx in active:
                        s.execute(update(Job).where(Job.id == job_id, Job.owner == self.owner).values(
                            heartbeat_at=utcnow(), progress=ctx.progress, frames_done=ctx.frames_done,
                            frames_total=ctx.frames_total))
                        if s.scalar(select(Job.cancel_requested).where(Job.id == job_id)):
                            ctx.request_cancel()
                    s.commit()
                if time.monotonic() - last_recover > max(2.0, self.settings.job_stale_s / 2):
                    last_recover = time.monotonic()
                    self.recover()
            except Exception:
                log.exception("job monitor")


def job_dict(job: Job) -> dict:
    """The API view of a job."""
    return {
        "id": job.id, "clip_id": job.clip_id, "state": job.state, "progress": round(job.progress or 0.0, 4),
        "frames_done": job.frames_done, "frames_total": job.frames_total, "message": job.message,
        "attempts": job.attempts, "retry_of": job.retry_of, "cancel_requested": job.cancel_requested,
        "created_at": job.created_at.isoformat() if job.created_at else None,
        "started_at": job.started_at.isoformat() if job.started_at else None,
        "finished_at": job.finished_at.isoformat() if job.finished_at else None,
    }
