"""vision.geometry.PlaneCamera: the camera recovered from an ice-plane homography."""

from __future__ import annotations

import numpy as np
from shapely.geometry import Point

from vision.geometry import FRONTO_PARALLEL_FOCAL_WIDTHS, PlaneCamera
from vision.sim.camera import Camera

W, H = 1280, 720


def _plane_camera(cam: Camera) -> PlaneCamera:
    return PlaneCamera.from_homography(np.linalg.inv(cam.H_image_from_rink()), W, H)


def test_tilted_camera_pose_is_recovered():
    # A broadcast-like side camera: Zhang's two constraints fix the focal length.
    cam = Camera.from_look_at([2.0, -24.0, 9.0], [4.0, 0.0, 0.0], 45.0, W, H)
    pc = _plane_camera(cam)
    assert pc.has_pose
    assert abs(pc.K[0, 0] - cam.K[0, 0]) / cam.K[0, 0] < 0.01
    assert np.allclose(pc.position_xyz_m, [2.0, -24.0, 9.0], atol=0.05)


def test_camera_straight_down_gets_the_assumed_focal_and_a_consistent_pose():
    # Seen straight down the ice maps by a similarity (no perspective at all): every focal
    # length fits it (height and focal trade off), the closed form has nothing to go on, and
    # the pose uses the assumed focal. The camera then sits above the spot at the image centre,
    # as high as that focal implies for the scale, and the ice still maps as the homography says.
    px_per_m, ang = 12.0, np.radians(20.0)
    c, s_ = np.cos(ang), np.sin(ang)
    H_img = np.array([[px_per_m * c, -px_per_m * s_, 700.0], [-px_per_m * s_, -px_per_m * c, 300.0], [0.0, 0.0, 1.0]])
    pc = PlaneCamera.from_homography(np.linalg.inv(H_img), W, H)
    assert pc.has_pose
    f = FRONTO_PARALLEL_FOCAL_WIDTHS * W
    assert pc.K[0, 0] == f
    centre = np.linalg.inv(H_img) @ [(W - 1) / 2.0, (H - 1) / 2.0, 1.0]
    C = pc.position_xyz_m
    assert np.allclose(C[:2], centre[:2] / centre[2], atol=1e-6)
    assert abs(C[2] - f / px_per_m) < 1e-6
    xy = np.array([[0.0, 0.0], [10.0, 5.0], [-12.0, -8.0]])
    uv, _ = pc.image_from_rink(np.c_[xy, np.zeros(3)])
    assert np.allclose(uv, xy @ H_img[:2, :2].T + H_img[:2, 2], atol=1e-6)
    # Heights lean away from the nadir, as they do seen from above.
    top, _ = pc.image_from_rink(np.array([[10.0, 5.0, 1.0]]))
    base, _ = pc.image_from_rink(np.array([[10.0, 5.0, 0.0]]))
    assert float((top - base)[0] @ (base[0] - [(W - 1) / 2.0, (H - 1) / 2.0])) > 0


def test_tilted_view_never_takes_the_assumed_focal():
    # The assumed focal is accepted only when the plane's axes come out orthonormal with it,
    # which never happens in a tilted view with the wrong focal (it would bend every height).
    from vision.geometry import _pose_from_focal

    cam = Camera.from_look_at([2.0, -24.0, 9.0], [4.0, 0.0, 0.0], 45.0, W, H)
    K, R, t = _pose_from_focal(cam.H_image_from_rink(), FRONTO_PARALLEL_FOCAL_WIDTHS * W, (W - 1) / 2, (H - 1) / 2,
                               max_skew=0.03)
    assert R is None


