"""The few rink numbers the simulator's physics and truth need, in rink metres.

Everything comes from ``calibration.rink`` (the project's rink model) when it is
importable; until then (and as a cross-check) the same numbers are derived from
the IPC book here: goal lines 4 m from the ends (209), blue lines dividing the ice
between the goal lines in three equal parts, centre to centre (210), lines 30 cm /
5 cm wide (209-211), crease a semicircle of 1.80 m to the outer edge of its line
(217 d), posts 1.83 m apart inside (218 b).

Edges follow ``docs/interfaces.md``: for an end ``e`` (+1 | -1),
``blue_far_x(e)`` is the attacking-zone edge of the blue line at that end,
``goal_outer_x(e)`` the goal line edge towards the end boards.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from shapely.geometry import Point, Polygon, box

PUCK_RADIUS_M = 0.0381  # 501: diameter 7.62 cm
PUCK_THICKNESS_M = 0.0254  # 501
PUCK_FLAT_Z_M = PUCK_THICKNESS_M / 2.0  # centre height of a puck lying on the ice

# Standard sizes per layout (length, width) used when the caller gives none.
_STANDARD_SIZE_M = {"ipc": (60.0, 30.0), "iihf": (60.0, 30.0), "nhl": (60.96, 25.908)}


@dataclass(frozen=True)
class RinkGeom:
    """Rink dimensions for physics and truth (metres).

    Attributes:
        layout: marking layout name ("ipc" | "iihf" | "nhl").
        length_m, width_m, corner_radius_m: the board outline.
        goal_line_x_m, goal_line_width_m: centre and width of the +x goal line.
        blue_line_x_m, blue_line_width_m: centre and width of the +x blue line.
        centre_line_width_m: width of the centre red line.
        post_gap_m: inside distance between the posts (1.83).
        post_diameter_m: post tube diameter (0.05).
        goal_height_m: crossbar height, underside (1.22).
        goal_depth_m: depth of the net from the goal line centre (m).
        crease_polygons: {+1: Polygon, -1: Polygon} goal creases incl. the line (217 c).
        model: the ``calibration.rink.RinkModel`` when available, else None.
    """

    layout: str
    length_m: float
    width_m: float
    corner_radius_m: float
    goal_line_x_m: float
    goal_line_width_m: float
    blue_line_x_m: float
    blue_line_width_m: float
    centre_line_width_m: float
    post_gap_m: float
    post_diameter_m: float
    goal_height_m: float
    goal_depth_m: float
    crease_polygons: Any
    model: Any = None

    # -- edges (docs/interfaces.md) -------------------------------------------------
    def blue_far_x(self, end: int) -> float:
        """Attacking-zone edge of the blue line at ``end`` (m)."""
        return end * (self.blue_line_x_m + self.blue_line_width_m / 2.0)

    def blue_near_x(self, end: int) -> float:
        """Centre-ice edge of the blue line at ``end`` (m)."""
        return end * (self.blue_line_x_m - self.blue_line_width_m / 2.0)

    def goal_outer_x(self, end: int) -> float:
        """Goal line edge towards the end boards at ``end`` (m)."""
        return end * (self.goal_line_x_m + self.goal_line_width_m / 2.0)

    def goal_inner_x(self, end: int) -> float:
        """Goal line edge towards centre ice at ``end`` (m)."""
        return end * (self.goal_line_x_m - self.goal_line_width_m / 2.0)

    @property
    def post_inner_y_m(self) -> float:
        """|y| of the inner face of a post (0.915 for the 1.83 m gap)."""
        return self.post_gap_m / 2.0

    def post_centres(self, end: int) -> np.ndarray:
        """(2, 2) centres of the two posts at ``end`` (m)."""
        y = self.post_inner_y_m + self.post_diameter_m / 2.0
        return np.array([[end * self.goal_line_x_m, -y], [end * self.goal_line_x_m, y]])

    def net_back_x(self, end: int) -> float:
        """x of the back of the net at ``end`` (m)."""
        return end * (self.goal_line_x_m + self.goal_depth_m)

    def crease(self, end: int) -> Polygon:
        """Goal crease at ``end`` including its line (217 c), shapely Polygon in metres."""
        return self.crease_polygons[end]

    def attacking_zone_contains_x(self, x: np.ndarray, end: int) -> np.ndarray:
        """True where a point at ``x`` is inside the attacking zone at ``end``, line included (206)."""
        return end * np.asarray(x) >= end * self.blue_near_x(end)


def _fallback_crease(goal_x: float, end: int, radius: float) -> Polygon:
    """217 d semicircle in front of the goal, from the goal line centre towards centre ice."""
    disc = Point(end * goal_x, 0.0).buffer(radius, quad_segs=64)
    half = box(-1e3, -1e3, end * goal_x, 1e3) if end > 0 else box(end * goal_x, -1e3, 1e3, 1e3)
    return disc.intersection(half)


@lru_cache(maxsize=16)
def rink_geom(layout: str = "ipc", length_m: float | None = None, width_m: float | None = None) -> RinkGeom:
    """The rink geometry for a layout and size.

    Args:
        layout: "ipc" | "iihf" | "nhl".
        length_m, width_m: rink size (m); default: the layout's standard.

    Returns:
        A :class:`RinkGeom`, built from ``calibration.rink`` when importable.
    """
    try:
        from calibration.rink import RinkModel, RinkSpec  # type: ignore
    except Exception:  # rink model not available: derive from the books
        RinkModel = RinkSpec = None  # noqa: N806
    if RinkSpec is not None:
        spec = RinkSpec.for_layout(layout, length_m=length_m, width_m=width_m)
        model = RinkModel(spec)
        creases = {e: model.crease(e) for e in (1, -1)}
        return RinkGeom(
            layout=layout,
            length_m=float(spec.length_m),
            width_m=float(spec.width_m),
            corner_radius_m=float(spec.corner_radius_m),
            goal_line_x_m=float(spec.goal_line_x_m),
            goal_line_width_m=float(spec.goal_line_width_m),
            blue_line_x_m=float(spec.blue_line_x_m),
            blue_line_width_m=float(spec.blue_line_width_m),
            centre_line_width_m=float(spec.centre_line_width_m),
            post_gap_m=float(spec.goal_post_gap_m),
            post_diameter_m=float(spec.goal_post_diameter_m),
            goal_height_m=float(spec.goal_height_m),
            goal_depth_m=float(spec.goal_depth_m),
            crease_polygons=creases,
            model=model,
        )
    if layout not in _STANDARD_SIZE_M:
        raise ValueError(f"rink_geom: unknown layout {layout!r}")
    L, W = _STANDARD_SIZE_M[layout]
    L = float(length_m or L)
    W = float(width_m or W)
    if layout == "nhl":
        goal_x = L / 2 - 11 * 0.3048
        blue_x = L / 2 - 75 * 0.3048
        corner = 28 * 0.3048
        lw, cw, gw = 0.3048, 0.3048, 0.0508
        gap, depth, radius = 6 * 0.3048, 40 * 0.0254, 6 * 0.3048
    else:
        goal_x = L / 2 - 4.0  # 209
        blue_x = 2.0 * goal_x / 6.0 if layout == "ipc" else L / 2 - 22.86  # 210
        corner, lw, cw, gw = 8.5, 0.30, 0.30, 0.05
        gap, depth, radius = 1.83, 1.0, 1.80
    creases = {e: _fallback_crease(goal_x, e, radius) for e in (1, -1)}
    return RinkGeom(layout, L, W, corner, goal_x, gw, blue_x, lw, cw, gap, 0.05, 1.22, depth, creases, None)
