"""``benchmarks/eval_puck_starts.py``: segments recorded from a puck tracker fed hand-made candidates,
and scored against a hand-made truth."""

from __future__ import annotations

import numpy as np
import pytest

FPS = 30.0


@pytest.fixture()
def eps(load_benchmark):
    return load_benchmark("eval_puck_starts")


def _cand(x: float, y: float, *, moved: float = 0.0, carry_p: float = 0.0, verifier_p: float = 0.6):
    from vision.detections import Detections

    xy = np.array([[x, y]])
    return Detections.from_centers(xy, np.array([4.0]), np.array([0.5]), xy_rink_m=xy, area_px=np.array([10.0]),
                                   expected_area_px=np.array([10.0]), moved=np.array([moved]),
                                   verifier_p=np.array([verifier_p]), carry_p=np.array([carry_p]))


def _segments(eps, cands_at):
    from vision.tracking import PuckTracker

    pt = PuckTracker(FPS)
    rec = eps.StartRecorder(pt)
    for f in range(12):
        pt.predict(f)
        pt.update(f, cands_at(f), np.array([0.02]), [])
    return rec.segments


def test_a_still_chain_and_a_carry_chain_are_recorded_as_reacquisitions_of_their_kind(eps):
    # A still spot on frames 0-5, then nothing, then a carry-model spot 10 m away from frame 8 on:
    # the first track starts on frame 2 (three frames), the second on frame 10.
    def cands_at(f):
        if f <= 5:
            return _cand(3.0, 1.0)
        if f >= 8:
            return _cand(13.0, 1.0, carry_p=0.9, verifier_p=0.0)
        from vision.detections import Detections
        return Detections.empty()

    segs = _segments(eps, cands_at)
    assert [(s.frame, s.how, s.kind) for s in segs] == [(2, "reacquire", "still"), (10, "reacquire", "carry")]
    assert segs[0].score == pytest.approx(0.5) and segs[0].verifier_p == pytest.approx(0.6)


def test_a_pass_outside_the_gate_is_recorded_as_a_kick(eps):
    # A puck sliding at 3 m/s along x, then passed sideways at 21 m/s (0.7 m off the prediction on
    # the first frame: beyond the gate, within a kick's reach): one reacquisition, one kick of a
    # moved candidate, and the pass followed in the gate after it.
    def cands_at(f):
        if f < 6:
            return _cand(0.1 * f, 0.0)
        return _cand(0.1 * f, 0.7 * (f - 5), moved=1.0)

    segs = _segments(eps, cands_at)
    assert [(s.frame, s.how, s.kind) for s in segs] == [(2, "reacquire", "still"), (6, "kick", "moved")]


def test_frames_are_scored_to_the_segment_that_was_running(eps):
    segs = [eps.Segment(0, "reacquire", "still", 0.5, 0.6), eps.Segment(3, "kick", "moved", 0.7, 0.8)]
    truth = [{"frame": f, "puck": {"x": float(f), "y": 0.0}} for f in range(5)] + [{"frame": 5, "puck": None}]
    records = [{"frame": 0, "puck": None},
               {"frame": 1, "puck": {"x": 1.2, "y": 0.0}},   # 0.2 m off: right
               {"frame": 2, "puck": {"x": 2.0, "y": 0.6}},   # 0.6 m off: wrong
               {"frame": 3, "puck": {"x": 3.0, "y": 0.0}},   # the kick's segment: right
               {"frame": 4, "puck": {"x": 4.4, "y": 0.0}},   # right (0.4 m)
               {"frame": 5, "puck": {"x": 5.0, "y": 0.0}}]   # no puck in the truth: wrong
    eps.score_segments(segs, records, truth)
    assert (segs[0].right, segs[0].wrong, segs[1].right, segs[1].wrong) == (1, 1, 2, 1)
    table = eps.summarise({"clip": segs})
    assert table[("reacquire", "still")] == {"segments": 1, "right": 1, "wrong": 1}
    assert table[("kick", "moved")] == {"segments": 1, "right": 2, "wrong": 1}