def test_a_camera_nearly_straight_down_with_a_lens_gets_the_assumed_focal():
    """Tuning render 878: 43 m up, tilted 3.6 degrees, f 815 px, barrel k1 -0.015. The best 3x3
    through its distorted pixels carries the lens's residual, and near fronto-parallel that
    residual is all the closed form has to go on: it gave f 193 px, the camera 10 m up, players
    four times their height in pixels (the detector kept 13 of 90 skaters, every tenth frame: the
    rest too low for players).
    The assumed focal fits such a view (its axes come out orthonormal) and is taken: the height
    comes out within the focal's ratio (640 / 815) of the truth."""
    import cv2

    cam = Camera.from_look_at([0.0, -2.7, 42.8], [0.0, 0.0, 0.0], 2 * np.degrees(np.arctan(640 / 815)), W, H,
                              dist=[-0.015, -0.004, 0.0, 0.0, 0.0])
    gx, gy = np.meshgrid(np.linspace(-28, 28, 15), np.linspace(-13, 13, 9))
    xy = np.c_[gx.ravel(), gy.ravel()]
    uv = cam.project(np.c_[xy, np.zeros(len(xy))])
    H_img, _ = cv2.findHomography(xy, uv, 0)
    pc = PlaneCamera.from_homography(np.linalg.inv(H_img), W, H)
    assert pc.K[0, 0] == FRONTO_PARALLEL_FOCAL_WIDTHS * W
    assert abs(pc.position_xyz_m[2] / 42.8 - 640 / 815) < 0.05
    assert np.allclose(pc.position_xyz_m[:2], [0.0, -2.7], atol=1.5)


def test_rings_projected_unclipped_draw_what_the_clipped_ones_draw():
    """RingSet.project (no clipping in the rink: the image clips) draws the same masks as
    PlaneCamera.image_rings where no clipping is needed (a view of the whole rink), and gives
    None for a view that reaches past the horizon, where the rink must be clipped first."""
    from calibration.rink import RinkModel, RinkSpec
    from vision.geometry import fill_rings
    from vision.ice import RingSet, RinkGeometryCache

    geom = RinkGeometryCache(RinkModel(RinkSpec.for_layout("ipc")))
    cam = Camera.from_look_at([0.0, -45.0, 30.0], (0.0, 0.0, 0.0), 75.0, 640, 360)  # the whole rink
    pc = PlaneCamera.from_homography(np.linalg.inv(cam.H_image_from_rink()), 640, 360)
    visible = pc.visible_ground(margin_px=4.0)
    assert visible.contains(geom.ice)
    for (rgb, g), rs in zip(geom.marking_groups + [((0, 0, 0), geom.ice)], geom.group_rings + [geom.ice_rings]):
        for outline in (False, True):
            a = fill_rings(np.zeros((360, 640), np.uint8), rs.project(pc.H_image_from_rink), 255, outline)
            b = fill_rings(np.zeros((360, 640), np.uint8), pc.image_rings(g, visible), 255, outline)
            assert np.array_equal(a, b), rgb
            assert a.any()
    inside = Camera.from_look_at([0.0, 0.0, 1.5], (30.0, 0.0, 0.0), 90.0, 640, 360)  # half the rink behind it
    assert RingSet.of(geom.ice).project(inside.H_image_from_rink()) is None


def test_a_homography_of_either_sign_gives_the_same_camera_and_visible_ice():
    """``rink_from_image`` holds up to scale; normalised by the w of a pixel above the horizon it
    comes negated (a low blue-line camera's calibration), and the ice in front of the camera would
    read as behind it: no visible ground, no ice mask. Either sign gives the same camera."""
    cam = Camera.from_look_at([-8.0, -16.0, 2.5], [0.0, 0.0, 0.0], 70.0, W, H)
    rink_from_image = np.linalg.inv(cam.H_image_from_rink())
    a = PlaneCamera.from_homography(rink_from_image, W, H)
    b = PlaneCamera.from_homography(-rink_from_image / abs(rink_from_image[2, 2]), W, H)
    ga, gb = a.visible_ground(), b.visible_ground()
    assert ga.area > 100.0 and gb.symmetric_difference(ga).area < 1e-6 * ga.area
    assert ga.contains(Point(0.0, 0.0))
    np.testing.assert_allclose(b.position_xyz_m, a.position_xyz_m, atol=1e-6)
