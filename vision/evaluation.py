"""Score ``tracks.jsonl`` against simulator truth, and run the vision stage on a video.

``rulesfromvideo eval tracks --truth CLIP_DIR [--pred OUT_DIR]`` (or folders of
clips) prints, per clip and pooled:

- puck recall: frames where the truth puck is visible and a predicted puck lies
  within 0.5 m of it / frames where the truth puck is visible;
- puck precision: frames with a predicted puck within 0.5 m of the truth puck
  (visible or not — a coasted puck at the right spot is right) / frames with a
  predicted puck; both also for ``measured: true`` predictions alone;
- puck recall at the lines (measured predictions): the same, over the frames where the visible
  truth puck is on the ice within ``PUCK_AT_LINE_M`` of a blue, centre or goal line's paint
  (the frames a zone entry, an icing or a goal is decided on; truth with its ``rink``);
- puck position error (median, p95, cm) of measured predictions on visible frames;
- blade error (median, p95, cm): players matched per frame (Hungarian on the
  distance between blade centres, ≤ 1 m), each truth blade paired with the nearer
  predicted blade ordering;
- player IDF1 (Ristani et al. 2016: one-to-one assignment of truth to predicted
  identities maximising frames matched within 1 m) and HOTA (Luiten et al. 2021,
  with similarity 1 − d / 1 m over α = 0.05 … 0.95), both from scipy's Hungarian
  solver. Neither py-motmetrics (1.4.0, needs pandas, uses ``np.asfarray``
  removed in numpy 2) nor TrackEval (1.3.0, needs ``opencv-python`` which clashes
  with the headless build, plus matplotlib and pycocotools) installs cleanly here,
  so both metrics are computed in this module (tests check them on hand cases);
- team accuracy of matched players whose team is known, and the share known;
- frames/s of the vision stage when this command runs it (no ``--pred``).

Truth players that are not visible are "don't care": a prediction matched to
one counts neither way.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np
from scipy.optimize import linear_sum_assignment

from calibration.fixed import ice_in_front
from vision.video import iter_frames

PUCK_MATCH_M = 0.5
PLAYER_MATCH_M = 1.0
# A visible puck on the ice (centre at most PUCK_ON_ICE_Z_M up) this close to a blue, centre or goal
# line's painted edges counts towards the recall at the lines, m.
PUCK_AT_LINE_M = 0.3
PUCK_ON_ICE_Z_M = 0.03


# ---------------------------------------------------------------------- io
def load_truth(clip_dir: str | Path) -> dict:
    """truth.json of a clip folder (or the file itself)."""
    p = Path(clip_dir)
    if p.is_dir():
        p = p / "truth.json"
    with open(p, encoding="utf-8") as fh:
        return json.load(fh)


def load_tracks(path: str | Path) -> list[dict]:
    """tracks.jsonl (or its folder) → list of records (see `vision.jsonl.iter_jsonl`)."""
    from vision.jsonl import read_jsonl

    p = Path(path)
    if p.is_dir():
        p = p / "tracks.jsonl"
    return read_jsonl(p)


def truth_calibration(truth: dict) -> list[Any]:
    """Per-frame calibration from truth: ``rink_from_image`` (the inverse of ``H_image_from_rink``),
    or None where the truth has none.

    ``H_image_from_rink`` is the ice plane of the undistorted pinhole camera. Where the frame's
    ``camera`` distorts (OpenCV ``K``, ``dist``), the raw pixels a tracker sees are not on it: the
    frame gets a ``calibration.registration.CalibrationResult`` as registration makes them, with
    the true lens, ``rink_from_undistorted`` and the best 3×3 on raw pixels (``_raw_homography``),
    so that the vision stage maps its detections as it does end to end. (Without the lens an
    overhead render's puck was placed up to half a metre off near the picture's edges.)
    """
    out: list[Any] = []
    rink = truth.get("rink") or {}
    for fr in truth["frames"]:
        H = fr.get("H_image_from_rink")
        if H is None:
            out.append(None)
            continue
        rink_from_undistorted = np.linalg.inv(np.asarray(H, dtype=np.float64))
        rink_from_undistorted /= rink_from_undistorted[2, 2]
        rink_from_undistorted = ice_in_front(rink_from_undistorted, int(truth["width"]), int(truth["height"]))
        cam = fr.get("camera") or {}
        dist = np.asarray(cam.get("dist") or [], dtype=np.float64).ravel()
        if cam.get("K") is None or not dist.size or not np.any(dist != 0):
            out.append(rink_from_undistorted)
            continue
        from calibration.registration import CalibrationResult

        K = np.asarray(cam["K"], dtype=np.float64).reshape(3, 3)
        R, t = cam.get("R"), cam.get("t")
        cam_from_rink = None if R is None or t is None else (np.asarray(R, np.float64).reshape(3, 3),
                                                             np.asarray(t, np.float64).reshape(3))
        H_raw = _raw_homography(rink_from_undistorted, K, dist, int(truth["width"]), int(truth["height"]),
                                float(rink.get("length_m", 60.0)), float(rink.get("width_m", 30.0)), cam_from_rink)
        out.append(CalibrationResult(H_raw, 1.0, "truth", 0, [], {"K": K, "dist": dist}, rink_from_undistorted))
    return out


def _raw_homography(rink_from_undistorted: np.ndarray, K: np.ndarray, dist: np.ndarray, width: int, height: int,
                    length_m: float, width_m: float, cam_from_rink: tuple | None = None) -> np.ndarray:
    """(3, 3) least-squares raw px → rink m over a grid of the picture's pixels that see the ice
    (as ``calibration.registration`` fits its raw-pixel homography); the pinhole's where too few do.
    ``cam_from_rink`` (R (3, 3), t (3,)) keeps only ice points in front of the camera."""
    import cv2

    gu, gv = np.meshgrid(np.linspace(0, width - 1, 32), np.linspace(0, height - 1, 18))
    raw = np.c_[gu.ravel(), gv.ravel()]
    und = cv2.undistortPoints(raw.reshape(-1, 1, 2), K, dist, P=K).reshape(-1, 2)
    q = np.c_[und, np.ones(len(und))] @ rink_from_undistorted.T
    ok = np.abs(q[:, 2]) > 1e-12
    xy = q[:, :2] / np.where(ok, q[:, 2], 1.0)[:, None]
    ok &= (np.abs(xy[:, 0]) <= length_m / 2) & (np.abs(xy[:, 1]) <= width_m / 2)
    if cam_from_rink is not None:  # a ray above the horizon meets the plane behind the camera
        R, t = cam_from_rink
        ok &= (np.c_[xy, np.zeros(len(xy))] @ R.T + t)[:, 2] > 0
    if ok.sum() < 8:
        return rink_from_undistorted
    H_raw, _ = cv2.findHomography(raw[ok], xy[ok], 0)
    return rink_from_undistorted if H_raw is None else ice_in_front(H_raw / H_raw[2, 2], width, height)


# ---------------------------------------------------------------------- metrics
def _blade_centre(p: dict) -> np.ndarray:
    return np.mean(np.asarray(p["blades"], dtype=np.float64).reshape(-1, 2), axis=0)


def _match(truth_xy: np.ndarray, pred_xy: np.ndarray, thr: float) -> list[tuple[int, int, float]]:
    if len(truth_xy) == 0 or len(pred_xy) == 0:
        return []
    d = np.linalg.norm(truth_xy[:, None, :] - pred_xy[None, :, :], axis=2)
    cost = np.where(d <= thr, d, 1e6)
    r, c = linear_sum_assignment(cost)
    return [(int(i), int(j), float(d[i, j])) for i, j in zip(r, c) if d[i, j] <= thr]


def idf1(frames: list[tuple[list[int], list[int], np.ndarray]]) -> dict:
    """IDF1 from per-frame (truth ids, pred ids, (T, P) distance matrix).

    Args:
        frames: per frame the truth ids, the predicted ids and their distances, m.

    Returns:
        {"idf1", "idp", "idr", "idtp", "n_truth", "n_pred"}.
    """
    t_ids = sorted({i for f in frames for i in f[0]})
    p_ids = sorted({j for f in frames for j in f[1]})
    n_truth = sum(len(f[0]) for f in frames)
    n_pred = sum(len(f[1]) for f in frames)
    if not t_ids or not p_ids:
        return {"idf1": 0.0 if (n_truth or n_pred) else 1.0, "idp": 0.0, "idr": 0.0, "idtp": 0,
                "n_truth": n_truth, "n_pred": n_pred}
    ti = {t: k for k, t in enumerate(t_ids)}
    pi = {p: k for k, p in enumerate(p_ids)}
    co = np.zeros((len(t_ids), len(p_ids)))
    for tids, pids, d in frames:
        for a, t in enumerate(tids):
            for b, p in enumerate(pids):
                if d[a, b] <= PLAYER_MATCH_M:
                    co[ti[t], pi[p]] += 1
    r, c = linear_sum_assignment(-co)
    idtp = float(co[r, c].sum())
    return {
        "idf1": 2 * idtp / max(1, n_truth + n_pred),
        "idp": idtp / max(1, n_pred),
        "idr": idtp / max(1, n_truth),
        "idtp": int(idtp),
        "n_truth": n_truth,
        "n_pred": n_pred,
    }


def hota(frames: list[tuple[list[int], list[int], np.ndarray]], thr_m: float = PLAYER_MATCH_M) -> dict:
    """HOTA with a distance similarity ``max(0, 1 − d / thr_m)`` (Luiten et al. 2021).

    Returns:
        {"hota", "deta", "assa"} averaged over α = 0.05, 0.10, … 0.95.
    """
    alphas = np.arange(0.05, 0.99, 0.05)
    t_ids = sorted({i for f in frames for i in f[0]})
    p_ids = sorted({j for f in frames for j in f[1]})
    n_gt = sum(len(f[0]) for f in frames)
    n_pr = sum(len(f[1]) for f in frames)
    if not t_ids or not p_ids:
        return {"hota": 0.0, "deta": 0.0, "assa": 0.0}
    ti = {t: k for k, t in enumerate(t_ids)}
    pi = {p: k for k, p in enumerate(p_ids)}
    sims = []
    potential = np.zeros((len(t_ids), len(p_ids)))
    gt_count = np.zeros(len(t_ids))
    pr_count = np.zeros(len(p_ids))
    for tids, pids, d in frames:
        rows = np.array([ti[t] for t in tids], dtype=np.int64)
        cols = np.array([pi[p] for p in pids], dtype=np.int64)
        s = np.clip(1.0 - d / thr_m, 0.0, 1.0) if d.size else np.zeros((len(tids), len(pids)))
        sims.append((rows, cols, s))
        gt_count[rows] += 1
        pr_count[cols] += 1
        if s.size:
            denom = s.sum(0)[None, :] + s.sum(1)[:, None] - s
            iou = np.where(denom > 1e-12, s / np.maximum(denom, 1e-12), 0.0)
            potential[np.ix_(rows, cols)] += iou
    global_align = potential / np.maximum(gt_count[:, None] + pr_count[None, :] - potential, 1e-12)
    tp = np.zeros(len(alphas))
    matches = np.zeros((len(alphas), len(t_ids), len(p_ids)))
    for rows, cols, s in sims:
        if s.size == 0:
            continue
        score = global_align[np.ix_(rows, cols)] * s
        r, c = linear_sum_assignment(-score)
        for k, a in enumerate(alphas):
            ok = s[r, c] >= a - 1e-9
            tp[k] += ok.sum()
            matches[k, rows[r[ok]], cols[c[ok]]] += 1
    deta = tp / np.maximum(1, n_gt + n_pr - tp)
    assa = np.zeros(len(alphas))
    for k in range(len(alphas)):
        m = matches[k]
        ass_iou = m / np.maximum(1, gt_count[:, None] + pr_count[None, :] - m)
        assa[k] = (m * ass_iou).sum() / max(1.0, tp[k])
    h = np.sqrt(deta * assa)
    return {"hota": float(h.mean()), "deta": float(deta.mean()), "assa": float(assa.mean())}


def _line_edges_x(truth: dict) -> list[tuple[float, float]]:
    """x of the painted edges (m) of the blue, goal and centre lines of the truth's rink; [] when
    the truth does not say its rink."""
    r = truth.get("rink")
    if not r:
        return []
    from calibration.rink import RinkModel

    rink = RinkModel.for_layout(r.get("layout", "ipc"), r.get("length_m"), r.get("width_m"))
    return [rink.blue_line_edges_x(1), rink.blue_line_edges_x(-1), rink.goal_line_edges_x(1),
            rink.goal_line_edges_x(-1), rink.centre_line_edges_x()]


def _at_a_line(puck: dict, edges_x: list[tuple[float, float]]) -> bool:
    """Whether a truth puck lies on the ice within ``PUCK_AT_LINE_M`` of a line's paint."""
    if float(puck.get("z", 0.0)) > PUCK_ON_ICE_Z_M:
        return False
    x = float(puck["x"])
    return any(min(a, b) - PUCK_AT_LINE_M <= x <= max(a, b) + PUCK_AT_LINE_M for a, b in edges_x)


