"""Read-only rink geometry for the UI: painted markings as polylines, landmarks, boards (rink metres)."""

from __future__ import annotations

from functools import lru_cache

from fastapi import APIRouter, Depends, HTTPException, Query

from rulesfromvideo.service.auth import Principal, reader

router = APIRouter(prefix="/api", tags=["rink"])


def _rings(geom, tolerance_m: float) -> list[list[list[float]]]:
    """Outlines (exterior and holes) of a (Multi)Polygon as closed polylines, each (K, 2) m."""
    geom = geom.simplify(tolerance_m, preserve_topology=True)
    polys = list(geom.geoms) if hasattr(geom, "geoms") else [geom]
    out = []
    for p in polys:
        for ring in (p.exterior, *p.interiors):
            out.append([[round(x, 4), round(y, 4)] for x, y in ring.coords])
    return out


@lru_cache(maxsize=16)
def rink_markings(layout: str = "ipc", length_m: float | None = None, width_m: float | None = None) -> dict:
    """The rink's geometry as JSON: markings outlines, named ice landmarks and the boards, all in metres.

    Args:
        layout: ``"ipc"``, ``"iihf"`` or ``"nhl"``.
        length_m: rink length, m (default the layout's standard).
        width_m: rink width, m (default the layout's standard).

    Returns:
        ``{"layout", "length_m", "width_m", "boards": (K, 2), "markings": [{"name", "kind",
        "color", "rgb", "polylines": [(K, 2), ...]}], "landmarks": {name: [x, y]}}``; landmarks
        are the ice ones only (z = 0).

    Raises:
        ValueError: an unknown layout or a size outside its range.
    """
    from calibration.rink import RinkModel, RinkSpec

    rink = RinkModel(RinkSpec.for_layout(layout, length_m, width_m))
    return {
        "layout": layout, "length_m": rink.spec.length_m, "width_m": rink.spec.width_m,
        "boards": [[round(float(x), 4), round(float(y), 4)] for x, y in rink.boards_outline_xy(240)],
        "markings": [{"name": m.name, "kind": m.kind, "color": m.color, "rgb": list(m.rgb),
                      "polylines": _rings(m.geometry, 0.005)} for m in rink.markings],
        "landmarks": {k: [round(float(v[0]), 4), round(float(v[1]), 4)] for k, v in rink.landmarks.items()
                      if abs(float(v[2])) < 1e-9},
    }


@router.get("/rink/markings", summary="Rink markings as polylines, ice landmarks and boards (metres)")
def get_rink_markings(layout: str = Query("ipc", max_length=16), length_m: float | None = Query(None, gt=0, le=100),
                      width_m: float | None = Query(None, gt=0, le=60), _: Principal = Depends(reader)) -> dict:
    try:
        return rink_markings(layout, length_m, width_m)
    except (ValueError, TypeError) as exc:
        raise HTTPException(422, f"rink: {exc}") from None
