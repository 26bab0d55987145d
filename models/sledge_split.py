"""Seeds and looks of the sledge pose model's training / validation / held-out renders.

Shared by ``models/train_sledge_pose.py`` (training venv) and
``models/evaluate_sledge_pose.py`` (runtime venv); imports nothing heavy.

- Scenario seeds: training clips use ``TRAIN_SEEDS``, the validation split used
  during training (checkpoint selection) ``VAL_SEEDS``, and evaluation only
  ``HELD_OUT_SCENARIO_SEEDS``. The three ranges are disjoint.
- Looks: training and validation clips use ``vision.sim.looks.training_look(i)``,
  which skips ``HELD_OUT_LOOK_SEEDS``; the evaluation renders use the named
  held-out looks (``HELD_OUT_LOOKS``) only.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vision.sim.camera import PRESETS
from vision.sim.looks import HELD_OUT_LOOK_SEEDS, HELD_OUT_LOOKS

#: Sledge-hockey scenarios rendered (the sponge scenario has standing players; free_play is a 60 s
#: WIP choreography that does not always build).
TRAIN_SCENARIOS: tuple[str, ...] = (
    "onside_carried", "offside_carried", "onside_pass", "offside_pass", "offside_backwards_control",
    "defender_carries_in", "delayed_offside_tagup", "icing", "icing_shorthanded", "icing_touched",
    "icing_faceoff", "icing_opponent_could_play", "icing_goalkeeper", "icing_goal", "goal", "goal_close",
    "no_goal_on_line", "no_goal_post", "no_goal_from_behind", "goal_crease_occupied",
)

TRAIN_SEED_BASE = 1          # clip i of the training stream: scenario seed TRAIN_SEED_BASE + i
VAL_SEED_BASE = 500_000      # clip i of the validation stream
HELD_OUT_SEED_BASE = 900_000  # evaluation only: never rendered for training or validation
VAL_LOOK_OFFSET = 10_000     # validation looks: training_look(VAL_LOOK_OFFSET + i)


def train_clip(i: int) -> dict:
    """Scenario, camera preset, scenario seed and look index of the i-th training clip."""
    n = len(TRAIN_SCENARIOS)
    return {"scenario": TRAIN_SCENARIOS[i % n], "camera": PRESETS[(i + i // n) % len(PRESETS)],
            "seed": TRAIN_SEED_BASE + i, "look_index": i}


def val_clip(i: int) -> dict:
    """The i-th validation clip (disjoint seeds and looks from training)."""
    n = len(TRAIN_SCENARIOS)
    j = (7 * i + 3) % n
    return {"scenario": TRAIN_SCENARIOS[j], "camera": PRESETS[i % len(PRESETS)],
            "seed": VAL_SEED_BASE + i, "look_index": VAL_LOOK_OFFSET + i}


def held_out_clip(i: int) -> dict:
    """The i-th evaluation clip: held-out scenario seed and one of the held-out looks."""
    n = len(TRAIN_SCENARIOS)
    names = sorted(HELD_OUT_LOOKS)
    j = (5 * i + 1) % n
    return {"scenario": TRAIN_SCENARIOS[j], "camera": PRESETS[i % len(PRESETS)],
            "seed": HELD_OUT_SEED_BASE + i, "look_name": names[i % len(names)],
            "look_seed": HELD_OUT_LOOKS[names[i % len(names)]]}


#: Classes of the pose model: export_yolo's detection classes (its "sledge" is a skater).
CLASS_NAMES: tuple[str, ...] = ("puck", "sledge", "goalkeeper")


def merged_pose_labels(yolo_root: Path | str) -> tuple[dict, list[tuple[Path, np.ndarray]]]:
    """One pose dataset with the puck from an ``export_yolo`` folder.

    ``export_yolo`` writes the players with their four keypoints in ``pose/``
    (classes sledge 0, goalkeeper 1) and the boxes of all three classes in
    ``detect/`` (puck 0, sledge 1, goalkeeper 2). Here: every frame (both of its
    splits) with the pose rows shifted to the detect class ids plus the puck rows
    of ``detect/`` with all keypoints at visibility 0.

    Returns:
        meta ``{"names", "kpt_shape", "flip_idx", "kpt_names"}`` and
        ``[(image path, rows (M, 5 + 3K) normalised YOLO pose rows)]``.
    """
    root = Path(yolo_root)
    pose, detect = root / "pose", root / "detect"
    text = (pose / "data.yaml").read_text()
    k, kd = 4, 3
    flip_idx = [1, 0, 2, 3]
    kpt_names: list[str] = []
    for line in text.splitlines():
        if line.startswith("kpt_shape:"):
            k, kd = (int(v) for v in line.split(":", 1)[1].strip(" []").split(","))
        elif line.startswith("flip_idx:"):
            flip_idx = [int(v) for v in line.split(":", 1)[1].strip(" []").split(",")]
        elif line.startswith("# keypoints:"):
            kpt_names = [v.strip() for v in line.split(":", 1)[1].split(",")]
    out = []
    for img in sorted((pose / "images").glob("*/*.jpg")):
        split = img.parent.name
        rows = []
        pl = pose / "labels" / split / f"{img.stem}.txt"
        if pl.is_file() and pl.stat().st_size:
            r = np.loadtxt(pl, ndmin=2)
            r[:, 0] += 1
            rows.append(r)
        dl = detect / "labels" / split / f"{img.stem}.txt"
        if dl.is_file() and dl.stat().st_size:
            d = np.loadtxt(dl, ndmin=2)
            d = d[d[:, 0] == 0]
            if len(d):
                rows.append(np.hstack([d[:, :5], np.zeros((len(d), k * kd))]))
        out.append((img, np.vstack(rows) if rows else np.zeros((0, 5 + k * kd))))
    meta = {"names": dict(enumerate(CLASS_NAMES)), "kpt_shape": [k, kd], "flip_idx": flip_idx,
            "kpt_names": kpt_names or [f"kp{j}" for j in range(k)]}
    return meta, out
