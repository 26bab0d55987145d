"""Learned pose detector (puck, skater, goalkeeper + blade keypoints) on ONNX Runtime.

The model is a YOLO pose network trained with ultralytics on simulator renders
(recipe: ``models/train_sledge_pose.py``, card: ``models/sledge_pose.md``) and
exported to ONNX. At run time only ONNX Runtime, numpy and OpenCV are used: no
torch, no ultralytics.

Pipeline per image (BGR uint8, any size):

1. Letterbox to the network's static input (ultralytics' ``LetterBox``: scale to
   fit keeping the aspect ratio, centre, pad with grey 114), BGR → RGB, /255, NCHW.
2. Decode the raw output ``(1, 4 + C + 3K, A)``: per anchor the box as centre/size
   in network px, C class scores (already sigmoid), K keypoints as (x, y, score).
3. Per-class non-maximum suppression (``cv2.dnn.NMSBoxes`` on class-offset boxes).
4. Undo the letterbox: boxes and keypoints in original image px.

Class names, keypoint count and the input size are read from the ONNX metadata
that ultralytics writes (``names``, ``kpt_shape``, ``imgsz``); the model's own
class ids are kept (``class_names`` maps them; the classical detectors'
``vision.detections.CLASS_NAMES`` is a different, coarser set).
"""

from __future__ import annotations

import ast
from pathlib import Path

import cv2
import numpy as np

from vision.detections import Detections

#: Where the trained model ships.
DEFAULT_MODEL_PATH = Path(__file__).resolve().parent.parent / "models" / "sledge_pose.onnx"

#: Class names (``vision.sim.export_yolo.CLASSES``; "sledge" is a skater), used when the ONNX metadata has none.
DEFAULT_CLASS_NAMES: tuple[str, ...] = ("puck", "sledge", "goalkeeper")

#: Keypoint names (``vision.sim.export_yolo.POSE_KEYPOINTS``), used when the ONNX metadata has none.
DEFAULT_KEYPOINT_NAMES: tuple[str, ...] = ("blade_left", "blade_right", "front_skid", "stick_blade")

LETTERBOX_PAD_VALUE = 114


def letterbox(
    image_bgr: np.ndarray, size_hw: tuple[int, int], pad_value: int = LETTERBOX_PAD_VALUE
) -> tuple[np.ndarray, float, tuple[float, float]]:
    """Resize keeping the aspect ratio and pad to ``size_hw`` (ultralytics ``LetterBox(auto=False)``).

    Returns:
        padded (h, w, 3) image, scale (network px per image px), (pad_x, pad_y) px
        added on the left / top. Image px → network px: ``x * scale + pad_x``.
    """
    h0, w0 = image_bgr.shape[:2]
    h, w = size_hw
    r = min(h / h0, w / w0)
    nw, nh = int(round(w0 * r)), int(round(h0 * r))
    dw, dh = (w - nw) / 2.0, (h - nh) / 2.0
    img = image_bgr if (nw, nh) == (w0, h0) else cv2.resize(image_bgr, (nw, nh), interpolation=cv2.INTER_LINEAR)
    top, bottom = int(round(dh - 0.1)), int(round(dh + 0.1))
    left, right = int(round(dw - 0.1)), int(round(dw + 0.1))
    out = cv2.copyMakeBorder(img, top, bottom, left, right, cv2.BORDER_CONSTANT, value=(pad_value,) * 3)
    # The exact scale per axis after rounding the resized size.
    return out, r, (float(left), float(top))


def _meta_value(meta: dict[str, str], key: str):
    if key not in meta:
        return None
    try:
        return ast.literal_eval(meta[key])
    except (ValueError, SyntaxError):
        return None


