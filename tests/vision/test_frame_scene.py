"""SceneBuilder: a frame's scene from the frame and its calibration only, built here or elsewhere."""

from __future__ import annotations

import pickle

import numpy as np

from tests.vision.test_tracking import AWAY, FPS, GAME, HOME
from vision.frame_scene import SceneBuilder
from vision.tracking import FrameTracker


def test_scene_of_a_calibrated_frame_sits_on_the_rink(kit):
    H = np.linalg.inv(kit.cam.H_image_from_rink())
    img, _ = kit.drawer.frame()
    fs = SceneBuilder(kit.rink).build(img, H)
    assert fs.scene is not None and fs.cam is fs.last_cam
    np.testing.assert_array_equal(fs.v_full, img.max(axis=2))
    # Centre ice is ice; a point 3 m beyond the far boards is not (rink m → image px by hand's H).
    for xy_rink_m, on_ice in (((0.0, 0.0), True), ((0.0, kit.rink.spec.width_m / 2 + 3.0), False)):
        uvw = kit.cam.H_image_from_rink() @ np.array([*xy_rink_m, 1.0])
        u, v = uvw[:2] / uvw[2]
        inside = 0 <= u < img.shape[1] and 0 <= v < img.shape[0]
        assert (inside and fs.scene.ice_mask_full[int(v), int(u)] == 255) == on_ice


def test_frames_without_a_usable_calibration_have_no_scene_but_keep_the_last_camera(kit):
    H = np.linalg.inv(kit.cam.H_image_from_rink())
    img, _ = kit.drawer.frame()
    builder = SceneBuilder(kit.rink)
    first = builder.build(img, H).cam
    for calib, frame in ((None, img), (np.zeros((3, 3)), img), (np.full((3, 3), np.nan), img), (H, None)):
        fs = builder.build(frame, calib)
        assert fs.scene is None and fs.cam is None and fs.v_full is None
        assert fs.last_cam is first  # the players' away directions still come from the last view


def test_a_scene_built_in_another_process_gives_the_same_records(kit):
    """What the calibration process sends (a pickled FrameScene) makes the tracker write exactly
    what it writes when it builds the scene itself."""
    H = np.linalg.inv(kit.cam.H_image_from_rink())
    here, there, builder = FrameTracker(kit.rink, GAME, FPS), FrameTracker(kit.rink, GAME, FPS), SceneBuilder(kit.rink)
    for f in range(12):
        t = f / FPS
        players = {1: ((-3.0 + 2.0 * t, -2.0), 0.0, HOME), 2: ((4.0, 3.0 - 1.5 * t), np.pi / 2, AWAY)}
        img, _ = kit.drawer.frame(players, (1.0 + 5.0 * t, 0.5, 0.0127))
        calib = None if f == 6 else H  # one frame without calibration on the way
        sent = pickle.loads(pickle.dumps(builder.build(img, calib), protocol=5))
        a = here.update(img, f, t, calib).to_record()
        b = there.update(img, f, t, calib, sent).to_record()
        assert a == b
    assert a["players"] and a["puck"] is not None
