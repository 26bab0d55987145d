"""Moving-puck detector on hand-drawn frames from a panning camera (known puck path)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.geometry import PlaneCamera
from vision.ice import RinkGeometryCache, build_ice_scene
from vision.puck import PuckDetector, max_channel
from vision.puck_motion import MotionPuckDetector

FPS = 30.0
SHUTTER = 0.5  # exposure: half the frame interval
PUCK_Z = 0.0127  # the puck's centre, half its 2.54 cm thickness above the ice (501)
STATIC_MARK = np.array([3.2, -1.5, PUCK_Z])  # a puck-sized black mark painted on the ice


def _plane_cam(cam) -> PlaneCamera:
    return PlaneCamera.from_homography(np.linalg.inv(cam.H_image_from_rink()), cam.width, cam.height)


def _blurred(drawer, base, xyz_mid, sweep, n=24):
    """The puck swept over ``sweep`` (m) while the shutter is open, centred on ``xyz_mid``."""
    acc = np.zeros(base.shape, np.float64)
    for s in np.linspace(-0.5, 0.5, n):
        img = base.copy()
        drawer.puck(img, np.asarray(xyz_mid) + s * np.asarray(sweep))
        acc += img
    return np.round(acc / n).astype(np.uint8)


@pytest.fixture(scope="module")
def pan(kit):
    """Three frames of a camera panning right 0.3 m a frame, a puck passed at 15 m/s along +x,
    and a static puck-sized mark on the ice."""
    v = np.array([15.0, 2.0, 0.0])  # m/s
    frames = []
    for k in range(3):
        cam = kit.make_camera(target=(4.0 + 0.3 * k, 0.0, 0.0))
        drawer = kit.Drawer(kit.rink, cam)
        base = drawer.base.copy()
        drawer.puck(base, STATIC_MARK)
        xyz = np.array([2.0, 0.5, PUCK_Z]) + v * k / FPS
        img = _blurred(drawer, base, xyz, v * SHUTTER / FPS)
        frames.append((img, cam, xyz))
    return frames


def _detect(kit, frames, roi=None):
    """Run the detector on the last frame with the earlier ones (newest first)."""
    img, cam, _ = frames[-1]
    pc = _plane_cam(cam)
    scene = build_ice_scene(img, pc, RinkGeometryCache(kit.rink))
    earlier = [(max_channel(f), _plane_cam(c)) for f, c, _ in frames[-2::-1]]
    return MotionPuckDetector(PuckDetector()).detect(img, max_channel(img), scene, earlier, FPS, roi)


def test_moving_puck_found_at_mid_exposure_and_static_mark_ignored(kit, pan):
    det = _detect(kit, pan)
    _, cam, xyz = pan[-1]
    true_px = cam.project(xyz[None])[0]
    assert len(det) >= 1
    d_px = np.linalg.norm(det.data["centre_xy_px"] - true_px, axis=1)
    best = int(np.argmin(d_px))
    # The darkness-weighted centre of the streak is the mid-exposure position.
    assert d_px[best] < 1.0
    assert np.linalg.norm(det.data["xy_rink_m"][best] - xyz[:2]) < 0.05
    assert det.confidence[best] >= 0.4  # strong enough to start a track (PuckTracker.acquire_score)
    # The painted mark did not move on the ice: the warped earlier frames cancel it, pan or not.
    mark_px = cam.project(STATIC_MARK[None])[0]
    assert np.all(np.linalg.norm(det.data["centre_xy_px"] - mark_px, axis=1) > 10.0)
    # Its streak lies along the motion.
    u = cam.project((xyz + np.array([0.5, 1 / 15, 0.0]))[None])[0] - true_px
    assert abs(float(det.data["streak_dir"][best] @ u)) / np.linalg.norm(u) > np.cos(np.radians(10))


def test_a_region_around_the_puck_finds_it_as_the_whole_ice_does_and_one_elsewhere_finds_nothing(kit, pan):
    """The search restricted to a region (a tracked puck's gate) measures the same streak there."""
    full = _detect(kit, pan)
    _, cam, xyz = pan[-1]
    u, v = cam.project(xyz[None])[0]
    near = _detect(kit, pan, (int(u) - 40, int(v) - 30, int(u) + 40, int(v) + 30))
    assert len(near) == 1
    best = int(np.argmin(np.linalg.norm(full.data["centre_xy_px"] - (u, v), axis=1)))
    np.testing.assert_allclose(near.data["centre_xy_px"][0], full.data["centre_xy_px"][best], atol=1e-9)
    np.testing.assert_allclose(near.confidence[0], full.confidence[best], atol=1e-9)
    # 150 px to the left there is only still ice (and the painted mark): nothing.
    assert len(_detect(kit, pan, (int(u) - 230, int(v) - 30, int(u) - 150, int(v) + 30))) == 0
    # A region that cuts the streak gives nothing rather than half a streak.
    assert len(_detect(kit, pan, (int(u) - 1, int(v) - 30, int(u) + 40, int(v) + 30))) == 0


def test_static_mark_found_by_the_compact_detector_only(kit, pan):
    # Control: the mark is a perfectly good puck to the single-frame detector ...
    img, cam, _ = pan[-1]
    scene = build_ice_scene(img, _plane_cam(cam), RinkGeometryCache(kit.rink))
    plain = PuckDetector().detect(img, scene)
    mark_px = cam.project(STATIC_MARK[None])[0]
    assert np.min(np.linalg.norm(plain.data["centre_xy_px"] - mark_px, axis=1)) < 1.5
    # ... and invisible to the motion detector (previous test).


def test_camera_cut_gives_no_candidates(kit, pan):
    # The earlier frame is from another camera whose homography is not this view's: most of the
    # ice "changes", so nothing is reported rather than differences of unrelated pictures.
    other = kit.make_camera(target=(-12.0, 5.0, 0.0), fov=30.0)
    drawer = kit.Drawer(kit.rink, other)
    wrong = [(drawer.base.copy(), pan[1][1], None), pan[2]]  # pixels of `other`, homography of frame 1
    det = _detect(kit, wrong)
    img, cam, xyz = pan[2]
    assert len(det) == 0


def test_stick_blade_moving_with_its_player_is_rejected(kit):
    # A player skating at 2 m/s with a stick blade on the ice ahead of the sledge: the blade's
    # leading edge is new dark ice, but it is joined to the shaft and sledge, not a puck.
    frames = []
    for k in range(3):
        cam = kit.make_camera()
        drawer = kit.Drawer(kit.rink, cam)
        x = 4.0 + 2.0 * k / FPS
        img, _ = drawer.frame({1: ((x, 0.5), 0.0, (46, 16, 200))})
        x0 = x + 0.25 + 0.55
        drawer._poly(img, [[x0 + a, 0.5 + b, 0.0] for a in (0.0, 0.35) for b in (-0.01, 0.01)], (25, 25, 25))
        drawer._poly(img, [[x0, 0.5 + b, 0.0] for b in (-0.006, 0.006)] + [[x - 0.1, 0.5 + b, 0.6] for b in (-0.006, 0.006)],
                     (25, 25, 25))  # the shaft up to the glove
        frames.append((img, cam, None))
    det = _detect(kit, frames)
    blade_px = frames[-1][1].project(np.array([[x0 + 0.17, 0.5, 0.0]]))[0]
    assert len(det) == 0 or np.min(np.linalg.norm(det.data["centre_xy_px"] - blade_px, axis=1)) > 15


def test_tiny_fast_puck_seen_from_high_above_is_found(kit):
    """A 7.6 cm puck 1.4 px across (a camera 45 m above the ice) shot at 20 m/s: its dark dot
    covers whole pixels, far more ink than its geometric area, and it is still a puck."""
    v = np.array([-20.0, 1.0, 0.0])
    from vision.sim.camera import Camera

    cam = Camera.from_look_at([0.0, -2.0, 45.0], (0.0, 0.0, 0.0), 110.0, 1280, 720)
    drawer = kit.Drawer(kit.rink, cam)
    frames = []
    for k in range(3):
        img = drawer.base.copy()
        xyz = np.array([-2.0, 0.3, PUCK_Z]) + v * k / FPS
        drawer.puck(img, xyz)
        frames.append((img, cam, xyz))
    scale = _plane_cam(cam).ground_scale_px_per_m(frames[-1][2][None, :2])[0]
    assert 0.0762 * scale < 1.6  # the puck is under two pixels across
    det = _detect(kit, frames)
    xyz = frames[-1][2]
    assert len(det) >= 1
    d = np.linalg.norm(det.data["xy_rink_m"] - xyz[:2], axis=1)
    assert d.min() < 0.15
