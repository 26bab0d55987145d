"""FrameTracker on hand-drawn sequences, and the tracks metrics on hand-made cases."""

from __future__ import annotations

import json

import numpy as np
import pytest

from vision.evaluation import evaluate_tracks, hota, idf1
from vision.tracking import MOTION_FULL_EVERY, FrameTracker, PuckTracker

HOME, AWAY = (46, 16, 200), (145, 61, 11)
GAME = {"rules": "ipc-sledge", "teams": {"home": {"color": "#c8102e", "attacks": "+x"}, "away": {"color": "#0b3d91"}}}
FPS = 30.0


def _run(kit, n, players_at, puck_at, calib_at=None):
    tracker = FrameTracker(kit.rink, GAME, FPS)
    H = np.linalg.inv(kit.cam.H_image_from_rink())
    out = []
    for f in range(n):
        t = f / FPS
        img, blades = kit.drawer.frame(players_at(t), puck_at(f, t))
        calib = H if calib_at is None else calib_at(f, H)
        out.append((tracker.update(img, f, t, calib), blades))
    return out


def test_hidden_puck_coasts_unmeasured_then_reacquires(kit):
    def puck_at(f, t):
        return None if 12 <= f < 17 else (1.0 + 6.0 * t, -2.0 + 1.5 * t, 0.0127)

    obs = _run(kit, 26, lambda t: {}, puck_at)
    recs = [o.puck for o, _ in obs]
    assert all(r is not None and r["measured"] for r in recs[3:12])
    hidden = recs[12:17]
    assert all(r is not None and r["measured"] is False for r in hidden)
    for f, r in zip(range(12, 17), hidden):  # coasted along the puck's straight path
        t = f / FPS
        assert np.hypot(r["x"] - (1.0 + 6.0 * t), r["y"] - (-2.0 + 1.5 * t)) < 0.15
    assert all(r["measured"] for r in recs[18:])
    for f in range(18, 26):
        t = f / FPS
        assert np.hypot(recs[f]["x"] - (1.0 + 6.0 * t), recs[f]["y"] - (-2.0 + 1.5 * t)) < 0.05
    assert json.loads(json.dumps(obs[-1][0].to_record()))["frame"] == 25


def test_lost_puck_becomes_unknown():
    pt = PuckTracker(FPS, max_coast_s=0.2)
    from vision.tracking import KalmanCV

    pt.kf = KalmanCV(np.zeros(2), 0.05, 1.0, 40.0)
    states = [pt.coast(f) for f in range(10)]
    assert all(s is not None and not s["measured"] for s in states[:6])
    assert states[-1] is None and not pt.active


def test_player_ids_persist_through_a_crossing(kit):
    def players_at(t):
        return {1: ((0.0 + 6.0 * t, 0.5), 0.0, HOME), 2: ((6.0 - 6.0 * t, 0.5), np.pi, AWAY)}

    obs = _run(kit, 36, players_at, lambda f, t: None)
    first = {}
    for f, (o, blades) in enumerate(obs[3:], start=3):
        if np.linalg.norm(np.mean(blades[1], axis=0) - np.mean(blades[2], axis=0)) < 1.0:
            continue  # while they overlap, which truth a track "is" cannot be told
        for p in o.players:
            c = np.mean(p["blades"], axis=0)
            truth = min(blades, key=lambda k: np.linalg.norm(np.mean(blades[k], axis=0) - c))
            if np.linalg.norm(np.mean(blades[truth], axis=0) - c) > 0.6:
                continue
            first.setdefault(truth, p["id"])
            assert p["id"] == first[truth], f"frame {f}: truth {truth} now has id {p['id']}"
    assert len(set(first.values())) == 2
    last = {p["id"]: p["team"] for p in obs[-1][0].players}
    assert last[first[1]] == "home" and last[first[2]] == "away"


def test_no_calibration_coasts_then_unknown(kit):
    def calib_at(f, H):
        return H if f < 8 else None

    obs = _run(kit, 30, lambda t: {1: ((2.0, 1.0), 0.0, HOME)}, lambda f, t: (1.0 + 3.0 * t, -1.0, 0.0127), calib_at)
    assert obs[7][0].puck["measured"] and obs[9][0].puck["measured"] is False
    assert obs[-1][0].puck is None and obs[-1][0].players == []


def test_puck_recall_at_the_lines_counts_measured_pucks_on_the_ice_by_the_paint():
    """The frames a zone entry is decided on: a visible puck on the ice within 0.3 m of a blue,
    centre or goal line's paint (IPC rink: blue line 8.52-8.82 m, IPC 206). Found measured on
    frame 0 (on the line), found only by a coast on frame 1 (0.2 m past it), not found on frame
    2 (0.25 m short of it); frame 3 is 1 m from every line and frame 4 in the air over it."""
    xs = [8.6, 9.02, 8.27, 4.0, 8.6]
    truth = {"rink": {"layout": "ipc", "length_m": 60.0, "width_m": 30.0}, "frames": [
        {"frame": f, "puck": {"x": x, "y": 1.0, "z": 0.4 if f == 4 else 0.0127, "visible": True}, "players": []}
        for f, x in enumerate(xs)]}
    recs = [{"frame": f, "t": f / 30, "players": [],
             "puck": None if f == 2 else {"x": x + 0.01, "y": 1.0, "measured": f != 1}} for f, x in enumerate(xs)]
    m = evaluate_tracks(truth, recs)
    assert m["puck_at_line_frames"] == 3
    assert m["puck_recall_at_lines_measured"] == pytest.approx(1 / 3)
    assert m["puck_recall_measured"] == pytest.approx(3 / 5)
    assert np.isnan(evaluate_tracks({"frames": truth["frames"]}, recs)["puck_recall_at_lines_measured"])


def test_idf1_and_hota_on_hand_cases():
    d = np.array([[0.0, 5.0], [5.0, 0.0]])
    perfect = [([1, 2], [7, 8], d)] * 10
    assert idf1(perfect)["idf1"] == pytest.approx(1.0)
    assert hota(perfect)["hota"] == pytest.approx(1.0)
    # The predicted ids swap half-way: each truth keeps its best id for half of its frames.
    swapped = [([1, 2], [7, 8], d)] * 5 + [([1, 2], [8, 7], d)] * 5
    assert idf1(swapped)["idf1"] == pytest.approx(0.5)
    h = hota(swapped)
    # Each matched pair: 5 true associations, 5 missed (truth with the other id), 5 false → 5/15.
    assert h["deta"] == pytest.approx(1.0) and h["assa"] == pytest.approx(1 / 3)
    # Half of the truth detections missed: IDF1 = 2·5 / (10 + 5).
    half = [([1], [7], np.zeros((1, 1)))] * 5 + [([1], [], np.zeros((1, 0)))] * 5
    assert idf1(half)["idf1"] == pytest.approx(10 / 15)


def test_evaluate_tracks_counts():
    truth = {"frames": [
        {"frame": f, "puck": {"x": float(f), "y": 0.0, "z": 0.0127, "visible": f != 3, "in_frame": True},
         "players": [{"id": 1, "team": "home", "role": "skater", "blades": [[0, 0.1], [0, -0.1]], "visible": True}]}
        for f in range(5)]}
    recs = [{"frame": f, "t": f / 30, "puck": {"x": f + 0.02, "y": 0.0, "measured": f != 3} if f != 4 else
             {"x": 9.0, "y": 9.0, "measured": True},
             "players": [{"id": 5, "team": "home" if f else "away", "role": "skater",
                          "blades": [[0.05, 0.1], [0.05, -0.1]]}]} for f in range(5)]
    m = evaluate_tracks(truth, recs)
    assert m["puck_recall"] == pytest.approx(3 / 4)  # frame 4 predicted 12 m off
    assert m["puck_precision"] == pytest.approx(4 / 5)
    assert m["puck_err_median_cm"] == pytest.approx(2.0)
    assert m["blade_err_median_cm"] == pytest.approx(5.0)
    assert m["team_accuracy"] == pytest.approx(4 / 5) and m["idf1"] == pytest.approx(1.0)


@pytest.mark.parametrize("start,v,ends", [
    ((30.0 - 0.0381 + 0.06, 4.5), (22.0, 0.0), True),    # on into the end boards: ends
    ((30.0 - 0.0381 + 0.06, 4.5), (-13.0, 0.0), False),  # back out of them: coasts on
    ((0.0, 15.0 - 0.0381 + 0.06), (8.0, 0.0), False),    # along the side boards: coasts on
])
def test_a_coast_from_a_puck_measured_past_the_boards_ends_only_when_it_heads_on_out(start, v, ends):
    """A puck measured 6 cm past the boards (its position's error) coasting on outwards never
    crosses their line, yet cannot be there (render 872: a 22 m/s shot into the end boards
    measured 6 cm past them coasted on 5.7 m beyond, x = -35.7); its rebound back in does cross
    it. Only heading on out does the coast end."""
    from calibration.rink import RinkModel, RinkSpec
    from vision.ice import puck_ice_rink_m, puck_walls_rink_m

    rink = RinkModel(RinkSpec.for_layout("ipc"))
    r = 0.0381
    walls_only = _coast_from(PuckTracker(FPS, max_coast_s=1.0, walls_rink_m=puck_walls_rink_m(rink, r)),
                             start, v, 5)
    # The boards' line alone gets both wrong: on out it never crosses it, back in it does.
    assert all(rec is not None for rec in walls_only) == (v[0] >= 0.0)
    recs = _coast_from(PuckTracker(FPS, max_coast_s=1.0, walls_rink_m=puck_walls_rink_m(rink, r),
                                   ice_rink_m=puck_ice_rink_m(rink, r)), start, v, 5)
    if ends:
        assert all(rec is None for rec in recs)
    else:
        assert all(rec is not None and not rec["measured"] for rec in recs)
        assert abs(recs[-1]["x"] - (start[0] + 5 * v[0] / FPS)) < 0.05


def _cand(xy, score=0.8):
    from vision.detections import Detections

    return Detections.from_centers(np.array([xy]), np.array([4.0, 3.0]), [score], xy_rink_m=np.array([xy]),
                                   area_px=np.array([10.0]), expected_area_px=np.array([10.0]))


def test_touch_reported_when_the_puck_changes_direction_next_to_a_player():
    pt = PuckTracker(FPS)
    player = [(7, "away", np.array([2.0, 0.3]))]
    recs = []
    for f in range(20):
        x = 0.2 * f if f <= 10 else 2.0 - 0.2 * (f - 10)  # 6 m/s towards the player, then back
        pt.predict(f)
        recs.append(pt.update(f, _cand((x, 0.0)), np.array([0.02]), player))
    touches = [(f, r["touch"]) for f, r in enumerate(recs) if r and "touch" in r]
    assert touches and touches[0][1] == {"player": 7, "team": "away"}
    assert 10 <= touches[0][0] <= 12 and len(touches) == 1


@pytest.mark.parametrize("score,n_before", [(0.5, 2), (0.8, 1)])
def test_a_new_puck_track_hands_back_the_frames_that_confirmed_it(score, n_before):
    """A track starts on a candidate that continues those of the previous frames (two for an
    ordinary one, one for a very clear one, ``confident_score``); those frames were reported
    unknown, and the start hands their positions back as measured (``backfill``)."""
    pt = PuckTracker(FPS)
    recs = []
    for f in range(6):
        pt.predict(f)
        recs.append(pt.update(f, _cand((1.0 + 0.3 * f, 2.0), score), np.array([0.02]), []))
    start = next(f for f, r in enumerate(recs) if r is not None)
    assert start == n_before and all(r is None for r in recs[:start])
    pt2 = PuckTracker(FPS)
    for f in range(start + 1):
        pt2.predict(f)
        pt2.update(f, _cand((1.0 + 0.3 * f, 2.0), score), np.array([0.02]), [])
    assert pt2.backfill == [{"frame": f, "x": pytest.approx(1.0 + 0.3 * f), "y": pytest.approx(2.0), "measured": True}
                            for f in range(start)]
    pt2.predict(start + 1)
    pt2.update(start + 1, _cand((1.0 + 0.3 * (start + 1), 2.0), score), np.array([0.02]), [])
    assert pt2.backfill == []  # handed back once, on the start frame only


def _cands_moved(still_xy, moved_xy, still_score=0.6, moved_score=0.3):
    """Candidates of one frame: a still one at ``still_xy`` (or none) and one the motion detector
    saw move at ``moved_xy`` (or none), rink m."""
    from vision.detections import Detections

    rows = [(xy, s, m) for xy, s, m in ((still_xy, still_score, 0.0), (moved_xy, moved_score, 1.0)) if xy is not None]
    if not rows:
        return Detections.empty()
    xy = np.array([r[0] for r in rows], dtype=np.float64)
    return Detections.from_centers(xy, np.array([4.0, 3.0]), np.array([r[1] for r in rows]), xy_rink_m=xy,
                                   area_px=np.full(len(rows), 10.0), expected_area_px=np.full(len(rows), 10.0),
                                   moved=np.array([r[2] for r in rows]))


def test_a_puck_moving_elsewhere_takes_the_track_from_a_still_mark_it_holds():
    """The track holds a still mark (measured every frame); a puck-like object moves consistently
    4 m away for three frames: the track follows it (a puck passed while the track sat on paint)."""
    pt = PuckTracker(FPS)
    recs = []
    for f in range(12):
        pt.predict(f)
        moving = (8.0 + 0.3 * f, 3.0) if f >= 6 else None
        recs.append(pt.update(f, _cands_moved((5.0, 0.0), moving), np.array([0.02, 0.02][: 1 + (moving is not None)]), []))
    assert recs[5]["x"] == pytest.approx(5.0, abs=0.05)
    assert recs[11]["measured"] and recs[11]["x"] == pytest.approx(8.0 + 0.3 * 11, abs=0.05)


