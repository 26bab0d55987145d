"""Observations: smoothing of noisy puck tracks against hand-made tracks."""

from __future__ import annotations

import numpy as np
import pytest

from rulesfromvideo.observations import PUCK_MAX_SPEED_MPS, Observations, puck_jump_steps

FPS = 30.0


def _rebound_records(noise_m: float = 0.02, seed: int = 1) -> tuple[list[dict], int]:
    """A puck at 20 m/s along +x, coasted (unmeasured, straight on) for 5 frames past the
    spot where it really bounced, then measured again 2.3 m back on its new path: the
    tracker's coast corrected by a measurement (a jump), as behind a goal post."""
    rng = np.random.default_rng(seed)
    recs, f_jump = [], 20
    for f in range(40):
        if f < f_jump:
            xy, measured = (18.0 + 20.0 * f / FPS, 0.9), f < 15
        else:
            xy, measured = (26.0 - 6.0 * (f - 15) / FPS, 0.9 - 15.0 * (f - 15) / FPS), True
        xy = np.add(xy, rng.normal(0.0, noise_m, 2)) if measured else np.asarray(xy)
        recs.append({"frame": f, "t": f / FPS, "puck": {"x": float(xy[0]), "y": float(xy[1]), "measured": measured},
                     "players": []})
    return recs, f_jump


def test_jump_steps_are_the_physically_impossible_ones():
    recs, f_jump = _rebound_records(noise_m=0.0)
    xy = np.array([[r["puck"]["x"], r["puck"]["y"]] for r in recs])
    steps = puck_jump_steps(xy, np.arange(len(xy)) / FPS, None)
    assert np.flatnonzero(steps).tolist() == [f_jump - 1]
    # 20 m/s is a plain slide; the jump is 2.3 m + 2.7 m in one frame, over 35 m/s.
    assert 20.0 < PUCK_MAX_SPEED_MPS < np.linalg.norm(xy[f_jump] - xy[f_jump - 1]) * FPS


def test_smoothing_does_not_carry_a_coasted_guess_across_a_jump():
    """The measurement after a jump keeps its place (within the noise): the smoother is split
    there as at a touch, instead of bending the track through a path the puck never took."""
    recs, f_jump = _rebound_records()
    obs = Observations.from_records(recs, fps=FPS, infer_touches=False, smooth=True)
    raw = np.array([recs[f_jump]["puck"]["x"], recs[f_jump]["puck"]["y"]])
    assert obs.smoothed
    assert np.linalg.norm(obs.puck_xy_rink_m[f_jump] - raw) < 0.06
    assert np.all(obs.puck_xy_rink_m[f_jump - 3:f_jump, 0] > 26.0)  # the coast stays the coast


def test_a_tracks_role_is_what_most_of_its_records_say():
    """A tracker may learn a role as it goes (ours calls a player who stays in front of his goal
    a goalkeeper after 20 frames): the rules take the role most records give, not the first."""
    recs = []
    for f in range(40):
        role = "skater" if f < 10 else "goalkeeper"
        recs.append({"frame": f, "t": f / 30.0, "puck": None, "players": [
            {"id": 6, "team": "home", "role": role, "blades": [[-25.2, 0.1], [-25.2, -0.1]]},
            {"id": 7, "team": "away", "role": "skater" if f % 4 else "goalkeeper", "blades": [[0.0, 0.1], [0.0, -0.1]]}]})
    obs = Observations.from_records(recs, fps=30.0)
    assert dict(zip(obs.player_ids, obs.player_role)) == {6: "goalkeeper", 7: "skater"}


def test_a_shared_position_error_adds_to_positions_but_cancels_from_differences():
    """``add_position_sigma``: a camera error common to nearby frames adds to every position's
    sigma in quadrature (3 cm and 4 cm: 5 cm), smoothed or not, and ``sigma_random_m`` /
    ``without_bias`` give back what velocities and puck-to-blade distances see (3 cm)."""
    recs = [{"frame": f, "t": f / 30.0, "puck": {"x": 1.0 + 0.1 * f, "y": 2.0}, "players": []} for f in range(10)]
    obs = Observations.from_records(recs, fps=30.0, detection_sigma_m=0.03, calibration_sigma_m=0.0, smooth=False)
    np.testing.assert_allclose(obs.sigma_smoothed_m, 0.03, atol=1e-6)
    extra = np.full(10, 0.04)
    extra[3] = np.nan  # unknown there: nothing added
    obs.add_position_sigma(extra)
    np.testing.assert_allclose(obs.sigma_m[[0, 9]], 0.05, atol=1e-6)
    np.testing.assert_allclose(obs.sigma_smoothed_m[[0, 9]], 0.05, atol=1e-6)
    assert obs.sigma_smoothed_m[3] == pytest.approx(0.03, abs=1e-6)
    np.testing.assert_allclose(obs.sigma_random_m, 0.03, atol=1e-6)
    np.testing.assert_allclose(obs.without_bias(obs.sigma_m), 0.03, atol=1e-6)
