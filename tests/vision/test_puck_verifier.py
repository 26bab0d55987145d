"""vision.puck_verifier: patch geometry (hand-computed) and the shipped model on held-out renders.

The model check renders a clip with a held-out scenario seed and a held-out look (never
used for training, models/train_puck_verifier.py) and compares patches at the true puck
(projected with the true camera) with patches at the classical candidates far from it.
Thresholds are what the model measured (models/puck_verifier.md), with a margin.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.puck_verifier import (
    DEFAULT_MODEL_PATH, MIN_SIDE_PX, PATCH_PX, PATCH_SIDE_PUCKS, MaxOfVerifiers, PuckVerifier, crop_patches,
    patch_side_px,
)

needs_model = pytest.mark.skipif(
    not DEFAULT_MODEL_PATH.is_file(),
    reason=f"{DEFAULT_MODEL_PATH} absent: train it with models/train_puck_verifier.py (training venv)",
)

# Held-out check (see ``heldout_scores``); bounds from what the model measured, with a margin.
# Measured on this render: 30 puck patches, median p 0.71 (quartiles 0.63 / 0.76), none under
# 0.2; 1041 far proposals, none at p >= 0.5, 3.7 % at p >= 0.2.
HELDOUT_SCENARIO = "icing"
MIN_MEDIAN_P_AT_PUCK = 0.5
MAX_FALSE_POSITIVE_RATE = 0.03
MAX_VETOED_PUCK_SHARE = 0.1


def test_patch_side_is_five_puck_extents_with_a_floor():
    # A puck covering 36 px² is ~6 px across: 5 extents = 30 px. A 4 px² puck gets the floor.
    assert patch_side_px(np.array([36.0]))[0] == pytest.approx(PATCH_SIDE_PUCKS * 6.0)
    assert patch_side_px(np.array([4.0]))[0] == pytest.approx(MIN_SIDE_PX)


def test_crop_centres_and_scales_the_patch():
    frame = np.full((200, 300, 3), 230, np.uint8)
    # A 4x4 px dark square whose centre is (150.5, 80.5) px (pixel centres at integers).
    frame[79:83, 149:153] = 10
    side = PATCH_PX / 2.0  # 2 patch px per image px
    p = crop_patches(frame, np.array([[150.5, 80.5]]), np.array([side]))[0]
    c = (PATCH_PX - 1) / 2.0
    # The square spans 8 patch px around the patch centre, the rest is ice.
    dark = np.argwhere(p[..., 0] < 120)
    assert dark.min(axis=0) == pytest.approx([c - 4, c - 4], abs=1.0)
    assert dark.max(axis=0) == pytest.approx([c + 4, c + 4], abs=1.0)
    assert p[0, 0, 0] == 230 and p[-1, -1, 0] == 230
    # Moving the centre 4 image px to the left moves the square 8 patch px to the right.
    q = crop_patches(frame, np.array([[146.5, 80.5]]), np.array([side]))[0]
    dark_q = np.argwhere(q[..., 0] < 120)
    assert dark_q.mean(axis=0) == pytest.approx(dark.mean(axis=0) + [0.0, 8.0], abs=0.6)


def test_crop_at_the_frame_edge_replicates_instead_of_failing():
    frame = np.zeros((50, 60, 3), np.uint8)
    frame[:, :, 1] = 200
    p = crop_patches(frame, np.array([[0.0, 0.0], [59.0, 49.0]]), np.array([40.0, 40.0]))
    assert p.shape == (2, PATCH_PX, PATCH_PX, 3)
    assert np.all(p[..., 1] == 200)


def test_no_candidates_no_work(tmp_path):
    assert crop_patches(np.zeros((10, 10, 3), np.uint8), np.zeros((0, 2)), np.zeros(0)).shape == (0, PATCH_PX,
                                                                                                  PATCH_PX, 3)


class _ByDarkness:
    """A stub verifier: p = ``scale`` × the darkness of a patch's centre pixel; records its input."""

    def __init__(self, scale: float) -> None:
        self.scale, self.seen = scale, []

    def probabilities(self, patches_bgr):
        self.seen.append(np.array(patches_bgr))
        c = patches_bgr[:, PATCH_PX // 2, PATCH_PX // 2, 0].astype(np.float64)
        return self.scale * (1.0 - c / 255.0)


def test_a_pair_of_verifiers_gives_each_spot_the_larger_probability_from_one_cut():
    frame = np.full((100, 200, 3), 255, np.uint8)
    frame[45:56, 45:56] = 0  # a black square at (50, 50)
    frame[45:56, 145:156] = 128  # a grey one at (150, 50)
    a, b = _ByDarkness(1.0), _ByDarkness(0.5)
    p = MaxOfVerifiers([a, b])(frame, np.array([[50.0, 50.0], [150.0, 50.0], [100.0, 20.0]]), np.full(3, 36.0))
    # black: max(1, 0.5); grey: max(127/255, 63.5/255); bare ice: 0 from both
    np.testing.assert_allclose(p, [1.0, 127 / 255, 0.0])
    assert len(a.seen) == len(b.seen) == 1 and np.array_equal(a.seen[0], b.seen[0])
    np.testing.assert_allclose(MaxOfVerifiers([_ByDarkness(0.2), _ByDarkness(0.7)]).probabilities(a.seen[0]),
                               [0.7, 0.7 * 127 / 255, 0.0])
    with pytest.raises(ValueError):
        MaxOfVerifiers([])


def test_missing_model_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="puck verifier model not found"):
        PuckVerifier(tmp_path / "nope.onnx")