def _still_mark_and_carry(carry_from: int, carry_v_mps: float, n: int = 40, mark_score: float = 0.6,
                          jitter_m: float = 0.0):
    """Puck records of a track held on a still mark at (5, 0) (a strong classical candidate every
    frame) while, from frame ``carry_from``, the carry model sees a puck at (-10, 2) moving at
    ``carry_v_mps`` along x every frame (off by ``jitter_m`` across, alternately); and the
    tracker's puck retractions per frame."""
    from vision.detections import Detections

    pt = PuckTracker(FPS)
    recs, retractions = [], {}
    for f in range(n):
        pt.predict(f)
        rows = [((5.0, 0.0), mark_score, 0.0)]
        if f >= carry_from:
            rows.append(((-10.0 + carry_v_mps * (f - carry_from) / FPS, 2.0 + jitter_m * (-1) ** f), 0.5, 0.95))
        xy = np.array([r[0] for r in rows])
        cands = Detections.from_centers(xy, np.array([4.0, 3.0]), np.array([r[1] for r in rows]), xy_rink_m=xy,
                                        area_px=np.full(len(rows), 10.0), expected_area_px=np.full(len(rows), 10.0),
                                        carry_p=np.array([r[2] for r in rows]))
        recs.append(pt.update(f, cands, np.full(len(rows), 0.02), []))
        if pt.retractions:
            retractions[f] = pt.retractions
    return recs, retractions


def test_a_carried_puck_moving_elsewhere_takes_the_track_from_a_still_spot_and_retracts_it():
    """A track held on a still spot for STILL_TRACK_FRAMES (a goalkeeper's pad from a clip's first
    frame, tuning render 1420) is challenged: a carried puck moving at 4 m/s elsewhere, seen on
    CHALLENGE_FRAMES frames in a row, takes it, and the spot's frames are handed back as not the puck."""
    from vision.tracking import CHALLENGE_FRAMES, STILL_TRACK_FRAMES, STILL_TRACK_M

    recs, retractions = _still_mark_and_carry(carry_from=STILL_TRACK_FRAMES + 5, carry_v_mps=4.0)
    switch = next(f for f, r in enumerate(recs) if r is not None and r["x"] < 0)
    assert switch == STILL_TRACK_FRAMES + 5 + CHALLENGE_FRAMES - 1
    assert all(r["x"] == pytest.approx(5.0, abs=0.05) for r in recs[2:switch])
    assert all(r["measured"] and r["x"] == pytest.approx(-10.0 + 4.0 * (f - STILL_TRACK_FRAMES - 5) / FPS, abs=0.05)
               for f, r in enumerate(recs[switch:], start=switch))
    first = next(f for f, r in enumerate(recs) if r is not None)
    assert retractions == {switch: [{"from_frame": first, "to_frame": switch - 1, "x": pytest.approx(5.0, abs=0.05),
                                     "y": pytest.approx(0.0, abs=0.05), "radius_m": STILL_TRACK_M}]}


@pytest.mark.parametrize("carry_from,carry_v_mps,jitter_m", [(1000, 4.0, 0.0), (20, 0.0, 0.0), (20, 0.4, 0.03),
                                                           (3, 4.0, 0.0)])
def test_a_still_spot_keeps_its_track_against_no_carried_puck_a_still_one_or_before_it_is_still(
        carry_from, carry_v_mps, jitter_m):
    """No challenge without a carried puck elsewhere, nor from a carried spot that does not move
    (a still player's blade), nor from one that creeps at 0.4 m/s jittering by 3 cm a frame (a
    metre a second from frame to frame: tuning render goal_goalcam_1735, a puck lying in the net);
    a carried puck moving from frame 3 takes the track only once the track has held its spot for
    STILL_TRACK_FRAMES measurements."""
    from vision.tracking import CHALLENGE_FRAMES, STILL_TRACK_FRAMES

    recs, retractions = _still_mark_and_carry(carry_from=carry_from, carry_v_mps=carry_v_mps, jitter_m=jitter_m)
    taken = [f for f, r in enumerate(recs) if r is not None and r["x"] < 0]
    if carry_from == 3:
        first = next(f for f, r in enumerate(recs) if r is not None)
        assert taken and taken[0] >= first + STILL_TRACK_FRAMES - 1 + CHALLENGE_FRAMES - 1 and list(retractions) == [taken[0]]
    else:
        assert not taken and not retractions
        assert all(r["x"] == pytest.approx(5.0, abs=0.05) for r in recs[2:])


def test_a_coasting_puck_track_is_not_taken_by_something_moving_elsewhere():
    """The puck slides at 6 m/s and is then not seen (carried, hidden): its track coasts. A weak
    object moving 4 m away (a stick, a blade: score 0.3, under re-acquisition's 0.4) does not take
    the track (``TAKEOVER_HELD_WITHIN_FRAMES``): on the tuning renders all six such takeovers were
    wrong. It is never reported as the puck."""
    pt = PuckTracker(FPS)
    recs = []
    for f in range(20):
        pt.predict(f)
        still = (0.2 * f, 0.0) if f < 10 else None
        moving = (4.0 + 0.3 * f, 4.0) if f >= 10 else None
        cands = _cands_moved(still, moving)
        recs.append(pt.update(f, cands, np.full(len(cands), 0.02), []))
    assert all(r is None or abs(r["y"]) < 1.0 for r in recs)  # the chain completes on the coast's third frame


@pytest.mark.parametrize("speed_mps,jumps", [(16.0, False), (3.0, True)])
def test_a_coasting_shot_is_not_taken_by_a_chain_elsewhere(speed_mps, jumps):
    """A puck measured for ten frames, then unseen for five (a blurred shot), while a strong
    candidate moving 1 m/s is seen 40 m away on each of those frames. A shot's path is
    predictable for the coast: the track coasts on it (render 912: a 16 m/s shot's track
    jumped 41-46 m to marks at the other end, five false zone entries). A slow puck's coast is
    not (hidden, carried, turned): the chain elsewhere starts a new track, as before."""
    pt = PuckTracker(FPS)
    recs = []
    for f in range(15):
        pt.predict(f)
        if f < 10:
            cands = _cand((speed_mps * f / FPS, -2.0))
        else:
            cands = _cand((-17.0 - 1.0 * f / FPS, 6.8))
        recs.append(pt.update(f, cands, np.array([0.02]), []))
    assert all(r is not None and r["measured"] for r in recs[2:10])
    far = [f for f in range(10, 15) if recs[f] is not None and recs[f]["x"] < -10.0]
    if jumps:
        assert far and all(recs[f]["measured"] for f in far)
    else:
        assert not far
        coasted = [recs[f] for f in range(10, 15) if recs[f] is not None]
        assert coasted and all(not r["measured"] for r in coasted)
        for f, r in ((f, recs[f]) for f in range(10, 15) if recs[f] is not None):
            assert abs(r["x"] - speed_mps * f / FPS) < 0.3


def test_a_speed_from_one_jump_does_not_keep_a_coast_from_a_chain_elsewhere():
    """A puck sliding at 1 m/s, unseen for a frame, then found 1 m from where the track
    expected it: a kick (a pass, a deflection, or a false position), whose 15 m/s rests on that
    one jump. Unseen again while a strong candidate moves 1 m/s 17 m away, the track does not
    hold it off as it would a shot measured at that speed (held-out suite `s06`: a kick across
    a false track's hidden frames gave a 1.3 m/s puck 12 m/s, and its coast two frames the
    puck's re-acquisition would have had)."""
    from vision.puck import empty_candidates

    pt = PuckTracker(FPS)
    recs = []
    for f in range(18):
        pt.predict(f)
        if f < 10:
            cands = _cand((1.0 * f / FPS, -2.0))
        elif f == 10:
            cands = empty_candidates()
        elif f == 11:
            cands = _cand((11.0 / FPS + 1.0, -2.0))
        else:
            cands = _cand((-17.0 - 1.0 * f / FPS, 6.8))
        recs.append(pt.update(f, cands, np.array([0.02] * len(cands)), []))
    assert recs[11]["measured"] and abs(recs[11]["x"] - (11.0 / FPS + 1.0)) < 0.05  # the kick
    far = [f for f in range(12, 18) if recs[f] is not None and recs[f]["measured"] and recs[f]["x"] < -10.0]
    assert far and far[0] <= 14 and far == list(range(far[0], 18))


def test_a_shot_measured_past_the_end_boards_is_taken_up_again_on_its_rebound():
    """A 22 m/s shot into the end boards, last measured 6 cm past them (its error), unseen on
    impact, then seen coming back out at 13 m/s (render 872). Its coast cannot go on out beyond
    the boards, and once it has ended there the rebound starts the next track: no record
    further out than the last measurement, the rebound measured from its second frame."""
    from calibration.rink import RinkModel, RinkSpec
    from vision.ice import puck_ice_rink_m, puck_walls_rink_m
    from vision.puck import empty_candidates

    rink = RinkModel(RinkSpec.for_layout("ipc"))
    r = 0.0381
    pt = PuckTracker(FPS, walls_rink_m=puck_walls_rink_m(rink, r), ice_rink_m=puck_ice_rink_m(rink, r))
    x_meas = 30.0 - r + 0.06

    def rebound_x(f):
        return 29.6 - 13.0 * (f - 10) / FPS

    recs = []
    for f in range(18):
        pt.predict(f)
        if f < 10:
            cands = _cand((x_meas - 22.0 * (9 - f) / FPS, 4.5))
        elif f == 10:
            cands = empty_candidates()
        else:
            cands = _cand((rebound_x(f), 4.6))
        recs.append(pt.update(f, cands, np.array([0.02] * len(cands)), []))
    assert all(rec["x"] <= x_meas + 1e-3 for rec in recs if rec is not None)  # nothing further out
    for f in range(12, 18):
        assert recs[f] is not None and recs[f]["measured"] and abs(recs[f]["x"] - rebound_x(f)) < 0.1, (f, recs[f])


def test_a_moving_puck_found_by_both_detectors_keeps_its_track():
    """The compact detector and the motion detector find the sliding puck at one spot; the still
    copy scores higher (0.9 against 0.6) and is the one taken. The puck moved all the same: a
    weak object moving consistently 4 m away (a stick blade, 0.3) does not take the track on a
    frame the motion detector misses the puck (``SAME_CANDIDATE_M``). Fresh render
    ``icing_opponent_could_play_broadcast_893`` lost its puck to a pink stick blade for 20 frames
    this way once the still copy came to outscore the moved one (with a puck-tint change tried
    at stop 44)."""
    from vision.detections import Detections

    pt = PuckTracker(FPS)
    recs = []
    for f in range(14):
        pt.predict(f)
        puck, blade = (0.2 * f, 0.0), (4.0 + 0.1 * f, 4.0)
        rows = [(puck, 0.9, 0.0), (puck, 0.6, 1.0), (blade, 0.3, 1.0)]
        if f == 9:
            rows.pop(1)  # the motion detector misses the puck on one frame
        xy = np.array([r[0] for r in rows], dtype=np.float64)
        cands = Detections.from_centers(xy, np.array([4.0, 3.0]), np.array([r[1] for r in rows]), xy_rink_m=xy,
                                        area_px=np.full(len(rows), 10.0), expected_area_px=np.full(len(rows), 10.0),
                                        moved=np.array([r[2] for r in rows]))
        recs.append(pt.update(f, cands, np.full(len(rows), 0.02), []))
    assert all(r is not None and r["measured"] and r["y"] == pytest.approx(0.0, abs=0.05) for r in recs[3:])


def _start_frame(verifier_p: float, moved: bool, carry_p: float = 0.0, glides: bool | None = None,
                 seat_m: float | None = None, glide_mps: float = 1.5) -> int | None:
    """The frame a track starts on a candidate seen at one spot (or gliding 1.5 m/s when
    ``glides``, by default when ``moved``: the motion detector's; at ``glide_mps``) every frame with score 0.5,
    the learned verifier's probability ``verifier_p`` and the carry model's ``carry_p`` (0: not a
    carry candidate), a tracked player's seat ``seat_m`` behind the spot's first place (None: no
    player); None: no track in 8 frames."""
    from vision.detections import Detections

    players = [] if seat_m is None else [(7, "home", np.array([3.0 - seat_m, 1.0]))]
    pt = PuckTracker(FPS)
    for f in range(8):
        pt.predict(f)
        xy = np.array([[3.0 + (glide_mps / FPS * f if (moved if glides is None else glides) else 0.0), 1.0]])
        cands = Detections.from_centers(xy, np.array([4.0]), np.array([0.5]), xy_rink_m=xy,
                                        area_px=np.array([10.0]), expected_area_px=np.array([10.0]),
                                        moved=np.array([float(moved)]), verifier_p=np.array([verifier_p]),
                                        carry_p=np.array([carry_p]))
        if pt.update(f, cands, np.array([0.02]), players) is not None:
            return f
    return None


def test_a_spot_moving_with_a_player_at_his_stick_starts_a_track_only_where_the_verifier_is_sure():
    """Every player's stick blade lies at his reach (1.1 m) from his seat and moves with him: a
    puck-sized dark spot that, seen from above, the verifier takes for a puck (0.40-0.85 at the 6
    wrong still starts within 1.3 m of a seat on 84 fresh renders, whole clips held on sticks; 0.91
    and 0.99 at the 2 right ones). A spot the motion detector did not see that lies there and moves
    with him starts a track only where the verifier is all but sure
    (``STILL_AT_STICK_MIN_VERIFIER_P``). A puck sliding past him (3 m/s, as on drawn-kit render 1457
    towards the goal line beside the goalkeeper) moves on its own, a
    moving one or a carry the carry model saw start as before, and so does the same spot away
    from any player."""
    from vision.tracking import STILL_AT_STICK_MIN_VERIFIER_P, STILL_START_SEAT_M

    sure, unsure = STILL_AT_STICK_MIN_VERIFIER_P + 0.05, STILL_AT_STICK_MIN_VERIFIER_P - 0.1
    assert _start_frame(unsure, moved=False, seat_m=1.1) is None
    assert _start_frame(sure, moved=False, seat_m=1.1) == 2
    assert _start_frame(unsure, moved=False, glides=True, glide_mps=3.0, seat_m=1.1) == 2  # sliding past him
    assert _start_frame(unsure, moved=True, seat_m=1.1) == 2  # the motion detector's
    assert _start_frame(0.0, moved=False, carry_p=0.9, seat_m=1.1) == 2  # the carry model's
    assert _start_frame(unsure, moved=False, seat_m=STILL_START_SEAT_M + 0.3) == 2  # beyond his reach
    assert _start_frame(unsure, moved=False) == 2  # no player tracked


