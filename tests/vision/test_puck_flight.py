"""Ballistic flight of a lifted puck from one camera's rays (hand-computed trajectories)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.puck_flight import GRAVITY_MPS2, fit_flight, is_airborne

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
