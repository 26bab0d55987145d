"""The part of the vision stage that depends on one frame and its calibration only.

`SceneBuilder.build(frame_bgr, calib)` turns a frame and its ``rink_from_image`` into the
frame's `FrameScene`: its plane camera, its ice model (`vision.ice.IceScene`) and its
full-resolution max channel, which every detector downstream reads. Nothing in it depends
on earlier frames' tracks, so it can run wherever the frame and its calibration are — in
`vision.tracking.FrameTracker` itself, or beside the calibration in a second process
(`rulesfromvideo.calibration_worker`), which then hands the tracker the finished scene.
Both give the same scene, so the outputs are the same either way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from vision.geometry import PlaneCamera
from vision.ice import IceConfig, IceScene, LensProjection, RinkGeometryCache, build_ice_scene
from vision.puck import max_channel


@dataclass
class FrameScene:
    """One frame as the detectors see it.

    Attributes:
        scene: the frame's ice model; None where the frame cannot be measured (no
            calibration, a degenerate homography, no image).
        last_cam: the latest camera built, this frame's or an earlier one (where a frame has
            none, the players' away directions still come from the last view); None before
            the first.
        v_full: (H, W) uint8 max(B, G, R) of the frame at full resolution; None without a scene.
    """

    scene: IceScene | None
    last_cam: PlaneCamera | None
    v_full: np.ndarray | None = None

    @property
    def cam(self) -> PlaneCamera | None:
        """This frame's camera (None without a scene)."""
        return None if self.scene is None else self.scene.cam


class SceneBuilder:
    """Builds each frame's `FrameScene`, one frame after the other.

    Args:
        rink: the rink model (``calibration.rink.RinkModel``).
        config: the ice model's thresholds (None: the defaults).
    """

    def __init__(self, rink: Any, config: IceConfig | None = None) -> None:
        self.geom = RinkGeometryCache(rink)
        self.config = config or IceConfig()
        self._cam_key: bytes | None = None
        self._cam: PlaneCamera | None = None

    def build(self, frame_bgr: np.ndarray | None, calib: Any) -> FrameScene:
        """The scene of one frame.

        Args:
            frame_bgr: (H, W, 3) uint8 frame (None or a non-colour image: unmeasurable).
            calib: ``CalibrationResult`` (``rink_from_image`` (3, 3) or None; with a distorting
                ``lens``, the rink's masks are drawn through it), a bare (3, 3) array, or None.
        """
        H = getattr(calib, "rink_from_image", calib)
        frame_ok = frame_bgr is not None and getattr(frame_bgr, "ndim", 0) == 3
        scene = None
        if H is not None and frame_ok:
            H = np.asarray(H, dtype=np.float64).reshape(3, 3)
            if np.all(np.isfinite(H)) and abs(np.linalg.det(H)) > 1e-15:
                try:
                    cam = self._camera(H, frame_bgr.shape[1], frame_bgr.shape[0])
                    lens = LensProjection.of(calib, frame_bgr.shape[1], frame_bgr.shape[0], self.config.scale)
                    scene = build_ice_scene(frame_bgr, cam, self.geom, self.config, lens)
                except (np.linalg.LinAlgError, ValueError, cv2.error):
                    scene = None  # a degenerate homography: this frame is unmeasurable
        v_full = None if scene is None else max_channel(frame_bgr)
        return FrameScene(scene, self._cam, v_full)

    def _camera(self, H: np.ndarray, width: int, height: int) -> PlaneCamera:
        # A fixed camera's homography repeats: its pose is decomposed once.
        key = H.tobytes() + bytes([width % 256, height % 256])
        if key != self._cam_key:
            self._cam_key = key
            self._cam = PlaneCamera.from_homography(H, width, height)
        return self._cam
