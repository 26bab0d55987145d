"""Rink model: rule-book dimensions, painted markings as shapely geometry, zones,
creases, goal frames, named landmarks and a top-down rendering.

Rink frame (design.md): metres, origin at centre ice, +x along the length, +y across,
z up, ice at z = 0. Side cameras film from the -y side; the referee crease (216) is on
the +y side in front of the scorekeeper's bench, centred on x = 0.

Usage::

    from calibration.rink import RinkSpec, RinkModel, Marking
    spec = RinkSpec.for_layout("ipc", length_m=60.0, width_m=30.0)
    rink = RinkModel(spec)

Rule numbers refer to the IPC Ice Sledge Hockey Rules (2011), section 2, unless they
name another book. Numbers the IPC book leaves "as illustrated" come from the IIHF
and NHL rule books; see :mod:`calibration.layouts` and ``docs/rink-layouts.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from functools import cached_property

import cv2
import numpy as np
from shapely.geometry import LineString, MultiPolygon, Point, Polygon, box
from shapely.ops import unary_union

from calibration.layouts import LAYOUTS, SIZE_RANGES_M, resolve_layout

__all__ = ["RinkSpec", "RinkModel", "Marking", "COLORS_RGB", "sign_name"]

# Paint colours, RGB. Red/blue close to the NHL/IIHF paint; crease blue ~ PMS 298.
COLORS_RGB: dict[str, tuple[int, int, int]] = {
    "red": (200, 16, 46),
    "blue": (0, 56, 168),
    "light_blue": (95, 190, 235),
    "white": (255, 255, 255),
    "kick_plate_yellow": (240, 205, 60),
    "margin": (70, 70, 70),
}

# Quadrant segments used to approximate arcs: sagitta on an 8.5 m corner is 0.16 mm.
_QUAD_SEGS = 128


def sign_name(s: float) -> str:
    """``+1 -> "+"``, ``-1 -> "-"`` (used in marking and landmark names)."""
    return "+" if s > 0 else "-"


def _end_sign(end) -> int:
    """Normalise an end given as +1/-1 or "+x"/"-x" to +1/-1."""
    if end in (1, "+x", "+", +1.0):
        return 1
    if end in (-1, "-x", "-", -1.0):
        return -1
    raise ValueError(f"end must be +1 or -1 ('+x'/'-x'), got {end!r}")


@dataclass(frozen=True)
class RinkSpec:
    """Dimensions of one rink, metres (one named field per dimension).

    Positions are for the +x half; the -x half is the mirror image (x -> -x), and
    markings on the +y side are mirrored to -y except the referee crease (216).
    Build with :meth:`for_layout`, which fills a layout's standard and checks ranges.
    """

    layout: str  # "ipc" | "iihf" | "nhl": marking layout
    length_m: float  # end board to end board, m (IPC 201)
    width_m: float  # side board to side board, m (IPC 201)
    corner_radius_m: float  # radius of the rounded corners, m (IPC 201)
    goal_line_x_m: float  # centre of the +x goal line, m (IPC 209: 4 m from the end)
    goal_line_width_m: float  # m (IPC 209: 5 cm)
    blue_line_x_m: float  # centre of the +x blue line, m (IPC 210: thirds)
    blue_line_width_m: float  # m (IPC 210: 30 cm)
    centre_line_width_m: float  # m (IPC 211: 30 cm)
    centre_circle_radius_m: float  # to the outer edge of the line, m (IPC 213: 4.5 m)
    centre_spot_diameter_m: float  # m (IPC 213: 30 cm)
    faceoff_circle_radius_m: float  # end-zone circles, to the outer edge, m (IPC 215 d)
    faceoff_spot_diameter_m: float  # end-zone and neutral spots, m (IPC 214, 215 b)
    end_spot_x_m: float  # |x| of the end-zone spot centres, m
    end_spot_y_m: float  # |y| of the end-zone spot centres, m
    neutral_spot_x_m: float  # |x| of the neutral-zone spot centres, m (IPC 214)
    neutral_spot_y_m: float  # |y| of the neutral-zone spot centres, m
    thin_line_width_m: float  # circles, creases, hash and L marks, m (0.05)
    hash_mark_length_m: float  # beyond the circle's outer edge, m
    hash_mark_spacing_m: float  # between the inside edges of a pair of hash marks, m
    faceoff_l_offset_m: float  # from the spot's outer edge to the L's short leg, m
    faceoff_l_long_m: float  # L leg parallel to the side boards (along x), m
    faceoff_l_gap_m: float  # between the inside edges of the two long legs, m
    faceoff_l_short_m: float  # L leg parallel to the end boards (along y), m
    crease_shape: str  # "semicircle" (IPC 217 d, IIHF) | "nhl" (NHL 1.8)
    crease_radius_m: float  # to the outer edge of the crease line, m (IPC 217 d: 1.80)
    crease_side_y_m: float  # nhl: |y| of the straight sides' outer edge, m (else 0)
    crease_l_distance_m: float  # L marks: distance from the goal line, m (217 d: 1.22)
    crease_l_length_m: float  # length of each L leg, m (217 d: 15 cm)
    crease_height_m: float  # height of the crease volume, m (IPC 217 c: 1.27)
    goal_post_gap_m: float  # between the posts, inside, m (IPC 218 b: 1.83)
    goal_height_m: float  # posts above the ice, m (IPC 218 b: 1.22)
    goal_post_diameter_m: float  # external diameter, m (IPC 218 b: 5 cm)
    goal_depth_m: float  # deepest point of the frame behind the goal line, m (218 c)
    referee_crease_radius_m: float  # to the outer edge, m (IPC 216: 3 m)
    board_height_m: float  # m (IPC 202: 1.17-1.22)
    kick_plate_height_m: float  # m (IPC 203: 15-25 cm)
    trapezoid_goal_line_half_m: float  # nhl: |y| of the trapezoid at the goal line, m (0: none)
    trapezoid_end_half_m: float  # nhl: |y| of the trapezoid at the end boards, m
    puck_diameter_m: float = 0.0762  # IPC 501
    puck_thickness_m: float = 0.0254  # IPC 501

    def __post_init__(self) -> None:
        for f in fields(self):
            v = getattr(self, f.name)
            if f.type in ("float", float):
                if not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
                    raise ValueError(f"{f.name} must be a finite number >= 0, got {v!r}")
        if self.layout not in LAYOUTS:
            raise ValueError(f"layout must be one of {sorted(LAYOUTS)}, got {self.layout!r}")
        if self.crease_shape not in ("semicircle", "nhl"):
            raise ValueError(f"crease_shape must be 'semicircle' or 'nhl', got {self.crease_shape!r}")
        half_l, half_w = self.length_m / 2, self.width_m / 2
        if not 0 < self.corner_radius_m <= min(half_l, half_w):
            raise ValueError(f"corner_radius_m={self.corner_radius_m} must be in (0, width_m/2]")
        if not self.centre_line_width_m / 2 < self.blue_line_x_m - self.blue_line_width_m / 2:
            raise ValueError(f"blue_line_x_m={self.blue_line_x_m} overlaps the centre line")
        blue_far_x = self.blue_line_x_m + self.blue_line_width_m / 2
        if not blue_far_x < self.goal_line_x_m - self.goal_line_width_m / 2:
            raise ValueError(f"goal_line_x_m={self.goal_line_x_m} must lie beyond the blue line")
        if not self.goal_line_x_m + self.goal_line_width_m / 2 < half_l:
            raise ValueError(f"goal_line_x_m={self.goal_line_x_m} must lie inside the rink")
        if self.end_spot_y_m + self.faceoff_circle_radius_m >= half_w:
            raise ValueError(f"width_m={self.width_m} too narrow for the face-off circles")

    # ------------------------------------------------------------------ constructors
    @classmethod
    def for_layout(cls, layout: str, length_m: float | None = None, width_m: float | None = None,
                   corner_radius_m: float | None = None) -> "RinkSpec":
        """Spec of a layout at its standard size or at a given size.

        Args:
            layout: ``"ipc"`` (IPC 201-218), ``"iihf"`` or ``"nhl"``.
            length_m: rink length, m; default the layout's standard (ipc/iihf 60, nhl 200 ft).
            width_m: rink width, m; default the layout's standard (ipc/iihf 30, nhl 85 ft).
            corner_radius_m: corner radius, m; default the layout's standard.

        Raises:
            ValueError: naming the field (``layout``, ``length_m``, ``width_m``,
                ``corner_radius_m``) when it is unknown or outside the layout's range
                (IPC 201: 56-61 x 26-30 m, corners 7-8.5 m).
        """
        if not isinstance(layout, str) or layout.lower() not in LAYOUTS:
            raise ValueError(f"layout must be one of {sorted(LAYOUTS)}, got {layout!r}")
        layout = layout.lower()
        std = LAYOUTS[layout]
        ranges = SIZE_RANGES_M[layout]
        given = {"length_m": length_m, "width_m": width_m, "corner_radius_m": corner_radius_m}
        vals: dict[str, float] = {}
        for name, v in given.items():
            if v is None:
                vals[name] = float(std[name])
                continue
            try:
                v = float(v)
            except (TypeError, ValueError):
                raise ValueError(f"{name} must be a number (metres), got {v!r}") from None
            lo, hi = ranges[name]
            # 1 mm tolerance so that e.g. 200 ft given in rounded metres is accepted.
            if not math.isfinite(v) or not lo - 1e-3 <= v <= hi + 1e-3:
                raise ValueError(
                    f"{name}={v!r} is outside the {layout} range {lo:.3f}-{hi:.3f} m")
            vals[name] = v
        t = resolve_layout(layout, vals["length_m"], vals["width_m"])
        t["corner_radius_m"] = vals["corner_radius_m"]
        return cls(**t)

    # ------------------------------------------------------------------ derived edges
    def blue_line_edges_x(self, end) -> tuple[float, float]:
        """Edges of the blue line at ``end`` (+1/-1): ``(near_centre_x, far_x)``, m.

        ``far_x`` is the attacking-zone edge for a team attacking ``end`` (210, 206).
        """
        e = _end_sign(end)
        h = self.blue_line_width_m / 2
        return (e * (self.blue_line_x_m - h), e * (self.blue_line_x_m + h))

    def goal_line_edges_x(self, end) -> tuple[float, float]:
        """Edges of the goal line at ``end``: ``(inner_x, outer_x)``, m (209).

        ``outer_x`` is the edge towards the end boards (the side of the net).
        """
        e = _end_sign(end)
        h = self.goal_line_width_m / 2
        return (e * (self.goal_line_x_m - h), e * (self.goal_line_x_m + h))

    def centre_line_edges_x(self) -> tuple[float, float]:
        """Edges of the centre line: ``(-w/2, +w/2)``, m (211)."""
        h = self.centre_line_width_m / 2
        return (-h, h)

    def board_y_at(self, x_m: float) -> float:
        """|y| of the inner face of the side boards at ``x_m`` (exact corner arcs), m."""
        half_l, half_w, r = self.length_m / 2, self.width_m / 2, self.corner_radius_m
        dx = abs(x_m) - (half_l - r)
        if dx <= 0:
            return half_w
        if dx > r:
            raise ValueError(f"x_m={x_m} is beyond the end boards (|x| <= {half_l})")
        return half_w - r + math.sqrt(max(r * r - dx * dx, 0.0))

    def board_x_at(self, y_m: float) -> float:
        """|x| of the inner face of the end boards at ``y_m``, m."""
        half_l, half_w, r = self.length_m / 2, self.width_m / 2, self.corner_radius_m
        dy = abs(y_m) - (half_w - r)
        if dy <= 0:
            return half_l
        if dy > r:
            raise ValueError(f"y_m={y_m} is beyond the side boards (|y| <= {half_w})")
        return half_l - r + math.sqrt(max(r * r - dy * dy, 0.0))


@dataclass(frozen=True)
class Marking:
    """One painted marking.

    Attributes:
        name: e.g. ``"goal_line_+x"``, ``"faceoff_circle_+x_-y"``.
        kind: ``"line"`` (across the rink), ``"circle"``, ``"spot"``, ``"hash"``,
            ``"faceoff_l"``, ``"crease"``, ``"crease_fill"``, ``"referee_crease"``,
            ``"trapezoid"``.
        color: paint colour name (key of :data:`COLORS_RGB`).
        rgb: paint colour, RGB 0-255.
        geometry: painted area, rink metres, at its true width.
    """

    name: str
    kind: str
    color: str
    rgb: tuple[int, int, int]
    geometry: Polygon | MultiPolygon


def _disc(cx: float, cy: float, r: float) -> Polygon:
    return Point(cx, cy).buffer(r, quad_segs=_QUAD_SEGS)


def _ring(cx: float, cy: float, r_out: float, width: float) -> Polygon:
    return _disc(cx, cy, r_out).difference(_disc(cx, cy, r_out - width))


def _pt(x: float, y: float, z: float = 0.0) -> np.ndarray:
    return np.array([x, y, z], dtype=np.float64)


class RinkModel:
    """Geometry of one rink in rink metres, built from a :class:`RinkSpec`.

    Attributes:
        spec: the dimensions.
        ice: the ice surface, a rounded rectangle (IPC 201).
        markings: every painted marking (IPC 208-217).
        landmarks: name -> (3,) point, m; ice points have z = 0 and lie on a painted
            marking (``landmark_markings`` names it); post tops have z = goal height.
        landmark_markings: landmark name -> name of the marking it lies on (None for
            3D points off the ice such as post tops).
    """

    def __init__(self, spec: RinkSpec):
        """Build all geometry (about 30 ms).

        Args:
            spec: the rink's dimensions, e.g. ``RinkSpec.for_layout("ipc")``.
        """
        self.spec = spec
        s = spec
        half_l, half_w, r = s.length_m / 2, s.width_m / 2, s.corner_radius_m
        self.ice: Polygon = box(-half_l + r, -half_w + r, half_l - r, half_w - r).buffer(
            r, quad_segs=_QUAD_SEGS)
        self.markings: list[Marking] = []
        self.landmarks: dict[str, np.ndarray] = {}
        self.landmark_markings: dict[str, str | None] = {}
        self._creases: dict[int, Polygon] = {}
        self._build()

    @classmethod
    def for_layout(cls, layout: str, length_m: float | None = None,
                   width_m: float | None = None) -> "RinkModel":
        """``RinkModel(RinkSpec.for_layout(layout, length_m, width_m))``."""
        return cls(RinkSpec.for_layout(layout, length_m=length_m, width_m=width_m))

    # ------------------------------------------------------------------ public API
    @property
    def crease_height_m(self) -> float:
        """Height of the goal crease volume, m (217 c: 1.27 m)."""
        return self.spec.crease_height_m

    def blue_line_edges_x(self, end) -> tuple[float, float]:
        """See :meth:`RinkSpec.blue_line_edges_x`."""
        return self.spec.blue_line_edges_x(end)

    def goal_line_edges_x(self, end) -> tuple[float, float]:
        """See :meth:`RinkSpec.goal_line_edges_x`."""
        return self.spec.goal_line_edges_x(end)

    def centre_line_edges_x(self) -> tuple[float, float]:
        """See :meth:`RinkSpec.centre_line_edges_x`."""
        return self.spec.centre_line_edges_x()

    def marking(self, name: str) -> Marking:
        """The marking called ``name`` (KeyError if none)."""
        for m in self.markings:
            if m.name == name:
                return m
        raise KeyError(name)

    @cached_property
    def markings_by_name(self) -> dict[str, Marking]:
        """name -> Marking."""
        return {m.name: m for m in self.markings}

    def zone(self, attacks, kind: str) -> Polygon:
        """Zone of the ice for the team attacking ``attacks``.

        Args:
            attacks: ``"+x"`` | ``"-x"`` (or +1/-1): the end the team attacks.
            kind: ``"defending"`` | ``"neutral"`` | ``"attacking"`` (210).

        Returns:
            Polygon, rink metres. Per 206 the entire width of a blue line belongs to
            both zones it separates, so adjacent zone polygons overlap on the line.
        """
        e = _end_sign(attacks)
        near, far = self.spec.blue_line_edges_x(1)  # +x blue line edges, near < far
        big = self.spec.length_m + self.spec.width_m
        if kind == "neutral":
            region = box(-far, -big, far, big)
        elif kind == "attacking":
            region = box(near, -big, big, big) if e > 0 else box(-big, -big, -near, big)
        elif kind == "defending":
            region = box(-big, -big, -near, big) if e > 0 else box(near, -big, big, big)
        else:
            raise ValueError(f"kind must be 'defending', 'neutral' or 'attacking', got {kind!r}")
        return self.ice.intersection(region)

    def crease(self, end) -> Polygon:
        """Goal crease at ``end`` on the ice, including the crease line (217 c).

        The area is bounded by the outside edge of the crease line and reaches the
        outer edge of the goal line between the crease ends; it extends vertically to
        :attr:`crease_height_m`.
        """
        return self._creases[_end_sign(end)]

    def goal_posts_y(self) -> tuple[float, float]:
        """Inner faces of the goal posts: ``(y_left_inner, y_right_inner)``, m (218 b)."""
        h = self.spec.goal_post_gap_m / 2
        return (-h, h)

    def goal_post_centres_xy(self, end) -> np.ndarray:
        """Post axes at ``end``: (2, 2) array [[x, -y], [x, +y]], m; posts stand on the
        centre of the goal line (IIHF 2.1: peg holes exactly on the goal line)."""
        e = _end_sign(end)
        y = self.spec.goal_post_gap_m / 2 + self.spec.goal_post_diameter_m / 2
        x = e * self.spec.goal_line_x_m
        return np.array([[x, -y], [x, y]])

    def goal_base_xy(self, end, n_arc: int = 12) -> np.ndarray:
        """The goal frame's base on the ice at ``end``: (n_arc + 1, 2) points, m, a half-ellipse
        from one post's axis to the other reaching ``goal_depth_m`` behind the goal line
        (218 c; the shape is approximate, the depth and the posts exact)."""
        e = _end_sign(end)
        s = self.spec
        x0 = e * s.goal_line_x_m
        y_post = s.goal_post_gap_m / 2 + s.goal_post_diameter_m / 2
        th = np.linspace(0.0, math.pi, n_arc + 1)
        return np.stack([x0 + e * s.goal_depth_m * np.sin(th), -y_post * np.cos(th)], axis=1)

    def goal_frame_segments(self, end, n_arc: int = 12) -> list[tuple[np.ndarray, np.ndarray]]:
        """Goal frame as 3D segments along the tube axes, rink metres.

        Posts and crossbar are exact (218 b: inside gap 1.83 m, height 1.22 m to the
        underside of the crossbar, tube diameter 5 cm). The base frame is drawn as a
        half-ellipse on the ice reaching ``goal_depth_m`` behind the goal line (218 c)
        and the top frame as a shelf 40 % of that depth; those shapes are approximate.

        Args:
            end: +1 / -1.
            n_arc: segments of the base arc.

        Returns:
            list of (p0_xyz, p1_xyz), each (3,) float64, metres.
        """
        e = _end_sign(end)
        s = self.spec
        x0 = e * s.goal_line_x_m
        y_post = s.goal_post_gap_m / 2 + s.goal_post_diameter_m / 2
        z_bar = s.goal_height_m + s.goal_post_diameter_m / 2
        segs: list[tuple[np.ndarray, np.ndarray]] = []
        for y in (-y_post, y_post):
            segs.append((_pt(x0, y, 0.0), _pt(x0, y, z_bar)))
        segs.append((_pt(x0, -y_post, z_bar), _pt(x0, y_post, z_bar)))
        base = [_pt(x, y, 0.0) for x, y in self.goal_base_xy(end, n_arc)]
        segs += list(zip(base[:-1], base[1:]))
        shelf = 0.4 * s.goal_depth_m
        for y in (-y_post, y_post):
            top_back = _pt(x0 + e * shelf, y * 0.9, z_bar)
            segs.append((_pt(x0, y, z_bar), top_back))
            # strut from the shelf corner down to the base arc at the same |y|
            t = math.acos(max(-1.0, min(1.0, -(y * 0.9) / y_post)))
            segs.append((top_back, _pt(x0 + e * s.goal_depth_m * math.sin(t), y * 0.9, 0.0)))
        segs.append((_pt(x0 + e * shelf, -0.9 * y_post, z_bar), _pt(x0 + e * shelf, 0.9 * y_post, z_bar)))
        return segs

    def boards_outline_xy(self, n: int = 720) -> np.ndarray:
        """Points along the inner face of the boards (the ice edge), counter-clockwise
        from (+L/2, 0), evenly spaced by arc length; exact corner arcs.

        Args:
            n: number of points.

        Returns:
            (n, 2) float64, rink metres.
        """
        s = self.spec
        a, b, r = s.length_m / 2 - s.corner_radius_m, s.width_m / 2 - s.corner_radius_m, s.corner_radius_m
        # perimeter pieces: right half-side, corner, top, corner, left, corner, bottom, corner, right half
        pieces = [("l", (a + r, 0.0), (a + r, b)), ("c", (a, b), 0.0),
                  ("l", (a, b + r), (-a, b + r)), ("c", (-a, b), math.pi / 2),
                  ("l", (-a - r, b), (-a - r, -b)), ("c", (-a, -b), math.pi),
                  ("l", (-a, -b - r), (a, -b - r)), ("c", (a, -b), 1.5 * math.pi),
                  ("l", (a + r, -b), (a + r, 0.0))]
        lens = [math.dist(p[1], p[2]) if p[0] == "l" else r * math.pi / 2 for p in pieces]
        total = sum(lens)
        out = np.empty((n, 2))
        for i, sd in enumerate(np.arange(n) * total / n):
            for p, ln in zip(pieces, lens):
                if sd <= ln or p is pieces[-1]:
                    f = sd / ln if ln > 0 else 0.0
                    if p[0] == "l":
                        out[i] = np.add(p[1], f * np.subtract(p[2], p[1]))
                    else:
                        ang = p[2] + f * math.pi / 2
                        out[i] = (p[1][0] + r * math.cos(ang), p[1][1] + r * math.sin(ang))
                    break
                sd -= ln
        return out

    # ------------------------------------------------------------------ top-down view
    def topdown_size_px(self, cm_per_px: float, margin_m: float = 1.0) -> tuple[int, int]:
        """(width_px, height_px) of :meth:`render_topdown`."""
        m_per_px = cm_per_px / 100.0
        w = int(math.ceil((self.spec.length_m + 2 * margin_m) / m_per_px - 1e-9))
        h = int(math.ceil((self.spec.width_m + 2 * margin_m) / m_per_px - 1e-9))
        return w, h

    def topdown_from_rink(self, cm_per_px: float, margin_m: float = 1.0) -> np.ndarray:
        """Homography (3, 3) from rink metres to top-down image pixels.

        +x to the right, +y up (v decreases with y), so the camera side (-y) is at the
        bottom. Pixel centres are at integer coordinates; the image's outer pixel
        edges lie ``margin_m`` outside the end and side boards.
        """
        k = 100.0 / cm_per_px  # px per metre
        x0 = -self.spec.length_m / 2 - margin_m
        y0 = self.spec.width_m / 2 + margin_m
        return np.array([[k, 0.0, -x0 * k - 0.5],
                         [0.0, -k, y0 * k - 0.5],
                         [0.0, 0.0, 1.0]])

    def rink_from_topdown(self, cm_per_px: float, margin_m: float = 1.0) -> np.ndarray:
        """Inverse of :meth:`topdown_from_rink`: (3, 3) from top-down pixels to rink m."""
        return np.linalg.inv(self.topdown_from_rink(cm_per_px, margin_m))

    def render_topdown(self, cm_per_px: float, margin_m: float = 1.0,
                       antialias: bool = True) -> np.ndarray:
        """Top-down image of the rink: white ice, every marking in its colour, the
        light-blue crease fill, and the boards (kick-plate yellow band just outside
        the ice edge).

        Args:
            cm_per_px: resolution, cm per pixel (1 cm/px for a simulator texture).
            margin_m: border outside the boards, m.
            antialias: anti-aliased polygon edges (cv2.LINE_AA).

        Returns:
            (H, W, 3) uint8 BGR image; pixel (u, v) maps to the rink through
            :meth:`rink_from_topdown` with the same arguments.
        """
        w_px, h_px = self.topdown_size_px(cm_per_px, margin_m)
        img = np.empty((h_px, w_px, 3), np.uint8)
        img[:] = COLORS_RGB["margin"][::-1]
        H = self.topdown_from_rink(cm_per_px, margin_m)
        line = cv2.LINE_AA if antialias else cv2.LINE_8
        shift = 4
        scale = float(1 << shift)

        def to_px(coords) -> np.ndarray:
            a = np.asarray(coords, dtype=np.float64)[:, :2]
            uv = a @ H[:2, :2].T + H[:2, 2]
            return np.round(uv * scale).astype(np.int32)

        def fill(geom, rgb) -> None:
            polys = [geom] if isinstance(geom, Polygon) else list(getattr(geom, "geoms", []))
            for p in polys:
                if p.is_empty:
                    continue
                # exterior and holes together: fillPoly's parity fill leaves the holes open
                contours = [to_px(p.exterior.coords)] + [to_px(i.coords) for i in p.interiors]
                cv2.fillPoly(img, contours, tuple(int(c) for c in rgb[::-1]), line, shift)

        board_band = self.ice.buffer(0.15, quad_segs=32).difference(self.ice)
        fill(board_band, COLORS_RGB["kick_plate_yellow"])
        fill(self.ice, COLORS_RGB["white"])
        for m in self.markings:
            fill(m.geometry, m.rgb)
        return img

    # ------------------------------------------------------------------ construction
    def _add(self, name: str, kind: str, color: str, geom) -> None:
        geom = geom.intersection(self.ice)
        self.markings.append(Marking(name, kind, color, COLORS_RGB[color], geom))

    def _lm(self, name: str, xyz, marking: str | None) -> None:
        self.landmarks[name] = np.asarray(xyz, dtype=np.float64).reshape(3)
        self.landmark_markings[name] = marking

    def _build(self) -> None:
        s = self.spec
        big = s.width_m
        # Painting order = render order: crease fill first, then lines, circles, spots.
        for e in (1, -1):
            self._build_crease(e, fill_only=True)
        # --- lines across the rink (208-211), with line-board landmarks on each edge.
        for e in (1, -1):
            en = f"{sign_name(e)}x"
            inner, outer = s.goal_line_edges_x(e)
            name = f"goal_line_{en}"
            self._add(name, "line", "red", box(min(inner, outer), -big, max(inner, outer), big))
            self._line_board_landmarks(name, {"": e * s.goal_line_x_m, "inner_": inner, "outer_": outer})
        for e in (1, -1):
            en = f"{sign_name(e)}x"
            near, far = s.blue_line_edges_x(e)
            name = f"blue_line_{en}"
            self._add(name, "line", "blue", box(min(near, far), -big, max(near, far), big))
            self._line_board_landmarks(name, {"": e * s.blue_line_x_m, "near_": near, "far_": far})
        lo, hi = s.centre_line_edges_x()
        self._add("centre_line", "line", "red", box(lo, -big, hi, big))
        self._line_board_landmarks("centre_line", {"": 0.0, "-x_": lo, "+x_": hi})

        # --- centre circle and spot (213)
        rc, w = s.centre_circle_radius_m, s.thin_line_width_m
        self._add("centre_circle", "circle", "blue", _ring(0, 0, rc, w))
        self._circle_landmarks("centre_circle", 0.0, 0.0, rc)
        for sx in (1, -1):
            for sy in (1, -1):
                x = sx * hi
                self._lm(f"centre_circle_centre_line_{sign_name(sx)}x_{sign_name(sy)}y",
                         (x, sy * math.sqrt(rc * rc - x * x), 0), "centre_circle")
        self._add("centre_spot", "spot", "blue", _disc(0, 0, s.centre_spot_diameter_m / 2))
        self._lm("centre_spot", (0, 0, 0), "centre_spot")

        # --- neutral-zone spots (214)
        for sx in (1, -1):
            for sy in (1, -1):
                tag = f"{sign_name(sx)}x_{sign_name(sy)}y"
                cx, cy = sx * s.neutral_spot_x_m, sy * s.neutral_spot_y_m
                self._add(f"neutral_spot_{tag}", "spot", "red", _disc(cx, cy, s.faceoff_spot_diameter_m / 2))
                self._lm(f"neutral_spot_{tag}", (cx, cy, 0), f"neutral_spot_{tag}")

        # --- end-zone spots, circles, hash marks and L marks (215)
        for sx in (1, -1):
            for sy in (1, -1):
                self._build_end_faceoff(sx, sy)

        # --- goal creases (217) and goal posts (218)
        for e in (1, -1):
            self._build_crease(e, fill_only=False)
            en = f"{sign_name(e)}x"
            for (px, py) in self.goal_post_centres_xy(e):
                yn = f"{sign_name(py)}y"
                self._lm(f"post_base_{en}_{yn}", (px, py, 0.0), f"goal_line_{en}")
                self._lm(f"post_top_{en}_{yn}", (px, py, s.goal_height_m), None)

        # --- referee crease (216): +y side, centred on x = 0, semicircle on the boards
        rr = s.referee_crease_radius_m
        yb = s.width_m / 2
        self._add("referee_crease", "referee_crease", "red", _ring(0, yb, rr, w))
        for sx in (1, -1):
            for tag, rad in (("outer", rr), ("inner", rr - w)):
                self._lm(f"referee_crease_{tag}_board_{sign_name(sx)}x", (sx * rad, yb, 0), "referee_crease")
        self._lm("referee_crease_apex", (0, yb - rr, 0), "referee_crease")

        # --- NHL trapezoid behind each goal (NHL 1.8)
        if s.trapezoid_goal_line_half_m > 0:
            for e in (1, -1):
                self._build_trapezoid(e)

    def _line_board_landmarks(self, name: str, xs: dict[str, float]) -> None:
        for tag, x in xs.items():
            yb = self.spec.board_y_at(x)
            for sy in (1, -1):
                self._lm(f"{name}_{tag}board_{sign_name(sy)}y", (x, sy * yb, 0), name)

    def _circle_landmarks(self, name: str, cx: float, cy: float, r: float) -> None:
        # extreme points of the outer edge along the axes (tangent points of the circle)
        for tag, (dx, dy) in {"+x": (1, 0), "-x": (-1, 0), "+y": (0, 1), "-y": (0, -1)}.items():
            self._lm(f"{name}_{tag}", (cx + dx * r, cy + dy * r, 0), name)

    def _build_end_faceoff(self, sx: int, sy: int) -> None:
        s = self.spec
        w = s.thin_line_width_m
        tag = f"{sign_name(sx)}x_{sign_name(sy)}y"
        cx, cy = sx * s.end_spot_x_m, sy * s.end_spot_y_m
        r = s.faceoff_circle_radius_m
        circ = f"faceoff_circle_{tag}"
        self._add(circ, "circle", "red", _ring(cx, cy, r, w))
        self._circle_landmarks(circ, cx, cy, r)
        spot = f"faceoff_spot_{tag}"
        self._add(spot, "spot", "red", _disc(cx, cy, s.faceoff_spot_diameter_m / 2))
        self._lm(spot, (cx, cy, 0), spot)

        # Hash marks (IIHF 1.9 / NHL 1.9): at the outer edge of both sides of the circle
        # (towards the side boards and towards the long axis), parallel to the goal
        # line, a pair with inside edges hash_mark_spacing_m apart; length measured
        # from the circle's outer edge at the mark's centre line.
        outer_disc = _disc(cx, cy, r)
        for side, sgn_y in (("board", sy), ("axis", -sy)):
            for which, sgn_x in (("goal", sx), ("centre", -sx)):
                x_in = cx + sgn_x * s.hash_mark_spacing_m / 2
                x_out = x_in + sgn_x * w
                dxc = s.hash_mark_spacing_m / 2 + w / 2
                y_tip = cy + sgn_y * (math.sqrt(r * r - dxc * dxc) + s.hash_mark_length_m)
                rect = box(min(x_in, x_out), min(cy, y_tip), max(x_in, x_out), max(cy, y_tip))
                name = f"hash_{tag}_{side}_{which}"
                self._add(name, "hash", "red", rect.difference(outer_disc))
                for etag, xe in (("in", x_in), ("out", x_out)):
                    # tip corners and the corners where the mark meets the circle
                    self._lm(f"{name}_tip_{etag}", (xe, y_tip, 0), name)
                    yb = cy + sgn_y * math.sqrt(r * r - (xe - cx) ** 2)
                    self._lm(f"{name}_base_{etag}", (xe, yb, 0), name)

        # L marks around the spot (IIHF 1.9 / NHL 1.9): on each x side of the spot, two
        # long legs parallel to the side boards, inside edges faceoff_l_gap_m apart,
        # starting faceoff_l_offset_m from the spot's outer edge; from their spot-side
        # end a short leg parallel to the end boards runs away from the spot axis.
        r_spot = s.faceoff_spot_diameter_m / 2
        for which, gx in (("goal", sx), ("centre", -sx)):
            x_near = cx + gx * (r_spot + s.faceoff_l_offset_m)
            x_far = x_near + gx * s.faceoff_l_long_m
            for side, gy in (("board", sy), ("axis", -sy)):
                y_in = cy + gy * s.faceoff_l_gap_m / 2
                y_long = y_in + gy * w
                y_short_end = y_in + gy * s.faceoff_l_short_m
                x_short = x_near + gx * w
                long_leg = box(min(x_near, x_far), min(y_in, y_long), max(x_near, x_far), max(y_in, y_long))
                short_leg = box(min(x_near, x_short), min(y_in, y_short_end),
                                max(x_near, x_short), max(y_in, y_short_end))
                name = f"faceoff_l_{tag}_{which}_{side}"
                self._add(name, "faceoff_l", "red", long_leg.union(short_leg))
                self._lm(f"{name}_corner", (x_near, y_in, 0), name)
                self._lm(f"{name}_long_end", (x_far, y_in, 0), name)
                self._lm(f"{name}_short_end", (x_near, y_short_end, 0), name)

    def _build_crease(self, e: int, fill_only: bool) -> None:
        """Goal crease at end ``e`` (217; NHL 1.8 for the nhl shape)."""
        s = self.spec
        w = s.thin_line_width_m
        en = f"{sign_name(e)}x"
        gx = e * s.goal_line_x_m
        inner_x, outer_x = s.goal_line_edges_x(e)
        big = s.width_m
        R = s.crease_radius_m

        def front(x_edge: float):  # half-plane on the ice side of x_edge (towards centre)
            return box(-big * 3, -big, x_edge, big) if e > 0 else box(x_edge, -big, big * 3, big)

        goal_strip = box(min(inner_x, outer_x), -big, max(inner_x, outer_x), big)
        area = _disc(gx, 0, R)
        inner = _disc(gx, 0, R - w)
        if s.crease_shape == "nhl":
            area = area.intersection(box(-big * 3, -s.crease_side_y_m, big * 3, s.crease_side_y_m))
            side_in = s.crease_side_y_m - w
            inner = inner.intersection(box(-big * 3, -side_in, big * 3, side_in))
        area = area.intersection(front(outer_x))
        inner = inner.intersection(front(inner_x))
        # L marks (217 d): an imaginary line crease_l_distance_m from the goal line
        # (centre) meets the outside edge of the crease at the "corner"; legs of
        # crease_l_length_m run inwards along that line and back towards the goal line.
        d, ll = s.crease_l_distance_m, s.crease_l_length_m
        x_front = gx - e * d
        x_back_leg = x_front + e * ll
        ls = []
        l_corners = {}
        for sy in (1, -1):
            if s.crease_shape == "nhl":
                y_c = s.crease_side_y_m  # NHL: L at the front corners of the straight sides
                y_end = y_c - w - ll
                leg = box(min(x_front, x_front + e * w), min(sy * y_end, sy * y_c),
                          max(x_front, x_front + e * w), max(sy * y_end, sy * y_c))
                ls.append(leg)
                l_corners[sy] = [("l_inner_front", (x_front, sy * y_end))]
                corner = (gx - e * math.sqrt(R * R - y_c * y_c), sy * y_c)
            else:
                y_c = math.sqrt(R * R - d * d)
                y_end = y_c - ll
                front_leg = box(min(x_front, x_front + e * w), min(sy * y_end, sy * y_c),
                                max(x_front, x_front + e * w), max(sy * y_end, sy * y_c))
                back_leg = box(min(x_front, x_back_leg), min(sy * y_end, sy * (y_end + w)),
                               max(x_front, x_back_leg), max(sy * y_end, sy * (y_end + w)))
                ls.append(front_leg.union(back_leg).intersection(area))
                l_corners[sy] = [("l_inner_front", (x_front, sy * y_end)),
                                 ("l_inner_back", (x_back_leg, sy * y_end))]
                corner = (x_front, sy * y_c)
            l_corners[sy].append(("corner", corner))
        l_marks = unary_union(ls)
        if fill_only:
            self._add(f"crease_fill_{en}", "crease_fill", "light_blue", inner.difference(l_marks))
            return
        self._creases[e] = area.intersection(self.ice)
        outline = area.difference(inner).difference(goal_strip).union(l_marks)
        name = f"crease_{en}"
        self._add(name, "crease", "red", outline)
        for sy in (1, -1):
            yn = f"{sign_name(sy)}y"
            for tag, (x, y) in l_corners[sy]:
                self._lm(f"{name}_{tag}_{yn}", (x, y, 0), name)
            # where the crease outline meets the goal line's inner edge
            y_base = s.crease_side_y_m if s.crease_shape == "nhl" else math.sqrt(R * R - (inner_x - gx) ** 2)
            self._lm(f"{name}_base_{yn}", (inner_x, sy * y_base, 0), name)
        self._lm(f"{name}_apex", (gx - e * R, 0, 0), name)

    def _build_trapezoid(self, e: int) -> None:
        """NHL goalkeeper's restricted area: two red lines from the goal line to the
        end boards, trapezoid_goal_line_half_m from the axis at the goal line and
        trapezoid_end_half_m at the end boards (distances to the lines' centre)."""
        s = self.spec
        w = s.thin_line_width_m
        en = f"{sign_name(e)}x"
        _, outer_x = s.goal_line_edges_x(e)
        run = s.length_m / 2 - abs(outer_x)  # goal line edge to the end boards, m
        ext = 0.5  # extend both ways, then clip to the goal line edge and the ice
        beyond_goal_line = box(outer_x, -s.width_m, e * (s.length_m / 2 + 2 * ext), s.width_m) if e > 0 \
            else box(e * (s.length_m / 2 + 2 * ext), -s.width_m, outer_x, s.width_m)
        parts = []
        for sy in (1, -1):
            y0, y1 = sy * s.trapezoid_goal_line_half_m, sy * s.trapezoid_end_half_m
            slope = (y1 - y0) / run
            x_a, x_b = outer_x - e * ext, e * (s.length_m / 2 + ext)
            centre = LineString([(x_a, y0 - slope * ext), (x_b, y1 + slope * ext)])
            parts.append(centre.buffer(w / 2, cap_style="flat"))  # true width across the line
        name = f"trapezoid_{en}"
        self._add(name, "trapezoid", "red", unary_union(parts).intersection(beyond_goal_line))
        for sy in (1, -1):
            y0, y1 = sy * s.trapezoid_goal_line_half_m, sy * s.trapezoid_end_half_m
            self._lm(f"{name}_goal_line_{sign_name(sy)}y", (outer_x, y0, 0), name)
            self._lm(f"{name}_board_{sign_name(sy)}y", (e * s.length_m / 2, y1, 0), name)
