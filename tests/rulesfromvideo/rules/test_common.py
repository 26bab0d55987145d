"""rules/common: flight_release (905 a) and blade_sigma, against hand-computed geometry."""

import sys
from pathlib import Path

import numpy as np
import pytest
from rulesfromvideo.observations import TOUCH_REACH_M, Observations
from rulesfromvideo.rules.common import blade_sigma, flight_release

sys.path.insert(0, str(Path(__file__).parent))
from rules_clip import FPS, Clip, still  # noqa: E402

HALF_L, HALF_W = 30.0 - 0.0381, 15.0 - 0.0381


def _obs(c: Clip) -> Observations:
    return Observations.from_records(c.records(), fps=FPS, detection_sigma_m=0.002,
                                     calibration_sigma_m=0.0, infer_touches=False)


def _shot(shown_from_s: float, v=(20.0, 0.0), start=(-10.0, 5.0)) -> Clip:
    """A puck at rest at ``start`` until 0.5 s, then sliding at ``v``; unseen before ``shown_from_s``."""
    c = Clip(1.5)

    def puck(t):
        if t < shown_from_s:
            return None
        return tuple(np.add(start, np.multiply(v, max(t - 0.5, 0.0))))
    c.puck = puck
    return c


def test_seen_turn_into_the_flight_is_the_contact():
    c = _shot(0.0)
    c.player(1, "home", still(-11.0, 5.0)).player(2, "away", still(-20.0, -8.0))
    obs = _obs(c)
    rel = flight_release(obs, 40, HALF_L, HALF_W)
    assert rel.seen and rel.players == [0]
    assert 14 / FPS <= rel.t_lo_s <= 0.5 <= rel.t_hi_s <= 16 / FPS
    assert np.allclose(0.5 * (rel.xy_lo_rink_m + rel.xy_hi_rink_m), (-10.0, 5.0), atol=0.05)


def test_unseen_start_is_bounded_by_the_shooters_reach():
    c = _shot(0.8)
    c.player(1, "home", still(-11.0, 5.0)).player(2, "away", still(-20.0, -8.0))
    rel = flight_release(_obs(c), 40, HALF_L, HALF_W)
    assert not rel.seen and rel.players == [0] and rel.i_seen is None and not rel.open_before
    # path x(j) = -20 + 2 j / 3 at frame j; |x + 11| <= 1.8 for j = 11..16; one frame out each side
    reach = TOUCH_REACH_M
    frames = [j for j in range(24) if abs(-20 + 2 * j / 3 + 11) <= reach + 0.01]
    assert frames == list(range(11, 17))
    assert rel.t_lo_s == pytest.approx(10 / FPS) and rel.t_hi_s == pytest.approx(17 / FPS)
    assert rel.xy_lo_rink_m[0] == pytest.approx(-20 + 20 / 3, abs=1e-3)


def test_unseen_start_with_nobody_in_reach_runs_back_to_the_boards():
    c = _shot(0.8, v=(10.0, 10.0), start=(-5.0, 5.0))
    c.player(2, "away", still(-20.0, -8.0))
    rel = flight_release(_obs(c), 30, HALF_L, HALF_W)
    assert rel.players == [] and rel.open_before
    # backwards from (-2, 8) at t = 0.8 the path meets y = -14.96 after 2.3 s: before the clip's
    # start, so it runs back to frame 0, where the puck would have been at (-10, 0)
    assert rel.t_lo_s == pytest.approx(0.0) and np.allclose(rel.xy_lo_rink_m, (-10.0, 0.0), atol=1e-6)
    c2 = _shot(0.8, v=(10.0, 30.0), start=(-5.0, -5.0))
    rel2 = flight_release(_obs(c2), 30, HALF_L, HALF_W)
    # (-2, 4) at 0.8 s going back at 30 m/s across: y = -14.96 at 0.8 - 18.96 / 30 = 0.168 s;
    # the first frame on the ice after that is frame 6 (0.2 s)
    assert rel2.open_before and rel2.t_lo_s == pytest.approx(6 / FPS)


def test_a_flight_first_seen_beyond_the_boards_is_its_own_bound():
    """Calibration error can place the first sighting a little outside the ice: no crash, no path."""
    c = _shot(0.8, v=(20.0, 0.0), start=(-10.0, 15.2))  # along the boards, 0.24 m past them
    rel = flight_release(_obs(c), 26, HALF_L, HALF_W)
    assert rel is not None and rel.open_before and rel.players == []
    assert rel.t_lo_s == rel.t_hi_s == pytest.approx(24 / FPS)


def test_a_dribble_is_not_a_flight():
    c = _shot(0.0, v=(1.0, 0.0))
    assert flight_release(_obs(c), 40, HALF_L, HALF_W) is None


def test_blade_sigma_projects_the_covariance_on_the_direction_that_decides():
    """σ along n is √(nᵀΣn) (plus the tracks' own noise); without a direction the worst
    one (the largest eigenvalue); where the covariance is unknown, the isotropic model error."""
    c = Clip(0.5)
    c.puck = lambda t: (0.0, 0.0)
    c.player(1, "home", still(5.0, 0.0))
    obs = _obs(c)
    obs.blade_sigma_m = 0.25
    noise = float(obs.sigma_smoothed_m[3])
    cov = np.full((1, obs.n_frames, 2, 2), np.nan)
    cov[0, 3] = [[0.04 ** 2, 0.0], [0.0, 0.3 ** 2]]
    obs.blade_cov_rink_m2 = cov
    assert blade_sigma(obs, 3, 0, (1.0, 0.0)) == pytest.approx(np.hypot(noise, 0.04))
    assert blade_sigma(obs, 3, 0, (0.0, -2.0)) == pytest.approx(np.hypot(noise, 0.3))
    assert blade_sigma(obs, 3, 0, (1.0, 1.0)) == pytest.approx(np.hypot(noise, np.sqrt((0.04 ** 2 + 0.09) / 2)))
    assert blade_sigma(obs, 3, 0) == pytest.approx(np.hypot(noise, 0.3))
    assert blade_sigma(obs, 4, 0, (1.0, 0.0)) == pytest.approx(np.hypot(noise, 0.25))  # NaN: fallback
    assert blade_sigma(obs, 3) == pytest.approx(np.hypot(noise, 0.25))  # no player: fallback
