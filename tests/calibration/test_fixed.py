"""CameraProfile: seeded round trips, RANSAC, degenerate sets, JSON persistence."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from calibration.fixed import CameraProfile, apply_homography


def _camera_image_from_rink(seed: int) -> np.ndarray:
    """A plausible elevated side camera looking at the ice (K [r1 r2 t])."""
    rng = np.random.default_rng(seed)
    f = rng.uniform(900, 1400)
    K = np.array([[f, 0, 640], [0, f, 360], [0, 0, 1.0]])
    tilt = np.deg2rad(rng.uniform(20, 35))  # down from horizontal
    pan = np.deg2rad(rng.uniform(-15, 15))
    # Camera looks along +y (across the ice), from the −y side, x to its right.
    R_look = np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0.0]])  # cam x=+x, cam y=-z, cam z=+y
    c, s = np.cos(tilt), np.sin(tilt)
    R_tilt = np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    c, s = np.cos(pan), np.sin(pan)
    R_pan = np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])
    R = R_tilt @ R_pan @ R_look
    C = np.array([rng.uniform(-5, 5), -30.0, 12.0])
    t = -R @ C
    H = K @ np.c_[R[:, 0], R[:, 1], t]
    return H / H[2, 2]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_round_trip_exact_pairs(seed):
    image_from_rink = _camera_image_from_rink(seed)
    rng = np.random.default_rng(seed + 10)
    xy_rink_m = np.c_[rng.uniform(-25, 25, 12), rng.uniform(-12, 12, 12)]
    xy_image_px = apply_homography(image_from_rink, xy_rink_m)
    prof = CameraProfile.from_point_pairs(xy_image_px, xy_rink_m, "cam", 1280, 720)
    assert prof, prof.reason
    assert_allclose(prof.image_from_rink, image_from_rink, rtol=1e-6, atol=1e-6)
    assert_allclose(prof(xy_image_px), xy_rink_m, atol=1e-6)
    assert_allclose(prof.inverse(xy_rink_m), xy_image_px, atol=1e-5)
    assert prof.residuals_px.max() < 1e-3
    assert prof.residuals_m.max() < 1e-4


def test_exactly_four_pairs():
    image_from_rink = _camera_image_from_rink(5)
    xy_rink_m = np.array([[-20.0, -10], [20, -10], [20, 10], [-20, 10]])
    prof = CameraProfile.from_point_pairs(apply_homography(image_from_rink, xy_rink_m), xy_rink_m)
    assert prof
    assert_allclose(prof.image_from_rink, image_from_rink, rtol=1e-6, atol=1e-6)


def test_ransac_rejects_outlier_and_noise_residuals():
    image_from_rink = _camera_image_from_rink(3)
    rng = np.random.default_rng(3)
    xy_rink_m = np.c_[rng.uniform(-25, 25, 20), rng.uniform(-12, 12, 20)]
    xy_image_px = apply_homography(image_from_rink, xy_rink_m) + rng.normal(0, 0.5, (20, 2))
    xy_image_px[7] += [80.0, -40.0]  # one mis-click
    prof = CameraProfile.from_point_pairs(xy_image_px, xy_rink_m, ransac_threshold_px=3.0)
    assert prof
    assert not prof.inliers[7]
    assert prof.inliers.sum() >= 17
    assert prof.residuals_px[7] > 50
    assert np.median(prof.residuals_px[prof.inliers]) < 1.5
    # Away from the clicked points the model still agrees with the truth to a few cm.
    grid = np.c_[np.repeat(np.arange(-20, 21, 5.0), 5), np.tile(np.arange(-10, 11, 5.0), 9)]
    err = np.linalg.norm(prof(apply_homography(image_from_rink, grid)) - grid, axis=1)
    assert np.median(err) < 0.10


@pytest.mark.parametrize(
    "img, rnk, needle",
    [
        (np.zeros((3, 2)), np.zeros((3, 2)), "at least 4"),
        (np.c_[np.arange(6.0), 2 * np.arange(6.0)], np.c_[np.arange(6.0), np.arange(6.0) ** 2], "collinear"),
        (np.array([[0, 0], [100, 0], [0, 100], [100, 100.0]]), np.array([[0, 0], [1, 0], [2, 0], [0, 5.0]]), "collinear"),
        (np.zeros((5, 2)), np.zeros((4, 2)), "shape"),
        (np.array([[0, 0], [1, np.nan], [0, 1], [1, 1.0]]), np.eye(4, 2), "NaN"),
    ],
)
def test_degenerate_sets_are_falsy_with_reason(img, rnk, needle):
    prof = CameraProfile.from_point_pairs(img, rnk, "bad")
    assert not prof
    assert prof.rink_from_image is None
    assert needle in prof.reason
    with pytest.raises(ValueError, match="failed"):
        prof(np.zeros((1, 2)))


def test_save_load_round_trip(tmp_path):
    image_from_rink = _camera_image_from_rink(7)
    xy_rink_m = np.array([[-20.0, -10], [20, -10], [20, 10], [-20, 10], [0, 0]])
    prof = CameraProfile.from_point_pairs(
        apply_homography(image_from_rink, xy_rink_m), xy_rink_m, "venue_cam", 1280, 720, goal_end=+1
    )
    path = tmp_path / "profile.json"
    prof.save(path)
    back = CameraProfile.load(path)
    assert back and back.name == "venue_cam" and back.goal_end == 1
    assert (back.width, back.height) == (1280, 720)
    assert_allclose(back.rink_from_image, prof.rink_from_image)
    assert_allclose(back.residuals_px, prof.residuals_px, atol=1e-9)
    failed = CameraProfile.from_point_pairs(np.zeros((2, 2)), np.zeros((2, 2)))
    failed.save(path)
    assert not CameraProfile.load(path)


def test_scaled_to_half_resolution():
    image_from_rink = _camera_image_from_rink(8)
    xy_rink_m = np.c_[np.linspace(-20, 20, 8), np.linspace(-10, 10, 8) ** 2 / 10]
    prof = CameraProfile.from_point_pairs(apply_homography(image_from_rink, xy_rink_m), xy_rink_m, "c", 1280, 720)
    half = prof.scaled_to(640, 360)
    xy_full = apply_homography(image_from_rink, xy_rink_m)
    xy_half = (xy_full + 0.5) / 2 - 0.5
    assert_allclose(apply_homography(half, xy_half), xy_rink_m, atol=1e-6)


def test_ice_in_front_undoes_a_sign_flipped_by_a_pixel_above_the_horizon():
    """A low camera's top-left pixel looks above the horizon: normalising ``rink_from_image`` by
    its ``[2, 2]`` (that pixel's w) flips the sign, so that the ice in front of the camera has
    w < 0. ``ice_in_front`` gives back the same mapping with w > 0 along the picture's bottom row
    and at the ice the picture sees; a correctly signed homography is returned as it is."""
    from calibration.fixed import ice_in_front
    from calibration.synthetic import look_at_homography

    image_from_rink = look_at_homography([-8.0, -16.0, 2.5], [0.0, 0.0, 0.0], 70.0, 1280, 720)
    rink_from_image = np.linalg.inv(image_from_rink)
    assert (rink_from_image[2] @ [0.0, 0.0, 1.0]) < 0 < (rink_from_image[2] @ [640.0, 719.0, 1.0])
    flipped = rink_from_image / rink_from_image[2, 2]
    fixed = ice_in_front(flipped, 1280, 720)
    px = np.array([[640.0, 719.0, 1.0], [100.0, 600.0, 1.0], [1200.0, 500.0, 1.0]])
    assert np.all(px @ flipped[2] < 0) and np.all(px @ fixed[2] > 0)
    assert_allclose(apply_homography(fixed, px[:, :2]), apply_homography(rink_from_image, px[:, :2]))
    assert_allclose(ice_in_front(rink_from_image, 1280, 720), rink_from_image)
    # A venue profile saved with the flipped sign is read back with the ice in front.
    loaded = CameraProfile.from_dict({"H_rink_from_image": flipped.tolist(), "width": 1280, "height": 720})
    assert np.all(px @ loaded.rink_from_image[2] > 0)
