"""Rule calls on the simulator's scenarios: perfect tracks and noisy tracks.

    .venv/bin/python benchmarks/eval_rules_noise.py [--seeds 1 2 3] [--scenarios ...]

For every scenario of ``vision.sim.plays.SCENARIOS`` (that is built) and seed,
tracks are taken from the simulator: ``truth_to_tracks`` when the simulator has
it, else sampled here from ``Play.state_at`` at every frame (blades, footprint,
puck x, y, z) with each truth touch on the first frame at or after its instant.
Noise levels: perfect; Gaussian 5 / 10 / 20 cm on every position (puck, blades;
one offset per footprint) with 10 % of the frames dropped (seeds fixed). The
rules run with the same settings at every level (detector prior 2 mm, no
calibration error: the positions are rink metres; the noise is estimated from
the tracks themselves). Printed per level: events found (recall over truth),
verdict accuracy, time error (frames, median and max), wrong decisive verdicts,
inconclusive rate; and per event type for each level with ``--by-type``.
Targets: perfect -> every event found, 100 % verdicts, time error <= 1/4 frame;
noise <= 10 cm -> zero wrong decisive verdicts.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from calibration.rink import RinkModel
from rulesfromvideo.evaluation.events import format_table, score_events
from rulesfromvideo.game import GameDescriptor
from rulesfromvideo.observations import Observations
from rulesfromvideo.rules import run_rules

LEVELS = [("perfect", 0.0, 0.0), ("5 cm", 0.05, 0.10), ("10 cm", 0.10, 0.10), ("20 cm", 0.20, 0.10)]


def _simulator_tracks(play):
    """Tracks records from the simulator's ``truth_to_tracks`` if it exists, else None."""
    try:
        from vision.sim import plays as sim_plays
    except ImportError:
        return None
    fn = getattr(sim_plays, "truth_to_tracks", None)
    if fn is None:
        return None
    try:
        recs = fn(play)
    except TypeError:
        return None
    return [dict(r) for r in recs]


def sample_tracks(play) -> list[dict]:
    """Tracks records sampled from ``play.state_at`` (see module doc)."""
    fps = play.fps
    touch_at: dict[int, tuple[int, str]] = {}
    for k in play.puck.touches:
        touch_at.setdefault(int(math.ceil(k.t * fps - 1e-9)), (k.player, k.team))
    recs = []
    for f in range(play.n_frames):
        t = f / fps
        s = play.state_at(t)
        pk = None
        if s.puck is not None:
            x, y, z = (float(v) for v in s.puck.xyz_rink_m)
            pk = {"x": x, "y": y, "z": z, "measured": True}
            if f in touch_at:
                pk["touch"] = {"player": touch_at[f][0], "team": touch_at[f][1]}
        recs.append({"frame": f, "t": t, "puck": pk,
                     "players": [{"id": p.id, "team": p.team, "role": p.role,
                                  "blades": p.blades_rink_m.tolist(),
                                  "footprint": p.footprint_rink_m.tolist()} for p in s.players]})
    return recs


