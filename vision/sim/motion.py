"""Continuous motion for the simulator: player paths and puck physics.

Player paths are cubic Hermite splines through timed waypoints with prescribed
velocities (so the heading at a waypoint is known exactly), headings are a PCHIP
of the unwrapped angle. A sledge cannot slide sideways, so the heading follows
the velocity direction (or its reverse when a player skates backwards, 903 b3).

The puck is a chain of analytic segments: *held* (on a player's stick blade),
*slide* (constant friction deceleration), *air* (ballistic parabola, z known) and
*rest*. Collisions with the boards (a rounded rectangle), the goal posts and the
net are found by sampling the clearance along a segment and refining the contact
instant with Brent's method, so every event time derived from the track is exact
up to the root finder's tolerance, never rounded to a frame.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from scipy.interpolate import CubicHermiteSpline
from scipy.optimize import brentq

from vision.sim.rinkgeom import PUCK_FLAT_Z_M, PUCK_RADIUS_M, RinkGeom

G_MPS2 = 9.81
PUCK_MAX_SPEED_MPS = 27.8  # 100 km/h
SLEDGE_MAX_SPEED_MPS = 6.9  # 25 km/h
SLEDGE_MAX_ACCEL_MPS2 = 4.5  # along the track: a strong push with both sticks
SLEDGE_MAX_TURN_ACCEL_MPS2 = 8.0  # across the track: a hard turn on the blade edges (~0.8 g)
PUCK_FRICTION_MPS2 = 0.5  # sliding deceleration on ice (mu ~ 0.05)
BOARD_RESTITUTION = 0.6
POST_RESTITUTION = 0.7
NET_RESTITUTION = 0.0  # the netting kills the puck
TANGENTIAL_KEEP = {"board": 0.9, "post": 0.9, "net": 0.15}


# ----------------------------------------------------------------------------------
# players
# ----------------------------------------------------------------------------------
class PlayerPath:
    """A smooth planar path of a player's seat (or body) centre.

    Args:
        t_s: (N,) increasing waypoint times, seconds.
        xy_rink_m: (N, 2) waypoint positions, metres.
        v_rink_mps: (N, 2) velocities at the waypoints, m/s.
        heading_rad: (N,) headings at the waypoints, or None to derive them from the
            velocities (reversed when ``backward``); NaN entries are derived too.
        default_heading_rad: heading used while standing still before any motion.
        backward: the player skates backwards (faces against the motion); a bool or
            an (N,) array per waypoint.

    Outside ``[t_s[0], t_s[-1]]`` the player stands still at the end waypoint.
    """

    def __init__(
        self,
        t_s: np.ndarray,
        xy_rink_m: np.ndarray,
        v_rink_mps: np.ndarray,
        heading_rad: np.ndarray | None = None,
        backward: bool | np.ndarray = False,
        default_heading_rad: float = 0.0,
    ) -> None:
        t = np.asarray(t_s, float)
        xy = np.asarray(xy_rink_m, float).reshape(-1, 2)
        v = np.asarray(v_rink_mps, float).reshape(-1, 2)
        if heading_rad is not None:
            heading_rad = np.atleast_1d(np.asarray(heading_rad, float))
        backward = np.broadcast_to(np.asarray(backward, bool), (len(t),))
        if len(t) < 2:  # a single waypoint: stand still there
            t = np.array([t[0], t[0] + 1.0])
            xy = np.vstack([xy[0], xy[0]])
            v = np.zeros((2, 2))
            heading_rad = None if heading_rad is None else np.repeat(heading_rad[:1], 2)
            backward = np.repeat(backward[:1], 2)
        if np.any(np.diff(t) <= 0):
            raise ValueError(f"PlayerPath: waypoint times must increase, got {t}")
        self.t0, self.t1 = float(t[0]), float(t[-1])
        self._end_xy = (xy[0].copy(), xy[-1].copy())
        self._spline = CubicHermiteSpline(t, xy, v, axis=0)
        self._dspline = self._spline.derivative()
        # Headings at the knots: given, else along (or against, 903 b3) the velocity, else
        # the previous knot's. Each knot's heading rate is the turn rate of the velocity
        # on the interval before it, so a knot only depends on itself and its predecessor
        # and appending waypoints later never changes the path before the last knot.
        given = np.full(len(t), np.nan) if heading_rad is None else np.asarray(heading_rad, float)
        acc = self._spline.derivative(2)
        h = np.empty(len(t))
        rate = np.zeros(len(t))
        prev = float(default_heading_rad)
        bw = np.broadcast_to(np.asarray(backward, bool), (len(t),))
        for i in range(len(t)):
            speed = float(np.hypot(*v[i]))
            if not np.isnan(given[i]):
                hi = float(given[i])
            elif speed > 0.3:
                hi = float(np.arctan2(v[i, 1], v[i, 0])) + (np.pi if bw[i] else 0.0)
            else:
                hi = prev
            if i > 0:
                hi = h[i - 1] + (hi - h[i - 1] + np.pi) % (2 * np.pi) - np.pi
                if speed > 0.3 and np.isnan(given[i]):
                    a = acc(t[i] - 1e-9)
                    rate[i] = float((v[i, 0] * a[1] - v[i, 1] * a[0]) / speed**2)
            h[i] = prev = hi
        self._heading = CubicHermiteSpline(t, h, rate)

    def xy(self, t: float | np.ndarray) -> np.ndarray:
        """Position(s), (2,) or (N, 2) metres."""
        tt = np.clip(np.asarray(t, float), self.t0, self.t1)
        return self._spline(tt)

    def velocity(self, t: float | np.ndarray) -> np.ndarray:
        """Velocity, (2,) or (N, 2) m/s (zero outside the waypoint span)."""
        ta = np.asarray(t, float)
        v = self._dspline(np.clip(ta, self.t0, self.t1))
        outside = (ta < self.t0) | (ta > self.t1)
        if np.ndim(ta) == 0:
            return np.zeros(2) if outside else v
        v[outside] = 0.0
        return v

    def heading(self, t: float | np.ndarray) -> np.ndarray:
        """Heading(s), radians from +x towards +y."""
        return self._heading(np.clip(np.asarray(t, float), self.t0, self.t1))

    def check_limits(
        self,
        v_max: float = SLEDGE_MAX_SPEED_MPS,
        a_max: float = SLEDGE_MAX_ACCEL_MPS2,
        a_turn_max: float = SLEDGE_MAX_TURN_ACCEL_MPS2,
        name: str = "",
    ) -> tuple[float, float, float]:
        """Max speed, along-track and turning acceleration; ValueError when over the limits.

        Returns:
            (speed m/s, tangential acceleration m/s^2, centripetal acceleration m/s^2).
        """
        ts = np.linspace(self.t0, self.t1, max(50, int((self.t1 - self.t0) * 200)))
        vel = self._dspline(ts)
        acc = self._spline.derivative(2)(ts)
        v = np.hypot(*vel.T)
        u = vel / np.maximum(v, 1e-9)[:, None]
        a_t = np.abs(np.einsum("nd,nd->n", acc, u))
        a_n = np.abs(u[:, 0] * acc[:, 1] - u[:, 1] * acc[:, 0])
        slow = v < 0.5  # at a standstill every direction is "along"
        a_t[slow] = np.hypot(*acc[slow].T)
        a_n[slow] = 0.0
        if v.max() > v_max + 1e-9 or a_t.max() > a_max + 1e-9 or a_n.max() > a_turn_max + 1e-9:
            raise ValueError(
                f"PlayerPath {name}: speed {v.max():.2f} m/s (max {v_max}), acceleration "
                f"{a_t.max():.2f} m/s^2 (max {a_max}) or turning {a_n.max():.2f} m/s^2 "
                f"(max {a_turn_max}) over the limit"
            )
        return float(v.max()), float(a_t.max()), float(a_n.max())


def waypoints_from_points(t_s: np.ndarray, xy_rink_m: np.ndarray, v_end=None) -> np.ndarray:
    """Velocities for waypoints given only positions (Catmull-Rom tangents).

    Args:
        t_s: (N,) times, seconds.
        xy_rink_m: (N, 2) positions, metres.
        v_end: optional ((2,), (2,)) velocities at the first and last waypoint.

    Returns:
        (N, 2) velocities, m/s.
    """
    t = np.asarray(t_s, float)
    p = np.asarray(xy_rink_m, float)
    v = np.zeros_like(p)
    if len(t) > 2:
        v[1:-1] = (p[2:] - p[:-2]) / (t[2:] - t[:-2])[:, None]
    if len(t) >= 2:
        v[0] = (p[1] - p[0]) / (t[1] - t[0])
        v[-1] = (p[-1] - p[-2]) / (t[-1] - t[-2])
    if v_end is not None:
        if v_end[0] is not None:
            v[0] = v_end[0]
        if v_end[1] is not None:
            v[-1] = v_end[1]
    return v


# ----------------------------------------------------------------------------------
# puck
# ----------------------------------------------------------------------------------
@dataclass
class PuckSegment:
    """One analytic piece of the puck's trajectory on ``[t0, t1]``.

    Attributes:
        kind: "held" | "slide" | "air" | "rest".
        t0, t1: time span, seconds.
        p0: (3,) position at t0, metres (free kinds).
        v0: (3,) velocity at t0, m/s (free kinds).
        stick: for "held": ``f(t (N,)) -> (N, 3)`` stick blade position.
        holder: for "held": the id of the player holding the puck.
    """

    kind: str
    t0: float
    t1: float
    p0: np.ndarray = field(default_factory=lambda: np.zeros(3))
    v0: np.ndarray = field(default_factory=lambda: np.zeros(3))
    stick: Callable[[np.ndarray], np.ndarray] | None = None
    holder: int | None = None

    def position(self, t: np.ndarray) -> np.ndarray:
        """(N, 3) positions at times ``t`` (N,) inside the segment, metres."""
        t = np.atleast_1d(np.asarray(t, float))
        tau = t - self.t0
        if self.kind == "held":
            p = np.array(self.stick(t), float).reshape(-1, 3).copy()
            p[:, 2] = PUCK_FLAT_Z_M
            return p
        if self.kind == "rest":
            return np.repeat(self.p0[None, :], len(t), axis=0)
        if self.kind == "air":
            p = self.p0[None, :] + tau[:, None] * self.v0[None, :]
            p[:, 2] -= 0.5 * G_MPS2 * tau**2
            return p
        s0 = float(np.hypot(self.v0[0], self.v0[1]))
        u = self.v0[:2] / s0
        tc = np.minimum(tau, s0 / PUCK_FRICTION_MPS2)
        d = s0 * tc - 0.5 * PUCK_FRICTION_MPS2 * tc**2
        p = np.empty((len(t), 3))
        p[:, :2] = self.p0[None, :2] + d[:, None] * u[None, :]
        p[:, 2] = PUCK_FLAT_Z_M
        return p

    def velocity(self, t: float) -> np.ndarray:
        """(3,) velocity at ``t``, m/s (numerical for held segments)."""
        tau = t - self.t0
        if self.kind == "held":
            h = 1e-4
            return (self.stick(np.array([t + h]))[0] - self.stick(np.array([t - h]))[0]) / (2 * h) * np.array([1, 1, 0])
        if self.kind == "rest":
            return np.zeros(3)
        if self.kind == "air":
            return self.v0 + np.array([0.0, 0.0, -G_MPS2 * tau])
        s0 = float(np.hypot(self.v0[0], self.v0[1]))
        s = max(0.0, s0 - PUCK_FRICTION_MPS2 * tau)
        return np.array([*(self.v0[:2] / s0 * s), 0.0])


@dataclass
class Touch:
    """A player's contact with the puck.

    Attributes:
        t: time, seconds.
        player: player id.
        team: "home" | "away".
        kind: "receive" (takes possession), "shot", "pass", "deflect", "faceoff" (wins a
            draw and plays the puck directly), "stop" (kills the puck, e.g. a goalkeeper).
        xy: (2,) puck centre at the touch, metres (the point of contact, 905 a).
    """

    t: float
    player: int
    team: str
    kind: str
    xy: np.ndarray


class Obstacles:
    """Boards, posts and nets as clearance functions of the puck centre (2D)."""

    def __init__(self, geom: RinkGeom, open_back_ends: tuple[int, ...] = ()) -> None:
        self.g = geom
        r = PUCK_RADIUS_M
        self.half = np.array([geom.length_m / 2 - r, geom.width_m / 2 - r])
        self.rr = geom.corner_radius_m - r
        self.posts = np.vstack([geom.post_centres(1), geom.post_centres(-1)])
        self.post_r = geom.post_diameter_m / 2 + r
        ys = geom.post_inner_y_m + geom.post_diameter_m / 2
        walls = []
        for e in (1, -1):
            xg, xb = e * geom.goal_line_x_m, geom.net_back_x(e)
            walls.append(((xg, -ys), (xb, -ys)))
            walls.append(((xg, ys), (xb, ys)))
            if e not in open_back_ends:
                walls.append(((xb, -ys), (xb, ys)))
        self.walls = np.array(walls, float)  # (K, 2, 2)

    def clearances(self, p: np.ndarray) -> np.ndarray:
        """(N, 3) clearance (m, > 0 free) to board, nearest post, nearest net wall."""
        p = np.atleast_2d(p)[:, :2]
        q = np.abs(p) - self.half + self.rr
        outside = np.hypot(np.maximum(q[:, 0], 0), np.maximum(q[:, 1], 0))
        sd = outside + np.minimum(np.maximum(q[:, 0], q[:, 1]), 0) - self.rr
        board = -sd
        dp = np.linalg.norm(p[:, None, :] - self.posts[None, :, :], axis=2) - self.post_r
        a, b = self.walls[:, 0, :], self.walls[:, 1, :]
        ab = b - a
        s = np.clip(np.einsum("nkd,kd->nk", p[:, None, :] - a[None], ab) / np.einsum("kd,kd->k", ab, ab), 0, 1)
        closest = a[None] + s[..., None] * ab[None]
        dw = np.linalg.norm(p[:, None, :] - closest, axis=2) - PUCK_RADIUS_M
        return np.stack([board, dp.min(axis=1), dw.min(axis=1)], axis=1)

    def normal(self, p: np.ndarray, which: int) -> np.ndarray:
        """(2,) unit normal of obstacle ``which`` at ``p`` pointing into free space."""
        h = 1e-5
        f = lambda q: self.clearances(q[None])[0, which]  # noqa: E731
        gx = (f(p + [h, 0]) - f(p - [h, 0])) / (2 * h)
        gy = (f(p + [0, h]) - f(p - [0, h])) / (2 * h)
        n = np.array([gx, gy])
        return n / (np.linalg.norm(n) + 1e-12)


def _natural_end(seg: PuckSegment) -> float:
    """Duration after which a free segment changes kind by itself (stop / landing)."""
    if seg.kind == "slide":
        return float(np.hypot(seg.v0[0], seg.v0[1])) / PUCK_FRICTION_MPS2
    if seg.kind == "air":
        dz = seg.p0[2] - PUCK_FLAT_Z_M
        vz = seg.v0[2]
        return float((vz + np.sqrt(vz * vz + 2 * G_MPS2 * max(dz, 0.0))) / G_MPS2)
    return np.inf


def _free_kind(p: np.ndarray, v: np.ndarray) -> str:
    if p[2] > PUCK_FLAT_Z_M + 1e-9 or v[2] > 1e-9:
        return "air"
    if np.hypot(v[0], v[1]) < 1e-6:
        return "rest"
    return "slide"


def simulate_free(
    t0: float, p0: np.ndarray, v0: np.ndarray, t_until: float, obstacles: Obstacles
) -> list[PuckSegment]:
    """Free puck motion from ``t0`` to ``t_until`` with friction, flight and collisions.

    Args:
        t0: start time, s.
        p0: (3,) start position, m.
        v0: (3,) start velocity, m/s.
        t_until: end time, s.
        obstacles: boards/posts/nets.

    Returns:
        Contiguous segments covering ``[t0, t_until]``.
    """
    segs: list[PuckSegment] = []
    t, p, v = float(t0), np.array(p0, float), np.array(v0, float)
    for _ in range(500):
        if t >= t_until - 1e-12:
            break
        kind = _free_kind(p, v)
        if kind != "air":
            p[2], v[2] = PUCK_FLAT_Z_M, 0.0
        seg = PuckSegment(kind, t, t_until, p.copy(), v.copy())
        dur = min(_natural_end(seg), t_until - t)
        hit = None
        if kind != "rest":
            speed = float(np.hypot(v[0], v[1])) + 1e-9
            step = min(2e-3, 0.008 / speed)
            n = max(2, int(np.ceil(dur / step)) + 1)
            taus = np.linspace(0.0, dur, n)
            c = obstacles.clearances(seg.position(t + taus))
            cm = c.min(axis=1)
            bad = np.nonzero((cm[1:] < -1e-9) & (cm[:-1] >= -1e-9))[0]
            if len(bad):
                k = bad[0]
                which = int(np.argmin(c[k + 1]))
                f = lambda tau: obstacles.clearances(seg.position(t + tau))[0, which]  # noqa: E731
                lo, hi = taus[k], taus[k + 1]
                if f(lo) > 0 > f(hi):
                    tau_hit = brentq(f, lo, hi, xtol=1e-10)
                else:
                    tau_hit = lo
                hit = (tau_hit, which)
        if hit is None:
            seg.t1 = t + dur
            segs.append(seg)
            t = seg.t1
            p = seg.position(np.array([t]))[0]
            vv = seg.velocity(t)
            if kind == "air" and t < t_until - 1e-12:  # landing: damp the bounce
                vz = -vv[2]
                vv = np.array([vv[0] * 0.9, vv[1] * 0.9, 0.25 * vz if vz > 2.0 else 0.0])
                p[2] = PUCK_FLAT_Z_M
            elif kind == "slide":
                vv = np.zeros(3)
            v = vv
            continue
        tau_hit, which = hit
        seg.t1 = t + tau_hit
        if tau_hit > 0:
            segs.append(seg)
        t = seg.t1
        p = seg.position(np.array([t]))[0]
        vv = seg.velocity(t)
        n = obstacles.normal(p[:2], which)
        name = ("board", "post", "net")[which]
        e = {"board": BOARD_RESTITUTION, "post": POST_RESTITUTION, "net": NET_RESTITUTION}[name]
        vn = float(vv[:2] @ n)
        vt = vv[:2] - vn * n
        vn_out = max(-e * vn, 0.02)  # a small push keeps a dead puck from re-hitting the same wall
        v = np.array([*(vt * TANGENTIAL_KEEP[name] + vn_out * n), vv[2]])
    if segs and segs[-1].t1 < t_until:
        segs[-1].t1 = t_until
    if not segs:
        segs.append(PuckSegment("rest", t0, t_until, np.array(p0, float), np.zeros(3)))
    return segs


class PuckScript:
    """Builds the puck's trajectory step by step, recording every touch.

    Usage: ``hold`` it on a stick, ``launch`` it (shot/pass), let it fly ``free_until`` a
    time, ``deflect`` it, ``hold`` it again (the receiving stick must be at the puck).
    """

    def __init__(self, obstacles: Obstacles, t0: float, xyz0, v0=(0.0, 0.0, 0.0)) -> None:
        self.obs = obstacles
        self.segments: list[PuckSegment] = []
        self.touches: list[Touch] = []
        self.t_end = float(t0)
        self._p = np.array(xyz0, float)
        self._v = np.array(v0, float)
        self._free = True

    # -- building ------------------------------------------------------------------
    def free_until(self, t: float) -> np.ndarray:
        """Let the puck move freely until ``t``; returns its (3,) position there."""
        if t < self.t_end - 1e-12:
            raise ValueError(f"PuckScript: time goes backwards ({t} < {self.t_end})")
        if not self._free:
            raise ValueError("PuckScript: the puck is held; launch it first")
        if t > self.t_end:
            segs = simulate_free(self.t_end, self._p, self._v, t, self.obs)
            self.segments.extend(segs)
            last = segs[-1]
            self._p = last.position(np.array([t]))[0]
            self._v = last.velocity(t) if last.kind != "rest" else np.zeros(3)
            if last.kind == "slide" and np.hypot(*self._v[:2]) < 1e-9:
                self._v = np.zeros(3)
            self.t_end = t
        return self._p.copy()

    def hold(self, player: int, team: str, stick: Callable, t_from: float, t_to: float, kind: str = "receive") -> None:
        """The player's stick blade carries the puck on ``[t_from, t_to]``.

        ``stick(t (N,)) -> (N, 3)`` must be at the puck at ``t_from`` (checked to 2 mm).
        """
        if self._free:
            p = self.free_until(t_from)
            s = np.asarray(stick(np.array([t_from])), float)[0]
            if np.hypot(*(s[:2] - p[:2])) > 2e-3 or p[2] > PUCK_FLAT_Z_M + 0.05:
                raise ValueError(f"PuckScript.hold: stick of {player} misses the puck at t={t_from:.3f} by "
                                 f"{np.hypot(*(s[:2] - p[:2])):.4f} m")
            self.touches.append(Touch(t_from, player, team, kind, p[:2].copy()))
        elif t_from != self.t_end:
            raise ValueError("PuckScript.hold: a held puck must be handed over at the end time")
        self.segments.append(PuckSegment("held", t_from, t_to, stick=stick, holder=player))
        self.t_end = t_to
        self._p = np.asarray(stick(np.array([t_to])), float)[0].copy()
        self._p[2] = PUCK_FLAT_Z_M
        self._free = False
        self._holder = (player, team)

    def launch(self, v_xyz, until: float, kind: str = "shot") -> np.ndarray:
        """Release the held puck at the current end time with velocity ``v_xyz`` (m/s)."""
        if self._free:
            raise ValueError("PuckScript.launch: nobody holds the puck")
        v = np.asarray(v_xyz, float)
        if np.linalg.norm(v) > PUCK_MAX_SPEED_MPS + 1e-9:
            raise ValueError(f"PuckScript.launch: {np.linalg.norm(v):.1f} m/s over the puck limit")
        player, team = self._holder
        self.touches.append(Touch(self.t_end, player, team, kind, self._p[:2].copy()))
        self._v = v
        self._free = True
        return self.free_until(until)

    def deflect(self, t: float, player: int, team: str, v_xyz, until: float, kind: str = "deflect") -> np.ndarray:
        """A touch in flight at ``t`` changes the velocity to ``v_xyz``; fly on until ``until``."""
        p = self.free_until(t)
        v = np.asarray(v_xyz, float)
        if np.linalg.norm(v) > PUCK_MAX_SPEED_MPS + 1e-9:
            raise ValueError("PuckScript.deflect: over the puck speed limit")
        self.touches.append(Touch(t, player, team, kind, p[:2].copy()))
        self._v = v
        return self.free_until(until)

    # -- evaluation ----------------------------------------------------------------
    def position(self, t) -> np.ndarray:
        """(N, 3) puck centre at times ``t`` (N,), metres (clamped to the built span)."""
        t = np.atleast_1d(np.asarray(t, float))
        starts = np.array([s.t0 for s in self.segments])
        idx = np.clip(np.searchsorted(starts, t, side="right") - 1, 0, len(self.segments) - 1)
        out = np.empty((len(t), 3))
        for k in np.unique(idx):
            m = idx == k
            seg = self.segments[k]
            out[m] = seg.position(np.clip(t[m], seg.t0, seg.t1))
        return out

    def holder_at(self, t: float) -> int | None:
        """Id of the player holding the puck at ``t``, or None when it is loose."""
        for s in self.segments:
            if s.kind == "held" and s.t0 <= t < s.t1:
                return s.holder
        return None

    def last_touch_before(self, t: float) -> Touch | None:
        """The last touch at or before ``t``."""
        prev = [k for k in self.touches if k.t <= t + 1e-12]
        return prev[-1] if prev else None
