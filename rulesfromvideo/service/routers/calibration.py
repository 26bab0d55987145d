"""Manual calibration: clicked image–rink point pairs → a stored per-venue camera profile."""

from __future__ import annotations

import numpy as np
from fastapi import APIRouter, Depends, HTTPException
from sqlalchemy.orm import Session

from rulesfromvideo.service.auth import Principal, admin
from rulesfromvideo.service.deps import get_db
from rulesfromvideo.service.models import Venue
from rulesfromvideo.service.routers.common import get_or_404
from rulesfromvideo.service.routers.venues import profile_dict, store_profile
from rulesfromvideo.service.schemas import CalibrationIn

router = APIRouter(prefix="/api", tags=["calibration"])


def _rink_points(body: CalibrationIn) -> np.ndarray:
    """Each pair's rink point: given in metres, or looked up as a named landmark of the rink."""
    rink = None
    out = []
    for i, p in enumerate(body.pairs):
        if (p.rink_m is None) == (p.landmark is None):
            raise HTTPException(422, f"pairs[{i}]: give exactly one of rink_m or landmark")
        if p.rink_m is not None:
            out.append(p.rink_m)
            continue
        if rink is None:
            from calibration.rink import RinkModel, RinkSpec

            r = body.rink or {}
            try:
                rink = RinkModel(RinkSpec.for_layout(r.get("layout", "ipc"), r.get("length_m"), r.get("width_m")))
            except (ValueError, TypeError) as exc:
                raise HTTPException(422, f"rink: {exc}") from None
        if p.landmark not in rink.landmarks:
            raise HTTPException(422, f"pairs[{i}]: unknown landmark {p.landmark!r}")
        out.append(rink.landmarks[p.landmark][:2])
    return np.asarray(out, dtype=float)


@router.post("/venues/{venue_id}/calibration", status_code=201,
             summary="Fit a camera profile from clicked point pairs and store it for the venue",
             responses={422: {"description": "degenerate pairs (the reason is given)"}})
def calibrate(venue_id: int, body: CalibrationIn, db: Session = Depends(get_db), _: Principal = Depends(admin)) -> dict:
    from calibration.fixed import CameraProfile

    get_or_404(db, Venue, venue_id, "venue")
    xy_image_px = np.asarray([p.image_px for p in body.pairs], dtype=float)
    xy_rink_m = _rink_points(body)
    for name, a in (("image_px", xy_image_px), ("rink_m", xy_rink_m)):
        if not np.all(np.isfinite(a)):
            raise HTTPException(422, f"{name} values must be finite")
    prof = CameraProfile.from_point_pairs(xy_image_px, xy_rink_m, name=body.name, width=body.width,
                                          height=body.height, goal_end=body.goal_end)
    if not prof:
        raise HTTPException(422, f"calibration failed: {prof.reason}")
    return profile_dict(store_profile(db, venue_id, prof.to_dict()))