def test_a_still_candidate_the_verifier_doubts_starts_no_track():
    """Three frames of one still dark spot start a track where the verifier leans to a puck; where
    it doubts it (0.21-0.30 at the wrong still starts on the tuning renders: stick blades lying
    on the ice) they do not (``START_STILL_MIN_VERIFIER_P``). Motion or the carry model are
    evidence of their own: the same doubt does not stop those."""
    from vision.tracking import START_STILL_MIN_VERIFIER_P

    assert _start_frame(0.6, moved=False) == 2
    assert _start_frame(START_STILL_MIN_VERIFIER_P - 0.1, moved=False) is None
    assert _start_frame(START_STILL_MIN_VERIFIER_P - 0.1, moved=True) == 2
    assert _start_frame(0.0, moved=False, carry_p=0.9) == 2  # carry spots are not shown to the verifier
    assert _start_frame(float("nan"), moved=False) == 2  # no verifier: the classical score decides


def test_a_puck_lying_still_starts_a_track_only_where_the_verifier_leans_to_it():
    """A still spot the verifier is unsure of (between ``START_STILL_MIN_VERIFIER_P`` and
    ``START_RESTING_MIN_VERIFIER_P``) starts no track while it lies still: a sledge goalkeeper's
    stick tips seen from above (verifier 0.36 and 0.44 on fresh renders 872 and 886, whole clips
    held on them). The same spot gliding (a chain of 1.5 m/s, whichever detector found it) starts
    one, and so does a still one the verifier is sure of."""
    from vision.tracking import START_RESTING_MIN_VERIFIER_P, START_STILL_MIN_VERIFIER_P

    unsure = (START_STILL_MIN_VERIFIER_P + START_RESTING_MIN_VERIFIER_P) / 2
    assert _start_frame(unsure, moved=False) is None
    assert _start_frame(unsure, moved=False, glides=True) == 2
    assert _start_frame(START_RESTING_MIN_VERIFIER_P + 0.05, moved=False) == 2
    assert _start_frame(unsure, moved=False, carry_p=0.9) == 2  # the carry model's word stands


def _after_a_coast(verifier_p: float, ahead_m: float = 0.85) -> dict | None:
    """The record of the frame after a puck sliding at 3.6 m/s (score 0.6, verifier 0.9) was
    seen for 8 frames and not for 3, when a still candidate ``ahead_m`` ahead of the coast's
    prediction (0.85 m: inside its grown gate, χ² 8.2 at a 5 cm pixel, as from above) has the
    verifier's ``verifier_p`` and score 0.5, vetoed to that probability under 0.2 as
    ``FrameTracker._verify`` does."""
    from vision.detections import Detections

    pt = PuckTracker(FPS)
    rec = None
    for f in range(12):
        pt.predict(f)
        if f < 8:
            xy, score, vp, mv = np.array([[0.12 * f, 0.0]]), 0.6, 0.9, 1.0
        elif f < 11:
            xy = None
        else:
            score = min(0.5, verifier_p) if verifier_p < 0.2 else 0.5
            xy, vp, mv = np.array([[0.12 * f + ahead_m, 0.1]]), verifier_p, 0.0
        cands = Detections.empty() if xy is None else Detections.from_centers(
            xy, np.array([4.0]), np.array([score]), xy_rink_m=xy, area_px=np.array([10.0]),
            expected_area_px=np.array([10.0]), moved=np.array([mv]), verifier_p=np.array([vp]))
        rec = pt.update(f, cands, np.full(len(cands), 0.05), [])
    return rec


def test_a_coast_is_not_ended_by_a_still_candidate_the_verifier_doubts():
    """After frames unseen the gate has grown: a still candidate in it that the verifier doubts (a
    stick blade on the crease) is no surer the puck than one that may not start a track, and is not
    taken. Fresh render ``no_goal_on_line_overhead_898`` (with a puck-tint change tried at stop
    44): such a candidate 0.85 m into the goal, vetoed (verifier 0.08), ended a 3-frame coast and
    made a goal of a puck stopped on the line. The same candidate is taken when the verifier leans
    to a puck, and a doubted one near the prediction."""
    from vision.tracking import START_STILL_MIN_VERIFIER_P

    doubted = _after_a_coast(0.08)
    assert doubted is not None and not doubted["measured"]  # still coasting on the prediction
    assert doubted["x"] == pytest.approx(1.32, abs=0.1)
    leaning = _after_a_coast(START_STILL_MIN_VERIFIER_P + 0.1)
    assert leaning is not None and leaning["measured"] and leaning["x"] == pytest.approx(1.32 + 0.85, abs=0.05)
    # Near the prediction (``COAST_RESUME_DOUBTED_M``) the doubted candidate continues the coast: a
    # carried puck the verifier is unsure of, most such resumes on the fresh renders.
    near = _after_a_coast(0.08, ahead_m=0.15)
    assert near is not None and near["measured"] and near["x"] == pytest.approx(1.32 + 0.15, abs=0.05)


def _lost_after(players, n_seen=10, n_lost=9, max_coast_s=0.3):
    """Puck records of a puck seen sliding at 6 m/s along +x for ``n_seen`` frames, then not."""
    from vision.detections import Detections

    pt = PuckTracker(FPS, max_coast_s=max_coast_s)
    recs = []
    for f in range(n_seen + n_lost):
        pt.predict(f)
        cands = _cand((0.2 * f, 0.0)) if f < n_seen else Detections.empty()
        recs.append(pt.update(f, cands, np.array([0.02] * len(cands)), players))
    return pt, recs


def test_puck_lost_within_a_players_reach_is_reported_only_briefly():
    """Lost next to a player (he may have stopped or received it): 3 coasted frames
    (``NEAR_PLAYER_COAST_FRAMES``), then unknown, the filter still predicting for re-acquisition."""
    from vision.tracking import NEAR_PLAYER_COAST_FRAMES

    pt, recs = _lost_after([(7, "away", np.array([2.6, 0.4]))])
    lost = recs[10:]
    assert all(r is not None and r["measured"] is False for r in lost[:NEAR_PLAYER_COAST_FRAMES])
    assert all(r is None for r in lost[NEAR_PLAYER_COAST_FRAMES:])
    assert pt.active


def test_puck_lost_next_to_a_player_stays_unknown_when_the_prediction_leaves_him():
    """Once a coast is cut next to a player (he may have stopped it), the prediction drifting on
    out of his reach is no evidence of where the puck is: unknown until it is measured again."""
    from vision.tracking import NEAR_PLAYER_COAST_FRAMES

    pt, recs = _lost_after([(7, "away", np.array([2.6, 0.4]))], n_lost=20, max_coast_s=1.0)
    lost = recs[10:]
    assert all(r is not None for r in lost[:NEAR_PLAYER_COAST_FRAMES])
    # the prediction is 0.2 m further along +x each frame; out of his 1.8 m reach past x = 4.4 m
    out_of_reach = [f for f in range(10, 30) if 0.2 * f > 2.6 + 1.8 + 0.2]
    assert out_of_reach and all(recs[f] is None for f in out_of_reach)
    assert pt.active  # still predicting for re-acquisition


def test_puck_lost_in_free_ice_coasts_up_to_max_coast():
    """No player within reach: the constant-velocity coast is reported for ``max_coast_s``."""
    pt, recs = _lost_after([(7, "away", np.array([2.6, 6.0]))])
    lost = recs[10:]
    assert all(r is not None and r["measured"] is False for r in lost)
    assert abs(lost[-1]["x"] - 0.2 * 18) < 0.05


def test_oversized_blob_far_off_the_track_is_not_measured():
    # An airborne puck projects beyond its real spot and looks too big there: coast instead.
    from vision.detections import Detections

    pt = PuckTracker(FPS)
    for f in range(8):
        pt.predict(f)
        rec = pt.update(f, _cand((0.1 * f, 0.0)), np.array([0.02]), [])
    assert rec["measured"]
    lifted = Detections.from_centers(np.array([[0.9, 2.5]]), np.array([9.0, 9.0]), [0.9],
                                     xy_rink_m=np.array([[0.9, 2.5]]), area_px=np.array([60.0]),
                                     expected_area_px=np.array([10.0]))
    pt.predict(8)
    rec = pt.update(8, lifted, np.array([0.02]), [])
    assert rec["measured"] is False and abs(rec["y"]) < 0.1


def test_bad_frames_and_degenerate_calibration_do_not_crash(kit):
    tracker = FrameTracker(kit.rink, GAME, FPS)
    img, _ = kit.drawer.frame(puck_xyz=(1.0, -1.0, 0.0127))
    H = np.linalg.inv(kit.cam.H_image_from_rink())
    for f, (frame, calib) in enumerate([(img, H), (img, np.zeros((3, 3))), (img, np.full((3, 3), np.nan)),
                                        (None, H), (np.zeros((720, 1280, 3), np.uint8), H)]):
        rec = tracker.update(frame, f, f / FPS, calib).to_record()
        assert rec["frame"] == f and isinstance(rec["players"], list)
    # A frame with no ice visible (the camera sees only the crowd): nothing confident is measured.
    far = np.linalg.inv(kit.cam.H_image_from_rink()) @ np.array([[1, 0, 5000], [0, 1, 5000], [0, 0, 1.0]])
    rec = tracker.update(img, 9, 9 / FPS, far).to_record()
    assert rec["puck"] is None or rec["puck"]["measured"] is False


def _puck_cands(xy):
    """One strong compact puck candidate at ``xy`` (rink m), as the detectors hand it over."""
    from vision.detections import Detections

    return Detections.from_centers(np.zeros((1, 2)), np.array([4.0, 4.0]), np.array([0.9]),
                                   xy_rink_m=np.asarray(xy, float).reshape(1, 2), area_px=np.array([20.0]),
                                   expected_area_px=np.array([20.0]))


def test_lifted_puck_is_reported_unmeasured_with_its_height_not_at_its_projected_spot():
    # A lob from the −y broadcast camera's view (9 m up): what the detectors measure on the puck's
    # plane is where its ray meets that plane, metres beyond the puck once it is in the air.
    from vision.puck_flight import GRAVITY_MPS2

    C, z_p = np.array([0.0, -23.0, 9.0]), 0.0127
    x0, v0 = np.array([-10.0, -2.0, z_p]), np.array([14.0, 1.0, 5.0])
    pt = PuckTracker(FPS, puck_z_m=z_p)
    recs, truth = [], []
    for f in range(18):
        t = f / FPS
        X = x0 + v0 * t - np.array([0, 0, 0.5 * GRAVITY_MPS2 * t * t])
        X[2] = max(X[2], z_p)
        ray = C[:2] + (X[:2] - C[:2]) * (C[2] - z_p) / (C[2] - X[2])
        pt.predict(f)
        recs.append(pt.update(f, _puck_cands(ray), np.array([0.005]), [], C))
        truth.append((X, ray))
    airborne = [f for f, r in enumerate(recs) if r is not None and "z" in r]
    assert airborne and min(airborne) <= 12  # found once 10 rays of the flight are in
    for f in airborne:
        X, ray = truth[f]
        r = recs[f]
        assert r["measured"] is False  # one camera: an estimate, not a measurement
        assert np.hypot(r["x"] - X[0], r["y"] - X[1]) < 0.5 * np.hypot(*(ray - X[:2]))
        assert abs(r["z"] - X[2]) < 0.3


DROP_CAMERA, DROP_Z_PLANE = np.array([0.0, -23.0, 9.0]), 0.0127  # the −y broadcast camera, 9 m up


def _drop_through_tracker(n: int, seen_until: int, noise_m: float = 0.0):
    """A face-off drop from 0.8 m onto (3, 1) through ``PuckTracker`` and a ``RecordReviser``:
    (the released records, the true (3,) positions, the reviser). Frames from ``seen_until`` on
    have no candidate; ``noise_m``: seeded detector noise on the ice."""
    from vision.puck_flight import GRAVITY_MPS2
    from vision.revisions import RecordReviser

    C, z_p = DROP_CAMERA, DROP_Z_PLANE
    pt = PuckTracker(FPS, puck_z_m=z_p)
    reviser = RecordReviser(14)
    noise = np.random.default_rng(3).normal(0.0, noise_m, (n, 2)) if noise_m else np.zeros((n, 2))
    out, truth = [], []
    for f in range(n):
        X = np.array([3.0, 1.0, max(0.8 - 0.5 * GRAVITY_MPS2 * (f / FPS) ** 2, z_p)])
        ray = C[:2] + (X[:2] - C[:2]) * (C[2] - z_p) / (C[2] - X[2]) + noise[f]
        pt.predict(f)
        seen = f < seen_until
        cands = _puck_cands(ray) if seen else _puck_cands(ray)[np.zeros(1, bool)]
        puck = pt.update(f, cands, np.array([0.01] if seen else []), [], C)
        truth.append(X)
        out += reviser.push({"frame": f, "puck": puck, "players": []}, (), pt.flight_revisions(f))
    return out + reviser.flush(), truth, reviser


