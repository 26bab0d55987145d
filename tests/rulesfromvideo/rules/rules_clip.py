"""Tiny hand-built clips for the rule detector tests (no simulator); imported by the tests."""

from __future__ import annotations

import numpy as np
from calibration.rink import RinkModel
from rulesfromvideo.game import GameDescriptor
from rulesfromvideo.observations import Observations
from rulesfromvideo.rules import run_rules

FPS = 30.0


class Clip:
    """A clip built from functions of time.

    ``puck(t) -> (x, y)`` or None; players: (id, team, role, blades(t) -> (2, 2) or None
    when not seen,
    footprint(t) -> (N, 2) | None); touches: {frame: player id}.
    """

    def __init__(self, duration_s: float, profile: str = "ipc-sledge", **game_kw):
        self.n = int(round(duration_s * FPS)) + 1
        self.puck = lambda t: None
        self.puck_z = None
        self.players: list = []
        self.touches: dict[int, int] = {}
        self.drop: set[int] = set()
        self.inferred: set[int] = set()  # frames whose puck the source inferred (measured: false)
        self.game = {"rules": profile, "teams": {"home": {"color": "#c8102e", "attacks": "+x"},
                                                 "away": {"color": "#0b3d91"}}}
        if profile.startswith("sponge"):
            self.game["rink"] = {"layout": "nhl"}
        self.game.update(game_kw)

    def player(self, pid, team, blades, role="skater", footprint=None):
        self.players.append((pid, team, role, blades, footprint))
        return self

    def records(self, mirror: bool = False, noise_m: float = 0.0, seed: int = 0):
        rng = np.random.default_rng(seed)
        sx = -1.0 if mirror else 1.0
        out = []
        for f in range(self.n):
            if f in self.drop:
                continue
            t = f / FPS
            p = self.puck(t)
            pk = None
            if p is not None:
                xy = np.array(p, float) + rng.normal(0, noise_m, 2) * (noise_m > 0)
                pk = {"x": sx * float(xy[0]), "y": float(xy[1]), "measured": f not in self.inferred}
                if self.puck_z is not None:
                    pk["z"] = float(self.puck_z(t))
                if f in self.touches:
                    team = next(pl[1] for pl in self.players if pl[0] == self.touches[f])
                    pk["touch"] = {"player": self.touches[f], "team": team}
            pls = []
            for pid, team, role, blades, fp in self.players:
                if blades(t) is None:  # not seen in this frame
                    continue
                b = np.array(blades(t), float) + rng.normal(0, noise_m, (2, 2)) * (noise_m > 0)
                b[:, 0] *= sx
                if mirror:
                    b = b[::-1]  # a reflection swaps left and right
                rec = {"id": pid, "team": team, "role": role, "blades": b.tolist()}
                if fp is not None:
                    poly = np.array(fp(t), float)
                    poly[:, 0] *= sx
                    rec["footprint"] = poly.tolist()
                pls.append(rec)
            out.append({"frame": f, "t": t, "puck": pk, "players": pls})
        return out

    def run(self, mirror: bool = False, noise_m: float = 0.0, seed: int = 0, blade_cov_m2=None,
            position_bias_m: float | None = None, **obs_kw):
        """Rules on this clip; ``blade_cov_m2`` (2, 2): every blade point's model covariance, m²;
        ``position_bias_m``: a position error every frame shares (a camera's, m), added by
        ``Observations.add_position_sigma``."""
        g = dict(self.game)
        if mirror:
            g["teams"] = {"home": {**g["teams"]["home"], "attacks": "-x"}, "away": g["teams"]["away"]}
        game = GameDescriptor.from_dict(g)
        rink = RinkModel(game.rink_spec())
        kw = {"detection_sigma_m": 0.002, "calibration_sigma_m": 0.0}
        kw.update(obs_kw)
        obs = Observations.from_records(self.records(mirror, noise_m, seed), fps=FPS, **kw)
        if blade_cov_m2 is not None:
            P, F = obs.blades_rink_m.shape[:2]
            obs.blade_cov_rink_m2 = np.broadcast_to(np.asarray(blade_cov_m2, float), (P, F, 2, 2)).copy()
        if position_bias_m is not None:
            obs.add_position_sigma(np.full(obs.n_frames, float(position_bias_m)))
        return run_rules(obs, game, rink)


def bench(c, team="home", n_on_ice=5, x=-20.0):
    """The rest of ``team``'s skaters on the ice (GAME.json's default strength, 702), still at
    ``x`` (far in their own half when attacking +x): a clip whose few players stand for a full
    team. An onside call needs every attacker placed (903 b1: one never tracked may be offside)."""
    have = {pid for pid, t, role, _, _ in c.players if t == team and role == "skater"}
    for k in range(n_on_ice - len(have)):
        c.player(90 + k, team, still(x, -12.0 + 6.0 * k))
    return c


def of_type(events, typ):
    return [e for e in events if e["type"] == typ]


def still(x, y, gap=0.25):
    """Blades (left, right) of a sledge facing +x at (x, y), stationary."""
    return lambda t: [[x, y + gap / 2], [x, y - gap / 2]]


def moving(x0, y, vx, gap=0.25, facing=1.0):
    """Blades of a sledge at (x0 + vx t, y); ``facing`` +1 faces +x, -1 faces -x."""
    return lambda t: [[x0 + vx * t, y + facing * gap / 2], [x0 + vx * t, y - facing * gap / 2]]


def sledge_fp(blades):
    """Footprint polygon (sledge facing +x) from a blades function."""
    def fp(t):
        b = np.array(blades(t))
        c = b.mean(axis=0)
        return [[c[0] - 0.25, c[1] + 0.2], [c[0] + 0.85, c[1] + 0.06],
                [c[0] + 0.85, c[1] - 0.06], [c[0] - 0.25, c[1] - 0.2]]
    return fp