def add_noise(recs: list[dict], sigma: float, drop: float, seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    out = []
    for r in recs:
        if drop > 0 and rng.random() < drop:
            continue
        pk = r["puck"]
        if pk is not None:
            pk = dict(pk)
            dx, dy = rng.normal(0, sigma, 2)
            pk["x"] += float(dx)
            pk["y"] += float(dy)
            pk.pop("z", None) if sigma > 0 else None
        pls = []
        for p in r["players"]:
            p = dict(p)
            p["blades"] = (np.asarray(p["blades"]) + rng.normal(0, sigma, (2, 2))).tolist()
            if "footprint" in p:
                p["footprint"] = (np.asarray(p["footprint"]) + rng.normal(0, sigma, 2)).tolist()
            pls.append(p)
        out.append({**r, "puck": pk, "players": pls})
    return out


def main() -> None:
    from vision.sim.plays import SCENARIOS, make_play

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--scenarios", nargs="+", default=None)
    ap.add_argument("--by-type", action="store_true")
    ap.add_argument("--show-misses", action="store_true")
    a = ap.parse_args()
    names = a.scenarios or list(SCENARIOS)
    plays = []
    source = "sampled from Play.state_at"
    for sc in names:
        for seed in a.seeds:
            try:
                play = make_play(sc, seed)
            except ValueError as exc:
                print(f"skip {sc} seed {seed}: {exc}")
                break
            recs = _simulator_tracks(play)
            if recs is not None:
                source = "vision.sim.plays.truth_to_tracks"
            else:
                recs = sample_tracks(play)
            plays.append((sc, seed, play, recs))
    print(f"{len(plays)} plays ({len({p[0] for p in plays})} scenarios x {len(a.seeds)} seeds); tracks {source}")
    head = f"{'level':<9}{'truth':>6}{'found':>7}{'verdict':>9}{'dt_med':>8}{'dt_max':>8}{'wrong':>7}{'inconc':>8}{'s':>7}"
    rows = [head]
    tables = []
    for li, (name, sigma, drop) in enumerate(LEVELS):
        truth_all, pred_all = [], []
        t0 = time.perf_counter()
        for n, (sc, seed, play, recs) in enumerate(plays):
            noisy = add_noise(recs, sigma, drop, seed=1000 * li + 17 * n + seed) if sigma > 0 else recs
            game = GameDescriptor.from_dict(play.game)
            rink = RinkModel(game.rink_spec())
            obs = Observations.from_records(noisy, fps=play.fps, detection_sigma_m=0.002,
                                            calibration_sigma_m=0.0)
            pred = run_rules(obs, game, rink)
            off = 1e4 * n
            tr = [{**e, "t": e["t"] + off, "clip": f"{sc}/{seed}"} for e in play.events]
            pr = [{**e, "t": e["t"] + off, "clip": f"{sc}/{seed}"} for e in pred]
            truth_all += tr
            pred_all += [e for e in pr if e["type"] in {x["type"] for x in play.events} |
                         {"zone_entry", "icing", "goal", "crease"}]
            if a.show_misses:
                from rulesfromvideo.evaluation.events import match_events
                pairs, miss, extra = match_events(tr, pr)
                for t_, p_ in pairs:
                    if t_["verdict"] != p_["verdict"]:
                        tag = "WRONG " if p_["verdict"] != "inconclusive" else ""
                        print(f"  [{name}] {tag}{sc}/{seed} {t_['type']} truth {t_['verdict']} "
                              f"({t_['margin_m']:.3f}) pred {p_['verdict']} ({p_['margin_m']}) "
                              f"sigma {p_['evidence'].get('sigma_m')} {p_['evidence'].get('exceptions', '')} "
                              f"{t_['evidence'].get('exceptions', '')}")
                for t_ in miss:
                    print(f"  [{name}] {sc}/{seed} MISSED {t_['type']} {t_['verdict']} t={t_['t'] - off:.3f}")
                for p_ in extra:
                    if p_["type"] in ("zone_entry", "icing", "goal", "crease", "key_3s"):
                        print(f"  [{name}] {sc}/{seed} EXTRA {p_['type']} {p_['verdict']} t={p_['t'] - off:.3f}")
        s = score_events(truth_all, pred_all, 30.0)
        al = s["all"]

        def pct(v):
            return "-" if v is None else f"{100 * v:.1f}%"
        rows.append(f"{name:<9}{al['truth']:>6}{pct(al['recall']):>7}{pct(al['verdict_accuracy']):>9}"
                    f"{al['median_time_error_frames'] or 0:>8.3f}{al['max_time_error_frames'] or 0:>8.3f}"
                    f"{al['wrong_decisive']:>7}{pct(al['inconclusive_rate']):>8}{time.perf_counter() - t0:>7.1f}")
        tables.append((name, s))
    print("\n".join(rows))
    if a.by_type:
        for name, s in tables:
            print(f"\n[{name}]")
            print(format_table(s))


if __name__ == "__main__":
    main()