def test_a_dropped_puck_revises_its_first_frames_once_its_flight_is_recognised():
    # The puck falls straight down, its ray meets the ice up to 1.8 m nearer the camera. Its
    # landing hidden, the general flight is recognised after 10 rays; then every earlier frame
    # of the fall gets the fit's position and height (unmeasured), which a writer holding those
    # records applies (vision.revisions). Hidden as it lands, the puck is coasted: along the
    # parabola only down to the ice, never below it.
    out, truth, reviser = _drop_through_tracker(24, seen_until=12)
    assert reviser.revised >= 8
    in_air = [f for f in range(24) if truth[f][2] > 0.3]
    assert len(in_air) == 10
    for f in in_air:
        X = truth[f]
        ray = DROP_CAMERA[:2] + (X[:2] - DROP_CAMERA[:2]) * (DROP_CAMERA[2] - DROP_Z_PLANE) / (DROP_CAMERA[2] - X[2])
        assert np.hypot(*(ray - X[:2])) > 0.5  # the ray's spot on the ice
        pk = out[f]["puck"]
        if f >= 1:  # the first frame starts the track, the second the trajectory
            assert pk["measured"] is False and abs(pk["z"] - X[2]) < 0.15
            assert np.hypot(pk["x"] - X[0], pk["y"] - X[1]) < 0.3
    assert all(r["puck"] is None or r["puck"].get("z", DROP_Z_PLANE) >= DROP_Z_PLANE for r in out)


def test_a_face_off_drop_seen_to_land_is_placed_over_its_landing_spot():
    # The same drop with detector noise, its landing seen: the frames of the fall get the landing
    # spot and heights from each ray's distance beyond it (vision.puck_flight.drop_onto), where
    # the general ballistic fit, with six unknowns, cannot place the puck along its rays.
    out, truth, _ = _drop_through_tracker(20, seen_until=20, noise_m=0.005)
    in_air = [f for f in range(1, 20) if truth[f][2] - DROP_Z_PLANE >= 0.1]
    assert len(in_air) >= 8
    for f in in_air:
        pk = out[f]["puck"]
        assert pk["measured"] is False
        assert np.hypot(pk["x"] - 3.0, pk["y"] - 1.0) < 0.05 and abs(pk["z"] - truth[f][2]) < 0.05
    landed = [f for f in range(20) if truth[f][2] == DROP_Z_PLANE]
    assert all(out[f]["puck"]["measured"] and "z" not in out[f]["puck"] for f in landed[1:])


def test_a_loose_flight_fit_says_in_the_air_but_not_where():
    # The same lob with rays noisier (1.2 cm) than the detector states (0.5 cm): the parabola still
    # beats the sliding line (a flight), but explains the rays no better than their noise, so it
    # cannot place the puck along them: those frames are unknown, not the fit's position.
    from vision.puck_flight import GRAVITY_MPS2

    C, z_p = np.array([0.0, -23.0, 9.0]), 0.0127
    x0, v0 = np.array([-10.0, -2.0, z_p]), np.array([14.0, 1.0, 5.0])
    noise = np.random.default_rng(7).normal(0.0, 0.012, (18, 2))
    pt = PuckTracker(FPS, puck_z_m=z_p)
    in_flight = []
    for f in range(18):
        t = f / FPS
        X = x0 + v0 * t - np.array([0, 0, 0.5 * GRAVITY_MPS2 * t * t])
        ray = C[:2] + (X[:2] - C[:2]) * (C[2] - z_p) / (C[2] - X[2]) + noise[f]
        pt.predict(f)
        rec = pt.update(f, _puck_cands(ray), np.array([0.005]), [], C)
        if pt.flight is not None:
            assert pt.flight.rms_m > 0.005
            in_flight.append(rec)
    assert in_flight and all(r is None for r in in_flight)


def test_sliding_puck_never_gets_a_height():
    pt = PuckTracker(FPS)
    C = np.array([0.0, -23.0, 9.0])
    for f in range(20):
        pt.predict(f)
        r = pt.update(f, _puck_cands((2.0 + 0.6 * f, 1.0 - 0.1 * f)), np.array([0.005]), [], C)
    assert r["measured"] is True and "z" not in r


class _FakeGoalkeeperModel:
    """Stands in for the learned pose model: a goalkeeper box around the given rink spot (or none)."""

    class_names = ("puck", "sledge", "goalkeeper")

    def __init__(self, cam, xy_rink_m):
        self.cam, self.xy = cam, xy_rink_m
        self.calls = 0

    def __call__(self, image_bgr):
        from vision.detections import Detections

        self.calls += 1
        if self.xy is None:
            return Detections(np.zeros((0, 4)), np.zeros(0), np.zeros(0, int))
        x, y = self.xy
        uv = self.cam.project(np.array([[x - 0.6, y - 0.6, 0.0], [x + 0.6, y + 0.6, 0.0], [x, y, 1.3]]))
        box = [uv[:, 0].min(), uv[:, 1].min(), uv[:, 0].max(), uv[:, 1].max()]
        return Detections(np.array([box]), np.array([0.9]), np.array([2]))


@pytest.mark.parametrize("model_sees", ["him", "another", "none"])
def test_goalkeeper_by_appearance_gets_the_defending_team(kit, model_sees):
    """A player parked in front of the +x goal (home attacks +x, so away defends it).

    - "him": the goalkeeper the learned model sees there belongs to the defending team
      whatever his gear's colour (home-coloured here);
    - "another": the model sees a goalkeeper elsewhere and never him: he stays a skater of his
      jersey's team (a home attacker screening the goalkeeper);
    - "none": the model sees no goalkeeper anywhere, as the shipped one from 45 m above (0 of
      70, benchmarks/eval_goalkeepers.py): it has no say, and the away-coloured player who
      stays in front of his goal is its goalkeeper by position.
    """
    cam = kit.make_camera(target=(22.0, 0.0, 0.0), fov=30.0)
    drawer = kit.Drawer(kit.rink, cam)
    spot = (25.0, 0.3)
    box_at = {"him": spot, "another": (25.5, -2.5), "none": None}[model_sees]
    model = _FakeGoalkeeperModel(cam, box_at)
    tracker = FrameTracker(kit.rink, GAME, FPS, goalkeeper_detector=model)
    H = np.linalg.inv(cam.H_image_from_rink())
    colour = AWAY if model_sees == "none" else HOME
    for f in range(45):
        img, _ = drawer.frame({1: (spot, np.pi, colour)})
        obs = tracker.update(img, f, f / FPS, H)
    assert model.calls >= 4  # checked a few times a second, not every frame
    assert model.calls <= 45 // tracker._gk_every + 1
    (p,) = obs.players
    expected = {"him": ("goalkeeper", "away"), "another": ("skater", "home"), "none": ("goalkeeper", "away")}
    assert (p["role"], p["team"]) == expected[model_sees]


@pytest.mark.parametrize("model_sees", ["him", "none"])
def test_goalkeeper_checks_slow_down_once_the_verdict_is_made(kit, model_sees):
    """A goalkeeper parked in front of his goal for 5 s: the learned model is asked at the full
    rate until his track has GK_SETTLED_CHECKS votes ("him"), or until it has seen no goalkeeper
    anywhere that many times ("none": it has no say in this view), then GK_SETTLED_SLOWDOWN
    times less often; his role is the same."""
    from vision.tracking import GK_SETTLED_CHECKS, GK_SETTLED_SLOWDOWN

    cam = kit.make_camera(target=(22.0, 0.0, 0.0), fov=30.0)
    drawer = kit.Drawer(kit.rink, cam)
    spot = (25.0, 0.3)
    model = _FakeGoalkeeperModel(cam, spot if model_sees == "him" else None)
    tracker = FrameTracker(kit.rink, GAME, FPS, goalkeeper_detector=model)
    H = np.linalg.inv(cam.H_image_from_rink())
    n = 150
    for f in range(n):
        img, _ = drawer.frame({1: (spot, np.pi, AWAY)})
        obs = tracker.update(img, f, f / FPS, H)
    every = tracker._gk_every
    full_rate = n // every  # 15 checks at the full rate
    slow = GK_SETTLED_CHECKS + (n - GK_SETTLED_CHECKS * every) // (GK_SETTLED_SLOWDOWN * every) + 2
    assert GK_SETTLED_CHECKS <= model.calls <= slow < full_rate
    (p,) = obs.players
    assert (p["role"], p["team"]) == ("goalkeeper", "away")


def test_a_blade_at_the_picture_s_edge_is_twice_as_unsure():
    """A blade point within BLADE_EDGE_MARGIN_PX of the picture's bottom edge belongs to a
    silhouette the edge may cut: its covariance is BLADE_EDGE_SIGMA_FACTOR² that of the model. Two
    points two pixels apart on either side of the margin (the model itself barely changes between
    them): the one inside the margin has 4x the covariance, so 2x the sigma in every direction."""
    from vision.geometry import PlaneCamera, apply_homography
    from vision.sim.camera import Camera
    from vision.tracking import BLADE_EDGE_MARGIN_PX, BLADE_EDGE_SIGMA_FACTOR, blade_covariance_rink

    cam = Camera.from_look_at([0.0, -24.0, 9.0], [0.0, 0.0, 0.0], 50.0, 1280, 720)
    pc = PlaneCamera.from_homography(np.linalg.inv(cam.H_image_from_rink()), cam.width, cam.height)
    v_margin = cam.height - 1 - BLADE_EDGE_MARGIN_PX
    uv = np.array([[640.0, v_margin - 1.0], [640.0, v_margin + 1.0]])  # inside the picture; the second near its edge
    xy, _ = apply_homography(np.linalg.inv(cam.H_image_from_rink()), uv)
    S_in, S_edge = blade_covariance_rink(pc, xy)
    ratio = S_edge / S_in
    np.testing.assert_allclose(ratio, BLADE_EDGE_SIGMA_FACTOR ** 2, rtol=0.02)


def test_blade_covariance_is_tight_across_the_view_and_loose_along_it():
    """A side camera on the −y side looks along +y: a blade's x is known to its across-view
    model error plus a few pixels, its y only to the along-view error; a camera at the −x end the
    reverse. The metric part is exactly along²·a aᵀ + across²·c cᵀ with a the ground direction
    from the camera's foot to the point (hand-computed here)."""
    from vision.geometry import PlaneCamera
    from vision.sim.camera import Camera
    from vision.tracking import (BLADE_ACROSS_SIGMA_M, BLADE_ALONG_SIGMA_M, BLADE_LEGS_SIGMA_M, BLADE_PX_SIGMA_U,
                                 BLADE_PX_SIGMA_V, blade_covariance_rink, legs_resolvable)

    side = Camera.from_look_at([0.0, -24.0, 9.0], [0.0, 0.0, 0.0], 50.0, 1280, 720)
    end = Camera.from_look_at([-34.0, 0.0, 6.0], [-22.0, 0.0, 0.0], 50.0, 1280, 720)
    for cam, pt, foot in ((side, [3.0, 2.0], [0.0, -24.0]), (end, [-24.0, 1.0], [-34.0, 0.0])):
        pc = PlaneCamera.from_homography(np.linalg.inv(cam.H_image_from_rink()), cam.width, cam.height)
        S = blade_covariance_rink(pc, np.array([pt]))[0]
        np.testing.assert_allclose(S, S.T)
        assert np.all(np.linalg.eigvalsh(S) > 0)
        a = np.subtract(pt, foot) / np.linalg.norm(np.subtract(pt, foot))
        c = np.array([-a[1], a[0]])
        J = np.linalg.inv(pc.jacobian_image_from_rink(np.array([pt]))[0])
        metric = S - J @ np.diag([BLADE_PX_SIGMA_U ** 2, BLADE_PX_SIGMA_V ** 2]) @ J.T
        along2 = BLADE_ALONG_SIGMA_M ** 2 + (BLADE_LEGS_SIGMA_M ** 2 if legs_resolvable(pc, np.array([pt]))[0] else 0)
        np.testing.assert_allclose(metric, along2 * np.outer(a, a) + BLADE_ACROSS_SIGMA_M ** 2 * np.outer(c, c),
                                   atol=1e-6)
    S_side = blade_covariance_rink(PlaneCamera.from_homography(
        np.linalg.inv(side.H_image_from_rink()), 1280, 720), np.array([[3.0, 2.0]]))[0]
    S_end = blade_covariance_rink(PlaneCamera.from_homography(
        np.linalg.inv(end.H_image_from_rink()), 1280, 720), np.array([[-24.0, 1.0]]))[0]
    assert np.sqrt(S_side[0, 0]) < 0.2 < BLADE_ALONG_SIGMA_M <= np.sqrt(S_side[1, 1])
    assert np.sqrt(S_end[1, 1]) < 0.2 < BLADE_ALONG_SIGMA_M <= np.sqrt(S_end[0, 0])
    # Legs resolve where a 0.2 m leg spans the detector's 3 px opening at half resolution:
    # ≥ 30 px per ground metre in the frame. A near goal camera resolves them, a far view not.
    # Here: 85 px/m 10 m from the end camera, 9 px/m at the far end of the rink.
    near = PlaneCamera.from_homography(np.linalg.inv(end.H_image_from_rink()), 1280, 720)
    assert legs_resolvable(near, np.array([[-24.0, 1.0], [20.0, 1.0]])).tolist() == [True, False]


