"""Detections in one image: a dataclass of parallel numpy arrays.

Modelled on the ``Detections`` container of roboflow/supervision: one object
holds N detections as parallel arrays (boxes, confidences, classes, optional
keypoints and tracker ids, free per-detection ``data``), indexable like a numpy
array, with one ``from_…`` constructor per source. Everything here is in image
pixels; conversion to rink metres happens in the trackers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator

import cv2
import numpy as np

#: Class ids used by the classical detectors and the (later) learned models.
CLASS_NAMES: tuple[str, ...] = ("puck", "player")
PUCK, PLAYER = 0, 1


@dataclass
class Detections:
    """N detections in one image.

    Attributes:
        xyxy: (N, 4) float boxes (x_min, y_min, x_max, y_max), image px.
        confidence: (N,) float scores in [0, 1].
        class_id: (N,) int class ids (see ``CLASS_NAMES``).
        tracker_id: (N,) int track ids, -1 where unassigned.
        keypoints_xy_px: (N, K, 2) float keypoints, image px, or None.
        keypoints_visible: (N, K) bool visibility of the keypoints, or None.
        data: extra per-detection arrays, each with first dimension N
            (e.g. ``"centre_xy_px"`` (N, 2), ``"area_px"`` (N,)).
    """

    xyxy: np.ndarray
    confidence: np.ndarray
    class_id: np.ndarray
    tracker_id: np.ndarray | None = None
    keypoints_xy_px: np.ndarray | None = None
    keypoints_visible: np.ndarray | None = None
    data: dict[str, np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.xyxy = np.asarray(self.xyxy, dtype=np.float64).reshape(-1, 4)
        n = len(self.xyxy)
        self.confidence = np.asarray(self.confidence, dtype=np.float64).reshape(n)
        self.class_id = np.asarray(self.class_id, dtype=np.int64).reshape(n)
        if self.tracker_id is None:
            self.tracker_id = np.full(n, -1, dtype=np.int64)
        self.tracker_id = np.asarray(self.tracker_id, dtype=np.int64).reshape(n)
        if self.keypoints_xy_px is not None:
            kp = np.asarray(self.keypoints_xy_px, dtype=np.float64)
            # An empty (0, K, 2) array cannot be reshaped with -1: keep its K.
            self.keypoints_xy_px = kp.reshape(0, kp.shape[1] if kp.ndim == 3 else 0, 2) if n == 0 \
                else kp.reshape(n, -1, 2)
            k = self.keypoints_xy_px.shape[1]
            if self.keypoints_visible is None:
                self.keypoints_visible = np.ones((n, k), dtype=bool)
            self.keypoints_visible = np.asarray(self.keypoints_visible, dtype=bool).reshape(n, k)
        elif self.keypoints_visible is not None:
            raise ValueError("Detections: keypoints_visible given without keypoints_xy_px")
        for key, value in list(self.data.items()):
            arr = np.asarray(value)
            if len(arr) != n:
                raise ValueError(f"Detections: data[{key!r}] has {len(arr)} rows, expected {n}")
            self.data[key] = arr

    # ---------------------------------------------------------- constructors
    @classmethod
    def empty(cls, n_keypoints: int | None = None) -> "Detections":
        """No detections (with an empty (0, K, 2) keypoint array when ``n_keypoints`` is given)."""
        kp = None if n_keypoints is None else np.zeros((0, n_keypoints, 2))
        return cls(np.zeros((0, 4)), np.zeros(0), np.zeros(0, dtype=np.int64), keypoints_xy_px=kp)

    @classmethod
    def from_centers(
        cls,
        centre_xy_px: np.ndarray,
        size_wh_px: np.ndarray,
        confidence: np.ndarray,
        class_id: int = PUCK,
        **data: np.ndarray,
    ) -> "Detections":
        """Boxes from centres and sizes (e.g. puck candidates).

        Args:
            centre_xy_px: (N, 2) sub-pixel centres, image px.
            size_wh_px: (N, 2) box widths and heights, px (or (2,) for all).
            confidence: (N,) scores.
            class_id: one class for all.
            **data: extra per-detection arrays; ``centre_xy_px`` is stored too.
        """
        c = np.asarray(centre_xy_px, dtype=np.float64).reshape(-1, 2)
        wh = np.broadcast_to(np.asarray(size_wh_px, dtype=np.float64), c.shape)
        xyxy = np.concatenate([c - wh / 2.0, c + wh / 2.0], axis=1)
        return cls(xyxy, confidence, np.full(len(c), class_id), data={"centre_xy_px": c, **data})

    @classmethod
    def from_connected_components(
        cls,
        stats: np.ndarray,
        centroids: np.ndarray,
        labels: np.ndarray | None = None,
        confidence: np.ndarray | None = None,
        class_id: int = PLAYER,
        offset_xy_px: tuple[float, float] = (0.0, 0.0),
    ) -> "Detections":
        """Blobs from ``cv2.connectedComponentsWithStats`` (label 0, the background, dropped).

        Args:
            stats: (M, 5) int rows (x, y, w, h, area) as OpenCV returns them.
            centroids: (M, 2) float centroids, px.
            labels: (M,) which rows to keep (default: all rows but 0).
            confidence: (len(labels),) scores (default 1).
            class_id: one class for all.
            offset_xy_px: added to all coordinates (for components found in a crop).

        The pixel box of a component spans pixel centres x..x+w-1; the box here
        is its outer edge (x - 0.5 .. x + w - 0.5), so widths equal ``w``.
        """
        stats = np.asarray(stats).reshape(-1, 5)
        idx = np.arange(1, len(stats)) if labels is None else np.asarray(labels, dtype=np.int64)
        s = stats[idx].astype(np.float64)
        ox, oy = offset_xy_px
        xyxy = np.stack(
            [s[:, 0] - 0.5 + ox, s[:, 1] - 0.5 + oy, s[:, 0] + s[:, 2] - 0.5 + ox, s[:, 1] + s[:, 3] - 0.5 + oy], axis=1
        ).reshape(-1, 4)
        conf = np.ones(len(idx)) if confidence is None else confidence
        cen = np.asarray(centroids, dtype=np.float64).reshape(-1, 2)[idx] + np.array([ox, oy])
        return cls(
            xyxy, conf, np.full(len(idx), class_id), data={"centre_xy_px": cen, "area_px": s[:, 4], "label": idx}
        )

    @classmethod
    def from_yolo_output(
        cls,
        output: np.ndarray,
        scale_xy: tuple[float, float] = (1.0, 1.0),
        confidence_threshold: float = 0.25,
        iou_threshold: float = 0.5,
        n_keypoints: int = 0,
    ) -> "Detections":
        """Decode a raw YOLOv8-style ONNX output (boxes as centre/size) with NMS.

        Args:
            output: (1, 4 + C + 3K, A) or (4 + C + 3K, A) array: per anchor
                cx, cy, w, h (network px), C class scores, then K keypoints as
                (x, y, visibility score).
            scale_xy: network px → image px factors (x, y).
            confidence_threshold: minimum best-class score.
            iou_threshold: non-maximum suppression IoU.
            n_keypoints: K.
        """
        out = np.asarray(output, dtype=np.float64)
        if out.ndim == 3:
            out = out[0]
        n_cls = out.shape[0] - 4 - 3 * n_keypoints
        if n_cls < 1:
            raise ValueError(f"from_yolo_output: {out.shape[0]} rows cannot hold 4 box + classes + {n_keypoints} kp")
        out = out.T  # (A, 4 + C + 3K)
        scores = out[:, 4 : 4 + n_cls]
        cls_id = scores.argmax(axis=1)
        conf = scores[np.arange(len(out)), cls_id]
        keep = conf >= confidence_threshold
        out, cls_id, conf = out[keep], cls_id[keep], conf[keep]
        sx, sy = scale_xy
        cx, cy, w, h = out[:, 0] * sx, out[:, 1] * sy, out[:, 2] * sx, out[:, 3] * sy
        xyxy = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1)
        if len(xyxy):
            boxes_xywh = np.stack([xyxy[:, 0], xyxy[:, 1], w, h], axis=1).tolist()
            idx = cv2.dnn.NMSBoxesBatched(boxes_xywh, conf.tolist(), cls_id.tolist(), confidence_threshold, iou_threshold)
            idx = np.asarray(idx, dtype=np.int64).reshape(-1)
        else:
            idx = np.zeros(0, dtype=np.int64)
        kp = vis = None
        if n_keypoints:
            raw = out[idx, 4 + n_cls :].reshape(-1, n_keypoints, 3)
            kp = raw[:, :, :2] * np.array([sx, sy])
            vis = raw[:, :, 2] >= 0.5
        return cls(xyxy[idx], conf[idx], cls_id[idx], keypoints_xy_px=kp, keypoints_visible=vis)

    # ------------------------------------------------------------- container
    def __len__(self) -> int:
        return len(self.xyxy)

    def __iter__(self) -> Iterator["Detections"]:
        for i in range(len(self)):
            yield self[i]

    def __getitem__(self, index: Any) -> "Detections":
        """Select detections by int, slice, index array or boolean mask (always returns Detections)."""
        if isinstance(index, (int, np.integer)):
            index = [int(index)]
        return Detections(
            xyxy=self.xyxy[index],
            confidence=self.confidence[index],
            class_id=self.class_id[index],
            tracker_id=self.tracker_id[index],
            keypoints_xy_px=None if self.keypoints_xy_px is None else self.keypoints_xy_px[index],
            keypoints_visible=None if self.keypoints_visible is None else self.keypoints_visible[index],
            data={k: v[index] for k, v in self.data.items()},
        )

    @classmethod
    def merge(cls, parts: list["Detections"]) -> "Detections":
        """Concatenate detections; data keys and keypoints must agree across non-empty parts."""
        parts = [p for p in parts if len(p)]
        if not parts:
            return cls.empty()
        keys = set(parts[0].data)
        if any(set(p.data) != keys for p in parts):
            raise ValueError("Detections.merge: parts carry different data keys")
        has_kp = parts[0].keypoints_xy_px is not None
        if any((p.keypoints_xy_px is not None) != has_kp for p in parts):
            raise ValueError("Detections.merge: some parts have keypoints and some do not")
        return cls(
            xyxy=np.concatenate([p.xyxy for p in parts]),
            confidence=np.concatenate([p.confidence for p in parts]),
            class_id=np.concatenate([p.class_id for p in parts]),
            tracker_id=np.concatenate([p.tracker_id for p in parts]),
            keypoints_xy_px=np.concatenate([p.keypoints_xy_px for p in parts]) if has_kp else None,
            keypoints_visible=np.concatenate([p.keypoints_visible for p in parts]) if has_kp else None,
            data={k: np.concatenate([p.data[k] for p in parts]) for k in keys},
        )

    # ------------------------------------------------------------ geometry
    @property
    def area_px(self) -> np.ndarray:
        """(N,) box areas, px²."""
        wh = np.clip(self.xyxy[:, 2:] - self.xyxy[:, :2], 0.0, None)
        return wh[:, 0] * wh[:, 1]

    def anchors_xy_px(self, anchor: str = "bottom_center") -> np.ndarray:
        """(N, 2) box anchor points, px: ``center``, ``bottom_center``, ``bottom_left``, ``bottom_right``."""
        x0, y0, x1, y1 = self.xyxy.T
        table = {
            "center": ((x0 + x1) / 2, (y0 + y1) / 2),
            "bottom_center": ((x0 + x1) / 2, y1),
            "bottom_left": (x0, y1),
            "bottom_right": (x1, y1),
        }
        if anchor not in table:
            raise ValueError(f"anchors_xy_px: unknown anchor {anchor!r}")
        return np.stack(table[anchor], axis=1).reshape(-1, 2)


def box_iou(a_xyxy: np.ndarray, b_xyxy: np.ndarray) -> np.ndarray:
    """(N, 4), (M, 4) boxes → (N, M) intersection over union."""
    a = np.asarray(a_xyxy, dtype=np.float64).reshape(-1, 4)
    b = np.asarray(b_xyxy, dtype=np.float64).reshape(-1, 4)
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = np.prod(np.clip(rb - lt, 0.0, None), axis=2)
    area_a = np.prod(np.clip(a[:, 2:] - a[:, :2], 0, None), axis=1)
    area_b = np.prod(np.clip(b[:, 2:] - b[:, :2], 0, None), axis=1)
    union = area_a[:, None] + area_b[None, :] - inter
    return np.where(union > 0, inter / np.maximum(union, 1e-12), 0.0)
