"""Ballistic flight of a lifted puck from one camera's rays (hand-computed trajectories)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.puck_flight import GRAVITY_MPS2, drop_onto, fit_flight, is_airborne

Z_PLANE = 0.0127  # the puck's centre on the ice (half of its 2.54 cm thickness, 501)
CAMERA = np.array([0.0, -23.0, 9.0])  # a broadcast camera on the −y side, 9 m up
FPS = 30.0


def _rays(X: np.ndarray, C: np.ndarray = CAMERA) -> np.ndarray:
    """Where the rays from C through the (N, 3) points meet the puck's plane (what the tracker measures)."""
    k = (C[2] - Z_PLANE) / (C[2] - X[:, 2])
    return C[:2] + (X[:, :2] - C[:2]) * k[:, None]


def _shot(n: int, v0=(13.8, 2.1, 3.5), x0=(20.2, -0.3, Z_PLANE)):
    t = np.arange(1, n + 1) / FPS
    X = np.asarray(x0) + np.outer(t, v0) - np.outer(0.5 * GRAVITY_MPS2 * t * t, [0, 0, 1])
    return t, X


def test_lifted_shot_height_and_position_recovered_from_exact_rays():
    t, X = _shot(10)
    p = _rays(X)
    # Projected on the ice the lifted puck lands metres off its true spot ...
    assert np.linalg.norm(p[-1] - X[-1, :2]) > 0.5
    fit = fit_flight(t, p, CAMERA, Z_PLANE)
    assert is_airborne(fit, 0.005, Z_PLANE)
    # ... the parabola puts it back within centimetres, height included.
    assert np.linalg.norm(fit.position(t[-1]) - X[-1]) < 0.05
    assert fit.v_mps[2] == pytest.approx(3.5 - GRAVITY_MPS2 * t[-1], abs=0.3)


@pytest.mark.parametrize("seed", range(6))
def test_noisy_rays_still_say_airborne_and_the_error_is_within_the_stated_sigma(seed):
    # 1 cm noise (the detector's) over 14 frames: the flight is certain, its depth along the
    # rays is not; the fit must say how uncertain it is, not pretend.
    t, X = _shot(14)
    p = _rays(X) + np.random.default_rng(seed).normal(0, 0.01, (len(t), 2))
    fit = fit_flight(t, p, CAMERA, Z_PLANE)
    assert is_airborne(fit, 0.01, Z_PLANE)
    err = np.linalg.norm(fit.position(t[-1]) - X[-1])
    assert err <= 3.5 * fit.position_sigma_m(0.01)


def test_sliding_puck_is_not_airborne():
    t = np.arange(10) / FPS
    X = np.stack([5.0 + 20.0 * t, 1.0 - 3.0 * t, np.full_like(t, Z_PLANE)], axis=1)
    p = X[:, :2] + np.random.default_rng(2).normal(0, 0.01, (len(t), 2))
    assert not is_airborne(fit_flight(t, p, CAMERA, Z_PLANE), 0.01, Z_PLANE)


def test_too_few_rays_or_camera_on_the_ice_gives_no_fit():
    t, X = _shot(4)
    assert fit_flight(t, _rays(X), CAMERA, Z_PLANE) is None
    t, X = _shot(8)
    assert fit_flight(t, _rays(X), np.array([0.0, -23.0, 0.2]), Z_PLANE) is None


def _drop(n_fall: int, z0: float = 0.8, L=(3.0, 1.0)):
    """Rays of a puck dropped from ``z0`` straight down onto ``L``, frame by frame while it
    falls (n_fall frames, all above the ice), then the landing time."""
    t = np.arange(n_fall) / FPS
    z = z0 - 0.5 * GRAVITY_MPS2 * t * t
    X = np.column_stack([np.full(n_fall, L[0]), np.full(n_fall, L[1]), z])
    t_land = float(np.sqrt(2 * (z0 - Z_PLANE) / GRAVITY_MPS2))
    return t, X, t_land


def test_a_dropped_puck_gets_its_heights_from_its_landing_spot():
    # The rays of a falling puck meet the ice up to 1.9 m nearer the camera than its spot; with
    # the landing measured, each ray's distance beyond it gives the height at once.
    t, X, t_land = _drop(11)
    p = _rays(X)
    assert np.linalg.norm(p[0] - X[0, :2]) > 1.5
    z = drop_onto(t, p, CAMERA, X[0, :2], t_land, Z_PLANE, 0.005)
    np.testing.assert_allclose(z, X[:, 2], atol=0.01)
    noisy = p + np.random.default_rng(4).normal(0, 0.01, p.shape)
    z = drop_onto(t, noisy, CAMERA, X[0, :2], t_land, Z_PLANE, 0.01)
    assert z is not None and np.abs(z - X[:, 2]).max() < 0.06


def test_a_puck_sliding_to_a_stop_or_across_the_view_is_no_drop():
    t, X, t_land = _drop(11)
    p = _rays(X)
    # The same path on the ice at a steady speed towards the camera, ending where it landed.
    steady = p[0] + np.outer(np.linspace(0, 1, len(t)), p[-1] - p[0])
    assert drop_onto(t, steady, CAMERA, X[0, :2] + 0.02 * (p[-1] - p[0]), t_land, Z_PLANE, 0.01) is None
    # A sliding puck passing across the camera's view (off the landing spot's ground line).
    across = np.column_stack([np.linspace(1.0, 3.0, len(t)), np.full(len(t), 1.0)])
    assert drop_onto(t, across, CAMERA, np.array([3.1, 1.0]), t_land, Z_PLANE, 0.01) is None
