"""Live rule calls (sliding window) against the clip rules on the simulator's perfect tracks."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.rink import RinkModel
from rulesfromvideo.game import GameDescriptor
from rulesfromvideo.observations import Observations
from rulesfromvideo.rules import run_rules
from rulesfromvideo.rules.streaming import StreamingRules
from vision.sim.plays import make_play
from vision.sim.synth import truth_to_tracks


def _clip_and_live(scenario: str, seed: int, max_s: float | None = None, **kw):
    play = make_play(scenario, seed)
    game = GameDescriptor.from_dict(play.game)
    rink = RinkModel(game.rink_spec())
    recs = [r for r in truth_to_tracks(play) if max_s is None or r["t"] <= max_s]
    clip = run_rules(Observations.from_records(recs, fps=play.fps), game, rink)
    live = StreamingRules(game, rink, play.fps, **kw)
    got = []
    for r in recs:
        new = live.push(r)
        # Published at most once, and only once settled: never ahead of the feed.
        assert all(float(e["t"]) <= float(r["t"]) - live.settle_s + 1e-9 for e in new)
        got += new
    got += live.flush()
    return clip, got, play.fps


def _key(e):
    return e["type"], e.get("team"), e["verdict"]


@pytest.mark.parametrize("scenario,seed", [("offside_pass", 1), ("icing", 2), ("goal", 3), ("onside_carried", 4)])
def test_live_calls_are_the_clip_calls(scenario, seed):
    # 903 b1 zone entries, 905 icing, 906 goals and 907 a4 crease: the same calls, each once,
    # at the same (sub-frame) time as the clip rules, with a window far shorter than the clip.
    clip, live, fps = _clip_and_live(scenario, seed, window_s=5.0, settle_s=1.5)
    contract = [e for e in clip if e["type"] in ("zone_entry", "icing", "goal", "crease")]
    assert contract, "the scenario must yield a call"
    live_contract = [e for e in live if e["type"] in ("zone_entry", "icing", "goal", "crease")]
    assert sorted(map(_key, live_contract)) == sorted(map(_key, contract))
    for e in contract:
        twin = [g for g in live_contract if _key(g) == _key(e)]
        assert min(abs(float(g["t"]) - float(e["t"])) for g in twin) <= 1.0 / fps


def test_free_play_live_calls_match_the_clip_calls():
    clip, live, fps = _clip_and_live("free_play", 0, max_s=20.0, window_s=6.0, settle_s=1.5)
    contract = [e for e in clip if e["type"] in ("zone_entry", "icing", "goal")]
    live_contract = [e for e in live if e["type"] in ("zone_entry", "icing", "goal")]
    assert len(contract) >= 2
    assert sorted(map(_key, live_contract)) == sorted(map(_key, contract))


def test_window_must_outlast_the_settling_time():
    with pytest.raises(ValueError, match="window_s"):
        StreamingRules(None, None, 30.0, window_s=2.0, settle_s=1.5)


def test_live_rules_take_each_frames_blade_covariance():
    """903 b1 live: with a blade error far too large to decide (1 m, isotropic) the entry is
    open; the same tracks pushed with a per-player covariance tight across the blue line
    (2 cm in x, 1 m in y: a camera looking along it) give the clip's call, with that sigma."""
    play = make_play("offside_pass", 1)
    game = GameDescriptor.from_dict(play.game)
    rink = RinkModel(game.rink_spec())
    recs = list(truth_to_tracks(play))
    clip = [e for e in run_rules(Observations.from_records(recs, fps=play.fps), game, rink)
            if e["type"] == "zone_entry"]
    tight = np.diag([0.02 ** 2, 1.0])

    def live(with_cov: bool):
        rules = StreamingRules(game, rink, play.fps, window_s=5.0, blade_sigma_m=1.0)
        got = []
        for r in recs:
            covs = {p["id"]: tight for p in r["players"]} if with_cov else None
            got += rules.push(r, covs)
        return [e for e in got + rules.flush() if e["type"] == "zone_entry"]

    assert [e["verdict"] for e in live(False)] == ["inconclusive"]
    entry = live(True)
    assert [e["verdict"] for e in entry] == [e["verdict"] for e in clip] == ["offside"]
    assert 0.02 <= entry[0]["evidence"]["sigma_m"] < 0.05


def test_live_rules_take_each_frames_calibration_quality():
    """As in analyze, a frame's calibration quality scales its position error: the same entry
    pushed with quality 0.05 on every frame carries ≥ 1 cm / 0.05 = 20 cm of sigma."""
    play = make_play("offside_pass", 1)
    game = GameDescriptor.from_dict(play.game)
    rink = RinkModel(game.rink_spec())
    recs = list(truth_to_tracks(play))

    def live(quality):
        rules = StreamingRules(game, rink, play.fps, window_s=5.0)
        got = []
        for r in recs:
            got += rules.push(r, None, quality)
        return [e for e in got + rules.flush() if e["type"] == "zone_entry"]

    sharp, blurred = live(None), live(0.05)
    assert len(sharp) == len(blurred) == 1
    assert sharp[0]["evidence"]["sigma_m"] < 0.05 and blurred[0]["evidence"]["sigma_m"] >= 0.2


def test_live_calls_take_the_cameras_shared_puck_error_as_analyze_does():
    """906 1: a puck stopped 12 cm short of across is no goal at a centimetre, undecided when each
    frame is pushed with its camera's 5 cm shared puck error (``push(puck_sigma_m=...)``, as
    ``analyze`` adds ``vision.puck.puck_sigma_rink_m``)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from rules_clip import FPS, of_type
    from test_calls import goal_clip

    c = goal_clip(-0.12, t_end=4.0)
    game = GameDescriptor.from_dict(c.game)
    rink = RinkModel(game.rink_spec())
    for sigma, verdict in ((None, "no_goal"), (0.05, "inconclusive")):
        live = StreamingRules(game, rink, FPS, window_s=4.0, settle_s=1.0)
        got = []
        for r in c.records():
            got += live.push(r, puck_sigma_m=sigma)
        got += live.flush()
        goals = of_type(got, "goal")
        assert len(goals) == 1 and goals[0]["verdict"] == verdict, (sigma, goals)