def evaluate_tracks(truth: dict, records: Sequence[dict]) -> dict:
    """Metrics of one clip (see module doc). Frames are matched by ``frame`` index."""
    pred_by_frame = {int(r["frame"]): r for r in records}
    edges_x = _line_edges_x(truth)
    n_line = n_line_hit_meas = 0
    n_vis = n_pred = n_pred_ok = n_vis_hit = 0
    n_pred_meas = n_pred_meas_ok = n_vis_hit_meas = 0
    puck_err = []
    blade_err = []
    team_ok = team_known = team_pairs = 0
    id_frames: list[tuple[list[int], list[int], np.ndarray]] = []
    n_frames = 0
    for fr in truth["frames"]:
        f = int(fr["frame"])
        rec = pred_by_frame.get(f)
        n_frames += 1
        tp = fr.get("puck")
        pp = rec.get("puck") if rec else None
        visible = bool(tp and tp.get("visible", True) and tp.get("in_frame", True))
        d_puck = None
        if tp is not None and pp is not None:
            d_puck = math.hypot(pp["x"] - tp["x"], pp["y"] - tp["y"])
        if visible:
            n_vis += 1
            at_line = _at_a_line(tp, edges_x)
            n_line += at_line
            if d_puck is not None and d_puck <= PUCK_MATCH_M:
                n_vis_hit += 1
                if pp.get("measured", True):
                    n_vis_hit_meas += 1
                    n_line_hit_meas += at_line
                    puck_err.append(d_puck)
        if pp is not None:
            n_pred += 1
            ok = d_puck is not None and d_puck <= PUCK_MATCH_M
            n_pred_ok += ok
            if pp.get("measured", True):
                n_pred_meas += 1
                n_pred_meas_ok += ok

        t_players = fr.get("players", [])
        p_players = rec.get("players", []) if rec else []
        t_xy = np.array([_blade_centre(p) for p in t_players]).reshape(-1, 2)
        p_xy = np.array([_blade_centre(p) for p in p_players]).reshape(-1, 2)
        matches = _match(t_xy, p_xy, PLAYER_MATCH_M)
        dont_care = {j for i, j, _ in matches if not t_players[i].get("visible", True)}
        vis_t = [i for i, p in enumerate(t_players) if p.get("visible", True)]
        keep_p = [j for j in range(len(p_players)) if j not in dont_care]
        for i, j, _ in matches:
            if j in dont_care:
                continue
            tb = np.asarray(t_players[i]["blades"], dtype=np.float64)
            pb = np.asarray(p_players[j]["blades"], dtype=np.float64)
            e1 = np.linalg.norm(tb - pb, axis=1)
            e2 = np.linalg.norm(tb - pb[::-1], axis=1)
            blade_err.extend((e1 if e1.sum() <= e2.sum() else e2).tolist())
            team_pairs += 1
            pt = p_players[j].get("team")
            if pt is not None:
                team_known += 1
                team_ok += pt == t_players[i].get("team")
        d = np.linalg.norm(t_xy[vis_t][:, None, :] - p_xy[keep_p][None, :, :], axis=2) if vis_t and keep_p else \
            np.zeros((len(vis_t), len(keep_p)))
        id_frames.append(([int(t_players[i]["id"]) for i in vis_t], [int(p_players[j]["id"]) for j in keep_p], d))

    def pct(a, b):
        return float(a) / b if b else float("nan")

    pe = np.asarray(puck_err) * 100.0
    be = np.asarray(blade_err) * 100.0
    out = {
        "frames": n_frames,
        "puck_visible_frames": n_vis,
        "puck_recall": pct(n_vis_hit, n_vis),
        "puck_precision": pct(n_pred_ok, n_pred),
        "puck_recall_measured": pct(n_vis_hit_meas, n_vis),
        "puck_precision_measured": pct(n_pred_meas_ok, n_pred_meas),
        "puck_at_line_frames": n_line,
        "puck_recall_at_lines_measured": pct(n_line_hit_meas, n_line),
        "puck_err_median_cm": float(np.median(pe)) if len(pe) else float("nan"),
        "puck_err_p95_cm": float(np.percentile(pe, 95)) if len(pe) else float("nan"),
        "blade_err_median_cm": float(np.median(be)) if len(be) else float("nan"),
        "blade_err_p95_cm": float(np.percentile(be, 95)) if len(be) else float("nan"),
        "team_accuracy": pct(team_ok, team_known),
        "team_known_share": pct(team_known, team_pairs),
        "_counts": {"vis": n_vis, "vis_hit": n_vis_hit, "vis_hit_meas": n_vis_hit_meas, "pred": n_pred,
                    "line": n_line, "line_hit_meas": n_line_hit_meas,
                    "pred_ok": n_pred_ok, "pred_meas": n_pred_meas, "pred_meas_ok": n_pred_meas_ok,
                    "team_ok": team_ok, "team_known": team_known, "team_pairs": team_pairs},
        "_puck_err_m": puck_err,
        "_blade_err_m": blade_err,
        "_id_frames": id_frames,
    }
    out.update({k: v for k, v in idf1(id_frames).items() if k in ("idf1", "idp", "idr")})
    out.update(hota(id_frames))
    return out


