"""Shared pieces of the rule detectors: crossings, uncertainty, verdicts, control.

Inconclusive policy (docs/rules.md): a call is decisive only when
``|margin_m| >= K_SIGMA * sigma_m``; otherwise, or when the footage lacks the data
(puck not measured around the crossing, blades missing), it is ``inconclusive``.
``confidence = Phi(|margin| / sigma)`` (0 when nothing could be measured).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import shapely
from shapely.geometry import Polygon

from rulesfromvideo.observations import PUCK_MAX_SPEED_MPS, TOUCH_REACH_M, Observations, puck_jump_steps

#: The four event types of the events.json contract (design); others are extra rule outputs.
CONTRACT_TYPES = ("zone_entry", "icing", "goal", "crease")
#: Decisive calls need |margin| >= K_SIGMA * sigma (false decisive rate < 0.14 % per call).
K_SIGMA = 3.0
PUCK_RADIUS_M = 0.0381  # 501: diameter 7.62 cm
PUCK_HALF_THICKNESS_M = 0.0127  # 501: thickness 2.54 cm
#: Holder proxy: puck within this distance of the last toucher's blade midpoint, m ...
HOLD_REACH_M = 1.8
#: ... and moving with him (relative speed below this, m/s).
HOLD_REL_SPEED_MPS = 2.5
#: A sledge's top speed (25 km/h): how far a player unseen for a while can have gone, m/s.
SLEDGE_MAX_SPEED_MPS = 6.9


def phi(x: float) -> float:
    """Standard normal CDF."""
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def confidence(margin: float | None, sigma: float) -> float:
    """``Phi(|margin| / sigma)`` in [0.5, 1]; 0 when the margin is unknown."""
    if margin is None or not np.isfinite(margin):
        return 0.0
    if sigma <= 0:
        return 1.0
    return float(round(phi(abs(margin) / sigma), 6))


def decide(margin: float | None, sigma: float, positive: str, negative: str,
           k: float = K_SIGMA) -> str:
    """``positive`` if margin >= k sigma, ``negative`` if <= -k sigma, else inconclusive."""
    if margin is None or not np.isfinite(margin):
        return "inconclusive"
    if margin >= k * sigma and margin > 0:
        return positive
    if margin <= -k * sigma and margin < 0:
        return negative
    return "inconclusive"


def tri(value: float, sigma: float, k: float = K_SIGMA) -> bool | None:
    """True if ``value > 0`` decisively, False if ``< 0`` decisively, None if undecided."""
    if not np.isfinite(value):
        return None
    if value >= k * sigma and value > 0:
        return True
    if value <= -k * sigma and value < 0:
        return False
    return None


def make_event(obs: Observations, typ: str, t: float, team: str, verdict: str,
               margin: float | None, sigma: float, rule: str, evidence: dict[str, Any],
               conf: float | None = None) -> dict[str, Any]:
    """An event in the design's ``events.json`` format (``sigma_m`` goes in evidence)."""
    frame = int(obs.frame[0] + round((t - obs.t_s[0]) * obs.fps))
    ev = dict(evidence)
    ev["sigma_m"] = round(float(sigma), 6) if np.isfinite(sigma) else None
    ev["k_sigma"] = K_SIGMA
    c = confidence(margin, sigma) if conf is None else conf
    if verdict == "inconclusive" and conf is None and ev.get("reason"):
        # Open for want of data (its ``reason``), not for a narrow margin: the margin's
        # Φ(|margin| / sigma) would read as certainty about a call that was not made.
        c = 0.0
    if (verdict == "inconclusive" and not ev.get("reason") and margin is not None and np.isfinite(margin)
            and np.isfinite(sigma) and abs(float(margin)) < K_SIGMA * float(sigma)):
        # Open for a narrow margin: say so, or a reviewer sees a high confidence and no call.
        ev["reason"] = (f"margin {100 * float(margin):+.1f} cm is within {K_SIGMA:g} sigma "
                        f"({100 * K_SIGMA * float(sigma):.1f} cm) of the decision: the footage cannot decide")
    if margin is None and verdict != "inconclusive" and typ in CONTRACT_TYPES:
        margin = 0.0  # the contract needs a margin with a decisive verdict
    return {"type": typ, "t": round(float(t), 6), "frame": max(0, frame), "team": team,
            "verdict": verdict, "confidence": c,
            "margin_m": None if margin is None else round(float(margin), 6),
            "rule": rule, "evidence": _jsonable(ev)}


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return _jsonable(x.tolist())
    if isinstance(x, (np.floating, float)):
        v = float(x)
        return round(v, 6) if np.isfinite(v) else None
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, np.bool_):
        return bool(x)
    return x