def test_blade_covariance_seen_from_above_takes_the_centroid_pixel_error():
    """Looking down steeply (elevation >= STEEP_VIEW_ELEVATION_DEG) the contact is under the body's
    centroid: the pixel part is STEEP_PX_SIGMA on both image axes, not the edges' (u, v) — the
    rest (along and across the view) is unchanged. Hand-computed as in the side-camera test."""
    from vision.geometry import PlaneCamera
    from vision.players import steep_view
    from vision.sim.camera import Camera
    from vision.tracking import (BLADE_ACROSS_SIGMA_M, BLADE_ALONG_SIGMA_M, BLADE_LEGS_SIGMA_M, BLADE_PX_SIGMA_U,
                                 STEEP_PX_SIGMA, blade_covariance_rink, legs_resolvable)

    # Tilted 38 degrees: its homography tells the focal length (a camera looking nearly straight
    # down would get FRONTO_PARALLEL_FOCAL_WIDTHS', and another foot).
    top = Camera.from_look_at([0.0, -15.0, 25.0], [5.0, 0.0, 0.0], 60.0, 1280, 720)
    pc = PlaneCamera.from_homography(np.linalg.inv(top.H_image_from_rink()), 1280, 720)
    pt = np.array([[5.0, 1.0]])
    assert steep_view(pc, pt)[0]  # atan(25 / 16.8 m) = 56 degrees
    S = blade_covariance_rink(pc, pt)[0]
    J = np.linalg.inv(pc.jacobian_image_from_rink(pt)[0])
    a = (pt[0] - [0.0, -15.0]) / np.linalg.norm(pt[0] - [0.0, -15.0])  # from the camera's foot (0, -15)
    c = np.array([-a[1], a[0]])
    along2 = BLADE_ALONG_SIGMA_M ** 2 + (BLADE_LEGS_SIGMA_M ** 2 if legs_resolvable(pc, pt)[0] else 0)
    metric = along2 * np.outer(a, a) + BLADE_ACROSS_SIGMA_M ** 2 * np.outer(c, c)
    np.testing.assert_allclose(S - J @ J.T * STEEP_PX_SIGMA ** 2, metric, atol=1e-6)
    assert STEEP_PX_SIGMA < BLADE_PX_SIGMA_U
    assert np.linalg.eigvalsh(S)[-1] < np.linalg.eigvalsh(J @ J.T * BLADE_PX_SIGMA_U ** 2 + metric)[-1]


def test_legs_reach_towards_the_camera_only_for_a_sledge_pointing_at_it():
    """Hand-computed from the sledge's geometry (IPC 300 g, 303, 305): legs 0.8 m long within
    the body's columns (half width 0.22 m), less the seat's half width 0.19 m."""
    from vision.tracking import blades_from_contact, legs_reach_towards_camera_m

    away = np.array([0.0, 1.0])  # the camera looks along +y
    head = lambda deg: np.array([np.sin(np.radians(deg)), -np.cos(np.radians(deg))])  # deg off "towards"
    assert legs_reach_towards_camera_m(away, head(0)) == pytest.approx(0.8 - 0.19)
    assert legs_reach_towards_camera_m(away, head(20)) == pytest.approx(
        min(0.8, 0.22 / np.sin(np.radians(20))) * np.cos(np.radians(20)) - 0.19)
    assert legs_reach_towards_camera_m(away, head(60)) == 0.0  # only 0.25 m of leg in the columns
    assert legs_reach_towards_camera_m(away, head(90)) == 0.0  # side-on
    assert legs_reach_towards_camera_m(away, head(180)) == 0.0  # pointing away: the seat is nearest
    assert legs_reach_towards_camera_m(away, None) == 0.0
    contact = np.array([2.0, 3.0])
    plain = blades_from_contact(contact, away, head(0))
    legs = blades_from_contact(contact, away, head(0), legs_seen=True)
    np.testing.assert_allclose(legs - plain, [[0.0, 0.61], [0.0, 0.61]], atol=1e-9)


def test_player_blade_covariances_per_record_player():
    """The covariance at each tracks-record player's blade midpoint; None without blades or camera."""
    from vision.geometry import PlaneCamera
    from vision.sim.camera import Camera
    from vision.tracking import blade_covariance_rink, player_blade_covariances

    cam = Camera.from_look_at([0.0, -24.0, 9.0], [0.0, 0.0, 0.0], 50.0, 1280, 720)
    H = np.linalg.inv(cam.H_image_from_rink())
    players = [{"id": 1, "blades": [[2.0, 1.1], [2.0, 0.9]]}, {"id": 2, "blades": []},
               {"id": 3, "blades": [[-5.0, 3.0], [-5.2, 3.0]]}]
    covs = player_blade_covariances(H, 1280, 720, players)
    expect = blade_covariance_rink(PlaneCamera.from_homography(H, 1280, 720), np.array([[2.0, 1.0], [-5.1, 3.0]]))
    np.testing.assert_allclose(covs[0], expect[0])
    assert covs[1] is None
    np.testing.assert_allclose(covs[2], expect[1])
    assert player_blade_covariances(np.zeros((3, 3)), 1280, 720, players) == [None] * 3


def test_blade_sigma_factor_by_team_follows_the_kits():
    """A white or silver kit reads as ice, so its player's blades take the wider factor; a coloured
    kit the narrower; a player of unknown team the wider of the game's two (``BLADE_SIGMA_FACTOR_*``)."""
    from vision.tracking import (BLADE_SIGMA_FACTOR_COLOURED_KIT, BLADE_SIGMA_FACTOR_ICE_LIKE_KIT,
                                 blade_sigma_factor_by_team)

    assert BLADE_SIGMA_FACTOR_COLOURED_KIT < 1.0 < BLADE_SIGMA_FACTOR_ICE_LIKE_KIT
    white = {"teams": {"home": {"color": "#c8102e"}, "away": {"color": "#eef0f0"}}}
    assert blade_sigma_factor_by_team(white) == {"home": BLADE_SIGMA_FACTOR_COLOURED_KIT,
                                                 "away": BLADE_SIGMA_FACTOR_ICE_LIKE_KIT,
                                                 None: BLADE_SIGMA_FACTOR_ICE_LIKE_KIT}
    silver = {"teams": {"home": {"color": "#a5a8aa"}, "away": {"color": "#0b3d91"}}}
    assert blade_sigma_factor_by_team(silver)["home"] == BLADE_SIGMA_FACTOR_ICE_LIKE_KIT
    coloured = {"teams": {"home": {"color": "#c8102e"}, "away": {"color": "#0b3d91"}}}
    assert set(blade_sigma_factor_by_team(coloured).values()) == {BLADE_SIGMA_FACTOR_COLOURED_KIT}


def test_the_kit_factor_scales_the_blade_sigmas():
    """``sigma_factor`` multiplies every sigma of the model (its covariance by the factor squared),
    per point; through ``player_blade_covariances`` by each record player's team."""
    from vision.geometry import PlaneCamera
    from vision.sim.camera import Camera
    from vision.tracking import blade_covariance_rink, player_blade_covariances

    cam = Camera.from_look_at([0.0, -24.0, 9.0], [0.0, 0.0, 0.0], 50.0, 1280, 720)
    H = np.linalg.inv(cam.H_image_from_rink())
    pc = PlaneCamera.from_homography(H, 1280, 720)
    xy = np.array([[2.0, 1.0], [-5.1, 3.0]])
    plain = blade_covariance_rink(pc, xy)
    np.testing.assert_allclose(blade_covariance_rink(pc, xy, sigma_factor=np.array([0.5, 2.0])),
                               plain * np.array([0.25, 4.0])[:, None, None])
    players = [{"id": 1, "team": "home", "blades": [[2.0, 1.1], [2.0, 0.9]]},
               {"id": 3, "team": None, "blades": [[-5.0, 3.0], [-5.2, 3.0]]}]
    covs = player_blade_covariances(H, 1280, 720, players, {"home": 0.5, "away": 3.0, None: 3.0})
    np.testing.assert_allclose(covs[0], 0.25 * plain[0])
    np.testing.assert_allclose(covs[1], 9.0 * plain[1])


def test_a_spot_in_a_players_torso_band_is_on_him_not_a_puck():
    """The ice seen inside a player's torso band lies behind his body: a dark spot there (a number
    on a light jersey) is no puck. The modelled band is widened by a quarter of its width each
    side (it sits off the real torso by up to that, render 1526) and its height taken in, so a
    puck on the ice at his blades or stick, below the band, is kept."""
    from vision.tracking import TORSO_INSET, TORSO_WIDEN, _inside_torsos

    torso = np.array([[141.0, 544.0, 177.0, 591.0]])  # 36 × 47 px, render 1526's near player
    w, h = 36.0, 47.0
    pts = np.array([
        [173.0, 575.0],  # his number, right of the band's model: on him
        [159.0, 560.0],  # the band's middle
        [177.0 + TORSO_WIDEN * w - 1.0, 567.0],  # just inside the widened edge
        [177.0 + TORSO_WIDEN * w + 1.0, 567.0],  # just outside it
        [172.0, 642.0],  # at his contact (the blades): below the band
        [200.0, 630.0],  # a carried puck at his stick
        [159.0, 544.0 + TORSO_INSET * h - 1.0],  # the band's top edge, inset: kept
    ])
    assert _inside_torsos(pts, torso).tolist() == [True, True, True, False, False, False, False]
    assert _inside_torsos(pts, np.zeros((0, 4))).tolist() == [False] * len(pts)


def test_rebound_hidden_for_five_frames_is_picked_up_where_it_reappears(kit):
    """A puck sliding +x at 9 m/s, hidden for 5 frames (behind a post or a pad) while it
    bounces back at 6 m/s across: the first frame it shows again is a measurement at its
    true spot (a kick after a hidden stretch), not 1–2 frames later after a re-acquisition."""
    f_hit = 14

    def truth(f):
        t, th = f / FPS, f_hit / FPS
        if f <= f_hit:
            return 1.0 + 9.0 * t, -2.0
        return 1.0 + 9.0 * th - 3.0 * (t - th), -2.0 + 5.0 * (t - th)

    def puck_at(f, t):
        return None if f_hit - 1 <= f < f_hit + 4 else (*truth(f), 0.0127)

    recs = [o.puck for o, _ in _run(kit, 26, lambda t: {}, puck_at)]
    f_back = f_hit + 4
    assert all(r is not None and r["measured"] for r in recs[3:f_hit - 1])
    assert recs[f_back] is not None and recs[f_back]["measured"]
    assert np.hypot(recs[f_back]["x"] - truth(f_back)[0], recs[f_back]["y"] - truth(f_back)[1]) < 0.05
    for f in range(f_back + 2, 26):
        assert recs[f]["measured"] and np.hypot(recs[f]["x"] - truth(f)[0], recs[f]["y"] - truth(f)[1]) < 0.05


# ------------------------------------------------------------------ the learned puck verifier's veto
def _puck_records(kit, verifier, n=12):
    tracker = FrameTracker(kit.rink, GAME, FPS, goalkeeper_detector=None, puck_verifier=verifier)
    H = np.linalg.inv(kit.cam.H_image_from_rink())
    recs = []
    for f in range(n):
        t = f / FPS
        img, _ = kit.drawer.frame({}, (1.0 + 6.0 * t, -2.0 + 1.5 * t, 0.0127))
        recs.append(tracker.update(img, f, t, H).puck)
    return recs, tracker


def test_verifier_vetoes_under_its_threshold_and_never_promotes(kit):
    from vision.detections import Detections

    p = np.array([1.0, 0.1, 0.5, 0.19])
    tracker = FrameTracker(kit.rink, GAME, FPS, goalkeeper_detector=None, puck_verifier=lambda f, c, a: p)
    cands = Detections.from_centers(np.zeros((4, 2)), np.ones(2), np.array([0.3, 0.6, 0.05, 0.9]),
                                    expected_area_px=np.full(4, 20.0))
    tracker._verify(np.zeros((8, 8, 3), np.uint8), cands)
    # p >= 0.2 keeps the classical score (never raised to p); p < 0.2 caps it at p.
    assert np.allclose(cands.confidence, [0.3, 0.1, 0.05, 0.19])
    assert np.allclose(cands.data["classical_score"], [0.3, 0.6, 0.05, 0.9])


def test_verifier_that_sees_no_puck_stops_every_track(kit):
    classical, _ = _puck_records(kit, None)
    assert all(r is not None and r["measured"] for r in classical[3:])
    never, _ = _puck_records(kit, lambda frame, c, a: np.zeros(len(c)))
    assert all(r is None for r in never)


def test_a_failing_verifier_warns_and_falls_back_to_classical_scores(kit):
    def broken(frame, c, a):
        raise RuntimeError("onnxruntime: bad model")

    with pytest.warns(UserWarning, match="puck verifier failed"):
        recs, tracker = _puck_records(kit, broken)
    assert tracker.puck_verifier is None
    assert recs == _puck_records(kit, None)[0]


def test_a_damaged_verifier_model_is_said_once_and_skipped(tmp_path, monkeypatch):
    import vision.puck_verifier as pv
    from vision.tracking import _default_puck_verifier

    bad = tmp_path / "puck_verifier.onnx"
    bad.write_bytes(b"not an onnx model")
    monkeypatch.setattr(pv, "DEFAULT_MODEL_PATH", bad)
    _default_puck_verifier.cache_clear()
    try:
        with pytest.warns(UserWarning, match="puck verifier .* not loaded"):
            assert _default_puck_verifier() is None
    finally:
        _default_puck_verifier.cache_clear()


def test_players_detected_on_keyframes_are_tracked_on_every_frame(kit, monkeypatch):
    """At 30 frames/s and 15 detections a second, the detector runs on every other frame and
    the tracks report each frame's blades between keyframes, predicted along the motion: as
    near the truth as when every frame is detected."""
    from vision.players import PlayerDetector

    calls = []
    orig = PlayerDetector.detect

    def counting(self, scene):
        calls.append(1)
        return orig(self, scene)

    monkeypatch.setattr(PlayerDetector, "detect", counting)

    def players_at(t):
        return {1: ((-2.0 + 4.0 * t, 0.5), 0.0, HOME)}

    def blade_errors(**kw):
        tracker = FrameTracker(kit.rink, GAME, FPS, **kw)
        H = np.linalg.inv(kit.cam.H_image_from_rink())
        errs = []
        for f in range(30):
            img, blades = kit.drawer.frame(players_at(f / FPS), None)
            o = tracker.update(img, f, f / FPS, H)
            if f >= 6:
                assert len(o.players) == 1, f"frame {f}"
                errs.append(np.linalg.norm(np.mean(o.players[0]["blades"], axis=0) - np.mean(blades[1], axis=0)))
        return np.array(errs)

    every = blade_errors(player_detect_hz=None)
    assert len(calls) == 30
    calls.clear()
    keyframes = blade_errors()
    assert len(calls) == 15  # frames 0, 2, 4, ...
    assert np.median(keyframes) <= np.median(every) + 0.03
    assert keyframes.max() <= every.max() + 0.05