# ------------------------------------------------------------------ dark-peak proposals
def _scene(kit, img):
    from vision.geometry import PlaneCamera
    from vision.ice import RinkGeometryCache, build_ice_scene

    pc = PlaneCamera.from_homography(np.linalg.inv(kit.cam.H_image_from_rink()), kit.cam.width, kit.cam.height)
    return build_ice_scene(img, pc, RinkGeometryCache(kit.rink))


def _stick_with_puck(kit, puck: bool):
    """A stick at rest (black blade, grey shaft up to a glove), with a puck against the blade's tip."""
    img = kit.drawer.base.copy()
    bx, by = 3.0, -1.0
    kit.drawer._poly(img, [[bx + a, by + b, 0.0] for a in (0.0, 0.09) for b in (-0.035, 0.035)], (20, 20, 20))
    shaft = [[bx + 0.09, by + b, 0.02] for b in (-0.015, 0.015)] + [[bx + 0.6, by + 0.3 + b, 0.7] for b in (-0.015, 0.015)]
    kit.drawer._poly(img, shaft, (175, 175, 175))
    kit.drawer._poly(img, [[bx + 0.6 + a, by + 0.3 + b, 0.7 + c] for a in (-0.05, 0.05) for b in (-0.05, 0.05)
                           for c in (0.0, 0.1)], (46, 16, 200))
    xyz = np.array([bx - 0.0381, by, 0.0127])  # the puck's edge touches the blade's tip
    if puck:
        ang = np.linspace(0, 2 * np.pi, 24, endpoint=False)
        disc = [[xyz[0] + 0.0381 * np.cos(t), xyz[1] + 0.0381 * np.sin(t), 0.0] for t in ang]
        kit.drawer._poly(img, disc, (15, 15, 15))
    return img, kit.cam.project(xyz[None])[0]


def test_a_puck_joined_to_a_stick_blade_is_proposed_as_a_dark_peak(kit):
    from vision.puck import PuckDetector, max_channel
    from vision.puck_verifier import dark_peaks

    img, puck_px = _stick_with_puck(kit, puck=True)
    scene = _scene(kit, img)
    det = PuckDetector()
    # The classical detector judges the blade + puck blob as a whole: no confident puck there.
    cands = det.detect(img, scene)
    near = np.linalg.norm(cands.data["centre_xy_px"] - puck_px, axis=1) < 4 if len(cands) else np.zeros(0, bool)
    assert not np.any(cands.confidence[near] >= 0.4)
    peaks = dark_peaks(max_channel(img), scene, det)
    ext = np.sqrt(peaks.data["expected_area_px"])
    d = np.linalg.norm(peaks.data["centre_xy_px"] - puck_px, axis=1)
    # Within about a puck's width: the local maximum of darkness may sit between the puck and
    # the (larger) blade it touches.
    assert np.any(d <= 1.2 * ext + 1.5)
    assert np.all(peaks.confidence == 0.0)  # no classical opinion: the verifier decides
    assert np.allclose(peaks.data["area_px"], peaks.data["expected_area_px"])