@dataclass
class Crossing:
    """A sub-frame crossing of a signal through 0 between frames ``i`` and ``i + 1``.

    Attributes:
        i: index of the frame before the crossing.
        frac: fraction of the frame interval at which it happens, in [0, 1].
        t_s: interpolated time, s.
    """

    i: int
    frac: float
    t_s: float


def up_crossings(s: np.ndarray, t_s: np.ndarray, rearm_m: float = 0.0) -> list[Crossing]:
    """Instants where ``s`` (F,) goes from < 0 to >= 0, linearly interpolated.

    After a crossing, another one counts only once ``s < -rearm_m`` again
    (hysteresis against jitter of a noisy track). NaN frames break the signal.
    """
    s = np.asarray(s, float)
    if len(s) < 2:
        return []
    a, b = s[:-1], s[1:]
    with np.errstate(invalid="ignore"):
        cand = np.nonzero(np.isfinite(a) & np.isfinite(b) & (a < 0) & (b >= 0))[0]
        below = np.where(np.isfinite(s) & (s < -rearm_m), np.arange(len(s)), -1)
    last_below = np.maximum.accumulate(below)
    out: list[Crossing] = []
    prev = -1
    for i in cand:
        if prev >= 0 and last_below[i] <= prev:
            continue  # not re-armed since the previous crossing
        ai, bi = s[i], s[i + 1]
        frac = float(-ai / (bi - ai)) if bi != ai else 1.0
        out.append(Crossing(int(i), frac, float(t_s[i] + frac * (t_s[i + 1] - t_s[i]))))
        prev = int(i)
    return out


def down_crossings(s: np.ndarray, t_s: np.ndarray, rearm_m: float = 0.0) -> list[Crossing]:
    return up_crossings(-s, t_s, rearm_m)


def interp_at(a: np.ndarray, c: Crossing) -> np.ndarray:
    """Value of the frame array ``a`` (F, ...) at the crossing instant (linear)."""
    return a[c.i] + c.frac * (a[c.i + 1] - a[c.i])


def nearest_frame(obs: Observations, t: float) -> int:
    """Index of the frame nearest to time ``t`` (clamped to the clip)."""
    return int(np.clip(round((t - obs.t_s[0]) * obs.fps), 0, obs.n_frames - 1))


def interp_time(a: np.ndarray, obs: Observations, t: float) -> np.ndarray:
    """Value of the frame array ``a`` (F, ...) at time ``t`` (linear, clamped)."""
    x = (t - obs.t_s[0]) * obs.fps
    i = int(np.clip(np.floor(x), 0, len(a) - 2)) if len(a) > 1 else 0
    if len(a) == 1:
        return a[0]
    f = float(np.clip(x - i, 0.0, 1.0))
    return a[i] + f * (a[i + 1] - a[i])


def puck_jumps_near(obs: Observations, i: int, span: int = 2) -> bool:
    """Whether the puck track makes a physically impossible step near [i, i+1].

    A tracker that followed a stick blade and then re-acquired the real puck across
    the line would otherwise yield a crossing interpolated along a teleport, with a
    confident but meaningless instant.
    """
    lo, hi = max(0, i - span), min(obs.n_frames, i + span + 2)
    p = obs.puck_xy_rink_m[lo:hi]
    if len(p) < 2:
        return False
    return bool(np.any(puck_jump_steps(p, obs.t_s[lo:hi], obs.without_bias(obs.sigma_m)[lo:hi])))


def same_puck_possible(obs: Observations, i: int, j: int) -> bool:
    """Whether the puck on frame ``i`` can have slid to where it is on frame ``j`` (at most
    ``PUCK_MAX_SPEED_MPS`` over the interval, plus 0.3 m): not a jump between objects across
    a stretch the puck was not measured."""
    dt = abs(float(obs.t_s[j] - obs.t_s[i]))
    return bool(np.linalg.norm(obs.puck_xy_rink_m[j] - obs.puck_xy_rink_m[i]) <= PUCK_MAX_SPEED_MPS * dt + 0.3)