def evaluate_clip(truth_dir: str | Path, pred_dir: str | Path) -> dict:
    """`evaluate_tracks` of one clip folder (truth.json) against a folder holding tracks.jsonl."""
    return evaluate_tracks(load_truth(truth_dir), load_tracks(pred_dir))


def pool(results: list[dict]) -> dict:
    """Pool per-clip metrics (sums of counts, concatenated errors; identities stay per clip)."""
    c = {k: sum(r["_counts"][k] for r in results) for k in results[0]["_counts"]}
    pe = np.concatenate([np.asarray(r["_puck_err_m"]) for r in results]) * 100
    be = np.concatenate([np.asarray(r["_blade_err_m"]) for r in results]) * 100
    # Identities are per clip: offset them so that clips never share an id.
    frames = []
    for k, r in enumerate(results):
        off = (k + 1) * 1_000_000
        frames.extend(([t + off for t in a], [p + off for p in b], d) for a, b, d in r["_id_frames"])

    def pct(a, b):
        return float(a) / b if b else float("nan")

    out = {
        "frames": sum(r["frames"] for r in results),
        "puck_visible_frames": c["vis"],
        "puck_recall": pct(c["vis_hit"], c["vis"]),
        "puck_precision": pct(c["pred_ok"], c["pred"]),
        "puck_recall_measured": pct(c["vis_hit_meas"], c["vis"]),
        "puck_precision_measured": pct(c["pred_meas_ok"], c["pred_meas"]),
        "puck_at_line_frames": c["line"],
        "puck_recall_at_lines_measured": pct(c["line_hit_meas"], c["line"]),
        "puck_err_median_cm": float(np.median(pe)) if len(pe) else float("nan"),
        "puck_err_p95_cm": float(np.percentile(pe, 95)) if len(pe) else float("nan"),
        "blade_err_median_cm": float(np.median(be)) if len(be) else float("nan"),
        "blade_err_p95_cm": float(np.percentile(be, 95)) if len(be) else float("nan"),
        "team_accuracy": pct(c["team_ok"], c["team_known"]),
        "team_known_share": pct(c["team_known"], c["team_pairs"]),
    }
    out.update({k: v for k, v in idf1(frames).items() if k in ("idf1", "idp", "idr")})
    out.update(hota(frames))
    fps = [r["fps"] for r in results if r.get("fps")]
    if fps:
        out["fps"] = float(sum(r["frames"] for r in results if r.get("fps")) /
                           sum(r["frames"] / r["fps"] for r in results if r.get("fps")))
    return out


