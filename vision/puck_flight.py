"""A lifted puck from one camera: its 3D flight from gravity.

One camera sees a ray per frame, not a height. A puck sliding on the ice moves along a
straight line at a nearly constant speed on the ice plane; a lifted puck follows a
parabola under gravity, and its rays met with the puck's plane (where the tracker maps
every candidate) then trace a path that accelerates towards or away from the camera by
roughly ``g × horizontal distance / camera height`` — tens of m/s², far more than any
sliding puck. Gravity being known, the parabola is determined by the rays: a 3D
ballistic fit over the recent measurements gives the puck's position and height, and
the comparison with the best sliding fit says whether the puck is in the air at all.

Model, rink metres and seconds (``g`` = 9.81 m/s² down):
``X(t) = X0 + V (t − t_ref) − ½ g (t − t_ref)² ẑ``, seen at ``p(t) = C + (X(t) − C) ·
(C_z − z_p) / (C_z − X_z(t))`` on the plane ``z = z_p`` from the camera centre ``C``.
Air drag is neglected (a puck at 30 m/s loses ~2 % of its speed in 0.3 s).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import least_squares

GRAVITY_MPS2 = 9.81


@dataclass
class FlightFit:
    """A ballistic fit of recent puck measurements.

    Attributes:
        t_ref: the reference time, s (the newest measurement's).
        x0_m: (3,) position at ``t_ref``, rink m (z: height of the puck's centre).
        v_mps: (3,) velocity at ``t_ref``, m/s.
        rms_m: RMS residual on the measurement plane, m.
        slide_rms_m: RMS residual of the best constant-velocity fit on the ice, m.
        n: number of measurements used.
        cov_unit: (6, 6) covariance of (x0, v) per unit measurement variance (m² per m²):
            times σ² it is the fit's covariance. Depth along the rays is the weak direction:
            a short flight seen from the side leaves its position uncertain by decimetres.
    """

    t_ref: float
    x0_m: np.ndarray
    v_mps: np.ndarray
    rms_m: float
    slide_rms_m: float
    n: int
    cov_unit: np.ndarray

    def position_sigma_m(self, sigma_m: float) -> float:
        """1-sigma 3D position error at ``t_ref`` for a measurement noise ``sigma_m`` (m), m."""
        return float(sigma_m * np.sqrt(max(np.trace(self.cov_unit[:3, :3]), 0.0)))

    def position(self, t: float) -> np.ndarray:
        """(3,) puck centre at time ``t`` (s), rink m."""
        dt = t - self.t_ref
        return self.x0_m + self.v_mps * dt - np.array([0.0, 0.0, 0.5 * GRAVITY_MPS2 * dt * dt])


def _project(X: np.ndarray, C: np.ndarray, z_plane: float) -> np.ndarray:
    """(N, 3) points seen from (N, 3) camera centres, met with the plane z = z_plane → (N, 2)."""
    k = (C[:, 2] - z_plane) / np.maximum(C[:, 2] - X[:, 2], 1e-3)
    return C[:, :2] + (X[:, :2] - C[:, :2]) * k[:, None]


def slide_rms(t: np.ndarray, p: np.ndarray) -> float:
    """RMS residual of a constant-velocity straight line fitted to (N, 2) points at times (N,)."""
    A = np.stack([np.ones_like(t), t - t[-1]], axis=1)
    coef, *_ = np.linalg.lstsq(A, p, rcond=None)
    return float(np.sqrt(np.mean(np.sum((A @ coef - p) ** 2, axis=1))))


def fit_flight(t_s: np.ndarray, p_plane_m: np.ndarray, camera_xyz_m: np.ndarray, z_plane_m: float) -> FlightFit | None:
    """Fit a ballistic flight to puck measurements made on the plane ``z = z_plane_m``.

    Args:
        t_s: (N,) measurement times, s, increasing.
        p_plane_m: (N, 2) measured positions on the plane of the puck's centre, rink m.
        camera_xyz_m: (N, 3) (or (3,)) camera centre at each measurement, rink m.
        z_plane_m: height of that plane (the puck's half thickness), m.

    Returns:
        The fit, or None with fewer than 5 measurements or a camera not above the ice.
    """
    t = np.asarray(t_s, np.float64).reshape(-1)
    p = np.asarray(p_plane_m, np.float64).reshape(-1, 2)
    C = np.broadcast_to(np.asarray(camera_xyz_m, np.float64).reshape(-1, 3), (len(t), 3))
    if len(t) < 5 or np.any(C[:, 2] <= z_plane_m + 0.5):
        return None
    t_ref = float(t[-1])
    dt = t - t_ref
    slide = slide_rms(t, p)
    # Start: the straight-line fit on the ice, thrown upwards a little.
    A = np.stack([np.ones_like(t), dt], axis=1)
    coef, *_ = np.linalg.lstsq(A, p, rcond=None)

    def resid(q: np.ndarray) -> np.ndarray:
        X = np.empty((len(t), 3))
        X[:, :2] = q[:2] + q[3:5] * dt[:, None]
        X[:, 2] = q[2] + q[5] * dt - 0.5 * GRAVITY_MPS2 * dt * dt
        return (_project(X, C, z_plane_m) - p).ravel()

    best = None
    for z0, vz in ((0.3, 0.0), (0.3, 3.0), (0.8, -3.0)):
        q0 = np.array([coef[0, 0], coef[0, 1], z0, coef[1, 0], coef[1, 1], vz])
        # The puck stays between the ice and well below the camera.
        lo = np.array([-np.inf, -np.inf, z_plane_m, -60.0, -60.0, -30.0])
        hi = np.array([np.inf, np.inf, max(float(C[:, 2].min()) - 1.0, z_plane_m + 0.1), 60.0, 60.0, 30.0])
        try:
            r = least_squares(resid, np.clip(q0, lo + 1e-6, hi - 1e-6), bounds=(lo, hi), x_scale="jac")
        except ValueError:
            continue
        if best is None or r.cost < best.cost:
            best = r
    if best is None:
        return None
    q = best.x
    rms = float(np.sqrt(2.0 * best.cost / len(t)))
    JtJ = best.jac.T @ best.jac
    try:
        cov = np.linalg.inv(JtJ)
    except np.linalg.LinAlgError:
        cov = np.full((6, 6), np.inf)
    return FlightFit(t_ref, np.array([q[0], q[1], q[2]]), np.array([q[3], q[4], q[5]]), rms, slide, len(t), cov)


def drop_onto(t_s: np.ndarray, p_plane_m: np.ndarray, camera_xyz_m: np.ndarray, landing_xy_m: np.ndarray,
              t_land_s: float, z_plane_m: float, sigma_m: float) -> np.ndarray | None:
    """Heights of a puck that fell straight down onto ``landing_xy_m`` (a face-off drop), or None.

    A puck above its landing spot L is seen where its ray meets the ice: on the ground line from
    the camera through L, beyond L by ``d = |L − C| (z − z_p) / (C_z − z)``. So each ray gives the
    height ``z = (d C_z + |L − C| z_p) / (|L − C| + d)`` at once, and a fall is a parabola in time
    with the known curvature −g: ``z(t) = a + b (t − t_land) − ½ g (t − t_land)²``. One camera
    cannot place a puck in the air along its ray, but the landing, measured on the ice, does.
    A sliding puck cannot pass: its rays would have to close in on L accelerating at
    ``g |L − C| / C_z`` (tens of m/s²).

    Args:
        t_s: (N,) times of the rays before the landing, s.
        p_plane_m: (N, 2) where they meet the puck's plane, rink m.
        camera_xyz_m: (N, 3) (or (3,)) camera centre at each, rink m.
        landing_xy_m: (2,) the puck measured on the ice after its fall, rink m.
        t_land_s: the time of that measurement, s.
        z_plane_m: height of the puck's plane (its half thickness), m.
        sigma_m: 1-sigma measurement noise on the plane, m.

    Returns:
        (N,) the fitted parabola's heights at ``t_s``, m — when every ray lies on L's ground line
        (across it within 3 σ + 2 cm), the parabola explains them (RMS on the plane ≤ 2.5 σ + 1 cm)
        at least twice as well as a steady descent does, lands at ``t_land_s`` within 15 cm of the
        ice, tops out below 2.5 m, and has at least 4 rays 8 cm or more up; else None.
    """
    t = np.asarray(t_s, np.float64).reshape(-1)
    p = np.asarray(p_plane_m, np.float64).reshape(-1, 2)
    C = np.broadcast_to(np.asarray(camera_xyz_m, np.float64).reshape(-1, 3), (len(t), 3))
    L = np.asarray(landing_xy_m, np.float64).reshape(2)
    noise = max(float(sigma_m), 0.005)
    if len(t) < 4 or np.any(C[:, 2] <= z_plane_m + 0.5):
        return None
    w = L[None, :] - C[:, :2]
    D = np.linalg.norm(w, axis=1)
    if np.any(D < 1e-6):
        return None  # a camera straight above: the fall does not move the ray
    u = w / D[:, None]
    e = p - L[None, :]
    d = np.sum(e * u, axis=1)  # beyond L along the ray's ground line, m
    across = np.abs(e[:, 0] * u[:, 1] - e[:, 1] * u[:, 0])
    if np.any(across > 3.0 * noise + 0.02) or np.any(d <= -3.0 * noise):
        return None
    d = np.maximum(d, 0.0)
    z = (d * C[:, 2] + D * z_plane_m) / (D + d)
    tau = t - float(t_land_s)
    A = np.stack([np.ones_like(tau), tau], axis=1)
    coef, *_ = np.linalg.lstsq(A, z + 0.5 * GRAVITY_MPS2 * tau * tau, rcond=None)
    z_fit = A @ coef - 0.5 * GRAVITY_MPS2 * tau * tau

    def plane_rms(zf: np.ndarray) -> float:
        d_fit = D * (np.maximum(zf, z_plane_m) - z_plane_m) / np.maximum(C[:, 2] - zf, 1e-3)
        return float(np.sqrt(np.mean((d_fit - d) ** 2)))

    rms = plane_rms(z_fit)
    if rms > 2.5 * noise + 0.01 or abs(coef[0] - z_plane_m) > 0.15 or z_fit.max() > 2.5:
        return None
    # Gravity must be seen, not just allowed: the same rays as a steady descent (no curvature,
    # a puck sliding towards the camera at a constant speed) must fit at least twice as badly.
    lin, *_ = np.linalg.lstsq(A, z, rcond=None)
    if plane_rms(A @ lin) < 2.0 * max(rms, noise):
        return None
    if int(np.count_nonzero(z_fit - z_plane_m >= 0.08)) < 4:
        return None
    return z_fit


def is_airborne(fit: FlightFit | None, sigma_m: float, z_plane_m: float, min_height_m: float = 0.08) -> bool:
    """Whether a fit says the puck is in the air now: the parabola explains the rays, the ice cannot.

    Args:
        fit: a ``fit_flight`` result.
        sigma_m: 1-sigma measurement noise on the plane, m.
        z_plane_m: the plane's height (the puck on the ice), m.
        min_height_m: the fitted puck must be at least this far above the ice at the newest
            measurement (lower "flights" are noise, a bouncing or a landing puck).
    """
    if fit is None:
        return False
    noise = max(sigma_m, 0.005)
    if fit.rms_m > 2.5 * noise + 0.01 or fit.slide_rms_m < sliding_limit_m(sigma_m):
        return False
    if fit.slide_rms_m < 3.0 * fit.rms_m:
        return False
    return fit.x0_m[2] - z_plane_m >= min_height_m


def sliding_limit_m(sigma_m: float) -> float:
    """The RMS residual of a straight-line fit up to which a puck is taken as sliding, m."""
    return 4.0 * max(sigma_m, 0.005) + 0.02