def measured_near(obs: Observations, i: int, span: int = 2) -> bool:
    """Whether the puck was measured on a frame within ``span`` of the interval [i, i+1]
    and its track moves plausibly there (no jump between objects)."""
    lo, hi = max(0, i - span + 1), min(obs.n_frames, i + span + 1)
    return bool(np.any(obs.puck_measured[lo:hi])) and not puck_jumps_near(obs, i, span)


def bracket_measured(obs: Observations, i: int) -> bool:
    return bool(obs.puck_measured[i] and obs.puck_measured[min(i + 1, obs.n_frames - 1)])


def crossing_time_sigma(obs: Observations, c: Crossing, v_along: float) -> float:
    """1-sigma of a crossing time, s: position noise over speed, capped at dt/2.

    With both bracketing frames measured the interpolated instant is good to
    ``sigma / |v|``; the frame interval bounds it at ``dt / 2`` either way (and is
    the error when a bracketing frame was filled, not measured).
    """
    dt = float(obs.t_s[c.i + 1] - obs.t_s[c.i])
    if not bracket_measured(obs, c.i):
        return dt / 2.0
    sig = float(obs.sigma_smoothed_m[c.i])
    if abs(v_along) < 1e-6:
        return dt / 2.0
    return min(dt / 2.0, sig / abs(v_along))


def velocity_at(a: np.ndarray, obs: Observations, i: int) -> np.ndarray:
    """Velocity (…,2) of the frame array ``a`` across frames i, i+1, m/s."""
    j = min(i + 1, len(a) - 1)
    if j == i:
        return np.zeros(a.shape[1:])
    return (a[j] - a[i]) * obs.fps


def blade_sigma(obs: Observations, i: int, k: int | None = None,
                normal: tuple[float, float] | np.ndarray | None = None) -> float:
    """1-sigma of a blade point on frame ``i``, m: the tracks' noise and the source's blade model error.

    Args:
        obs: observations.
        i: frame index.
        k: player index; with ``obs.blade_cov_rink_m2`` known for him on that frame, the
            model error is taken from it instead of the isotropic ``obs.blade_sigma_m``.
        normal: (2,) direction in which the point's error matters (e.g. (1, 0) for a
            distance to a line across the rink); None: the covariance's worst direction.
    """
    model = obs.blade_sigma_m
    cov = obs.blade_cov_rink_m2
    if cov is not None and k is not None:
        S = cov[k, i]
        if np.isfinite(S).all():
            if normal is None:
                model = float(np.sqrt(max(np.linalg.eigvalsh(S)[-1], 0.0)))
            else:
                n = np.asarray(normal, dtype=np.float64)
                n = n / np.linalg.norm(n)
                model = float(np.sqrt(max(n @ S @ n, 0.0)))
    return float(np.hypot(obs.sigma_smoothed_m[i], model))


def team_players(obs: Observations, team: str, skaters_only: bool = False) -> list[int]:
    return [k for k in range(len(obs.player_ids)) if obs.player_team[k] == team
            and (not skaters_only or obs.player_role[k] != "goalkeeper")]


def last_touch_before(obs: Observations, i: int) -> int | None:
    """Frame index of the last touch at or before frame ``i``, or None."""
    tf = obs.touch_frames()
    k = np.searchsorted(tf, i, side="right") - 1
    return int(tf[k]) if k >= 0 else None


def next_touch_after(obs: Observations, i: int) -> int | None:
    """Frame index of the first touch strictly after frame ``i``, or None."""
    tf = obs.touch_frames()
    k = np.searchsorted(tf, i, side="right")
    return int(tf[k]) if k < len(tf) else None


def controller_at(obs: Observations, i: int) -> int | None:
    """Player index in control of the puck at frame ``i`` (903 d "propelling and in control").

    Proxy: the last player to touch it, with the puck within ``HOLD_REACH_M`` of his
    blade midpoint and moving with him (relative speed < ``HOLD_REL_SPEED_MPS``).
    """
    lt = last_touch_before(obs, i)
    if lt is not None:
        k = int(obs.touch_player[lt])
        return k if moves_with(obs, k, i) else None
    # No touch seen yet (the clip starts with the puck on a stick): the nearest
    # player the puck moves with.
    p = obs.puck_xy_rink_m[i]
    if not np.isfinite(p).all():
        return None
    mids = obs.blades_rink_m[:, i].mean(axis=1)
    d = np.linalg.norm(mids - p, axis=1)
    for k in np.argsort(np.where(np.isfinite(d), d, np.inf)):
        if not np.isfinite(d[k]) or d[k] > HOLD_REACH_M:
            break
        if moves_with(obs, int(k), i):
            return int(k)
    return None