def test_player_tracker_updated_every_other_frame_keeps_its_limits_in_seconds():
    from vision.tracking import PlayerTracker

    every = PlayerTracker(FPS)
    other = PlayerTracker(FPS, update_every=2)
    assert abs(other.max_coast * 2 - every.max_coast) <= 1 and abs(other.output_coast * 2 - every.output_coast) <= 1
    # A track unmatched for 0.3 s is still reported, and gone after 1.5 s, either way.
    for tr_ in (every, other):
        for _ in range(3):
            tr_.predict(tr_.update_every)
            tr_.update(np.array([[1.0, 2.0]]), np.array([0.9]), ["home"], [0.9])
    for tr_ in (every, other):
        n_updates = int(round(0.3 * FPS / tr_.update_every))
        for _ in range(n_updates):
            tr_.predict(tr_.update_every)
            tr_.update(np.zeros((0, 2)), np.zeros(0), [], [])
        assert len(tr_.reported()) == 1
        for _ in range(int(round(1.3 * FPS / tr_.update_every))):
            tr_.predict(tr_.update_every)
            tr_.update(np.zeros((0, 2)), np.zeros(0), [], [])
        assert not tr_.tracks


@pytest.mark.parametrize("second_hidden,same_id", [(False, True), (True, False)])
def test_a_player_hidden_for_seconds_gets_his_id_back_where_his_glide_leads(second_hidden, same_id):
    """A home sledge gliding at 2 m/s along +x is hidden for 2.5 s (behind a player nearer the
    camera), longer than a track coasts (1.5 s), and seen again on his path: the same id
    (``REVIVE_MAX_S``, ``REVIVE_SPREAD_MPS``). With a second home sledge hidden near the same
    spot, either could be him: a new id."""
    from vision.tracking import PlayerTracker

    pt = PlayerTracker(FPS)

    def step(xys):
        pt.predict(1)
        xy = np.array(xys, dtype=np.float64).reshape(-1, 2)
        return pt.update(xy, np.full(len(xy), 0.9), ["home"] * len(xy), [0.9] * len(xy))

    seen = [step([[2.0 / FPS * f, 3.0]] + ([[2.0 / FPS * f + 1.0, 4.2]] if second_hidden else []))[0]
            for f in range(30)]
    assert len(set(seen)) == 1
    for f in range(30, 105):  # hidden 2.5 s
        step([])
    assert not any(tr.id == seen[0] for tr in pt.tracks)  # the coast is over
    back = step([[2.0 / FPS * 105, 3.0]])[0]
    assert (back == seen[0]) is same_id
    if same_id:
        assert seen[0] in [tr.id for tr in pt.reported()]  # reported at once: it was confirmed


def _coast_from(pt, xy0, v, n):
    """Put the track at ``xy0`` moving at ``v`` (m/s), as just measured, then coast ``n`` frames
    with no candidates; the records of the coast."""
    from vision.puck import empty_candidates
    from vision.tracking import KalmanCV

    pt.kf = KalmanCV(np.asarray(xy0, float), 0.01, 1.0, 40.0)
    pt.kf.x[2:] = v
    pt._record(True)
    out = []
    for f in range(1, n + 1):
        pt.predict(f)
        out.append(pt.update(f, empty_candidates(), np.zeros(0), []))
    return out


@pytest.mark.parametrize("start,v,side", [
    ((25.0, 0.3), (8.0, 0.0), "in_net"),      # into the net through the mouth: stopped by its back
    ((28.5, 0.2), (-8.0, 0.0), "behind_net"),  # from behind the net: stopped by its back
    ((0.0, 14.0), (0.0, 9.0), "boards"),       # into the boards
])
def test_coasted_puck_does_not_pass_through_the_net_or_the_boards(start, v, side):
    """A sliding puck cannot pass through the boards or the goal frame (218 b, c): a coast
    whose predicted path crosses them ends (unknown) instead of carrying the puck beyond."""
    from calibration.rink import RinkModel, RinkSpec
    from vision.ice import puck_walls_rink_m

    rink = RinkModel(RinkSpec.for_layout("ipc"))
    r = 0.0381
    back_x = rink.spec.goal_line_x_m + rink.spec.goal_depth_m
    free = _coast_from(PuckTracker(FPS, max_coast_s=1.0), start, v, 9)
    assert all(rec is not None for rec in free)  # without walls it coasts on
    walled = _coast_from(PuckTracker(FPS, max_coast_s=1.0, walls_rink_m=puck_walls_rink_m(rink, r)), start, v, 9)
    n_seen = next(i for i, rec in enumerate(walled) if rec is None)
    assert 0 < n_seen < 9 and all(rec is None for rec in walled[n_seen:])
    last, beyond = walled[n_seen - 1], free[n_seen]
    if side == "in_net":
        assert 26.025 < last["x"] < back_x - r < beyond["x"] + r
    elif side == "behind_net":
        assert last["x"] > back_x + r > beyond["x"] - r
    else:
        assert last["y"] < 15.0 - r < beyond["y"] + r


def test_coasted_puck_passes_beside_the_net():
    """Wide of the posts (|y| > 0.94 m) nothing stands on the goal line: the coast goes on."""
    from calibration.rink import RinkModel, RinkSpec
    from vision.ice import puck_walls_rink_m

    rink = RinkModel(RinkSpec.for_layout("ipc"))
    walled = _coast_from(PuckTracker(FPS, max_coast_s=1.0, walls_rink_m=puck_walls_rink_m(rink, 0.0381)),
                         (24.0, 1.2), (8.0, 0.0), 9)
    assert all(rec is not None for rec in walled) and walled[-1]["x"] > 26.025


def test_the_players_body_comes_from_the_games_profile(kit):
    # The sponge profile's players stand (team_composition.player_kind "standing"); IPC's sit on
    # sledges. A plain GAME.json dict names a profile, not a body: seated unless told otherwise.
    from rulesfromvideo.game import GameDescriptor
    from vision.players import SEATED, STANDING

    sponge = GameDescriptor.from_dict({**GAME, "rules": "sponge-westridge"})
    ipc = GameDescriptor.from_dict(GAME)
    for game, body in ((sponge, STANDING), (ipc, SEATED), (GAME, SEATED)):
        tracker = FrameTracker(kit.rink, game, FPS, goalkeeper_detector=None, puck_verifier=None)
        assert tracker.body is body and tracker.player_detector.body is body
    told = FrameTracker(kit.rink, GAME, FPS, goalkeeper_detector=None, puck_verifier=None, body=STANDING)
    assert told.player_detector.body is STANDING


def test_a_still_track_of_unknown_team_is_reported_only_when_it_stands_out_of_the_picture():
    # No jersey colour and no movement: paint on the ice (a logo), not reported. A detection that
    # runs out of the picture's top edge is a body standing up out of view: reported, team unknown.
    from vision.tracking import PlayerTracker

    for cut, expect in ((False, 0), (True, 1)):
        pt = PlayerTracker(FPS, confirm_hits=3)
        for _ in range(5):
            pt.predict()
            pt.update(np.array([[12.0, 9.5]]), np.array([0.9]), [None], [0.0], np.array([cut]))
        reported = pt.reported()
        assert len(reported) == expect
        assert all(tr.votes.team is None for tr in reported)


def test_a_team_read_only_where_no_jersey_shows_does_not_make_paint_a_player():
    """A white kit reads as plain ice, so its team is read where no jersey shows
    (``TeamAssignment.by_absence``) — and so does a mark on white ice. With only such votes a still
    track is not reported (drawn-kit render 1489: three centre-ice marks reported as white
    attackers made a crease "clear" while an attacker sat in it), unless the learned detector saw a
    sledge there; one that moves is, in white; a still one with a jersey's colour is, as before."""
    from vision.tracking import PlayerTracker

    def run(absent: bool, step_m: float) -> list:
        pt = PlayerTracker(FPS, confirm_hits=3)
        for k in range(12):
            pt.predict()
            pt.update(np.array([[2.0 + step_m * k, 1.0]]), np.array([0.9]), ["away"], [0.8], None, [absent])
        return pt.reported()

    assert run(absent=True, step_m=0.0) == []
    pt = PlayerTracker(FPS, confirm_hits=3)
    for k in range(12):
        pt.predict()
        pt.update(np.array([[2.0, 1.0]]), np.array([0.9]), ["away"], [0.8], None, [True])
        pt.tracks[0].model_looks += k == 5  # the learned detector saw a sledge there once
    assert [tr.votes.team for tr in pt.reported()] == ["away"]
    moving = run(absent=True, step_m=0.1)
    assert len(moving) == 1 and moving[0].votes.team == "away"
    still_jersey = run(absent=False, step_m=0.0)
    assert len(still_jersey) == 1 and still_jersey[0].votes.team == "away"


def test_a_still_dark_blob_at_the_boards_is_not_a_player(kit):
    """An advert on the boards, seen from above, is a jersey-coloured blob at the ice's edge that
    never moves: not reported. The same blob 1.5 m out (a player waiting), or one at the boards
    that moves 0.5 m along them (a player working the boards), is."""
    from vision.tracking import PlayerTracker

    boards = kit.rink.boards_outline_xy()
    side_y = kit.rink.spec.width_m / 2  # the side boards' inner face at centre ice, m
    cases = [(lambda f: (0.0, side_y - 0.4), 0), (lambda f: (0.0, side_y - 1.5), 1),
             (lambda f: (0.05 * f, side_y - 0.4), 1)]
    for at, expect in cases:
        pt = PlayerTracker(FPS, confirm_hits=3, boards_xy_m=boards)
        for f in range(12):
            pt.predict()
            pt.update(np.array([at(f)]), np.array([0.9]), ["away"], [0.9])
        assert len(pt.reported()) == expect, at(0)
    # Without the boards' outline nothing is known of them: the still blob is reported.
    pt = PlayerTracker(FPS, confirm_hits=3)
    for f in range(12):
        pt.predict()
        pt.update(np.array([[0.0, side_y - 0.4]]), np.array([0.9]), ["away"], [0.9])
    assert len(pt.reported()) == 1


def test_goalkeeper_shuffling_across_his_crease_keeps_his_blades_across_the_view(kit):
    """A goalkeeper moves sideways along his goal line while his sledge points out at the play
    (heading π in front of the +x goal): his direction of travel is not where his sledge points,
    so his blades are not laid across it. A goal camera behind that goal looks along −x: the
    blades lie side by side across its view (along y), as the drawn ones do."""
    cam = type(kit.cam).from_look_at([31.0, 0.0, 6.0], [22.0, 0.0, 0.0], 60.0, 1280, 720)
    drawer = kit.Drawer(kit.rink, cam)
    tracker = FrameTracker(kit.rink, GAME, FPS, goalkeeper_detector=None)
    H = np.linalg.inv(cam.H_image_from_rink())
    for f in range(45):
        spot = (25.0, -0.8 + 1.2 * f / FPS)  # 1.2 m/s sideways: well above the tracker's 0.6 m/s heading
        img, blades = drawer.frame({1: (spot, np.pi, AWAY)})
        obs = tracker.update(img, f, f / FPS, H)
    (p,) = obs.players
    assert p["role"] == "goalkeeper"
    est, truth = np.array(p["blades"]), blades[1]
    gap = est[1] - est[0]
    assert abs(gap[1]) > 4 * abs(gap[0])  # side by side across the view, as the truth's
    e = min(np.linalg.norm(est - truth, axis=1).max(), np.linalg.norm(est[::-1] - truth, axis=1).max())
    assert e < 0.25, (est, truth)


def test_a_goalkeeper_seen_from_above_has_his_blades_behind_his_body_towards_his_goal(kit):
    """A goalkeeper sits still in front of the -x goal, his sledge pointing up the ice at the
    play. Seen from above the contact is the ground under his body's mass, ahead of his blades
    along the sledge (IPC 303, 305) as a skater's; standing still, his travel gives no heading,
    but where he faces does: his blades are taken BLADES_BEHIND_BODY_CENTRE_M back towards his
    goal line, side by side across it (tuning renders end to end: without it, 42 cm up the ice
    from the truth's, median, overhead views)."""
    cam = type(kit.cam).from_look_at([-23.0, -3.0, 22.0], [-24.0, 0.0, 0.0], 50.0, 1280, 720)
    drawer = kit.Drawer(kit.rink, cam)
    tracker = FrameTracker(kit.rink, GAME, FPS, goalkeeper_detector=None)
    H = np.linalg.inv(cam.H_image_from_rink())
    for f in range(45):
        img, blades = drawer.frame({1: ((-25.0, 0.3), 0.0, AWAY)})
        obs = tracker.update(img, f, f / FPS, H)
    (p,) = obs.players
    assert p["role"] == "goalkeeper"
    est, truth = np.array(p["blades"]), blades[1]
    assert abs(est.mean(axis=0)[0] - truth.mean(axis=0)[0]) < 0.1, (est, truth)
    gap = est[1] - est[0]
    assert abs(gap[1]) > 4 * abs(gap[0])  # side by side across the ice's length, as the truth's


