"""Square picture crops around a player, for the learned blade-keypoint model.

A crop is placed from the rink, not from the detector's box: centred on the image of a point
``CROP_CENTRE_Z_M`` above the player's estimated blade midpoint, its side ``CROP_SIDE_PER_M``
times the image length of a 1 m vertical there. The same crop comes out of the training data
(the simulator's true blades, jittered) and of run time (the tracked player's blades), so the
model sees players at one scale whatever the camera (``models/train_blade_keypoints.py``).
"""

from __future__ import annotations

from typing import Callable

import cv2
import numpy as np

#: Side of a crop as the network sees it, px.
CROP_SIZE_PX = 128
#: Crop side over the image length of a 1 m vertical at the player: a seated player (~1 m,
#: IPC 300) and his sledge (~1.2 m long) fit with room for a blade-midpoint estimate 0.3 m off.
#: Not wider: seen from the side a ground step along the view is ~5× shorter in the picture
#: than a vertical one, and each crop pixel lost to a wider window is centimetres there.
CROP_SIDE_PER_M = 2.2
#: Height above the ice of the crop's centre, m: the middle of a seated player.
CROP_CENTRE_Z_M = 0.4
#: Smallest crop side in the picture, px (a far player is upsampled no more than ~2.5×).
MIN_CROP_SIDE_PX = 40.0


def crop_window(image_from_rink: Callable[[np.ndarray], np.ndarray], xy_rink_m: np.ndarray,
                side_per_m: float = CROP_SIDE_PER_M) -> np.ndarray | None:
    """The crop around a player whose blades are estimated at ``xy_rink_m``.

    Args:
        image_from_rink: (N, 3) rink points, m → (N, 2) image px (the frame's camera, lens included).
        xy_rink_m: (2,) estimated blade midpoint, m.
        side_per_m: the crop's side over the image length of a 1 m vertical there.

    Returns:
        (3,) ``x0, y0, side`` of the square in image px, or None where the camera gives no
        finite, upright vertical there.
    """
    x, y = float(xy_rink_m[0]), float(xy_rink_m[1])
    pts = np.asarray(image_from_rink(np.array([[x, y, 0.0], [x, y, 1.0], [x, y, CROP_CENTRE_Z_M]])), float)
    if pts.shape != (3, 2) or not np.all(np.isfinite(pts)):
        return None
    metre_px = float(np.hypot(*(pts[1] - pts[0])))
    if not metre_px > 0.5:
        return None
    side = max(side_per_m * metre_px, MIN_CROP_SIDE_PX)
    cx, cy = pts[2]
    return np.array([cx - side / 2.0, cy - side / 2.0, side])


def cut_crop(frame_bgr: np.ndarray, window: np.ndarray, size: int = CROP_SIZE_PX) -> np.ndarray:
    """(size, size, 3) uint8 crop of ``window`` (``crop_window``), edges replicated past the picture."""
    x0, y0, side = (float(v) for v in window)
    s = size / side
    M = np.array([[s, 0.0, -x0 * s], [0.0, s, -y0 * s]])
    return cv2.warpAffine(frame_bgr, M, (size, size), flags=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)


def crop_to_image(window: np.ndarray, xy_crop_px: np.ndarray, size: int = CROP_SIZE_PX) -> np.ndarray:
    """(..., 2) crop px → image px."""
    x0, y0, side = (float(v) for v in window)
    return np.asarray(xy_crop_px, float) * (side / size) + np.array([x0, y0])


def image_to_crop(window: np.ndarray, xy_image_px: np.ndarray, size: int = CROP_SIZE_PX) -> np.ndarray:
    """(..., 2) image px → crop px."""
    x0, y0, side = (float(v) for v in window)
    return (np.asarray(xy_image_px, float) - np.array([x0, y0])) * (size / side)
