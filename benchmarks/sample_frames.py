"""Render hand-placed sample frames from the broadcast, blue-line and goal cameras.

    .venv/bin/python benchmarks/sample_frames.py [--out docs] [--seed 3] [--look-seed 3]

Writes ``sample_broadcast.png``, ``sample_blueline.png``, ``sample_goalcam.png``
(1280×720). Also provides ``sledge_player`` / ``demo_state`` used by the render
benchmark.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import cv2
import numpy as np

from calibration.rink import RinkModel, RinkSpec
from vision.sim.camera import make_rig
from vision.sim.looks import Look
from vision.sim.render import Renderer
from vision.sim.scene import PlayerState, PuckState, SceneState

HOME_BGR = (46, 16, 200)  # red
AWAY_BGR = (120, 50, 10)  # dark blue


def sledge_player(pid: int, team: str, x: float, y: float, heading_deg: float, number: int,
                  color_bgr=None, role: str = "skater", stick_side: int = -1, kind: str = "sledge") -> PlayerState:
    """A player at seat centre (x, y) m facing ``heading_deg`` with plausible blades and stick."""
    h = math.radians(heading_deg)
    f = np.array([math.cos(h), math.sin(h)])
    lft = np.array([-math.sin(h), math.cos(h)])
    S = np.array([x, y], float)
    gauge = 0.12 if kind == "sledge" else 0.15
    blades = np.array([S + lft * gauge - f * 0.02, S - lft * gauge - f * 0.02])
    fp = np.array([S - f * 0.25 + lft * 0.2, S + f * 1.0 + lft * 0.1, S + f * 1.0 - lft * 0.1, S - f * 0.25 - lft * 0.2])
    stick = S + f * 0.75 + lft * stick_side * 0.45
    col = color_bgr if color_bgr is not None else (HOME_BGR if team == "home" else AWAY_BGR)
    return PlayerState(id=pid, team=team, role=role, kind=kind, xy_rink_m=S, heading_rad=h, blades_rink_m=blades,
                       footprint_rink_m=fp, stick_blade_rink_m=np.array([stick[0], stick[1], 0.02]), number=number,
                       color_bgr=col)


def demo_state(t: float, rink: RinkModel) -> SceneState:
    """11 players and the puck moving through the neutral zone (smooth in t)."""
    s = rink.spec
    players = []
    rng = np.random.default_rng(0)
    base = rng.uniform([-12, -10], [12, 10], size=(10, 2))
    phase = rng.uniform(0, 2 * np.pi, size=10)
    for i in range(10):
        team = "home" if i < 5 else "away"
        vx = 3.0 if team == "home" else 2.0
        x = base[i, 0] + vx * t + 2.0 * math.sin(0.7 * t + phase[i])
        y = base[i, 1] + 1.5 * math.sin(0.5 * t + phase[i])
        dx = vx + 1.4 * math.cos(0.7 * t + phase[i])
        dy = 0.75 * math.cos(0.5 * t + phase[i])
        players.append(sledge_player(i + 1, team, float(np.clip(x, -25, 25)), y, math.degrees(math.atan2(dy, dx)),
                                     number=int(3 + 7 * i % 97), stick_side=(-1) ** i))
    gx = s.goal_line_x_m - 1.0
    players.append(sledge_player(11, "away", gx, 0.0, 180.0, 1, color_bgr=(200, 200, 200), role="goalkeeper"))
    px = -5.0 + 8.0 * t
    puck = PuckState(np.array([px, 2.0 * math.sin(0.8 * t), 0.0127]))
    return SceneState(t=t, puck=puck, players=players)


def samples(rink: RinkModel, out: Path, seed: int, look_seed: int) -> list[Path]:
    s = rink.spec
    look = Look.from_seed(look_seed, s.length_m, s.width_m)
    r = Renderer(rink, seed=seed, look=look)
    paths = []
    bx = s.blue_line_x_m
    gx = s.goal_line_x_m
    # Broadcast: a zone entry at the +x blue line.
    ps = [
        sledge_player(1, "home", bx + 0.8, -2.0, 10, 17, stick_side=-1),
        sledge_player(2, "home", bx - 2.5, 3.5, -5, 9),
        sledge_player(3, "away", bx + 3.0, 0.5, 190, 4),
        sledge_player(4, "away", bx + 5.5, -4.0, 160, 22),
        sledge_player(5, "home", bx - 6.0, -5.5, 20, 71),
        sledge_player(6, "away", bx + 1.0, 6.0, 200, 13),
    ]
    st = SceneState(0.0, PuckState(np.array([bx + 1.6, -2.4, 0.0127])), ps)
    rig = make_rig("broadcast", rink, seed=seed)
    cam0 = rig.camera_at(0.0, (bx, 0.0))
    cam1 = rig.camera_at(1 / 30, (bx + 0.2, 0.0))
    prev = SceneState(-1 / 30, PuckState(np.array([bx + 1.3, -2.4, 0.0127])), ps)
    frame, _ = r.render(st, cam1, prev_state=prev, prev_cam=cam0)
    paths.append(out / "sample_broadcast.png")
    cv2.imwrite(str(paths[-1]), frame)
    # Blue-line camera at +x: attacker straddling the line.
    ps2 = [
        sledge_player(1, "home", bx + 0.3, -3.0, 0, 17),
        sledge_player(2, "home", bx - 1.5, 2.0, 10, 9),
        sledge_player(3, "away", bx + 2.5, 4.0, 180, 4),
        sledge_player(4, "away", bx + 1.0, -8.0, 170, 22),
    ]
    st2 = SceneState(0.0, PuckState(np.array([bx + 0.6, -2.0, 0.0127])), ps2)
    cam = make_rig("blueline", rink, seed=seed, end=+1).camera_at(0.0)
    frame, _ = r.render(st2, cam)
    paths.append(out / "sample_blueline.png")
    cv2.imwrite(str(paths[-1]), frame)
    # Goal camera at +x: goalkeeper in the crease, attacker near the post, puck on the line.
    ps3 = [
        sledge_player(1, "away", gx - 0.9, 0.2, 180, 1, color_bgr=(210, 210, 210), role="goalkeeper"),
        sledge_player(2, "home", gx - 2.6, -1.2, 10, 17, stick_side=1),
        sledge_player(3, "away", gx - 3.5, 1.8, -20, 4),
    ]
    st3 = SceneState(0.0, PuckState(np.array([gx - 0.2, -0.5, 0.0127])), ps3)
    cam = make_rig("goalcam", rink, seed=seed, end=+1).camera_at(0.0)
    frame, _ = r.render(st3, cam)
    paths.append(out / "sample_goalcam.png")
    cv2.imwrite(str(paths[-1]), frame)
    return paths


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("docs"))
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--look-seed", type=int, default=3)
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    rink = RinkModel(RinkSpec.for_layout("ipc"))
    for p in samples(rink, a.out, a.seed, a.look_seed):
        print(p)


if __name__ == "__main__":
    main()