def test_blades_seen_from_the_side_are_behind_the_leaning_body_across_the_view():
    """From the side the contact is under the body's tallest columns, the torso and helmet a
    seated player leans forward over his frame (IPC 305: the blades under the seat). Across the
    view that lean moves the contact ahead along the sledge, so its blades are taken
    TORSO_AHEAD_OF_SEAT_M back times the part of the heading across the view; a sledge heading
    along the view (the lean only raises the silhouette), one of unknown heading and a standing
    player keep the seat beyond the contact along the view."""
    from vision.players import BLADE_HALF_GAP_M, SEATED, STANDING
    from vision.tracking import TORSO_AHEAD_OF_SEAT_M, blades_from_contact

    c, away = np.array([4.0, -2.0]), np.array([0.0, 1.0])
    beyond = c + SEATED.centre_beyond_contact_m * away
    across = blades_from_contact(c, away, np.array([1.0, 0.0]))
    np.testing.assert_allclose(across.mean(axis=0), beyond - [TORSO_AHEAD_OF_SEAT_M, 0.0], atol=1e-12)
    np.testing.assert_allclose(abs(across[0, 1] - across[1, 1]), 2 * BLADE_HALF_GAP_M, atol=1e-12)
    h = np.array([0.6, 0.8])  # 0.6 of it across the view
    np.testing.assert_allclose(blades_from_contact(c, away, h).mean(axis=0),
                               beyond - [0.6 * TORSO_AHEAD_OF_SEAT_M, 0.0], atol=1e-12)
    np.testing.assert_allclose(blades_from_contact(c, away, np.array([0.0, -1.0])).mean(axis=0), beyond, atol=1e-12)
    np.testing.assert_allclose(blades_from_contact(c, away, None).mean(axis=0), beyond, atol=1e-12)
    feet = c + STANDING.centre_beyond_contact_m * away
    np.testing.assert_allclose(blades_from_contact(c, away, np.array([1.0, 0.0]), body=STANDING).mean(axis=0),
                               feet, atol=1e-12)


def test_blades_seen_from_above_are_behind_the_body_along_the_heading():
    """Seen from above the contact is the ground under the body's mass, which lies ahead of the
    blades (IPC 300 b, 305, 306 a: blades under the seat at the frame's rear; 303: the legs along
    the frame in front): the blades are BLADES_BEHIND_BODY_CENTRE_M behind it along the heading,
    BLADE_HALF_GAP_M either side; without a heading they stay about it; a standing player's
    feet stay under his body."""
    from vision.players import BLADE_HALF_GAP_M, STANDING
    from vision.tracking import BLADES_BEHIND_BODY_CENTRE_M, blades_from_contact

    c, away = np.array([4.0, -2.0]), np.array([0.0, 1.0])
    h = np.array([0.6, 0.8])
    got = blades_from_contact(c, away, h, under_body=True)
    seat = c - BLADES_BEHIND_BODY_CENTRE_M * h
    left = np.array([-0.8, 0.6])
    np.testing.assert_allclose(got, [seat + BLADE_HALF_GAP_M * left, seat - BLADE_HALF_GAP_M * left], atol=1e-12)
    np.testing.assert_allclose(blades_from_contact(c, away, None, under_body=True).mean(axis=0), c, atol=1e-12)
    np.testing.assert_allclose(blades_from_contact(c, away, h, under_body=True, body=STANDING).mean(axis=0), c,
                               atol=1e-12)


class _FakeSledgeModel:
    """Stands in for the learned pose model: a sledge box around each rink spot in ``spots``
    (set by the test before each frame), scoring 0.9, or the spot's third value."""

    class_names = ("puck", "sledge", "goalkeeper")

    def __init__(self, cam):
        self.cam, self.spots, self.calls = cam, [], 0

    def __call__(self, image_bgr):
        from vision.detections import Detections

        self.calls += 1
        boxes, scores = [], []
        for x, y, *score in self.spots:
            uv = self.cam.project(np.array([[x - 0.7, y - 0.7, 0.0], [x + 0.7, y + 0.7, 0.0], [x, y, 1.2]]))
            boxes.append([uv[:, 0].min(), uv[:, 1].min(), uv[:, 0].max(), uv[:, 1].max()])
            scores.append(score[0] if score else 0.9)
        if not boxes:
            return Detections(np.zeros((0, 4)), np.zeros(0), np.zeros(0, int))
        return Detections(np.array(boxes), np.array(scores), np.ones(len(boxes), int))


@pytest.mark.parametrize("case", ["paint", "seen", "faint", "blind", "standing"])
def test_a_still_track_the_model_never_sees_as_a_sledge_is_paint(kit, case):
    """A still blob in the home colour at centre ice beside two moving players, for 5 s.

    - "paint": the model boxes the moving players but never the still one, as a logo in the ice
      in a team's colour: reported until PAINT_CHECKS checks have missed it, then no more;
    - "seen": the model boxes him too: a player waiting for a face-off, reported throughout;
    - "faint": the model boxes him at 0.2 only, under what counts as seen (LEARNED_CONF) but
      above PAINT_CLEAR_SCORE, as it does most real players it misses (and few logos): no miss
      is counted, he is reported throughout;
    - "blind": the model boxes no one (a view it cannot see sledges in): no say, reported;
    - "standing": sponge players (the model has only seen sledges): never checked, reported.
    """
    from vision.players import STANDING
    from vision.tracking import PAINT_CHECKS

    drawer = kit.drawer
    model = _FakeSledgeModel(kit.cam)
    body = STANDING if case == "standing" else None
    tracker = FrameTracker(kit.rink, GAME, FPS, goalkeeper_detector=model, puck_verifier=None, body=body)
    H = np.linalg.inv(kit.cam.H_image_from_rink())
    still = (3.0, 2.0)

    def movers(f):
        return (-4.0 + 0.1 * f, -3.0), (10.0 - 0.08 * f, 4.0)

    seen_at = {}
    n = 150
    for f in range(n):
        a, b = movers(f)
        model.spots = {"paint": [a, b], "seen": [a, b, still], "faint": [a, b, (*still, 0.2)], "blind": [],
                       "standing": [a, b]}[case]
        img, _ = drawer.frame({1: (still, 0.0, HOME), 2: (a, 0.0, HOME), 3: (b, np.pi, AWAY)},
                              standing=case == "standing")
        obs = tracker.update(img, f, f / FPS, H)
        for p in obs.players:
            if np.linalg.norm(np.mean(p["blades"], axis=0) - still) < 0.6:
                seen_at[f] = p["team"]
    assert seen_at.get(20) == "home"  # reported from his first second in every case
    moving_at_end = [p for p in obs.players if np.linalg.norm(np.mean(p["blades"], axis=0) - still) >= 0.6]
    assert len(moving_at_end) == 2  # the moving players are never in question
    if case == "paint":
        assert (n - 1) not in seen_at
        last = max(seen_at)
        # Gone once PAINT_CHECKS checks (one per ``_gk_every`` frames) have missed him.
        assert PAINT_CHECKS * tracker._gk_every <= last < (PAINT_CHECKS + 3) * tracker._gk_every
        assert tracker.paint.is_paint(np.array(still))
    else:
        assert (n - 1) in seen_at
        assert not tracker.paint.is_paint(np.array(still))
    if case == "seen":
        assert model.calls <= 3  # one look decides the spot: no more checks there
    if case == "faint":
        assert tracker.paint.undecided(np.array(still))  # checked on, never counted a miss
        assert model.calls > PAINT_CHECKS
    if case == "standing":
        assert model.calls == 0


def test_a_spot_a_player_waited_on_is_paint_again_once_he_has_gone(kit):
    """A home player waits still at a spot for 1.5 s and the model boxes him (a face-off on a
    centre-ice logo); he skates off; from 2.5 s a still blob in the home colour that the model never
    boxes lies on the same spot (the logo's letters, fresh render 782). The waiting player is
    reported throughout; the blob is found to be paint once PAINT_CHECKS checks have missed it after
    he left. Before stop 42 his look made the spot a player's for good and the blob stayed a
    player to the end."""
    from vision.tracking import PAINT_CHECKS

    model = _FakeSledgeModel(kit.cam)
    tracker = FrameTracker(kit.rink, GAME, FPS, goalkeeper_detector=model, puck_verifier=None)
    H = np.linalg.inv(kit.cam.H_image_from_rink())
    spot = (3.0, 2.0)
    leave, logo_from, n = 45, 75, 240

    def movers(f):
        return (-4.0 + 0.1 * f, -3.0), (10.0 - 0.08 * f, 4.0)

    waiting, logo = [], []
    for f in range(n):
        a, b = movers(f)
        scene = {2: (a, 0.0, HOME), 3: (b, np.pi, AWAY)}
        waiter = spot if f < leave else (spot[0] - 0.1 * (f - leave), spot[1] + 0.1 * (f - leave))
        if f < leave or waiter[0] > -6.0:
            scene[1] = (waiter, np.pi, HOME)
        if f >= logo_from:
            scene[4] = (spot, 0.0, HOME)
        model.spots = [a, b] + ([waiter] if 1 in scene else [])
        img, _ = kit.drawer.frame(scene)
        obs = tracker.update(img, f, f / FPS, H)
        near = [p for p in obs.players if np.linalg.norm(np.mean(p["blades"], axis=0) - spot) < 0.6]
        if f < leave:
            waiting.append(bool(near))
        elif f >= logo_from:
            logo.append(bool(near))
    assert all(waiting[15:])  # the waiting player, reported while he waits
    assert any(logo[:30])  # the logo blob is reported at first (a still player, as far as anyone knows)
    assert not logo[-1], "the blob is found to be paint"
    gone = len(logo) - logo[::-1].index(True)  # from here on never a player again
    # Paint after PAINT_CHECKS checks (one per ``_gk_every`` frames) since he left.
    assert logo_from + gone < leave + (PAINT_CHECKS + 6) * tracker._gk_every
    assert tracker.paint.is_paint(np.array(spot))


def test_a_logo_whose_blob_jitters_is_checked_and_found_to_be_paint(kit):
    """A blob in the home colour that the model never boxes, as a logo whose blob changes with
    the view: it swings 1.2 m either side of where it began (more than min_move_m, never
    PAINT_STILL_M from its start), beside two moving players the model does box. It is checked as
    a still track is, found to be paint, and no longer reported by the end; the moving players
    are never in question. (Counted as moving, it was never checked: reported to the end.)"""
    from vision.tracking import PAINT_STILL_M

    model = _FakeSledgeModel(kit.cam)
    tracker = FrameTracker(kit.rink, GAME, FPS, goalkeeper_detector=model, puck_verifier=None)
    H = np.linalg.inv(kit.cam.H_image_from_rink())
    seen_at, logo_ids = set(), set()
    for f in range(180):
        logo = (3.0 + 1.2 * np.sin(f / 15.0), 2.0)
        a, b = (-4.0 + 0.1 * f, -3.0), (10.0 - 0.08 * f, 4.0)
        model.spots = [a, b]
        img, _ = kit.drawer.frame({1: (logo, 0.0, HOME), 2: (a, 0.0, HOME), 3: (b, np.pi, AWAY)})
        obs = tracker.update(img, f, f / FPS, H)
        for p in obs.players:
            if np.linalg.norm(np.mean(p["blades"], axis=0) - logo) < 0.6:
                seen_at.add(f)
                logo_ids.add(p["id"])
    assert 20 in seen_at  # reported at first, as any player
    moved = max(t.max_disp_m for t in tracker.players.tracks if t.id in logo_ids)
    assert tracker.players.min_move_m < moved < PAINT_STILL_M
    assert max(seen_at) < 170
    assert sum(1 for p in obs.players if np.linalg.norm(np.mean(p["blades"], axis=0) - logo) >= 0.6) == 2


def test_a_logo_found_to_be_paint_leaves_the_written_records_too(kit):
    """The "paint" case above through ``HeldRecords`` (what ``analyze`` writes): on the frame the
    still blob's spot becomes paint its tracks are retracted, each once (and a track that starts
    on it later, before it is ever reported), and no written record holds anything at the logo,
    from the first frame on; the other players' records are written as reported."""
    from vision.revisions import HeldRecords

    model = _FakeSledgeModel(kit.cam)
    tracker = FrameTracker(kit.rink, GAME, FPS, goalkeeper_detector=model, puck_verifier=None)
    held = HeldRecords(FPS)
    H = np.linalg.inv(kit.cam.H_image_from_rink())
    still = (3.0, 2.0)
    written, retracted, reported_at_logo, reported_away, elsewhere = [], [], set(), set(), []
    for f in range(150):
        a, b = (-4.0 + 0.1 * f, -3.0), (10.0 - 0.08 * f, 4.0)
        model.spots = [a, b]
        img, _ = kit.drawer.frame({1: (still, 0.0, HOME), 2: (a, 0.0, HOME), 3: (b, np.pi, AWAY)})
        obs = tracker.update(img, f, f / FPS, H)
        retracted += obs.player_retractions
        reported_at_logo |= {p["id"] for p in obs.players if np.linalg.norm(np.mean(p["blades"], axis=0) - still) < 0.6}
        reported_away |= {p["id"] for p in obs.players if np.linalg.norm(np.mean(p["blades"], axis=0) - still) >= 0.6}
        elsewhere.append([p["id"] for p in obs.players])
        written += held.push({"frame": f, "t": f / FPS, **{"puck": obs.puck, "players": obs.players}},
                             obs.puck_backfill, obs.puck_revisions, obs.player_retractions)
    written += held.flush()
    assert reported_at_logo and reported_at_logo <= set(retracted) and len(retracted) == len(set(retracted))
    assert not set(retracted) & reported_away
    assert [r["frame"] for r in written] == list(range(150))
    at_logo = [r["frame"] for r in written for p in r["players"]
               if np.linalg.norm(np.mean(p["blades"], axis=0) - still) < 0.6]
    assert at_logo == []
    # Nothing else is taken out: the moving players' records are written as reported.
    elsewhere = [sorted(k for k in ids if k not in reported_at_logo) for ids in elsewhere]
    assert [sorted(p["id"] for p in r["players"]) for r in written] == elsewhere
    assert sum(len(ids) == 2 for ids in elsewhere) >= 120