def public(metrics: dict) -> dict:
    """The metrics without the internal (underscore) fields."""
    return {k: v for k, v in metrics.items() if not k.startswith("_")}


# ---------------------------------------------------------------------- running
def _video_fps(video_path: Path) -> float:
    try:
        from vision.video import probe

        return float(probe(video_path)[0])
    except ImportError:
        import cv2

        cap = cv2.VideoCapture(str(video_path))
        fps = cap.get(cv2.CAP_PROP_FPS)
        cap.release()
        return float(fps) if fps and fps > 0 else 30.0


def _load_calibration(calibration: Any) -> list[Any]:
    if isinstance(calibration, (str, Path)):
        out = []
        with open(calibration, encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    rec = json.loads(line)
                    H = rec.get("H_rink_from_image")
                    out.append(None if H is None else np.asarray(H, dtype=np.float64))
        return out
    return list(calibration)


def track_video(
    video_path: str | Path,
    calibration_jsonl_or_results: str | Path | Sequence[Any],
    game: Any,
    rink: Any = None,
    out_path: str | Path = "tracks.jsonl",
    max_frames: int | None = None,
) -> dict:
    """Run the vision stage on a video and write tracks.jsonl (usable without ``analyze``).

    Args:
        video_path: the clip.
        calibration_jsonl_or_results: calibration.jsonl path, or a per-frame sequence of
            ``CalibrationResult`` / (3, 3) ``rink_from_image`` arrays / None.
        game: GameDescriptor, GAME.json path or dict.
        rink: RinkModel (default: from the game's rink).
        out_path: tracks.jsonl to write.
        max_frames: stop after this many frames.

    Returns:
        {"frames", "seconds" (vision stage only, decode excluded), "fps"}.
    """
    from vision.revisions import HeldRecords
    from vision.tracking import FrameTracker

    video_path = Path(video_path)
    if isinstance(game, (str, Path)):
        from rulesfromvideo.game import GameDescriptor

        game = GameDescriptor.from_file(game)
    elif isinstance(game, dict) and rink is None:
        from rulesfromvideo.game import GameDescriptor

        game = GameDescriptor.from_dict(game)
    if rink is None:
        from calibration.rink import RinkModel

        rink = RinkModel(game.rink_spec())
    calib = _load_calibration(calibration_jsonl_or_results)
    fps = _video_fps(video_path)
    tracker = FrameTracker(rink, game, fps)
    # As in ``analyze``: later knowledge of earlier frames, carried pucks at the players' stick reach.
    held = HeldRecords(fps, stick_reach_m=tracker.body.stick_reach_m)
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    spent = 0.0
    n = 0
    with open(out_path, "w", encoding="utf-8") as fh:
        for index, frame in iter_frames(video_path):
            if max_frames is not None and index >= max_frames:
                break
            c = calib[index] if index < len(calib) else None
            t0 = time.perf_counter()
            obs = tracker.update(frame, index, index / fps, c)
            spent += time.perf_counter() - t0
            rec = obs.to_record()
            rec["t"] = round(rec["t"], 6)
            t0 = time.perf_counter()
            ready = held.push(rec, obs.puck_backfill, obs.puck_revisions, obs.player_retractions,
                              obs.player_backfill, obs.puck_retractions)
            spent += time.perf_counter() - t0
            for out in ready:
                fh.write(json.dumps(out) + "\n")
            n += 1
        for out in held.flush():
            fh.write(json.dumps(out) + "\n")
    return {"frames": n, "seconds": spent, "fps": n / spent if spent > 0 else float("nan")}


# ---------------------------------------------------------------------- CLI
def _clip_dirs(root: Path) -> list[Path]:
    if (root / "truth.json").exists():
        return [root]
    return sorted(p for p in root.iterdir() if (p / "truth.json").exists()) if root.is_dir() else []


def _find_video(clip: Path) -> Path:
    for name in ("clip.mp4", "clip.avi", "clip.mkv"):
        if (clip / name).exists():
            return clip / name
    vids = sorted(clip.glob("*.mp4"))
    if not vids:
        raise FileNotFoundError(f"{clip}: no clip.mp4")
    return vids[0]


def _game_for(clip: Path, truth: dict) -> Any:
    from rulesfromvideo.game import GameDescriptor

    if (clip / "game.json").exists():
        return GameDescriptor.from_file(clip / "game.json")
    raise FileNotFoundError(f"{clip}: no game.json")


def _cmd_eval_tracks(args: argparse.Namespace) -> int:
    root = Path(args.truth)
    clips = _clip_dirs(root)
    if not clips:
        print(f"error: {root}: no truth.json here or in its sub-folders", file=sys.stderr)
        return 2
    results = []
    for clip in clips:
        truth = load_truth(clip)
        fps = None
        if args.pred is not None:
            pred_root = Path(args.pred)
            pred = pred_root if len(clips) == 1 and (pred_root / "tracks.jsonl").exists() else pred_root / clip.name
            if not (pred / "tracks.jsonl").exists():
                print(f"error: {pred}: no tracks.jsonl", file=sys.stderr)
                return 2
            records = load_tracks(pred)
        else:
            out = Path(args.out) / clip.name if args.out else clip / "_vision_eval"
            try:
                game = _game_for(clip, truth)
                video = _find_video(clip)
            except (FileNotFoundError, ValueError) as exc:
                print(f"error: {exc}", file=sys.stderr)
                return 2
            calib: Any = truth_calibration(truth)
            if args.calib == "registration":
                calib = out / "calibration.jsonl"
                _run_registration(video, game, calib, args.max_frames)
            stats = track_video(video, calib, game, out_path=out / "tracks.jsonl", max_frames=args.max_frames)
            fps = stats["fps"]
            records = load_tracks(out / "tracks.jsonl")
        if args.max_frames is not None:
            truth = dict(truth, frames=[f for f in truth["frames"] if f["frame"] < args.max_frames])
        m = evaluate_tracks(truth, records)
        m["fps"] = fps
        m["clip"] = clip.name
        results.append(m)
        _print_row(clip.name, public(m))
    pooled = pool(results)
    if len(results) > 1:
        _print_row("ALL", pooled)
    if args.json:
        Path(args.json).write_text(json.dumps({"clips": [public(r) for r in results], "pooled": pooled}, indent=2))
    return 0


def _run_registration(video: Path, game: Any, out: Path, max_frames: int | None) -> None:
    from calibration.registration import Calibrator
    from calibration.rink import RinkModel

    rink = RinkModel(game.rink_spec())
    cal = Calibrator(rink, fps=_video_fps(video))
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", encoding="utf-8") as fh:
        for index, frame in iter_frames(video):
            if max_frames is not None and index >= max_frames:
                break
            r = cal.update(frame, index)
            H = None if r.rink_from_image is None else np.asarray(r.rink_from_image).tolist()
            fh.write(json.dumps({"frame": index, "H_rink_from_image": H, "quality": float(r.quality)}) + "\n")


def _fmt(v: Any, pct: bool = False) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    return f"{100 * v:.1f}%" if pct else f"{v:.1f}"


def _print_row(name: str, m: dict) -> None:
    print(
        f"{name}: frames {m['frames']}  puck recall {_fmt(m['puck_recall'], True)} "
        f"(measured {_fmt(m['puck_recall_measured'], True)})  precision {_fmt(m['puck_precision'], True)} "
        f"(measured {_fmt(m['puck_precision_measured'], True)})  at lines (measured) "
        f"{_fmt(m.get('puck_recall_at_lines_measured'), True)} of {m.get('puck_at_line_frames', 0)}  "
        f"puck err median {_fmt(m['puck_err_median_cm'])} cm "
        f"p95 {_fmt(m['puck_err_p95_cm'])} cm  blades median {_fmt(m['blade_err_median_cm'])} cm "
        f"p95 {_fmt(m['blade_err_p95_cm'])} cm  IDF1 {_fmt(m['idf1'], True)}  HOTA {_fmt(m['hota'], True)}  "
        f"team acc {_fmt(m['team_accuracy'], True)} (known {_fmt(m['team_known_share'], True)})  "
        f"fps {_fmt(m.get('fps'))}"
    )


def add_eval_tracks_parser(eval_subparsers: Any) -> argparse.ArgumentParser:
    """Register ``eval tracks`` on the ``eval`` sub-parsers (``set_defaults(func=...)`` returns an exit code)."""
    p = eval_subparsers.add_parser("tracks", help="score tracks.jsonl (puck, blades, identities, teams) against truth")
    p.add_argument("--truth", required=True, type=Path, help="a clip folder with truth.json, or a folder of them")
    p.add_argument("--pred", type=Path, help="folder with tracks.jsonl (per clip: PRED/CLIP/tracks.jsonl); "
                                             "omitted: run the vision stage here and time it")
    p.add_argument("--calib", choices=("truth", "registration"), default="truth",
                   help="calibration used when running the vision stage "
                        "(default: the truth camera, its homography and lens)")
    p.add_argument("--out", type=Path, help="where to write tracks when running the vision stage")
    p.add_argument("--max-frames", type=int, help="score only the first N frames")
    p.add_argument("--json", type=Path, help="also write the metrics as JSON")
    p.set_defaults(func=_cmd_eval_tracks)
    return p
