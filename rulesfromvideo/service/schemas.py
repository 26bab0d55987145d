"""Request bodies and shared view helpers of the API (pydantic v2)."""

from __future__ import annotations

import json
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from rulesfromvideo.service.models import Clip, Decision, Event


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RegisterPath(_Strict):
    """Register a clip that already lies under the media root."""

    path: str = Field(description="path relative to the media root (POSIX separators)")
    game: dict = Field(description="GAME.json (design contract)")
    name: str | None = None
    venue_id: int | None = None
    camera_profile_id: int | None = None


class DecisionIn(_Strict):
    decision: Literal["confirm", "overturn", "inconclusive"]
    note: str = Field("", max_length=4000)


class VenueIn(_Strict):
    name: str = Field(min_length=1, max_length=200)
    notes: str = Field("", max_length=4000)


class VenuePatch(_Strict):
    name: str | None = Field(None, min_length=1, max_length=200)
    notes: str | None = Field(None, max_length=4000)


class PointPair(_Strict):
    image_px: tuple[float, float]
    rink_m: tuple[float, float] | None = None
    landmark: str | None = Field(None, description="a RinkModel landmark name instead of rink_m")


class CalibrationIn(_Strict):
    """Manual calibration: ≥ 4 clicked image points with their rink positions."""

    name: str = Field(min_length=1, max_length=200)
    width: int = Field(gt=0, le=16384)
    height: int = Field(gt=0, le=16384)
    pairs: list[PointPair] = Field(min_length=4, max_length=200)
    goal_end: Literal[1, -1] | None = None
    rink: dict | None = Field(None, description='{"layout", "length_m", "width_m"} for landmark names (default ipc)')


class CameraProfileIn(_Strict):
    """A camera profile given whole (`calibration.fixed.CameraProfile.to_dict()` JSON)."""

    profile: dict


def clip_dict(clip: Clip, latest_job=None) -> dict:
    from rulesfromvideo.service.jobs import job_dict

    return {
        "id": clip.id, "name": clip.name, "uploaded": clip.uploaded, "size_bytes": clip.size_bytes,
        "fps": clip.fps, "width": clip.width, "height": clip.height, "n_frames": clip.n_frames,
        "venue_id": clip.venue_id, "camera_profile_id": clip.camera_profile_id, "game": clip.game,
        "created_at": clip.created_at.isoformat() if clip.created_at else None,
        "latest_job": job_dict(latest_job) if latest_job is not None else None,
    }


def decision_dict(d: Decision) -> dict:
    return {"id": d.id, "event_id": d.event_id, "decision": d.decision, "note": d.note, "judge": d.judge,
            "created_at": d.created_at.isoformat() if d.created_at else None}


def event_dict(e: Event, latest: Decision | None = None) -> dict:
    """The contract fields of the event, plus its ids and the latest decision."""
    return {
        "id": e.id, "job_id": e.job_id, "clip_id": e.clip_id, "index": e.idx,
        "type": e.type, "t": e.t, "frame": e.frame, "team": e.team, "verdict": e.verdict,
        "confidence": e.confidence, "margin_m": e.margin_m, "rule": e.rule,
        "evidence": json.loads(e.evidence_json or "{}"),
        "decision": decision_dict(latest) if latest is not None else None,
    }
