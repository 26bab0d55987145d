"""Blade error of our vision's tracks against simulator truth, per camera and per view direction.

For every truth sledge matched to a predicted player (Hungarian on blade centres, ≤ 1 m, as
``vision.evaluation``), the blade error is split along the camera's view on the ice (the
ground direction away from the camera, from the truth homography) and across it, and binned
by the sledge's heading relative to the camera (``cos`` of the angle between the heading and
"towards the camera": +1 points at it). Then the error model that the rules get
(``vision.tracking.blade_covariance_rink``, scaled by the player's kit as the rules get it,
``blade_sigma_factor_by_team``) is checked: the share of x and y errors beyond 1 and 3 of its
sigmas, against an isotropic sigma for comparison.

    .venv/bin/python benchmarks/eval_blade_error.py --pred PRED_ROOT CLIP_DIR [CLIP_DIR ...]
    .venv/bin/python benchmarks/eval_blade_error.py --near-lines --pred PRED_ROOT CLIP_DIR [...]
    .venv/bin/python benchmarks/eval_blade_error.py --by-motion --pred PRED_ROOT CLIP_DIR [...]

A last table (``--near-lines``) asks what an offside call needs: for sledges moving along the
rink (|vx| ≥ 1 m/s, from the truth), the blade midpoint's x error signed along the travel
(+: ahead, i.e. deeper into the zone for an attacker going in), by the distance of the
nearer of the truth's two blades from a blue line's band (0: on the paint) and by speed.

Another (``--by-motion``) asks whether the model's sigma fits sledges by what the track can know
of them: standing (< 0.5 m/s, heading unknown), slow and moving (>= 1.5 m/s, heading from the
travel), each from the truth's speed. Per camera and class it prints the model's median sigma
along the view, across it and in x, and the quantiles of |error| / sigma (p99, p99.7, max) in
each: above 3 the model is too confident there, far under 3 too wide.

PRED_ROOT holds one ``<name>__clip`` folder per clip (what ``rulesfromvideo batch`` writes for
``CLIP_DIR/clip.mp4``); a CLIP_DIR is what ``rulesfromvideo synth`` writes.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import vision.tracking as T
from vision.evaluation import _blade_centre, _match, load_tracks, load_truth
from vision.geometry import PlaneCamera

HEADING_BINS = ((-1.0, -0.7), (-0.7, -0.3), (-0.3, 0.3), (0.3, 0.7), (0.7, 1.01))


def matched_sledges(clip: Path, pred: Path):
    """The clip's truth and, per truth frame with a prediction, its visible sledges matched to
    predicted players (Hungarian on blade centres, ≤ 1 m).

    Returns:
        (truth, iterator of (truth frame, [(truth player, predicted player, truth centre (2,),
        predicted centre (2,), the truth centre on the previous frame (2,) or None)])), m.
    """
    truth = load_truth(clip)
    recs = {int(r["frame"]): r for r in load_tracks(pred)}

    def frames():
        prev = {}
        for fr in truth["frames"]:
            last, prev = prev, {p["id"]: _blade_centre(p) for p in fr.get("players", [])}
            rec = recs.get(int(fr["frame"]))
            if rec is None:
                continue
            tp = [p for p in fr.get("players", []) if p.get("visible", True) and p.get("kind", "sledge") == "sledge"]
            pp = rec.get("players", [])
            t_xy = np.array([_blade_centre(p) for p in tp]).reshape(-1, 2)
            p_xy = np.array([_blade_centre(p) for p in pp]).reshape(-1, 2)
            yield fr, [(tp[i], pp[j], t_xy[i], p_xy[j], last.get(tp[i]["id"])) for i, j, _ in _match(t_xy, p_xy, 1.0)]

    return truth, frames()


def clip_errors(clip: Path, pred: Path) -> tuple[str, np.ndarray]:
    """(camera name, (N, 12) rows, one per blade: error x, y (m); its components along and
    across the view (m); heading cos; the model's covariance at the predicted point (4,
    row-major, m², ``blade_covariance_rink``); the truth sledge's speed (m/s, from the previous
    truth frame; nan on its first); the unit ground direction away from the camera (2))."""
    from rulesfromvideo.game import GameDescriptor

    factor_by_team = T.blade_sigma_factor_by_team(GameDescriptor.from_file(clip / "game.json"))
    truth, frames = matched_sledges(clip, pred)
    fps = float(truth.get("fps", 30.0))
    rows = []
    for fr, pairs in frames:
        H = fr.get("H_image_from_rink")
        if H is None:
            continue
        cam = PlaneCamera.from_homography(np.linalg.inv(np.asarray(H, float)), truth["width"], truth["height"])
        for t, p, t_xy, p_xy, t_last in pairs:
            a = cam.away_direction_rink(t_xy[None])[0]
            c = np.array([-a[1], a[0]])
            heading = np.nan
            if t.get("front_skid") is not None:
                h = np.asarray(t["front_skid"], float) - t_xy
                heading = float(-(h / max(np.linalg.norm(h), 1e-9)) @ a)
            S = T.blade_covariance_rink(cam, p_xy[None], sigma_factor=T.blade_sigma_factors(factor_by_team, [p.get("team")]))[0]
            tb, pb = np.asarray(t["blades"], float), np.asarray(p["blades"], float)
            if np.linalg.norm(tb - pb[::-1], axis=1).sum() < np.linalg.norm(tb - pb, axis=1).sum():
                pb = pb[::-1]
            speed = float(np.linalg.norm(t_xy - t_last) * fps) if t_last is not None else np.nan
            for e in pb - tb:
                rows.append([e[0], e[1], e @ a, e @ c, heading, *S.ravel(), speed, *a])
    return str(truth.get("camera", "?")), np.asarray(rows, float).reshape(-1, 12)


LINE_BINS_M = ((0.0, 0.01), (0.01, 0.5), (0.5, 1.5), (1.5, np.inf))
SPEED_BINS_MPS = ((1.0, 2.5), (2.5, 4.0), (4.0, np.inf))


def blue_line_bands_x(clip: Path) -> list[tuple[float, float]]:
    """(x_min, x_max) of each blue line's painted band of the clip's rink, m."""
    from calibration.rink import RinkModel
    from rulesfromvideo.game import GameDescriptor

    rink = RinkModel(GameDescriptor.from_file(clip / "game.json").rink_spec())
    bands = []
    for m in rink.markings:
        if m.kind == "line" and str(getattr(m, "name", "")).startswith("blue_line"):
            x0, _, x1, _ = m.geometry.bounds
            bands.append((float(x0), float(x1)))
    return bands


def line_rows(clip: Path, pred: Path) -> np.ndarray:
    """(N, 3) rows, one per matched moving sledge and frame: the distance of the nearer of its
    truth blades from the nearest blue line's band (m, 0 on the paint), its speed along x (m/s,
    from consecutive truth frames), and the blade midpoint's x error signed along its travel (m)."""
    bands = blue_line_bands_x(clip)
    truth, frames = matched_sledges(clip, pred)
    fps = float(truth.get("fps", 30.0))
    rows = []
    for _, pairs in (frames if bands else ()):
        for t, _, t_xy, p_xy, t_last in pairs:
            if t_last is None:
                continue
            vx = float(t_xy[0] - t_last[0]) * fps
            if abs(vx) < SPEED_BINS_MPS[0][0]:
                continue
            xs = np.asarray(t["blades"], float)[:, 0]
            dist = min(max(x0 - x, x - x1, 0.0) for x0, x1 in bands for x in xs)
            rows.append([dist, abs(vx), float(np.sign(vx) * (p_xy[0] - t_xy[0]))])
    return np.asarray(rows, float).reshape(-1, 3)