def moves_with(obs: Observations, k: int, i: int) -> bool:
    """Puck within ``HOLD_REACH_M`` of player ``k`` on frame ``i`` and moving with him."""
    p = obs.puck_xy_rink_m
    j0, j1 = max(0, i - 2), min(obs.n_frames - 1, i + 2)
    mid = obs.blades_rink_m[k, [j0, i, j1]].mean(axis=1)  # (3, 2): frames j0, i, j1
    if not (np.isfinite(p[i]).all() and np.isfinite(mid[1]).all()):
        return False
    if np.linalg.norm(p[i] - mid[1]) > HOLD_REACH_M:
        return False
    if j1 == j0:
        return True
    vp = (p[j1] - p[j0]) / (obs.t_s[j1] - obs.t_s[j0])
    vm = (mid[2] - mid[0]) / (obs.t_s[j1] - obs.t_s[j0])
    if not (np.isfinite(vp).all() and np.isfinite(vm).all()):
        return False
    # Noise in the two velocities must not hide the relative motion.
    slack = 3.0 * 2.0 * float(obs.sigma_random_m[i]) / (obs.t_s[j1] - obs.t_s[j0])
    return bool(np.linalg.norm(vp - vm) < HOLD_REL_SPEED_MPS + slack)


def peak(values: np.ndarray, t_s: np.ndarray, km: int) -> tuple[float, float, float]:
    """Sub-frame maximum of ``values`` (F,) around the sampled maximum at frame ``km``.

    A puck stopped by a stick or a post turns sharply between frames, so the peak is
    first sought as the intersection of the straight paths before and after (a
    "V"); failing that, a parabola through the three frames around ``km``.

    Returns:
        (t_peak_s, value_peak, frac) with ``frac`` in [-1, 1] frames from ``km``.
    """
    F = len(values)
    best = None
    for a in (km - 1, km):  # kink inside (a, a + 1)
        b0, b1, c0, c1 = a - 1, a, a + 1, a + 2
        if b0 < 0 or c1 >= F or not np.isfinite(values[[b0, b1, c0, c1]]).all():
            continue
        sb = (values[b1] - values[b0]) / (t_s[b1] - t_s[b0])
        sa = (values[c1] - values[c0]) / (t_s[c1] - t_s[c0])
        if not ((sb > 0 >= sa) or (sb >= 0 > sa)):
            continue
        # values[b1] + sb (t - t_b1) = values[c0] + sa (t - t_c0)
        t = (values[c0] - values[b1] + sb * t_s[b1] - sa * t_s[c0]) / (sb - sa)
        if t_s[b1] - 1e-9 <= t <= t_s[c0] + 1e-9:
            v = float(values[b1] + sb * (t - t_s[b1]))
            if best is None or v > best[1]:
                best = (float(t), v, float((t - t_s[km]) / (t_s[1] - t_s[0] if F > 1 else 1.0)))
    if best is not None:
        return best
    if 0 < km < F - 1 and np.isfinite(values[km - 1:km + 2]).all():
        y0, y1, y2 = values[km - 1], values[km], values[km + 1]
        den = y0 - 2 * y1 + y2
        if den < 0 and y1 > y0 and y1 > y2:  # a strict peak; a plateau is its own maximum
            off = float(np.clip(0.5 * (y0 - y2) / den, -1.0, 1.0))
            dt = t_s[km + 1] - t_s[km]
            return float(t_s[km] + off * dt), float(y1 - 0.25 * (y0 - y2) * off), off
    return float(t_s[km]), float(values[km]), 0.0


#: 1-sigma of a contact point found on puck positions the source inferred (``measured: false``
#: around the touch: a carried puck placed at its carrier's stick, ``vision.possession``), m.
#: The stick moves by a good part of its ~1 m reach while the puck is carried.
INFERRED_CONTACT_SIGMA_M = 0.3