def test_bare_ice_gives_dark_peaks_only_on_the_centre_spot(kit):
    from vision.puck import PuckDetector, max_channel
    from vision.puck_verifier import dark_peaks

    # The drawn rink's only dark-ish paint is the blue centre-ice spot (a puck can sit on it,
    # so it is proposed and left to the verifier); plain ice, lines and circles give nothing.
    img = kit.drawer.base.copy()
    peaks = dark_peaks(max_channel(img), _scene(kit, img), PuckDetector())
    assert np.all(np.linalg.norm(peaks.data["xy_rink_m"], axis=1) < 0.35)


# ------------------------------------------------------------------ the shipped model, held-out render
@pytest.fixture(scope="module")
def heldout_scores(tmp_path_factory) -> dict:
    """Verifier probabilities at the true puck and at proposals far from it, on a held-out render.

    The scenario seed (900200) and the look (``heldout_warm_tv_arena``) are outside the
    training recipe's ranges; the truth puck is projected with the true camera (lens included).
    """
    if not DEFAULT_MODEL_PATH.is_file():
        pytest.skip(f"{DEFAULT_MODEL_PATH} absent: train it with models/train_puck_verifier.py")
    from calibration.rink import RinkModel
    from rulesfromvideo.game import GameDescriptor
    from vision.evaluation import load_truth, truth_calibration
    from vision.sim.looks import held_out_look
    from vision.sim.synth import synth_clip
    from vision.tracking import FrameTracker
    from vision.video import iter_frames

    clip = tmp_path_factory.mktemp("verifier") / "clip"
    synth_clip(HELDOUT_SCENARIO, "broadcast", 900_200, clip, width=1280, height=720, fps=30, duration_s=1.0,
               look=held_out_look("heldout_warm_tv_arena"))
    truth = load_truth(clip)
    H = truth_calibration(truth)
    game = GameDescriptor.from_file(clip / "game.json")
    tracker = FrameTracker(RinkModel(game.rink_spec()), game, truth["fps"], goalkeeper_detector=None,
                           puck_verifier=None)
    tracker.propose_peaks = True
    verifier = PuckVerifier()
    at_puck, far = [], []
    for i, frame in iter_frames(clip / "clip.mp4"):
        obs = tracker.update(frame, i, i / truth["fps"], H[i])
        fr = truth["frames"][i]
        p, c = fr["puck"], fr["camera"]
        if not p or not p.get("in_frame") or p["z"] > 0.03:
            continue
        uv, _ = cv2.projectPoints(np.array([[p["x"], p["y"], p["z"]]]), cv2.Rodrigues(np.asarray(c["R"]))[0],
                                  np.asarray(c["t"], float), np.asarray(c["K"], float), np.asarray(c["dist"], float))
        uv = uv.reshape(2)
        area, _ = tracker.puck_detector.expected_size_px(tracker._cam, np.array([[p["x"], p["y"]]]))
        if p["visible_fraction"] >= 0.5:
            at_puck.append(float(verifier(frame, uv[None], area)[0]))
        for d in (obs.puck_candidates, obs.puck_peaks):
            if d is None or not len(d):
                continue
            ext = np.sqrt(np.maximum(d.data["expected_area_px"], 1.0))
            away = np.linalg.norm(d.data["centre_xy_px"] - uv, axis=1) > 2.5 * ext + 3.0
            if np.any(away):
                far += list(verifier(frame, d.data["centre_xy_px"][away], d.data["expected_area_px"][away]))
    return {"puck": np.array(at_puck), "far": np.array(far)}


@needs_model
def test_shipped_verifier_tells_the_puck_from_what_else_looks_dark(heldout_scores):
    puck, far = heldout_scores["puck"], heldout_scores["far"]
    assert len(puck) >= 10 and len(far) >= 50
    assert np.median(puck) >= MIN_MEDIAN_P_AT_PUCK
    assert np.mean(far >= 0.5) <= MAX_FALSE_POSITIVE_RATE
    # At run time the verifier only vetoes (p < FrameTracker.verifier_veto_p): it must not veto the puck.
    assert np.mean(puck < 0.2) <= MAX_VETOED_PUCK_SHARE


