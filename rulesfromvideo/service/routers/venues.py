"""Venues and their fixed-camera profiles (CRUD)."""

from __future__ import annotations

import json

from fastapi import APIRouter, Depends, HTTPException, Response
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from rulesfromvideo.service.auth import Principal, admin, reader
from rulesfromvideo.service.deps import get_db
from rulesfromvideo.service.models import CameraProfileRow, Venue, utcnow
from rulesfromvideo.service.routers.common import get_or_404
from rulesfromvideo.service.schemas import CameraProfileIn, VenueIn, VenuePatch

router = APIRouter(prefix="/api", tags=["venues"])


def venue_dict(v: Venue) -> dict:
    return {"id": v.id, "name": v.name, "notes": v.notes, "created_at": v.created_at.isoformat()}


def profile_dict(p: CameraProfileRow) -> dict:
    return {"id": p.id, "venue_id": p.venue_id, "name": p.name, "width": p.width, "height": p.height,
            "profile": p.profile, "created_at": p.created_at.isoformat(), "updated_at": p.updated_at.isoformat()}


def checked_profile(data: dict) -> dict:
    """Validate a `CameraProfile.to_dict()` document; 422 names what is wrong."""
    from calibration.fixed import CameraProfile

    try:
        prof = CameraProfile.from_dict(data)
    except (ValueError, KeyError, TypeError) as exc:
        raise HTTPException(422, f"profile: {exc}") from None
    if not prof:
        raise HTTPException(422, f"profile: failed estimate ({prof.reason or 'no homography'})")
    return prof.to_dict()


@router.post("/venues", status_code=201, summary="Create a venue")
def create_venue(body: VenueIn, db: Session = Depends(get_db), _: Principal = Depends(admin)) -> dict:
    v = Venue(name=body.name, notes=body.notes)
    db.add(v)
    try:
        db.commit()
    except IntegrityError:
        db.rollback()
        raise HTTPException(409, f"a venue named {body.name!r} exists") from None
    return venue_dict(v)


@router.get("/venues", summary="List venues")
def list_venues(db: Session = Depends(get_db), _: Principal = Depends(reader)) -> list[dict]:
    return [venue_dict(v) for v in db.scalars(select(Venue).order_by(Venue.name))]


@router.get("/venues/{venue_id}", summary="One venue")
def get_venue(venue_id: int, db: Session = Depends(get_db), _: Principal = Depends(reader)) -> dict:
    return venue_dict(get_or_404(db, Venue, venue_id, "venue"))


@router.patch("/venues/{venue_id}", summary="Rename a venue or change its notes")
def patch_venue(venue_id: int, body: VenuePatch, db: Session = Depends(get_db), _: Principal = Depends(admin)) -> dict:
    v = get_or_404(db, Venue, venue_id, "venue")
    if body.name is not None:
        v.name = body.name
    if body.notes is not None:
        v.notes = body.notes
    try:
        db.commit()
    except IntegrityError:
        db.rollback()
        raise HTTPException(409, f"a venue named {body.name!r} exists") from None
    return venue_dict(v)


@router.delete("/venues/{venue_id}", status_code=204, summary="Delete a venue and its camera profiles")
def delete_venue(venue_id: int, db: Session = Depends(get_db), _: Principal = Depends(admin)) -> Response:
    v = get_or_404(db, Venue, venue_id, "venue")
    db.delete(v)
    db.commit()
    return Response(status_code=204)


@router.get("/venues/{venue_id}/camera-profiles", summary="A venue's camera profiles")
def list_profiles(venue_id: int, db: Session = Depends(get_db), _: Principal = Depends(reader)) -> list[dict]:
    get_or_404(db, Venue, venue_id, "venue")
    rows = db.scalars(select(CameraProfileRow).where(CameraProfileRow.venue_id == venue_id).order_by(CameraProfileRow.id))
    return [profile_dict(p) for p in rows]


def store_profile(db: Session, venue_id: int, prof: dict, row: CameraProfileRow | None = None) -> CameraProfileRow:
    if row is None:
        row = CameraProfileRow(venue_id=venue_id)
        db.add(row)
    row.name, row.width, row.height = str(prof["name"])[:200], int(prof["width"]), int(prof["height"])
    row.profile_json, row.updated_at = json.dumps(prof), utcnow()
    db.commit()
    return row


@router.post("/venues/{venue_id}/camera-profiles", status_code=201, summary="Store a camera profile given whole")
def create_profile(venue_id: int, body: CameraProfileIn, db: Session = Depends(get_db),
                   _: Principal = Depends(admin)) -> dict:
    get_or_404(db, Venue, venue_id, "venue")
    return profile_dict(store_profile(db, venue_id, checked_profile(body.profile)))


@router.get("/camera-profiles/{profile_id}", summary="One camera profile")
def get_profile(profile_id: int, db: Session = Depends(get_db), _: Principal = Depends(reader)) -> dict:
    return profile_dict(get_or_404(db, CameraProfileRow, profile_id, "camera profile"))


@router.put("/camera-profiles/{profile_id}", summary="Replace a camera profile")
def put_profile(profile_id: int, body: CameraProfileIn, db: Session = Depends(get_db),
                _: Principal = Depends(admin)) -> dict:
    row = get_or_404(db, CameraProfileRow, profile_id, "camera profile")
    return profile_dict(store_profile(db, row.venue_id, checked_profile(body.profile), row))


@router.delete("/camera-profiles/{profile_id}", status_code=204, summary="Delete a camera profile")
def delete_profile(profile_id: int, db: Session = Depends(get_db), _: Principal = Depends(admin)) -> Response:
    row = get_or_404(db, CameraProfileRow, profile_id, "camera profile")
    db.delete(row)
    db.commit()
    return Response(status_code=204)