def test_paint_map_adds_up_the_checks_of_a_spot():
    """Checks add up over a square and its eight neighbours (a logo's track restarts nearby);
    a look at a sledge there clears the spot until PAINT_CHECKS more checks find none (the player
    who waited on a centre-ice logo for a face-off has gone, the logo stays: fresh render 782); a
    spot two squares away is separate."""
    from vision.tracking import PAINT_CELL_M, PAINT_CHECKS, PaintMap

    pm = PaintMap()
    spot = np.array([2.3, -1.4])
    for k in range(PAINT_CHECKS - 1):
        pm.vote(spot + (k % 2) * np.array([PAINT_CELL_M, 0.0]), False)  # alternating neighbours
        assert not pm.is_paint(spot) and pm.undecided(spot)
    pm.vote(spot, False)
    assert pm.is_paint(spot) and not pm.undecided(spot)
    assert not pm.is_paint(spot + np.array([3.0 * PAINT_CELL_M, 0.0]))  # beyond the neighbours
    pm.vote(spot + np.array([0.0, PAINT_CELL_M]), True)  # a sledge seen there after all
    assert not pm.is_paint(spot) and pm.undecided(spot)
    for k in range(PAINT_CHECKS - 1):  # he has gone: the checks find the paint again
        pm.vote(spot, False)
        assert not pm.is_paint(spot)
    pm.vote(spot - np.array([PAINT_CELL_M, 0.0]), False)
    assert pm.is_paint(spot)
    pm.vote(spot, True)  # a look in between starts the count again
    for k in range(PAINT_CHECKS - 1):
        pm.vote(spot, False)
    assert not pm.is_paint(spot)


@pytest.mark.parametrize("case", ["unseen", "seen", "blind"])
def test_a_moving_track_of_no_team_needs_the_model_to_see_a_sledge(kit, case):
    """A moving blob in neither team's colour (grey-green) beside two moving players, for 3 s.

    - "unseen": the model boxes the two players but never it (a shadow, a stick, a reflection
      that moved): once checked, no longer reported;
    - "seen": the model boxes it too: a player whose jersey colour the footage does not tell,
      reported throughout, of no team;
    - "blind": the model boxes no one here: no say, reported as before.
    """
    model = _FakeSledgeModel(kit.cam)
    tracker = FrameTracker(kit.rink, GAME, FPS, goalkeeper_detector=model, puck_verifier=None)
    H = np.linalg.inv(kit.cam.H_image_from_rink())
    grey_green = (70, 110, 80)

    def spots(f):
        return (-6.0 + 0.1 * f, -2.0), (-4.0 + 0.08 * f, 3.0), (10.0 - 0.08 * f, 4.0)

    reported = {}
    n = 90
    for f in range(n):
        u, a, b = spots(f)
        model.spots = {"unseen": [a, b], "seen": [a, b, u], "blind": []}[case]
        img, _ = kit.drawer.frame({1: (u, 0.0, grey_green), 2: (a, 0.0, HOME), 3: (b, np.pi, AWAY)})
        obs = tracker.update(img, f, f / FPS, H)
        reported[f] = [p for p in obs.players if np.linalg.norm(np.mean(p["blades"], axis=0) - u) < 0.8]
    assert all(p["team"] is None for ps in reported.values() for p in ps)  # neither team's colour
    late = [f for f in range(60, n) if reported[f]]
    if case == "unseen":
        assert late == []
    else:
        assert late == list(range(60, n))
    others = [p for p in obs.players if p["team"] is not None]
    assert sorted(p["team"] for p in others) == ["away", "home"]


def test_a_confidently_tracked_puck_is_searched_for_motion_near_it_and_the_whole_ice_every_third_frame(kit, monkeypatch):
    """A puck passed at 6 m/s: once its track holds a strong compact candidate in the gate, the
    moving-puck search looks only around it but on every ``MOTION_FULL_EVERY``-th frame (3), and
    the track is the same as with the whole ice searched on every frame."""
    from vision.puck_motion import MotionPuckDetector

    rois = []
    orig = MotionPuckDetector.detect

    def spying(self, frame_bgr, v_full, scene, earlier, fps, roi=None):
        rois.append(roi)
        return orig(self, frame_bgr, v_full, scene, earlier, fps, roi)

    monkeypatch.setattr(MotionPuckDetector, "detect", spying)

    def track(every):
        tracker = FrameTracker(kit.rink, GAME, FPS)
        tracker.motion_full_every = every
        H = np.linalg.inv(kit.cam.H_image_from_rink())
        out = []
        for f in range(30):
            xyz = (1.0 + 6.0 * f / FPS, -2.0, 0.0127)
            img, _ = kit.drawer.frame({}, xyz)
            r = tracker.update(img, f, f / FPS, H).puck
            out.append(None if r is None else (r["x"], r["y"], r["measured"]))
        return out

    every_frame = track(1)
    assert len(rois) == 30 and all(r is None for r in rois)
    rois.clear()
    near = track(MOTION_FULL_EVERY)
    settled = rois[11:]  # frames 11..29
    assert all((r is None) == (f % MOTION_FULL_EVERY == 0) for f, r in zip(range(11, 30), settled))
    for f, r in zip(range(11, 30), settled):
        if r is not None:
            u, v = kit.cam.project(np.array([[1.0 + 6.0 * f / FPS, -2.0, 0.0127]]))[0]
            assert r[0] < u < r[2] and r[1] < v < r[3] and (r[2] - r[0]) * (r[3] - r[1]) < 0.1 * 1280 * 720
    assert near == every_frame


def test_a_clips_first_frames_get_the_players_once_their_tracks_are_confirmed(kit):
    """A new track is reported once confirmed (two keyframe detections at 15 Hz: frame 2); its
    frames before (0, 1) come back through ``player_backfill`` and the held records get him
    there, with the id and team of his later records, as near the drawn blades as his later
    records are (the drawn sledges' contact is found 0.3-0.5 m off on every frame)."""
    from vision.revisions import HeldRecords

    def players_at(t):
        return {1: ((-2.0 + 3.0 * t, 0.5), 0.0, HOME), 2: ((3.0, -2.0 + 2.0 * t), 90.0, AWAY)}

    tracker = FrameTracker(kit.rink, GAME, FPS)
    held = HeldRecords(FPS)
    H = np.linalg.inv(kit.cam.H_image_from_rink())
    truth, out = [], []
    for f in range(8):
        img, blades = kit.drawer.frame(players_at(f / FPS), None)
        truth.append(blades)
        obs = tracker.update(img, f, f / FPS, H)
        if f < 2:
            assert obs.players == [] and obs.player_backfill == []  # tentative: not reported yet
        if f == 2:
            assert sorted((b["frame"], b["player"]["id"]) for b in obs.player_backfill) == [(0, 1), (0, 2), (1, 1), (1, 2)]
        out += held.push(obs.to_record(), obs.puck_backfill, obs.puck_revisions, obs.player_retractions,
                         obs.player_backfill)
    out += held.flush()
    later = {p["id"]: p["team"] for p in out[5]["players"]}
    assert sorted(later.values()) == ["away", "home"]

    def errors(rec):
        return {p["id"]: float(np.linalg.norm(np.mean(p["blades"], axis=0) - np.mean(
            truth[rec["frame"]][1 if later[p["id"]] == "home" else 2], axis=0))) for p in rec["players"]}

    worst_later = {k: max(errors(rec)[k] for rec in out[2:]) for k in later}
    for rec in out[:2]:
        assert {p["id"]: p["team"] for p in rec["players"]} == later
        for k, err in errors(rec).items():
            assert err <= worst_later[k] + 0.05, (rec["frame"], k, err, worst_later[k])


class _BladesAt:
    """A stand-in blade model: for crop i, blades at ``crop_px[i]`` (2, 2) with score ``score[i]``."""

    def __init__(self, crop_px, score):
        self.crop_px, self.score, self.seen = np.asarray(crop_px, float), np.asarray(score, float), None

    def blades_crop_px(self, crops):
        self.seen = np.asarray(crops).shape
        return self.crop_px.copy(), self.score.copy()


def test_blade_model_places_the_blades_it_finds_near_the_geometric_ones(kit):
    from vision.blade_crops import crop_window, image_to_crop
    from vision.geometry import PlaneCamera

    H_rink_from_image = np.linalg.inv(kit.cam.H_image_from_rink())
    cam = PlaneCamera.from_homography(H_rink_from_image, kit.cam.width, kit.cam.height)
    geo = [np.array([[2.0, 1.0], [2.0, 1.25]]), np.array([[-4.0, 3.0], [-4.0, 3.25]]), np.array([[6.0, -2.0], [6.0, -1.75]])]
    found = [np.array([[2.3, 1.05], [2.3, 1.3]]),  # 0.3 m behind: taken
             np.array([[-4.0, 4.5], [-4.0, 4.75]]),  # 1.5 m off: another player, refused
             np.array([[6.2, -2.0], [6.2, -1.75]])]  # found with too low a score: refused
    crop_px = []
    for g, f in zip(geo, found):
        w = crop_window(lambda xyz: cam.image_from_rink(xyz)[0], g.mean(axis=0))
        crop_px.append(image_to_crop(w, kit.cam.project(np.column_stack([f, np.zeros(2)]))))
    model = _BladesAt(crop_px, [0.9, 0.9, 0.2])
    tracker = FrameTracker(kit.rink, GAME, FPS, goalkeeper_detector=None, blade_model=model)
    players = [{"id": k, "team": "home", "role": "skater", "blades": g.tolist()} for k, g in enumerate(geo)]
    frame = np.zeros((kit.cam.height, kit.cam.width, 3), np.uint8)
    tracker._refine_blades(frame, cam, None, players)
    assert model.seen[0] == 3
    np.testing.assert_allclose(players[0]["blades"], found[0], atol=2e-3)
    np.testing.assert_allclose(players[1]["blades"], geo[1])
    np.testing.assert_allclose(players[2]["blades"], geo[2])
    # The blades keep the geometric pairing (left, right of the heading) whatever order the model gives.
    model = _BladesAt([crop_px[0][::-1], crop_px[1], crop_px[2]], [0.9, 0.0, 0.0])
    players = [{"id": k, "team": "home", "role": "skater", "blades": g.tolist()} for k, g in enumerate(geo)]
    FrameTracker(kit.rink, GAME, FPS, goalkeeper_detector=None, blade_model=model)._refine_blades(frame, cam, None, players)
    np.testing.assert_allclose(players[0]["blades"], found[0], atol=2e-3)
    # Between keyframes the model does not run: each player keeps the shift it last found.
    model.crop_px = np.full_like(model.crop_px, np.nan)
    moved = [{"id": k, "team": "home", "role": "skater", "blades": (g + [0.5, 0.0]).tolist()} for k, g in enumerate(geo)]
    tracker = FrameTracker(kit.rink, GAME, FPS, goalkeeper_detector=None, blade_model=model)
    tracker._blade_shift = {0: found[0] - geo[0]}
    tracker._refine_blades(frame, cam, None, moved, run_model=False)
    np.testing.assert_allclose(moved[0]["blades"], found[0] + [0.5, 0.0], atol=2e-3)
    np.testing.assert_allclose(moved[1]["blades"], geo[1] + [0.5, 0.0])


def _net_spot_vs_track(track_from: int, net_since: float, n: int = 20, speed_mps: float = 1.5):
    """Puck records of a track on a spot moving at ``speed_mps`` along x from (21, 3.4) from frame
    ``track_from`` (a strong classical candidate) while a spot new in a goal net (``vision.net_rest``,
    its reference from frame ``net_since``) lies still at (27, -0.9) from frame 10."""
    from vision.detections import Detections

    pt = PuckTracker(FPS)
    recs = []
    for f in range(n):
        pt.predict(f)
        rows = []
        if f >= track_from:
            rows.append(((21.0 + speed_mps / FPS * (f - track_from), 3.4), 0.6, 0.0, 0.35))
        if f >= 10:
            rows.append(((27.0, -0.9), 0.5, 1.0, np.nan))
        xy = np.array([r[0] for r in rows]).reshape(-1, 2)
        cands = Detections.from_centers(xy, np.array([4.0, 3.0]), np.array([r[1] for r in rows]), xy_rink_m=xy,
                                        area_px=np.full(len(rows), 10.0), expected_area_px=np.full(len(rows), 10.0),
                                        net_rest=np.array([r[2] for r in rows]), net_since=np.full(len(rows), net_since),
                                        verifier_p=np.array([r[3] for r in rows]))
        recs.append(pt.update(f, cands, np.full(len(rows), 0.02), []))
    return recs


def test_a_spot_new_in_the_net_takes_over_a_track_started_after_the_puck_went_there():
    """Tuning render 1714: the puck shot into the net was lost at the frame; the track restarted on
    a player's dark parts 6 m out. The spot new in the net since the puck was last seen in front
    of it (frame 3 here) is the puck: it takes the track. A track held since before then (its
    spot seen from frame 0, the track started on frame 2) keeps it, as does one faster than a
    sledge."""
    after = _net_spot_vs_track(track_from=5, net_since=3.0)
    assert after[8]["x"] == pytest.approx(21.15, abs=0.05)
    assert after[10]["measured"] and after[10]["x"] == pytest.approx(27.0, abs=0.01)
    assert all(r["measured"] and abs(r["x"] - 27.0) < 0.05 for r in after[10:])
    before = _net_spot_vs_track(track_from=0, net_since=3.0)
    assert all(abs(r["x"] - 27.0) > 5.0 for r in before[10:])
    # Nor one faster than a sledge: a puck re-acquired along the boards, no player's dark parts.
    fast = _net_spot_vs_track(track_from=5, net_since=3.0, speed_mps=10.0)
    assert all(r["measured"] and r["y"] == pytest.approx(3.4, abs=0.01) for r in fast[10:])
