"""The carry models' recipe (``models/train_carry_verifier.py``): which spots it labels a puck, and
which clips it renders with drawn jerseys. Hand-computed against the recipe's documented rules;
no training framework needed."""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "models"))

from train_carry_verifier import clip_spec  # noqa: E402
from train_puck_verifier import label_candidates, spec_dir  # noqa: E402


def test_a_partly_hidden_puck_labels_its_spot_a_puck_only_from_the_chosen_visible_fraction():
    # One spot on the puck (0 px), one 4 px off (inside 0.6 × 10 + 1.5 = 7.5 px: a puck spot),
    # one 20 px off (between the radii: not used), one 40 px off (beyond 2.5 × 10 + 3 = 28 px).
    centres = np.array([[100.0, 50.0], [104.0, 50.0], [120.0, 50.0], [140.0, 50.0]])
    ext = np.full(4, 10.0)
    third_visible = (np.array([100.0, 50.0]), 1 / 3, 0.0127)
    # The shipped models' rule: a third of a puck is no puck, its spots are not used.
    assert label_candidates(centres, ext, third_visible).tolist() == [-1, -1, -1, 0]
    assert label_candidates(centres, ext, third_visible, min_visible=0.25).tolist() == [1, 1, -1, 0]
    # Without a puck in the frame every spot is background.
    assert label_candidates(centres, ext, None, min_visible=0.25).tolist() == [0, 0, 0, 0]


def test_drawn_jerseys_go_to_every_nth_pair_of_clips_and_name_their_folder():
    kits = [clip_spec(i, 2).get("kits", "classic") for i in range(8)]
    assert kits == ["drawn", "drawn", "classic", "classic", "drawn", "drawn", "classic", "classic"]
    assert all("kits" not in clip_spec(i) for i in range(8))  # 0: the shipped models' classic kits
    # A carry clip and the next share their pair's jerseys; the seeds are those of classic runs.
    assert clip_spec(4, 2)["seed"] == clip_spec(4)["seed"] == 2004
    root = Path("/data")
    assert spec_dir(root, clip_spec(4, 2)) == root / f"{clip_spec(4)['scenario']}_{clip_spec(4)['camera']}_2004_drawn"
    assert spec_dir(root, clip_spec(4)) == root / f"{clip_spec(4)['scenario']}_{clip_spec(4)['camera']}_2004"


def test_a_recipe_run_records_where_it_is_told_and_leaves_the_shipped_record_alone(tmp_path):
    import json

    from train_puck_verifier import REPO, run_stages

    shipped = REPO / "models" / "demo_model_train.json"
    record = tmp_path / "sub" / "record.json"
    rc = run_stages(["--stages", "measure", "--data", str(tmp_path / "data"), "--record", str(record),
                     "--pair-with", "models/other.onnx"],
                    "demo", {"pair_with": ""}, 7, "demo_model", {"measure": lambda a: {"pair": a.pair_with}})
    assert rc == 0 and not shipped.exists()
    got = json.loads(record.read_text())
    assert got["measure"] == {"pair": "models/other.onnx"}
    assert got["settings"] == {"pair_with": "models/other.onnx", "seed_base": 7}