def print_near_lines(by_cam: dict[str, list[np.ndarray]]) -> None:
    print("\nblade midpoint x error along the travel (median cm, + = ahead) by distance of the nearer blade "
          "from a blue line (m) and speed (m/s):")
    for cam, parts in sorted(by_cam.items()):
        R = np.concatenate(parts)
        for lo_v, hi_v in SPEED_BINS_MPS:
            cells = []
            for lo, hi in LINE_BINS_M:
                m = (R[:, 0] >= lo) & (R[:, 0] < hi) & (R[:, 1] >= lo_v) & (R[:, 1] < hi_v)
                cells.append(f"[{lo:g},{hi:g}) {100 * np.median(R[m, 2]):5.1f} (n={m.sum():4d})" if m.sum() >= 10
                             else f"[{lo:g},{hi:g})     - (n={m.sum():4d})")
            print(f"  {cam:9s} {lo_v:g}-{hi_v:g} m/s  " + "  ".join(cells))


MOTION_CLASSES_MPS = (("standing", 0.0, 0.5), ("slow", 0.5, 1.5), ("moving", 1.5, np.inf))


def motion_table(rows: np.ndarray) -> list[dict]:
    """The model's fit by motion class for ``clip_errors`` rows of one camera.

    Returns:
        one dict per class with rows: ``name``, ``n``, and per component ``along``, ``across``,
        ``x``: ``sigma_cm`` (median model sigma) and ``z`` (p99, p99.7, max of |error| / sigma).
    """
    S = rows[:, 5:9].reshape(-1, 2, 2)
    a = rows[:, 10:12]
    c = np.stack([-a[:, 1], a[:, 0]], axis=1)
    comps = {"along": (rows[:, 2], a), "across": (rows[:, 3], c),
             "x": (rows[:, 0], np.tile([1.0, 0.0], (len(rows), 1)))}
    out = []
    for name, lo, hi in MOTION_CLASSES_MPS:
        m = (rows[:, 9] >= lo) & (rows[:, 9] < hi)
        row = {"name": name, "n": int(m.sum())}
        for comp, (err, d) in comps.items():
            if not m.any():
                row[comp] = None
                continue
            sig = np.sqrt(np.einsum("ni,nij,nj->n", d[m], S[m], d[m]))
            z = np.abs(err[m]) / sig
            row[comp] = {"sigma_cm": 100 * float(np.median(sig)),
                         "z": tuple(float(v) for v in (np.percentile(z, 99), np.percentile(z, 99.7), z.max()))}
        out.append(row)
    return out


