"""The learned blade-keypoint model on ``vision.blade_crops`` crops (ONNX Runtime, no torch).

Recipe ``models/train_blade_keypoints.py``, card ``models/blade_keypoints.md``: a YOLO pose network
with one class (a player) and two keypoints (his blade contact points, left and right in the
picture). A crop may hold other players; the one whose box centre is nearest the crop's centre
is the player the crop was cut for.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.blade_crops import CROP_SIZE_PX, crop_to_image
from vision.learned import OnnxPoseDetector

DEFAULT_BLADE_MODEL_PATH = Path(__file__).resolve().parent.parent / "models" / "blade_keypoints.onnx"

#: Lowest class score of a player the model reports.
BLADE_MODEL_MIN_CONF = 0.3


class BladeKeypointModel:
    """Two blade points per crop.

    Args:
        model_path: the ONNX file (default ``models/blade_keypoints.onnx``).
        intra_op_threads: ONNX Runtime threads (0: its default).
    """

    def __init__(self, model_path: str | Path | None = None, intra_op_threads: int = 0) -> None:
        self.detector = OnnxPoseDetector(model_path or DEFAULT_BLADE_MODEL_PATH, conf=BLADE_MODEL_MIN_CONF,
                                         iou=0.5, kp_conf=0.0, intra_op_threads=intra_op_threads)
        if self.detector.n_keypoints != 2:
            raise ValueError(f"BladeKeypointModel: {self.detector.model_path} has {self.detector.n_keypoints} "
                             "keypoints, expected 2 (blade left, blade right)")

    def blades_crop_px(self, crops_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Blade points of the player each crop was cut for.

        Args:
            crops_bgr: (N, S, S, 3) uint8 crops (``vision.blade_crops.cut_crop``).

        Returns:
            (N, 2, 2) blade points in crop px (NaN where no player was found) and (N,) his
            class score (0 where none).
        """
        crops = np.asarray(crops_bgr)
        n = len(crops)
        out = np.full((n, 2, 2), np.nan)
        score = np.zeros(n)
        if n == 0:
            return out, score
        S = crops.shape[1]
        x = cv2.dnn.blobFromImages(list(crops), scalefactor=1.0 / 255.0, swapRB=True)  # (N, 3, S, S)
        raw = self.detector.session.run(None, {self.detector.input_name: x})[0]
        for i in range(n):
            det = self.detector.decode(raw[i : i + 1], 1.0, (0.0, 0.0), (S, S))
            if not len(det):
                continue
            c = (det.xyxy[:, :2] + det.xyxy[:, 2:]) / 2.0
            j = int(np.argmin(np.hypot(*(c - S / 2.0).T)))
            out[i] = det.keypoints_xy_px[j]
            score[i] = float(det.confidence[j])
        return out, score

    def blades_image_px(self, crops_bgr: np.ndarray, windows: np.ndarray) -> np.ndarray:
        """(N, 2, 2) blade points in image px of crops cut at (N, 3) ``windows`` (NaN: none found)."""
        kp, _ = self.blades_crop_px(crops_bgr)
        S = np.asarray(crops_bgr).shape[1] if len(crops_bgr) else CROP_SIZE_PX
        return np.stack([crop_to_image(w, k, S) for w, k in zip(windows, kp)]) if len(kp) else kp
