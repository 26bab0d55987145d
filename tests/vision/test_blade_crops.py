"""Crops around a player for the blade-keypoint model: placed from the rink, one scale per metre."""

import numpy as np
import pytest

from vision.blade_crops import (CROP_CENTRE_Z_M, CROP_SIDE_PER_M, CROP_SIZE_PX, MIN_CROP_SIDE_PX, crop_to_image,
                                crop_window, cut_crop, image_to_crop)
from vision.sim.camera import Camera


def _broadcast() -> Camera:
    # A broadcast-like camera 8 m up, 18 m back from the near boards, looking at centre ice.
    return Camera.from_look_at([0.0, -33.0, 8.0], [0.0, 0.0, 0.0], 50.0, 1280, 720)


def test_the_window_is_centred_on_the_player_and_sized_by_a_metre_there():
    cam = _broadcast()
    xy = np.array([3.0, 2.0])
    w = crop_window(cam.project, xy)
    base, top, mid = cam.project(np.array([[3.0, 2.0, 0.0], [3.0, 2.0, 1.0], [3.0, 2.0, CROP_CENTRE_Z_M]]))
    assert w[2] == pytest.approx(CROP_SIDE_PER_M * np.hypot(*(top - base)))
    np.testing.assert_allclose(w[:2] + w[2] / 2, mid)
    # A player twice as far from the camera gets about half the window.
    far = crop_window(cam.project, np.array([3.0, 2.0 + 35.0]))
    assert 0.35 * w[2] < far[2] < 0.65 * w[2]


def test_a_tiny_or_undefined_window_is_refused_or_floored():
    assert crop_window(lambda xyz: np.full((3, 2), np.nan), np.zeros(2)) is None
    assert crop_window(lambda xyz: np.zeros((3, 2)), np.zeros(2)) is None  # a metre of 0 px
    # A 1 m vertical of 2 px still gets the smallest window.
    w = crop_window(lambda xyz: np.array([[100.0, 100.0], [100.0, 98.0], [100.0, 99.2]]), np.zeros(2))
    assert w[2] == MIN_CROP_SIDE_PX


def test_crop_and_image_pixels_map_both_ways_and_the_crop_shows_the_pixel_there():
    frame = np.zeros((720, 1280, 3), np.uint8)
    frame[400:404, 700:704] = 255  # a 4 px white square, centre (701.5, 401.5)
    window = np.array([650.0, 360.0, 2.0 * CROP_SIZE_PX])  # 2 image px per crop px
    crop = cut_crop(frame, window)
    assert crop.shape == (CROP_SIZE_PX, CROP_SIZE_PX, 3)
    at = image_to_crop(window, np.array([701.5, 401.5]))
    np.testing.assert_allclose(at, [(701.5 - 650) / 2, (401.5 - 360) / 2])
    ys, xs = np.nonzero(crop[..., 0] > 60)
    np.testing.assert_allclose([xs.mean(), ys.mean()], at, atol=1.0)
    np.testing.assert_allclose(crop_to_image(window, at), [701.5, 401.5])


def test_a_window_past_the_picture_edge_is_filled_from_the_edge():
    frame = np.full((100, 100, 3), 50, np.uint8)
    frame[:, -1] = 200
    crop = cut_crop(frame, np.array([60.0, 10.0, CROP_SIZE_PX]))  # right half beyond the picture
    assert crop[48, -1, 0] == 200 and crop[48, 10, 0] == 50