def contact_point(obs: Observations, i: int) -> tuple[np.ndarray, float, float]:
    """Puck centre at the touch on frame ``i`` (905 a "point of last contact").

    The touch instant lies between frames ``i - 1`` and ``i + 1``; it is found as the
    intersection in time of the straight paths before (frames i-2, i-1) and after
    (i+1, i+2), so a fast shot's contact point is not off by ``v * dt``.

    Returns:
        (xy (2,), t_s, sigma_t_s): the contact point, its time, and the time's 1-sigma.
    """
    p = obs.puck_xy_rink_m
    F = obs.n_frames
    dt = obs.dt_s
    if 2 <= i and i + 2 < F and np.isfinite(p[[i - 2, i - 1, i + 1, i + 2]]).all():
        vb = (p[i - 1] - p[i - 2]) / dt
        va = (p[i + 2] - p[i + 1]) / dt
        dv = vb - va
        if np.dot(dv, dv) > 1e-6:
            # p[i-1] + vb (t - t_{i-1}) = p[i+1] + va (t - t_{i+1}), least squares in t
            c = p[i - 1] - p[i + 1] - vb * obs.t_s[i - 1] + va * obs.t_s[i + 1]
            t = float(-np.dot(c, dv) / np.dot(dv, dv))
            t = float(np.clip(t, obs.t_s[i - 1], obs.t_s[i + 1]))
            xy = p[i - 1] + vb * (t - obs.t_s[i - 1])
            sig_t = min(dt / 2.0, 2.0 * float(obs.sigma_random_m[i]) / math.sqrt(np.dot(dv, dv)))
            return xy, t, sig_t
    if np.isfinite(p[i]).all():
        return p[i].copy(), float(obs.t_s[i]), dt / 2.0
    return np.array([np.nan, np.nan]), float(obs.t_s[i]), dt / 2.0


#: A flight's step velocity may differ from the flight's by this much (or by
#: ``FLIGHT_DV_FRACTION`` of its speed) before the step counts as a touch or a bounce, m/s.
FLIGHT_DV_MPS = 2.0
FLIGHT_DV_FRACTION = 0.25
#: Slower pucks are not in flight (a dribble): no release is estimated, m/s.
FLIGHT_MIN_SPEED_MPS = 3.0


@dataclass
class Release:
    """Where and when the puck's last straight flight began, from the flight alone.

    For a shot whose touch was not recorded -- hidden under the shooter, or before
    the puck came into view -- the contact (905 a) lies on the flight's straight
    path extended backwards, at an instant when a player's seat was within stick
    reach of it. The interval is a bound, not a guess: every instant in it fits
    the footage.

    Attributes:
        i0: first frame index of the flight (measured).
        t_lo_s, t_hi_s: the contact instant lies in [t_lo_s, t_hi_s], s.
        xy_lo_rink_m, xy_hi_rink_m: (2,) puck centre at t_lo_s / t_hi_s, m.
        players: indices of tracked players whose seat was within reach of the
            puck's path at the same instant (the possible shooters).
        seen: True when the flight's start lies between two measured frames.
        i_seen: the last measured frame before the flight, or None.
        open_before: True when the footage cannot exclude an earlier contact
            (the path leaves the clip's start or was unseen) beyond ``t_lo_s``.
    """

    i0: int
    t_lo_s: float
    t_hi_s: float
    xy_lo_rink_m: np.ndarray
    xy_hi_rink_m: np.ndarray
    players: list[int]
    seen: bool
    i_seen: int | None
    open_before: bool