def print_by_motion(by_cam: dict[str, list[np.ndarray]]) -> None:
    print("\nerror model by motion (truth speed): median σ (cm) and |error|/σ p99 / p99.7 / max, along the view, "
          "across it, in x:")
    for cam, parts in sorted(by_cam.items()):
        for row in motion_table(np.concatenate(parts)):
            cells = [f"{comp} σ {row[comp]['sigma_cm']:5.1f} z {row[comp]['z'][0]:4.2f}/{row[comp]['z'][1]:4.2f}/"
                     f"{row[comp]['z'][2]:4.2f}" for comp in ("along", "across", "x") if row[comp] is not None]
            print(f"  {cam:9s} {row['name']:8s} n={row['n']:5d}  " + "   ".join(cells))


def model_sigma_xy(rows: np.ndarray) -> np.ndarray:
    """(N, 2) σx, σy of the shipped model for the rows."""
    S = rows[:, 5:9].reshape(-1, 2, 2)
    return np.sqrt(np.stack([S[:, 0, 0], S[:, 1, 1]], axis=1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pred", required=True, type=Path)
    ap.add_argument("--isotropic-m", type=float, default=T.BLADE_SIGMA_M)
    ap.add_argument("--near-lines", action="store_true", help="also the x error near the blue lines (see doc)")
    ap.add_argument("--by-motion", action="store_true", help="also the model's fit by the sledges' motion (see doc)")
    ap.add_argument("clips", nargs="+", type=Path)
    args = ap.parse_args()
    by_cam: dict[str, list[np.ndarray]] = {}
    near: dict[str, list[np.ndarray]] = {}
    print(f"{'clip':40s} {'camera':9s} {'n':>5s}  {'|err| med cm':>12s}  {'nearer-cam bias/MAD cm':>22s}  "
          f"{'across bias/MAD cm':>18s}")
    for clip in args.clips:
        name = clip.name if (args.pred / f"{clip.name}__clip").exists() else None
        if name is None:
            print(f"{clip.name:40s} no prediction under {args.pred}")
            continue
        cam, R = clip_errors(clip, args.pred / f"{clip.name}__clip")
        if not len(R):
            continue
        by_cam.setdefault(cam, []).append(R)
        if args.near_lines:
            near.setdefault(cam, []).append(line_rows(clip, args.pred / f"{clip.name}__clip"))
        med = lambda v: float(np.median(v)) * 100  # noqa: E731
        mad = lambda v: float(np.median(np.abs(v - np.median(v)))) * 100  # noqa: E731
        print(f"{clip.name[:40]:40s} {cam:9s} {len(R):5d}  {med(np.hypot(R[:, 0], R[:, 1])):12.1f}  "
              f"{med(-R[:, 2]):13.1f}/{mad(R[:, 2]):5.1f}  {med(R[:, 3]):9.1f}/{mad(R[:, 3]):5.1f}")
    print("\nalong-the-view bias (median, cm; + = nearer the camera than the truth) by heading cos:")
    for cam, parts in sorted(by_cam.items()):
        R = np.concatenate(parts)
        cells = []
        for lo, hi in HEADING_BINS:
            m = (R[:, 4] >= lo) & (R[:, 4] < hi)
            cells.append(f"[{lo:+.1f},{hi:+.1f}) {-np.median(R[m, 2]) * 100:6.1f} (n={m.sum()})" if m.sum() >= 10
                         else f"[{lo:+.1f},{hi:+.1f})      - (n={m.sum()})")
        print(f"  {cam:9s} " + "  ".join(cells))
    print(f"\nerror model vs isotropic {args.isotropic_m:.2f} m: share of |error| beyond 1σ / 3σ, and median σ")
    for cam, parts in sorted(by_cam.items()):
        R = np.concatenate(parts)
        s = model_sigma_xy(R)
        cells = []
        for k, ax in enumerate("xy"):
            z, zi = np.abs(R[:, k]) / s[:, k], np.abs(R[:, k]) / args.isotropic_m
            cells.append(f"{ax}: model σ {np.median(s[:, k]) * 100:5.1f} cm >1σ {100 * np.mean(z > 1):4.1f}% "
                         f">3σ {100 * np.mean(z > 3):4.2f}% | iso >1σ {100 * np.mean(zi > 1):4.1f}% "
                         f">3σ {100 * np.mean(zi > 3):4.2f}%")
        print(f"  {cam:9s} n={len(R):5d}  " + "   ".join(cells))
    if near:
        print_near_lines(near)
    if args.by_motion:
        print_by_motion(by_cam)


if __name__ == "__main__":
    main()