# ------------------------------------------------------------------ proposals near the players
def test_only_spots_within_a_carriers_reach_of_a_seat_are_kept():
    from vision.detections import Detections
    from vision.puck_verifier import CARRY_REACH_M, near_players

    # Seats at (0, 0) and (10, 5) m; spots 1.4 m and 1.6 m from the first, 0.5 m from the second.
    xy = np.array([[1.4, 0.0], [0.0, -1.6], [10.5, 5.0], [5.0, 5.0]])
    peaks = Detections.from_centers(np.zeros((4, 2)), np.ones((4, 2)), np.zeros(4), xy_rink_m=xy)
    kept = near_players(peaks, [np.array([0.0, 0.0]), np.array([10.0, 5.0])])
    assert CARRY_REACH_M == pytest.approx(1.5)
    assert kept.data["xy_rink_m"].tolist() == [[1.4, 0.0], [10.5, 5.0]]
    assert len(near_players(peaks, [])) == 0  # no players, nobody carries


def test_reach_windows_cover_each_seats_square_and_merge_where_they_overlap():
    from vision.geometry import PlaneCamera
    from vision.puck_verifier import reach_windows_px

    # Top-down: 10 px per metre, rink (0, 0) at image (100, 100), y down the image.
    H_image_from_rink = np.array([[10.0, 0.0, 100.0], [0.0, 10.0, 100.0], [0.0, 0.0, 1.0]])
    cam = PlaneCamera.from_homography(np.linalg.inv(H_image_from_rink), 400, 300)
    # Seats 2 m apart (their 3 m squares overlap) and one 20 m away, reach 1.5 m = 15 px.
    boxes = sorted(reach_windows_px(cam, [[0.0, 0.0], [2.0, 0.0], [20.0, 5.0]], 400, 300, reach_m=1.5))
    assert boxes == [(85, 85, 136, 116), (285, 135, 316, 166)]
    # A seat near the image's corner: its window is clipped to the image.
    assert reach_windows_px(cam, [[-9.5, -9.5]], 400, 300, reach_m=1.5) == [(0, 0, 21, 21)]
    assert reach_windows_px(cam, [], 400, 300) == []


def test_spots_seen_through_a_standing_body_are_the_body():
    from vision.puck_verifier import behind_bodies

    # Camera 10 m up at the rink's origin; a body (radius 0.2 m, 0.1-1.8 m high) stands at (10, 0).
    cam = np.array([0.0, 0.0, 10.0])
    seat = np.array([[10.0, 0.0]])
    z = 0.0127
    pts = np.array([
        [10.5, 0.0, z],   # 0.5 m behind his feet: the sight line crosses x = 10 at 0.5/10.5*10 = 0.48 m up
        [9.5, 0.0, z],    # 0.5 m in front: the line rises towards the camera, away from him
        [10.5, 0.5, z],   # behind, but the line passes 0.48 m beside his axis at x = 10
        [10.05, 0.0, z],  # between his feet: at 0.1 m up the line is 0.04 m from his axis (his legs)
        [10.0, 0.25, z],  # 0.25 m beside his feet: at 0.1 m up the line is 0.26 m from his axis
        [12.0, 0.0, z],   # 2 m behind: the line is 0.1 + (2 - 0.2)/12 * 10 ≈ 1.6 m up near x = 10.2: still his body
        [40.0, 0.0, z],   # 30 m behind: the line passes x = 10 at 7.5 m, over his head
    ])
    hidden = behind_bodies(pts, cam, seat, 0.2, (0.1, 1.8))
    assert hidden.tolist() == [True, False, False, True, False, True, False]
    assert behind_bodies(pts, None, seat, 0.2, (0.1, 1.8)).tolist() == [False] * 7  # no pose: no opinion
    assert behind_bodies(pts, cam, np.zeros((0, 2)), 0.2, (0.1, 1.8)).tolist() == [False] * 7
