"""Speed of the rule detectors (``run_rules``) over a 60-minute game of tracks.

    .venv/bin/python benchmarks/bench_rules.py [--minutes 60] [--fps 30] [--seed 0]

A synthetic game (not timed): 11 players (5 skaters + goalkeeper home, 5 skaters
away) on an IPC 60 x 30 m rink moving as bounded random walks at sledge speeds,
and a puck that is carried by a player for 1-3 s, then passed or shot at
8-25 m/s towards a random team-mate or the goal, and received on arrival -- so
the game has zone entries, icings and goal arrivals. Timed: building
``Observations`` from the records (with touches given) and ``run_rules``.
Printed: seconds for each step and the event counts. Target: run_rules <= 30 s.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from calibration.rink import RinkModel
from rulesfromvideo.game import GameDescriptor
from rulesfromvideo.observations import Observations
from rulesfromvideo.rules import run_rules

HALF_L, HALF_W = 29.0, 14.0


def synth_game(minutes: float, fps: float, seed: int) -> list[dict]:
    """Tracks records of a synthetic game (see module doc)."""
    rng = np.random.default_rng(seed)
    F = int(minutes * 60 * fps)
    dt = 1.0 / fps
    ids = list(range(1, 7)) + list(range(11, 16))
    team = ["home"] * 6 + ["away"] * 5
    role = ["skater"] * 5 + ["goalkeeper"] + ["skater"] * 5
    P = len(ids)
    pos = np.column_stack([rng.uniform(-HALF_L, HALF_L, P), rng.uniform(-HALF_W, HALF_W, P)])
    pos[5] = (-25.6, 0.0)
    vel = np.zeros((P, 2))
    xy = np.zeros((F, P, 2))
    for f in range(F):
        vel += rng.normal(0, 2.0 * np.sqrt(dt), (P, 2))
        sp = np.linalg.norm(vel, axis=1, keepdims=True)
        vel = np.where(sp > 6.0, vel / sp * 6.0, vel)
        vel[5] *= 0.2  # the goalkeeper stays near his net
        pos = pos + vel * dt
        for a, lim in ((0, HALF_L), (1, HALF_W)):
            out = np.abs(pos[:, a]) > lim
            vel[out, a] *= -1
            pos[:, a] = np.clip(pos[:, a], -lim, lim)
        pos[5] = np.clip(pos[5], (-27.0, -3.0), (-22.0, 3.0))
        xy[f] = pos
    heading = np.arctan2(np.gradient(xy[:, :, 1], axis=0), np.gradient(xy[:, :, 0], axis=0) + 1e-9)
    left = np.stack([-np.sin(heading), np.cos(heading)], -1) * 0.125
    fwd = np.stack([np.cos(heading), np.sin(heading)], -1)
    stick = xy + fwd * 0.9
    puck = np.zeros((F, 2))
    touch = np.full(F, -1)
    f, holder = 0, 0
    while f < F:
        hold = int(rng.uniform(1.0, 3.0) * fps)
        e = min(F, f + hold)
        puck[f:e] = stick[f:e, holder]
        touch[f] = holder
        f = e
        if f >= F:
            break
        touch[f] = holder
        mates = [k for k in range(P) if team[k] == team[holder] and k != holder]
        target = int(rng.choice(mates))
        speed = rng.uniform(8.0, 25.0)
        start = puck[f - 1]
        goal_shot = rng.random() < 0.1
        n = 0
        p = start.copy()
        while f < F:
            aim = np.array([26.5 if team[holder] == "home" else -26.5, 0.0]) if goal_shot else stick[f, target]
            d = aim - p
            dist = np.linalg.norm(d)
            if dist < speed * dt or n > 3 * fps:
                break
            p = p + d / dist * speed * dt
            p = np.clip(p, (-29.5, -14.5), (29.5, 14.5))
            puck[f] = p
            f += 1
            n += 1
        holder = target
    recs = []
    for f in range(F):
        bl = np.stack([xy[f] + left[f], xy[f] - left[f]], axis=1)
        pk = {"x": float(puck[f, 0]), "y": float(puck[f, 1]), "measured": True}
        if touch[f] >= 0:
            pk["touch"] = {"player": ids[touch[f]], "team": team[touch[f]]}
        recs.append({"frame": f, "t": f / fps, "puck": pk,
                     "players": [{"id": ids[k], "team": team[k], "role": role[k],
                                  "blades": bl[k].tolist()} for k in range(P)]})
    return recs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=60.0)
    ap.add_argument("--fps", type=float, default=30.0)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    t0 = time.perf_counter()
    recs = synth_game(a.minutes, a.fps, a.seed)
    t1 = time.perf_counter()
    game = GameDescriptor.from_dict({"rules": "ipc-sledge",
                                     "teams": {"home": {"color": "#c8102e", "attacks": "+x"},
                                               "away": {"color": "#0b3d91"}}})
    rink = RinkModel(game.rink_spec())
    t2 = time.perf_counter()
    obs = Observations.from_records(recs, fps=a.fps)
    t3 = time.perf_counter()
    events = run_rules(obs, game, rink)
    t4 = time.perf_counter()
    counts: dict[str, int] = {}
    for e in events:
        counts[f"{e['type']}:{e['verdict']}"] = counts.get(f"{e['type']}:{e['verdict']}", 0) + 1
    print(f"game: {a.minutes:g} min, {len(recs)} frames at {a.fps:g} fps, 11 players "
          f"(synthesised in {t1 - t0:.1f} s, not timed)")
    print(f"Observations.from_records: {t3 - t2:.2f} s")
    print(f"run_rules: {t4 - t3:.2f} s   (target <= 30 s)")
    print(f"total: {t4 - t2:.2f} s")
    print("events:", ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))


if __name__ == "__main__":
    main()
