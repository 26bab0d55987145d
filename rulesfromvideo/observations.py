"""Observations: what the rule detectors see, as parallel numpy arrays over frames.

The rules never see pixels. They get the puck and every player's blades in rink
metres (design: ``tracks.jsonl``), on a complete frame grid, with

* dropped frames (missing lines or ``puck: null``) filled by linear interpolation
  for short gaps (``max_gap_s``) only; filled frames are marked ``measured = False``.
  Where a touch or a bounce may hide in the gap (a touch on its edges, or the
  velocities before, across and after it disagreeing), the chord's possible
  corner cut ``|dv| T / 4`` is added to ``sigma_m`` on those frames, so calls
  depending on them become inconclusive rather than wrong;
* touches taken from ``puck.touch`` when the source gives them, otherwise inferred
  from the puck's motion: a sudden velocity change with a player's blades within
  stick reach (design: "the rules infer touches from the puck's motion");
* a per-frame position uncertainty ``sigma_m`` combining the detector's error,
  the calibration quality and the noise actually seen in the tracks (robust
  second-difference estimate), so that noisy footage makes calls inconclusive
  rather than wrong;
* positions smoothed (Savitzky-Golay, split at touches so kicks stay sharp) when
  the estimated noise exceeds 5 mm; ``sigma_smoothed_m`` is the residual noise.

Example:
    >>> obs = Observations.from_tracks_jsonl("out/tracks.jsonl")
    >>> obs.puck_xy_rink_m.shape, obs.blades_rink_m.shape   # (F, 2), (P, F, 2, 2)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from scipy.signal import savgol_filter

#: Positional error of a detected point with a perfect calibration, m (sub-pixel detection).
DETECTION_SIGMA_M = 0.01
#: Calibration error at quality 1.0, m; it grows as 1 / quality.
CALIBRATION_SIGMA_AT_Q1_M = 0.01
#: Longest dropped-frame gap filled by interpolation, s.
MAX_GAP_S = 0.25
#: A touch is a velocity change larger than this (m/s) -- and than the noise allows.
TOUCH_MIN_DV_MPS = 2.0
#: Blade midpoint (seat) to puck distance within which a player can touch it, m.
#: The stick blade is about 1 m from the seat; 1.8 m allows a reach.
TOUCH_REACH_M = 1.8
#: Fastest plausible puck, m/s: 100 km/h shots with headroom for tracker noise. A faster
#: step means the track jumped between objects.
PUCK_MAX_SPEED_MPS = 35.0
#: Noise level above which tracks are smoothed, m.
SMOOTH_ABOVE_M = 0.005
SMOOTH_WINDOW_FRAMES = 9


@dataclass
class Observations:
    """Puck and players on a complete frame grid, rink metres.

    Attributes:
        frame: (F,) int frame numbers, consecutive.
        t_s: (F,) video time of each frame, s.
        fps: frame rate, frames/s.
        puck_xy_rink_m: (F, 2) puck centre, NaN when absent (after safe gap filling).
        puck_z_m: (F,) puck centre height, NaN when unknown.
        puck_measured: (F,) True when the tracker measured the puck on that frame
            (False: inferred through occlusion or filled here).
        touch_player: (F,) int index into ``player_ids`` of the player touching the
            puck on that frame, -1 for none.
        touch_inferred: True when touches were inferred from the puck's motion.
        player_ids: list of P track ids (int or str as in the source).
        player_team: (P,) "home" | "away".
        player_role: (P,) "skater" | "goalkeeper".
        blades_rink_m: (P, F, 2, 2) the two blade contact points (left, right) of
            each player (feet for standing players), NaN when absent.
        footprints_rink_m: per player, {frame index: (N, 2) polygon} where the
            source gives a sledge footprint; empty dicts otherwise.
        sigma_m: (F,) 1-sigma position error of a raw tracked point, m.
        sigma_smoothed_m: (F,) 1-sigma error after smoothing (= sigma_m when not smoothed).
        sigma_bias_m: (F,) the part of both that nearby frames share (a calibration a pixel
            off is off on every frame alike: ``add_position_sigma``), m; None for none. It
            cancels out of velocities and of a puck-to-blade distance on one frame
            (``sigma_random_m``), not out of a distance to the rink's paint.
        noise_estimate_m: noise seen in the tracks (robust, m).
        blade_sigma_m: 1-sigma of a blade point beyond ``sigma_m``: the source's own
            blade model error (a camera places a sledge's blades from its silhouette), m;
            0 for sources that measure blades as well as the puck.
        blade_cov_rink_m2: (P, F, 2, 2) the source's blade model error per player and frame
            as a covariance in rink metres (m², NaN where unknown), or None. Where known it
            replaces ``blade_sigma_m``: a camera places a blade far better across its view
            than along it (``rules.common.blade_sigma``).
        smoothed: whether positions were smoothed.
    """

    frame: np.ndarray
    t_s: np.ndarray
    fps: float
    puck_xy_rink_m: np.ndarray
    puck_z_m: np.ndarray
    puck_measured: np.ndarray
    touch_player: np.ndarray
    touch_inferred: bool
    player_ids: list
    player_team: np.ndarray
    player_role: np.ndarray
    blades_rink_m: np.ndarray
    footprints_rink_m: list[dict[int, np.ndarray]] = field(default_factory=list)
    sigma_m: np.ndarray | None = None
    sigma_smoothed_m: np.ndarray | None = None
    sigma_bias_m: np.ndarray | None = None
    noise_estimate_m: float = 0.0
    smoothed: bool = False
    blade_sigma_m: float = 0.0
    blade_cov_rink_m2: np.ndarray | None = None

    # ---- derived ------------------------------------------------------------

    @property
    def n_frames(self) -> int:
        return int(len(self.t_s))

    @property
    def dt_s(self) -> float:
        return 1.0 / self.fps

    @property
    def touch_team(self) -> np.ndarray:
        """(F,) team of the touching player, "" for none."""
        out = np.full(self.n_frames, "", dtype="<U4")
        m = self.touch_player >= 0
        out[m] = self.player_team[self.touch_player[m]]
        return out

    def player_index(self, pid) -> int:
        return self.player_ids.index(pid)

    def blade_mid_rink_m(self) -> np.ndarray:
        """(P, F, 2) midpoint of the two blades (the seat of a sledge), NaN when absent."""
        return self.blades_rink_m.mean(axis=2)

    def touch_frames(self) -> np.ndarray:
        """(K,) frame indices with a touch, ascending.

        Cached per ``touch_player`` array: replace the array (do not edit it in place)
        to change touches.
        """
        cache = self.__dict__.get("_touch_cache")
        if cache is None or cache[0] is not self.touch_player:
            cache = (self.touch_player, np.nonzero(self.touch_player >= 0)[0])
            self.__dict__["_touch_cache"] = cache
        return cache[1]

    def puck_velocity_mps(self) -> np.ndarray:
        """(F, 2) central-difference puck velocity, m/s, NaN where undefined."""
        return _central_velocity(self.puck_xy_rink_m, self.dt_s)

    def add_position_sigma(self, extra_m: np.ndarray) -> None:
        """Add a per-frame position error that nearby frames share and the tracks' noise cannot
        show (a calibration off on every frame alike, ``vision.puck.puck_sigma_rink_m``) to
        ``sigma_m`` and ``sigma_smoothed_m`` in quadrature (smoothing does not average it
        away), and to ``sigma_bias_m``.

        Args:
            extra_m: (F,) 1-sigma, m; NaN where not known (nothing added).
        """
        extra = np.nan_to_num(np.asarray(extra_m, dtype=np.float64).reshape(-1), nan=0.0)
        self.sigma_m = np.hypot(self.sigma_m, extra)
        self.sigma_smoothed_m = np.hypot(self.sigma_smoothed_m, extra)
        self.sigma_bias_m = extra if self.sigma_bias_m is None else np.hypot(self.sigma_bias_m, extra)

    @property
    def sigma_random_m(self) -> np.ndarray:
        """(F,) ``sigma_smoothed_m`` less ``sigma_bias_m`` (``without_bias``), m."""
        return self.without_bias(self.sigma_smoothed_m)

    def without_bias(self, sigma_m: np.ndarray) -> np.ndarray:
        """(F,) ``sigma_m`` (or ``sigma_smoothed_m``) less ``sigma_bias_m`` in quadrature, m: the
        error of a difference of nearby positions (a velocity, a jump) or of two points on one
        frame (the puck and a blade), from which the shared part cancels."""
        if self.sigma_bias_m is None:
            return sigma_m
        return np.sqrt(np.maximum(np.asarray(sigma_m) ** 2 - self.sigma_bias_m ** 2, 0.0))

    # ---- constructors -------------------------------------------------------

    @classmethod
    def from_tracks_jsonl(cls, path: str | Path, calibration_path: str | Path | None = None,
                          **kw: Any) -> Observations:
        """Read ``tracks.jsonl`` (validated by :mod:`rulesfromvideo.schema`).

        Args:
            path: tracks file.
            calibration_path: optional ``calibration.jsonl`` whose per-frame
                ``quality`` enters ``sigma_m``.
            **kw: passed to :meth:`from_records`.

        Raises:
            rulesfromvideo.schema.SchemaError: unreadable or invalid file (names the line).
            ValueError: no frames.
        """
        from rulesfromvideo.schema import iter_track_dicts, read_calibration_jsonl

        records = list(iter_track_dicts(path))
        quality = None
        if calibration_path is not None:
            quality = {c.frame: c.quality for c in read_calibration_jsonl(calibration_path)}
        return cls.from_records(records, quality_by_frame=quality, **kw)

    @classmethod
    def from_records(cls, records: Iterable[dict], *, fps: float | None = None,
                     detection_sigma_m: float = DETECTION_SIGMA_M,
                     calibration_sigma_m: float = CALIBRATION_SIGMA_AT_Q1_M,
                     quality_by_frame: dict[int, float] | None = None,
                     max_gap_s: float = MAX_GAP_S, infer_touches: bool | None = None,
                     smooth: bool | None = None, blade_sigma_m: float = 0.0) -> Observations:
        """Build observations from ``tracks.jsonl``-shaped dicts.

        Args:
            records: dicts with ``frame``, ``t``, ``puck`` ({x, y, measured, z?, touch?}
                or None) and ``players`` ([{id, team, role, blades, footprint?}]).
            fps: frame rate; estimated from ``t`` and ``frame`` when None.
            detection_sigma_m: detector's 1-sigma position error, m.
            calibration_sigma_m: rink-from-image error at calibration quality 1, m
                (0 for tracks that are exact rink coordinates, e.g. the simulator's).
            quality_by_frame: calibration quality in (0, 1] per frame number.
            max_gap_s: longest gap filled by interpolation, s.
            infer_touches: force (True) or forbid (False) touch inference; by
                default touches are inferred when no record carries ``touch``.
            smooth: force smoothing on/off; default: on when the noise > 5 mm.
            blade_sigma_m: the source's blade model error, m (attribute of the same name).

        Raises:
            ValueError: no records, non-increasing times, or an unknown team.
        """
        recs = sorted((r for r in records), key=lambda r: int(r["frame"]))
        if not recs:
            raise ValueError("tracks: no frames")
        frames_in = np.array([int(r["frame"]) for r in recs])
        if np.any(np.diff(frames_in) <= 0):
            dup = frames_in[1:][np.diff(frames_in) <= 0][0]
            raise ValueError(f"tracks: frame {dup} appears twice")
        t_in = np.array([float(r["t"]) for r in recs])
        if fps is None:
            fps = _estimate_fps(frames_in, t_in)
        f0 = int(frames_in[0])
        F = int(frames_in[-1]) - f0 + 1
        frame = np.arange(f0, f0 + F)
        idx = frames_in - f0
        # Time on the full grid: interpolate the recorded times (handles offsets).
        t_s = np.interp(frame.astype(float), frames_in.astype(float), t_in) if len(recs) > 1 \
            else np.array([t_in[0]])

        # Players: index by id in first-seen order.
        ids: list = []
        votes: dict = {}
        role_votes: dict = {}
        for r in recs:
            for p in r.get("players") or ():
                if p.get("team") not in ("home", "away", None):
                    raise ValueError(f"tracks frame {r['frame']}: player {p['id']}: team must be home|away|null")
                if p["id"] not in ids:
                    ids.append(p["id"])
                    votes[p["id"]] = {"home": 0, "away": 0}
                    role_votes[p["id"]] = {}
                r_p = {"goalie": "goalkeeper", "player": "skater"}.get(p.get("role", "skater"), p.get("role", "skater"))
                role_votes[p["id"]][r_p] = role_votes[p["id"]].get(r_p, 0) + 1
                if p.get("team") is not None:
                    votes[p["id"]][p["team"]] += 1
        # A track's team is the clear majority of its labelled frames; "" when the
        # tracker never (or never clearly) told: such a player counts for neither team.
        team = []
        for pid in ids:
            v = votes[pid]
            n = v["home"] + v["away"]
            best = max(v, key=v.get)
            team.append(best if n and v[best] >= 0.8 * n else "")
        # A track's role is the one most of its records give: a tracker may learn it as it goes
        # (ours calls a player who stays in front of his goal a goalkeeper after 20 frames).
        role = [max(role_votes[pid], key=role_votes[pid].get) for pid in ids]
        P = len(ids)
        pidx = {pid: k for k, pid in enumerate(ids)}
        puck = np.full((F, 2), np.nan)
        z = np.full(F, np.nan)
        measured = np.zeros(F, bool)
        touch = np.full(F, -1, np.int64)
        any_touch = False
        blades = np.full((P, F, 2, 2), np.nan)
        feet: list[dict[int, np.ndarray]] = [dict() for _ in range(P)]
        for i, r in zip(idx, recs):
            pk = r.get("puck")
            if pk is not None:
                puck[i] = (float(pk["x"]), float(pk["y"]))
                measured[i] = bool(pk.get("measured", True))
                if pk.get("z") is not None:
                    z[i] = float(pk["z"])
                tc = pk.get("touch")
                if tc is not None:
                    any_touch = True
                    if tc.get("player") in pidx:
                        touch[i] = pidx[tc["player"]]
            for p in r.get("players") or ():
                k = pidx[p["id"]]
                b = np.asarray(p["blades"], float)
                if b.shape == (2, 2):
                    blades[k, i] = b
                fp = p.get("footprint")
                if fp is not None:
                    fp = np.asarray(fp, float)
                    if fp.ndim == 2 and fp.shape[0] >= 3 and fp.shape[1] == 2:
                        feet[k][int(i)] = fp
        max_gap = max(0, int(round(max_gap_s * fps)))
        sigma_raw = _sigma_per_frame(frame, detection_sigma_m, calibration_sigma_m, quality_by_frame)

        obs = cls(frame=frame, t_s=t_s, fps=float(fps), puck_xy_rink_m=puck, puck_z_m=z,
                  puck_measured=measured, touch_player=touch, touch_inferred=False,
                  player_ids=ids, player_team=np.array(team, dtype="<U4"),
                  player_role=np.array(role, dtype="<U10"), blades_rink_m=blades,
                  footprints_rink_m=feet, blade_sigma_m=float(blade_sigma_m))
        noise = _estimate_noise(obs)
        obs.noise_estimate_m = noise
        gap_sigma = _fill_puck_gaps(obs, max_gap, noise)
        for k in range(P):
            for j in range(2):
                _fill_gaps_linear(obs.blades_rink_m[k, :, j], max_gap)
        obs.sigma_m = np.sqrt(sigma_raw ** 2 + noise ** 2 + gap_sigma ** 2)
        if infer_touches is None:
            infer_touches = not any_touch
        if infer_touches:
            infer_touches_from_motion(obs)
        if smooth is None:
            smooth = noise > SMOOTH_ABOVE_M
        obs.sigma_smoothed_m = obs.sigma_m.copy()
        if smooth:
            factor = _smooth_positions(obs)
            # Smoothing averages the random part (noise), not the calibration bias.
            obs.sigma_smoothed_m = np.sqrt(sigma_raw ** 2 + (noise * factor) ** 2 + gap_sigma ** 2)
            obs.smoothed = True
        return obs


# ---- helpers ------------------------------------------------------------------


def _estimate_fps(frames: np.ndarray, t: np.ndarray) -> float:
    if len(frames) < 2:
        return 30.0
    df, dtt = np.diff(frames), np.diff(t)
    ok = dtt > 0
    if not np.any(ok):
        raise ValueError("tracks: times do not increase")
    fps = float(np.median(df[ok] / dtt[ok]))
    if not np.isfinite(fps) or fps <= 0:
        raise ValueError("tracks: cannot estimate the frame rate from t and frame")
    return fps


def _sigma_per_frame(frame: np.ndarray, det: float, cal_q1: float,
                     quality: dict[int, float] | None) -> np.ndarray:
    """(F,) prior sigma: detection error combined with the calibration error (1 / quality)."""
    calib = np.full(len(frame), float(cal_q1))
    if quality:
        q = np.array([quality.get(int(f), np.nan) for f in frame], float)
        # No calibration on a frame (quality 0 or missing): positions there are unusable.
        calib = np.where(np.isfinite(q) & (q > 0), cal_q1 / np.clip(q, 1e-3, 1), 1e3)
    return np.hypot(det, calib)


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """[start, stop) runs of True in a 1-D mask."""
    m = np.concatenate([[False], mask, [False]]).astype(np.int8)
    d = np.diff(m)
    return list(zip(np.nonzero(d == 1)[0], np.nonzero(d == -1)[0]))


def _fill_gaps_linear(a: np.ndarray, max_gap: int) -> np.ndarray:
    """Fill NaN runs of at most ``max_gap`` frames in ``a`` (F, 2) in place; returns filled mask."""
    filled = np.zeros(len(a), bool)
    miss = ~np.isfinite(a).all(axis=1)
    for s, e in _runs(miss):
        if s == 0 or e == len(a) or e - s > max_gap:
            continue
        w = (np.arange(s, e) - (s - 1)) / (e - (s - 1))
        a[s:e] = a[s - 1] + w[:, None] * (a[e] - a[s - 1])
        filled[s:e] = True
    return filled


def _fill_puck_gaps(obs: Observations, max_gap: int, noise_m: float = 0.0) -> np.ndarray:
    """Interpolate short puck gaps where no touch or deflection can hide inside.

    The velocities before and after the gap (over up to 4 frames each) must agree
    with each other and with the chord across the gap within 3 m/s plus what the
    track's noise allows; otherwise a bounce or deflection may hide in the gap.
    """
    p = obs.puck_xy_rink_m
    miss = ~np.isfinite(p).all(axis=1)
    dt = obs.dt_s
    extra = np.zeros(len(p))
    for s, e in _runs(miss):
        if s == 0 or e == len(p) or e - s > max_gap:
            continue
        m0 = next((m for m in (4, 3, 2, 1) if s - 1 - m >= 0 and np.isfinite(p[s - 1 - m]).all()), 0)
        m1 = next((m for m in (4, 3, 2, 1) if e + m < len(p) and np.isfinite(p[e + m]).all()), 0)
        if not (m0 and m1):
            continue
        v0 = (p[s - 1] - p[s - 1 - m0]) / (m0 * dt)
        v1 = (p[e + m1] - p[e]) / (m1 * dt)
        v_gap = (p[e] - p[s - 1]) / ((e - s + 1) * dt)
        tol = 3.0 + 4.0 * noise_m * np.sqrt(2.0) / (min(m0, m1) * dt)
        touched = bool(np.any(obs.touch_player[s - 1:e + 1] >= 0))
        if touched or np.linalg.norm(v1 - v0) > tol or np.linalg.norm(v_gap - 0.5 * (v0 + v1)) > tol:
            # A touch or bounce may hide in the gap: the chord cuts the corner by at
            # most |v1 - v0| T / 4 (T = gap duration); that enters sigma on these frames.
            T = (e - s + 1) * dt
            extra[s:e] = max(float(np.linalg.norm(v1 - v0)), float(np.linalg.norm(v_gap - v0)),
                             float(np.linalg.norm(v1 - v_gap))) * T / 4.0
        w = (np.arange(s, e) - (s - 1)) / (e - (s - 1))
        p[s:e] = p[s - 1] + w[:, None] * (p[e] - p[s - 1])
        zs, ze = obs.puck_z_m[s - 1], obs.puck_z_m[e]
        if np.isfinite(zs) and np.isfinite(ze):
            obs.puck_z_m[s:e] = zs + w * (ze - zs)
        obs.puck_measured[s:e] = False
    return extra


def _d2_noise(a: np.ndarray) -> float | None:
    """Robust noise (m) of a (F, 2) track from second differences: std(d2) = sigma * sqrt(6)."""
    d2 = a[2:] - 2 * a[1:-1] + a[:-2]
    d2 = d2[np.isfinite(d2).all(axis=1)].ravel()
    if len(d2) < 20:
        return None
    mad = np.median(np.abs(d2 - np.median(d2)))
    return float(1.4826 * mad / np.sqrt(6.0))


def _estimate_noise(obs: Observations) -> float:
    """Noise seen in the tracks, m: the larger of the puck's and the blades' estimates."""
    est = []
    n = _d2_noise(obs.puck_xy_rink_m)
    if n is not None:
        est.append(n)
    bl = []
    for k in range(obs.blades_rink_m.shape[0]):
        v = _d2_noise(obs.blades_rink_m[k, :, 0])
        if v is not None:
            bl.append(v)
    if bl:
        est.append(float(np.median(bl)))
    return max(est) if est else 0.0


def _central_velocity(a: np.ndarray, dt: float) -> np.ndarray:
    v = np.full_like(a, np.nan)
    if len(a) >= 3:
        v[1:-1] = (a[2:] - a[:-2]) / (2 * dt)
    return v


def infer_touches_from_motion(obs: Observations) -> None:
    """Mark touches where the puck's velocity jumps with a player within stick reach.

    The velocity over ``w`` frames before and after each frame is compared; a
    local maximum of ``|v_after - v_before|`` above ``TOUCH_MIN_DV_MPS`` (and above
    5 times the change that the noise alone produces) is a touch by the nearest
    player whose blade midpoint is within ``TOUCH_REACH_M``. A jump with no player
    near is a board, post or net bounce and is not a touch.
    """
    p = obs.puck_xy_rink_m
    F = len(p)
    noise = obs.noise_estimate_m
    dt = obs.dt_s
    w = 3 if noise < 0.02 else 6
    if F < 2 * w + 1:
        return
    vb = np.full((F, 2), np.nan)
    va = np.full((F, 2), np.nan)
    vb[w:] = (p[w:] - p[:-w]) / (w * dt)
    va[:-w] = (p[w:] - p[:-w]) / (w * dt)
    dv = np.linalg.norm(va - vb, axis=1)
    thr = max(TOUCH_MIN_DV_MPS, 5.0 * 2.0 * noise / (w * dt))
    dv = np.where(np.isfinite(dv), dv, 0.0)
    mids = obs.blade_mid_rink_m()  # (P, F, 2)
    touch = np.full(F, -1, np.int64)
    cand = np.nonzero(dv > thr)[0]
    last = -10 * w
    for i in cand:
        lo, hi = max(0, i - w), min(F, i + w + 1)
        if dv[i] < dv[lo:hi].max() or i - last < w:
            continue
        if mids.shape[0] == 0:
            continue
        d = np.linalg.norm(mids[:, i] - p[i], axis=1)
        d = np.where(np.isfinite(d), d, np.inf)
        k = int(np.argmin(d))
        if d[k] <= TOUCH_REACH_M:
            touch[i] = k
            last = i
    obs.touch_player = touch
    obs.touch_inferred = True


def puck_jump_steps(xy_rink_m: np.ndarray, t_s: np.ndarray, sigma_m: np.ndarray | None) -> np.ndarray:
    """(F-1,) True where the puck track makes a physically impossible step between frames.

    A step longer than ``PUCK_MAX_SPEED_MPS`` × dt + 6 sigma + 0.3 m: the tracker left one
    object for another (a stick blade, or a coasted prediction corrected by a measurement).

    Args:
        xy_rink_m: (F, 2) puck positions, m (NaN absent).
        t_s: (F,) times, s.
        sigma_m: (F,) position sigma, m, or None (0).
    """
    step = np.linalg.norm(np.diff(xy_rink_m, axis=0), axis=1)
    sig = np.zeros(len(step)) if sigma_m is None else np.asarray(sigma_m, float)[: len(step)]
    limit = PUCK_MAX_SPEED_MPS * np.diff(t_s) + 6.0 * sig + 0.3
    return np.isfinite(step) & (step > limit)


def _savgol_factor(window: int, order: int = 2) -> float:
    """Noise std reduction of the centred Savitzky-Golay smoother."""
    impulse = np.zeros(window)
    impulse[window // 2] = 1.0
    c = savgol_filter(impulse, window, order)
    return float(np.sqrt(np.sum(c ** 2)))


def _smooth_segment(a: np.ndarray, s: int, e: int, window: int) -> None:
    n = e - s
    if n < 5:
        return
    w = min(window, n if n % 2 == 1 else n - 1)
    if w < 5:
        return
    a[s:e] = savgol_filter(a[s:e], w, 2, axis=0)


def _smooth_positions(obs: Observations) -> float:
    """Smooth puck (split at touches, gaps and jumps) and blades; returns the noise factor."""
    W = SMOOTH_WINDOW_FRAMES
    p = obs.puck_xy_rink_m
    ok = np.isfinite(p).all(axis=1)
    # A jump (the tracker's coasted guess corrected by a measurement elsewhere) must not be
    # smoothed into a path that never was: the measurement after it keeps its place.
    jumps = np.flatnonzero(puck_jump_steps(p, obs.t_s, obs.sigma_m)) + 1
    cuts = set(obs.touch_frames().tolist()) | set(jumps.tolist())
    for s, e in _runs(ok):
        bounds = [s] + sorted(c for c in cuts if s < c < e) + [e]
        for a, b in zip(bounds[:-1], bounds[1:]):
            _smooth_segment(p, a, b, W)
    for k in range(obs.blades_rink_m.shape[0]):
        for j in range(2):
            b = obs.blades_rink_m[k, :, j]
            for s, e in _runs(np.isfinite(b).all(axis=1)):
                _smooth_segment(b, s, e, W)
    return _savgol_factor(W)