def flight_release(obs: Observations, i_end: int, half_length_m: float,
                   half_width_m: float) -> Release | None:
    """The start of the puck's straight flight that reaches frame ``i_end``.

    Walks back from ``i_end`` while each step's velocity matches the flight's (a
    puck slides straight; a touch or a board bounce turns it). If the step before
    the flight was measured, the contact is the kink between them
    (``contact_point``); otherwise the flight came out of an unseen stretch and the
    contact lies on its backward extension, between the last sighting (or where
    the extension meets the boards) and the first measured frame of the flight,
    narrowed to the instants when a tracked player could reach the path.

    Args:
        i_end: frame index on the flight (e.g. just before a goal-line crossing).
        half_length_m, half_width_m: the ice's half extent; the backward path
            stops at the boards (a bounce there hides an earlier path).

    Returns:
        The release, or None when the puck is not in flight at ``i_end``.
    """
    p = obs.puck_xy_rink_m
    dt = obs.dt_s
    lo = max(1, i_end - 4)
    steps = np.diff(p[lo - 1:i_end + 1], axis=0) / dt
    steps = steps[np.isfinite(steps).all(axis=1)]
    if not len(steps):
        return None
    v = np.median(steps, axis=0)
    speed = float(np.linalg.norm(v))
    if speed < FLIGHT_MIN_SPEED_MPS:
        return None
    noise = 3.0 * math.sqrt(2.0) * float(np.nanmax(obs.sigma_random_m[lo - 1:i_end + 1])) / dt
    tol = max(FLIGHT_DV_MPS, FLIGHT_DV_FRACTION * speed) + noise
    j = i_end
    while j > 0 and np.isfinite(p[j - 1]).all() and np.linalg.norm((p[j] - p[j - 1]) / dt - v) <= tol:
        j -= 1
    measured = np.nonzero(obs.puck_measured[j:i_end + 1])[0]
    if not len(measured):
        return None
    i0 = j + int(measured[0])
    t0 = float(obs.t_s[i0])
    mids = obs.blade_mid_rink_m()
    if i0 == j and j > 0 and obs.puck_measured[j - 1]:
        # The turn into the flight lies between two measured frames: a seen contact.
        xy, t_c, sig_t = contact_point(obs, i0)
        at = nearest_frame(obs, t_c)
        d = np.linalg.norm(mids[:, at] - xy, axis=1)
        reach = TOUCH_REACH_M + K_SIGMA * float(obs.sigma_random_m[at])
        near = [int(k) for k in np.nonzero(np.isfinite(d) & (d <= reach))[0]]
        return Release(i0, t_c - sig_t, t_c + sig_t, xy - v * sig_t, xy + v * sig_t, near, True, i0 - 1, False)
    before = np.nonzero(obs.puck_measured[:i0])[0]
    i_seen = int(before[-1]) if len(before) else None
    open_before = i_seen is None
    # The backward path on each frame from the last sighting to i0; off the ice it stops
    # (the flight's own first point stays, even if measured just beyond the boards).
    idx = np.arange(0 if i_seen is None else i_seen, i0 + 1)
    path = p[i0] + np.outer(obs.t_s[idx] - t0, v)
    off = (np.abs(path[:, 0]) > half_length_m) | (np.abs(path[:, 1]) > half_width_m)
    off[-1] = False
    if off.any():
        k_off = int(np.nonzero(off)[0][-1]) + 1
        idx, path, open_before = idx[k_off:], path[k_off:], True
    d = np.linalg.norm(mids[:, idx] - path[None], axis=2)  # (P, n)
    within = np.isfinite(d) & (d <= TOUCH_REACH_M + K_SIGMA * float(obs.sigma_random_m[i0]))
    players = [int(k) for k in np.nonzero(within.any(axis=1))[0]]
    if players:
        cols = np.nonzero(within[players].any(axis=0))[0]
        a, b = max(int(cols[0]) - 1, 0), min(int(cols[-1]) + 1, len(idx) - 1)  # sub-frame: the next frames out
        open_before = False
    else:
        a, b = 0, len(idx) - 1
    t_lo, t_hi = float(obs.t_s[idx[a]]), float(obs.t_s[idx[b]])
    return Release(i0, t_lo, t_hi, path[a].copy(), path[b].copy(), players, False, i_seen, open_before)


# ---- polygon depth (217, 907 a4, sponge 1 n) -----------------------------------


def point_depth(xy: np.ndarray, area: Polygon) -> np.ndarray:
    """Signed depth (m) of points ``xy`` (N, 2) inside ``area``: > 0 inside, < 0 outside."""
    xy = np.atleast_2d(xy)
    out = np.full(len(xy), np.nan)
    ok = np.isfinite(xy).all(axis=1)
    if np.any(ok):
        pts = shapely.points(xy[ok])
        d = shapely.distance(pts, area.exterior)
        inside = shapely.contains(area, pts) | shapely.touches(area, pts)
        out[ok] = np.where(inside, d, -d)
    return out


def footprint_depth(footprint_xy: np.ndarray, area: Polygon) -> float:
    """Depth of a polygon inside ``area`` (m): > 0 deepest overlap, < 0 minus the gap."""
    fp = Polygon(footprint_xy)
    if not fp.is_valid:
        fp = fp.buffer(0)
    if not fp.intersects(area):
        return -float(fp.distance(area))
    inter = fp.intersection(area)
    pts = shapely.get_coordinates(shapely.segmentize(inter.boundary, 0.002))
    if len(pts) == 0:
        return 0.0
    return float(np.max(shapely.distance(shapely.points(pts), area.exterior)))