class OnnxPoseDetector:
    """YOLO pose detector on ONNX Runtime.

    Args:
        model_path: the ONNX file (default ``models/sledge_pose.onnx``).
        conf: minimum class score.
        iou: NMS IoU threshold (per class).
        kp_conf: keypoint score at or above which a keypoint counts as visible.
        providers: ONNX Runtime execution providers (default CPU).
        intra_op_threads: ONNX Runtime intra-op threads (0: its default).

    Raises:
        FileNotFoundError: the model file does not exist (with how to produce it).
        ValueError: the model's output does not have the YOLO pose layout.

    Attributes read from the model: ``class_names``, ``keypoint_names`` (export_yolo's
    ``blade_left, blade_right, front_skid, stick_blade``), ``input_hw``.

    ``detector(image_bgr)`` returns ``Detections`` with ``xyxy`` (px in the given image),
    ``confidence``, ``class_id`` (``class_names[class_id]``), ``keypoints_xy_px``
    (N, K, 2), ``keypoints_visible`` (N, K) and ``data["keypoints_confidence"]`` (N, K).
    """

    def __init__(
        self,
        model_path: str | Path | None = None,
        conf: float = 0.25,
        iou: float = 0.5,
        kp_conf: float = 0.5,
        providers: list[str] | None = None,
        intra_op_threads: int = 0,
    ) -> None:
        import onnxruntime as ort

        path = Path(model_path) if model_path is not None else DEFAULT_MODEL_PATH
        if not path.is_file():
            raise FileNotFoundError(
                f"OnnxPoseDetector: model file {str(path)!r} not found; train and export it with "
                f"`.venv-train/bin/python models/train_sledge_pose.py` (see models/sledge_pose.md)"
            )
        self.model_path = path
        self.conf, self.iou, self.kp_conf = float(conf), float(iou), float(kp_conf)
        so = ort.SessionOptions()
        if intra_op_threads:
            so.intra_op_num_threads = int(intra_op_threads)
        self.session = ort.InferenceSession(str(path), sess_options=so, providers=providers or ["CPUExecutionProvider"])
        inp = self.session.get_inputs()[0]
        self.input_name = inp.name
        shape = inp.shape
        meta = dict(self.session.get_modelmeta().custom_metadata_map)
        imgsz = _meta_value(meta, "imgsz")
        if isinstance(shape[2], int) and isinstance(shape[3], int):
            self.input_hw = (int(shape[2]), int(shape[3]))
        elif imgsz is not None:
            self.input_hw = (int(imgsz[0]), int(imgsz[1]))
        else:
            raise ValueError(f"OnnxPoseDetector: {path} has a dynamic input {shape} and no imgsz metadata")
        names = _meta_value(meta, "names")
        kpt_shape = _meta_value(meta, "kpt_shape")
        out_rows = self.session.get_outputs()[0].shape[1]
        if isinstance(names, dict):
            self.class_names = tuple(str(names[k]) for k in sorted(names))
        else:
            self.class_names = DEFAULT_CLASS_NAMES
        if kpt_shape is not None:
            self.n_keypoints, self.kpt_dim = int(kpt_shape[0]), int(kpt_shape[1])
        else:
            if not isinstance(out_rows, int):
                raise ValueError(f"OnnxPoseDetector: {path} has no kpt_shape metadata and a dynamic output")
            self.kpt_dim = 3
            self.n_keypoints = (out_rows - 4 - len(self.class_names)) // 3
        kn = _meta_value(meta, "kpt_names")
        if isinstance(kn, dict) and kn:
            kn = next(iter(kn.values()))
        if isinstance(kn, (list, tuple)) and len(kn) == self.n_keypoints and not all(str(v).isdigit() for v in kn):
            self.keypoint_names = tuple(str(v) for v in kn)
        elif self.n_keypoints == len(DEFAULT_KEYPOINT_NAMES):
            self.keypoint_names = DEFAULT_KEYPOINT_NAMES
        else:
            self.keypoint_names = tuple(f"kp{j}" for j in range(self.n_keypoints))
        if isinstance(out_rows, int) and out_rows != 4 + len(self.class_names) + self.kpt_dim * self.n_keypoints:
            raise ValueError(
                f"OnnxPoseDetector: output has {out_rows} rows, expected 4 + {len(self.class_names)} classes + "
                f"{self.kpt_dim}×{self.n_keypoints} keypoints (is this a YOLO pose model?)"
            )
        self.metadata = meta

    # ------------------------------------------------------------------ steps
    def preprocess(self, image_bgr: np.ndarray) -> tuple[np.ndarray, float, tuple[float, float]]:
        """Letterboxed (1, 3, h, w) float32 RGB tensor in [0, 1], scale, (pad_x, pad_y)."""
        if image_bgr is None or image_bgr.ndim != 3 or image_bgr.shape[2] != 3:
            raise ValueError(f"OnnxPoseDetector: expected an (H, W, 3) BGR image, got shape "
                             f"{None if image_bgr is None else image_bgr.shape}")
        img, r, pad = letterbox(image_bgr, self.input_hw)
        x = cv2.dnn.blobFromImage(img, scalefactor=1.0 / 255.0, swapRB=True)  # (1, 3, h, w) float32 RGB
        return x, r, pad

    def decode(
        self, output: np.ndarray, scale: float, pad_xy: tuple[float, float], image_hw: tuple[int, int]
    ) -> Detections:
        """Raw ``(1, 4 + C + 3K, A)`` output → NMS'd ``Detections`` in image px."""
        out = np.asarray(output, dtype=np.float32)
        if out.ndim == 3:
            out = out[0]
        n_cls, k, d = len(self.class_names), self.n_keypoints, self.kpt_dim
        out = out.T  # (A, 4 + C + dK)
        scores = out[:, 4 : 4 + n_cls]
        cls_id = scores.argmax(axis=1)
        conf = scores[np.arange(len(out)), cls_id]
        keep = conf >= self.conf
        out, cls_id, conf = out[keep], cls_id[keep], conf[keep]
        if not len(out):
            return self._empty()
        px, py = pad_xy
        cx, cy, w, h = out[:, 0], out[:, 1], out[:, 2], out[:, 3]
        xyxy = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1).astype(np.float64)
        # Per-class NMS: shift each class's boxes far apart, then one NMSBoxes call.
        off = cls_id.astype(np.float64)[:, None] * (4.0 * max(self.input_hw))
        b = xyxy + off[:, [0, 0, 0, 0]]
        idx = cv2.dnn.NMSBoxes(
            np.stack([b[:, 0], b[:, 1], w, h], axis=1).tolist(), conf.astype(float).tolist(), self.conf, self.iou
        )
        idx = np.asarray(idx, dtype=np.int64).reshape(-1)
        idx = idx[np.argsort(-conf[idx], kind="stable")]
        H0, W0 = image_hw
        xyxy = (xyxy[idx] - np.array([px, py, px, py])) / scale
        xyxy[:, [0, 2]] = np.clip(xyxy[:, [0, 2]], 0.0, W0)
        xyxy[:, [1, 3]] = np.clip(xyxy[:, [1, 3]], 0.0, H0)
        raw = out[idx, 4 + n_cls :].reshape(-1, k, d).astype(np.float64)
        kp = (raw[:, :, :2] - np.array([px, py])) / scale
        kconf = raw[:, :, 2] if d == 3 else np.ones(raw.shape[:2])
        return Detections(
            xyxy,
            conf[idx],
            cls_id[idx],
            keypoints_xy_px=kp,
            keypoints_visible=kconf >= self.kp_conf,
            data={"keypoints_confidence": kconf},
        )

    def _empty(self) -> Detections:
        """No detections, with (0, K, 2) keypoints (``Detections`` cannot reshape an empty keypoint array)."""
        det = Detections(np.zeros((0, 4)), np.zeros(0), np.zeros(0, dtype=np.int64))
        det.keypoints_xy_px = np.zeros((0, self.n_keypoints, 2))
        det.keypoints_visible = np.zeros((0, self.n_keypoints), dtype=bool)
        det.data["keypoints_confidence"] = np.zeros((0, self.n_keypoints))
        return det

    def __call__(self, image_bgr: np.ndarray) -> Detections:
        """Detect in one BGR image."""
        x, r, pad = self.preprocess(image_bgr)
        out = self.session.run(None, {self.input_name: x})[0]
        return self.decode(out, r, pad, image_bgr.shape[:2])

    detect = __call__
