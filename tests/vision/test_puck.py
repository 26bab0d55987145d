"""Classical puck detector on hand-drawn frames (known puck centre)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.geometry import PlaneCamera
from vision.ice import RinkGeometryCache, build_ice_scene
from vision.puck import PuckDetector, max_channel


def _scene(kit, img, cam):
    pc = PlaneCamera.from_homography(np.linalg.inv(cam.H_image_from_rink()), cam.width, cam.height)
    return build_ice_scene(img, pc, RinkGeometryCache(kit.rink))


@pytest.mark.parametrize("xy", [(4.0, 0.5), (-3.0, -6.0), (9.5, 4.0), (0.05, 1.0)])
def test_known_puck_centre_detected_within_one_pixel(kit, xy):
    xyz = np.array([xy[0], xy[1], 0.0127])  # puck centre: half its 2.54 cm thickness above the ice
    img, _ = kit.drawer.frame(puck_xyz=xyz)
    det = PuckDetector().detect(img, _scene(kit, img, kit.cam))
    assert len(det) >= 1
    true_px = kit.cam.project(xyz[None])[0]
    assert np.linalg.norm(det.data["centre_xy_px"][0] - true_px) < 1.0
    # On the plane of the puck's centre the rink position is exact up to sub-pixel error.
    assert np.linalg.norm(det.data["xy_rink_m"][0] - xyz[:2]) < 0.03


@pytest.mark.parametrize("tint,gain", [((0, 0, 0), 1.0), ((25, 10, -30), 0.75), ((-40, -20, 10), 0.6)])
def test_puck_found_under_other_ice_tints_and_lighting(kit, tint, gain):
    cam = kit.cam
    drawer = kit.Drawer(kit.rink, cam, ice_tint_bgr=tint, gain=gain)
    xyz = np.array([2.0, -2.0, 0.0127])
    img, _ = drawer.frame(puck_xyz=xyz)
    det = PuckDetector().detect(img, _scene(kit, img, cam))
    assert np.linalg.norm(det.data["centre_xy_px"][0] - cam.project(xyz[None])[0]) < 1.0
    assert det.confidence[0] > 0.4


def test_no_puck_gives_no_confident_candidate(kit):
    # Players, sticks-free sledges and all the markings, but no puck.
    img, _ = kit.drawer.frame({1: ((3, 2), 0.3, (46, 16, 200)), 2: ((6, -1), 2.0, (145, 61, 11))})
    det = PuckDetector().detect(img, _scene(kit, img, kit.cam))
    assert len(det) == 0 or det.confidence.max() < 0.4


def test_roi_search_finds_only_inside_window(kit):
    xyz = np.array([4.0, 0.5, 0.0127])
    img, _ = kit.drawer.frame(puck_xyz=xyz)
    scene = _scene(kit, img, kit.cam)
    u, v = kit.cam.project(xyz[None])[0]
    inside = PuckDetector().detect(img, scene, (int(u) - 20, int(v) - 20, int(u) + 20, int(v) + 20))
    outside = PuckDetector().detect(img, scene, (0, 0, 200, 200))
    assert len(inside) == 1 and np.linalg.norm(inside.data["centre_xy_px"][0] - (u, v)) < 1.0
    assert len(outside) == 0 or outside.confidence.max() < 0.4


def test_expected_puck_size_shrinks_with_distance(kit):
    pc = PlaneCamera.from_homography(np.linalg.inv(kit.cam.H_image_from_rink()), 1280, 720)
    area, extent = PuckDetector().expected_size_px(pc, np.array([[4.0, -8.0], [4.0, 10.0]]))
    assert area[0] > area[1] > 0
    # Near side: the 7.62 cm puck spans a handful of pixels in this 45° broadcast view.
    assert 3.0 < extent[0] < 12.0


def _blurred_puck(kit, base, xyz_mid, sweep_m, n=24):
    """Temporal average of the puck swept over ``sweep_m`` (rink m), centred on ``xyz_mid``: a shutter-open blur."""
    acc = np.zeros(base.shape, np.float64)
    for s in np.linspace(-0.5, 0.5, n):
        img = base.copy()
        kit.drawer.puck(img, np.asarray(xyz_mid) + s * np.asarray(sweep_m))
        acc += img
    return np.round(acc / n).astype(np.uint8)


def _px_motion(cam, xy, v_mps, fps=30.0):
    a = cam.project(np.array([[xy[0], xy[1], 0.0127]]))[0]
    b = cam.project(np.array([[xy[0] + v_mps[0] / fps, xy[1] + v_mps[1] / fps, 0.0127]]))[0]
    return b - a


@pytest.mark.parametrize("xy,v", [((4.0, 0.5), (15.0, 0.0)), ((-3.0, -4.0), (-8.0, 9.0)), ((2.0, 3.0), (0.0, -20.0))])
def test_blurred_streak_centre_within_one_pixel(kit, xy, v):
    from vision.puck import StreakDetector

    fps, shutter = 30.0, 0.5  # exposure = half the frame interval
    xyz = np.array([xy[0], xy[1], 0.0127])
    sweep = np.array([v[0], v[1], 0.0]) * shutter / fps
    img = _blurred_puck(kit, kit.drawer.base, xyz, sweep)
    scene = _scene(kit, img, kit.cam)
    u, w = kit.cam.project(xyz[None])[0]
    # The compact detector misses it (too faint / too long) ...
    plain = PuckDetector().detect(img, scene)
    true_px = np.array([u, w])
    assert len(plain) == 0 or np.linalg.norm(plain.data["centre_xy_px"][0] - true_px) > 1.0 or plain.confidence[0] < 0.4
    # ... the gated streak search finds it, centred on the mid-exposure position.
    roi = (int(u) - 40, int(w) - 40, int(u) + 40, int(w) + 40)
    det = StreakDetector(PuckDetector()).detect(img, scene, roi, _px_motion(kit.cam, xy, v, fps))
    assert len(det) >= 1
    assert np.linalg.norm(det.data["centre_xy_px"][0] - true_px) < 1.0
    assert np.linalg.norm(det.data["xy_rink_m"][0] - xyz[:2]) < 0.05
    d = det.data["streak_dir"][0]
    u_img = _px_motion(kit.cam, xy, v, fps)
    assert float(d @ u_img) / np.linalg.norm(u_img) > np.cos(np.radians(10))


def test_streak_across_the_predicted_motion_is_rejected(kit):
    from vision.puck import StreakDetector

    xyz = np.array([4.0, 0.5, 0.0127])
    img = _blurred_puck(kit, kit.drawer.base, xyz, np.array([0.25, 0.0, 0.0]))
    scene = _scene(kit, img, kit.cam)
    u, w = kit.cam.project(xyz[None])[0]
    roi = (int(u) - 40, int(w) - 40, int(u) + 40, int(w) + 40)
    det = StreakDetector(PuckDetector()).detect(img, scene, roi, _px_motion(kit.cam, (4.0, 0.5), (0.0, 15.0)))
    assert len(det) == 0


def test_stick_blade_attached_to_a_player_is_rejected(kit):
    from vision.puck import StreakDetector

    img, _ = kit.drawer.frame({1: ((4.0, 0.5), 0.0, (46, 16, 200))})
    # A stick blade: a thin dark bar on the ice from the sledge's front, 0.35 m × 0.02 m.
    x0 = 4.0 + 0.25 + 0.55
    bar = [[x0 + a, 0.5 + b, 0.0] for a in (0.0, 0.35) for b in (-0.01, 0.01)]
    kit.drawer._poly(img, bar, (25, 25, 25))
    scene = _scene(kit, img, kit.cam)
    c = kit.cam.project(np.array([[x0 + 0.17, 0.5, 0.0]]))[0]
    roi = (int(c[0]) - 60, int(c[1]) - 60, int(c[0]) + 60, int(c[1]) + 60)
    # Even with a predicted motion along the bar, it is not taken for a puck.
    for v in ((15.0, 0.0), (0.0, 0.0)):
        det = StreakDetector(PuckDetector()).detect(img, scene, roi, _px_motion(kit.cam, (x0, 0.5), v))
        assert len(det) == 0 or np.min(np.linalg.norm(det.data["centre_xy_px"] - c, axis=1)) > 15
    plain = PuckDetector().detect(img, scene, roi)
    assert len(plain) == 0 or plain.confidence.max() < 0.4


def test_a_glove_on_a_white_jersey_is_not_a_puck_alone_on_the_ice(kit):
    """A white jersey is plain ice to the ice model: a black glove on one is a puck-sized dark
    spot ringed by "ice" (drawn-kit render 1443: a silver player's glove started the puck track
    and held it for 40 frames while the puck was carried 17 m away). Where a team wears white
    (``PuckDetectorConfig.white_kits``), the ring counts as ice only what is flat like the ice:
    the jersey, 34 luma above this ice, is not. A puck on the ice scores as before."""
    from vision.puck import PuckDetectorConfig

    drawer = kit.Drawer(kit.rink, kit.cam, gain=0.85)  # ice luma 216: white kits are lighter
    puck = np.array([6.0, -1.0, 0.0127])
    img, _ = drawer.frame({1: ((4.0, 0.5), np.pi / 2, (250, 250, 250))}, puck_xyz=puck)
    glove = np.array([4.16, 0.5])  # on the torso's face towards the camera, 0.5-0.56 m up
    drawer._box(img, glove, np.array([0.0, 1.0]), np.array([-1.0, 0.0]), 0.025, 0.025, 0.5, 0.56, (20, 20, 20))
    scene = _scene(kit, img, kit.cam)
    at = {"glove": kit.cam.project(np.array([[*glove, 0.53]]))[0], "puck": kit.cam.project(puck[None])[0]}
    score = {}
    for white in (False, True):
        det = PuckDetector(config=PuckDetectorConfig(white_kits=white)).detect(img, scene)
        for name, px in at.items():
            near = np.linalg.norm(det.data["centre_xy_px"] - px, axis=1) < 3.0
            score[name, white] = float(det.confidence[near].max()) if near.any() else 0.0
    assert score["glove", False] >= 0.5  # strong enough to start a track (0.4) without the rule
    assert score["glove", True] < 0.4 and score["puck", True] >= 0.6
    assert score["puck", True] == pytest.approx(score["puck", False], abs=0.03)


def test_stick_blade_lying_on_the_ice_with_its_shaft_is_not_a_puck(kit):
    # A stick at rest: a black blade on the ice, puck-sized from afar, joined by its grey shaft
    # to a glove 0.7 m up. Alone, the blade would pass every single-blob test.
    img = kit.drawer.base.copy()
    bx, by = 3.0, -1.0
    kit.drawer._poly(img, [[bx + a, by + b, 0.0] for a in (0.0, 0.09) for b in (-0.035, 0.035)], (20, 20, 20))
    shaft = [[bx + 0.09, by + b, 0.02] for b in (-0.015, 0.015)] + [[bx + 0.6, by + 0.3 + b, 0.7] for b in (-0.015, 0.015)]
    kit.drawer._poly(img, shaft, (175, 175, 175))  # light grey: fainter than a puck, darker than ice
    kit.drawer._poly(img, [[bx + 0.6 + a, by + 0.3 + b, 0.7 + c] for a in (-0.05, 0.05) for b in (-0.05, 0.05)
                           for c in (0.0, 0.1)], (46, 16, 200))
    scene = _scene(kit, img, kit.cam)
    c = kit.cam.project(np.array([[bx + 0.045, by, 0.0]]))[0]
    det = PuckDetector().detect(img, scene)
    near = np.linalg.norm(det.data["centre_xy_px"] - c, axis=1) < 6 if len(det) else np.zeros(0, bool)
    assert not np.any(det.confidence[near] >= 0.4)
    # Control: the blade alone (no shaft) is the puck-like blob the test is about.
    img2 = kit.drawer.base.copy()
    kit.drawer._poly(img2, [[bx + a, by + b, 0.0] for a in (0.0, 0.09) for b in (-0.035, 0.035)], (20, 20, 20))
    alone = PuckDetector().detect(img2, _scene(kit, img2, kit.cam))
    assert len(alone) and np.linalg.norm(alone.data["centre_xy_px"][0] - c) < 3 and alone.confidence[0] >= 0.4


def test_puck_touching_a_thin_hash_mark_is_still_a_puck(kit):
    # A far face-off hash mark (5 cm of red paint, thinner than a pixel of the ice model) next to
    # a puck at rest: the paint is a known marking, not a stick the puck is joined to.
    from shapely.geometry import Point

    cam = kit.make_camera(target=(17.0, -5.0, 0.0))
    drawer = kit.Drawer(kit.rink, cam)
    mark = next(m for m in kit.rink.markings if m.name == "faceoff_l_+x_-y_centre_board").geometry
    xy = (18.8, -7.225 + 0.0381 + 0.01)
    assert mark.distance(Point(xy)) < 0.05  # the puck's edge is within a centimetre or two of the paint
    xyz = np.array([xy[0], xy[1], 0.0127])
    img, _ = drawer.frame(puck_xyz=xyz)
    det = PuckDetector().detect(img, _scene(kit, img, cam))
    true_px = cam.project(xyz[None])[0]
    d = np.linalg.norm(det.data["centre_xy_px"] - true_px, axis=1)
    assert len(det) and d.min() < 1.0 and det.confidence[np.argmin(d)] >= 0.4


def test_max_channel_is_the_largest_of_b_g_r_for_frames_and_crops():
    rng = np.random.default_rng(5)
    img = rng.integers(0, 256, (37, 53, 3), dtype=np.uint8)
    for a in (img, img[3:20, 7:41], np.ascontiguousarray(img[3:20, 7:41]), img[:1, :1]):
        assert np.array_equal(max_channel(a), a.max(axis=2))


def test_moments_of_all_blobs_at_once_equal_each_blobs_own():
    """blob_moments_all (one pass over the labelled pixels) against blob_moments per blob."""
    import cv2

    from vision.puck import blob_moments, blob_moments_all

    rng = np.random.default_rng(7)
    mask = np.zeros((60, 90), np.uint8)
    cv2.line(mask, (5, 5), (30, 18), 255, 3)  # a streak
    cv2.circle(mask, (60, 40), 4, 255, -1)  # a puck
    cv2.rectangle(mask, (70, 5), (72, 20), 255, -1)  # an upright bar
    weight = rng.uniform(0.1, 1.0, mask.shape)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    ys, xs = np.nonzero(labels)
    ids = np.arange(1, n)
    got = blob_moments_all(labels[ys, xs], xs, ys, weight[ys, xs], stats, ids, 100.0, 200.0)
    for k, i in enumerate(ids):
        x, y, w, h, _ = stats[i]
        sub = labels[y : y + h, x : x + w] == i
        cx, cy, ink, length, width, axis = blob_moments(np.where(sub, weight[y : y + h, x : x + w], 0.0),
                                                        x + 100.0, y + 200.0)
        np.testing.assert_allclose([got["cx"][k], got["cy"][k], got["ink"][k], got["length"][k], got["width"][k]],
                                   [cx, cy, ink, length, width], rtol=1e-9, atol=1e-9)
        assert abs(abs(float(got["axis"][k] @ axis)) - 1.0) < 1e-9  # the same axis (its sign is free)


def test_puck_sigma_is_a_pixel_on_the_ground_in_the_worst_direction():
    """``puck_sigma_rink_m``: PUCK_PX_SIGMA pixels (of a 1280-px-wide frame) on the ice at the
    puck. From straight above at 20 px/m: 1 px = 5 cm (7.5 cm for a 1920-px frame of the same
    ground scale: its pixels are finer than the 640-px processing). From the side the worst
    direction is along the view, and the value is the largest singular value of d(rink)/d(px)
    at the puck, here by finite differences of the homography."""
    from calibration.synthetic import look_at_homography
    from vision.puck import PUCK_PX_SIGMA, puck_sigma_rink_m

    image_from_rink = np.array([[20.0, 0.0, 640.0], [0.0, -20.0, 360.0], [0.0, 0.0, 1.0]])
    H = np.linalg.inv(image_from_rink)
    xy = np.array([[3.0, -2.0], [np.nan, np.nan]])
    s = puck_sigma_rink_m(H, 1280, 720, xy)
    assert s[0] == pytest.approx(PUCK_PX_SIGMA * 0.05) and np.isnan(s[1])
    assert puck_sigma_rink_m(H, 1920, 1080, xy[:1])[0] == pytest.approx(PUCK_PX_SIGMA * 0.075)

    image_from_rink = look_at_homography([0.0, -20.0, 9.0], [4.0, 0.0, 0.0], 45.0, 1280, 720)
    H = np.linalg.inv(image_from_rink)
    p = np.array([10.0, 5.0])
    uv = image_from_rink @ [*p, 1.0]
    uv = uv[:2] / uv[2]

    def rink(q):
        r = H @ [q[0], q[1], 1.0]
        return r[:2] / r[2]
    eps = 1e-3
    J = np.column_stack([(rink(uv + d) - rink(uv - d)) / (2 * eps) for d in (np.array([eps, 0]), np.array([0, eps]))])
    worst = np.linalg.svd(J, compute_uv=False)[0]
    s = puck_sigma_rink_m(H, 1280, 720, p[None])[0]
    assert s == pytest.approx(PUCK_PX_SIGMA * worst, rel=1e-4)
    assert s > PUCK_PX_SIGMA * np.hypot(J[0, 0], J[0, 1])  # more than across the view (x)
