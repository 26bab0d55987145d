"""Scripted hockey plays with continuous motion and ground-truth rule events.

``make_play(scenario, seed, profile)`` builds a :class:`Play`: players on smooth
paths (``vision.sim.motion.PlayerPath``), a puck with friction, flight and
collisions (``PuckScript``), a GAME.json and the truth events computed *from the
motion* by ``vision.sim.truth_events`` (root finding on the trajectory, sub-frame).
Each scenario also states its intent (expected event types, verdicts and the
drawn margin); the build fails loudly if the computed truth disagrees.

Scenarios are written in a *canonical* frame where the featured team attacks +x;
the seed decides whether that team is home (attacks +x per GAME.json) or away,
in which case the whole play is turned by a half turn (x, y) -> (-x, -y), the
rink's own symmetry, so both ends and both teams get exercised.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
from scipy.interpolate import CubicHermiteSpline
from scipy.ndimage import gaussian_filter1d
from scipy.optimize import brentq
from shapely.geometry import Point

from vision.sim.motion import (
    PUCK_FRICTION_MPS2,
    PUCK_MAX_SPEED_MPS,
    Obstacles,
    PlayerPath,
    PuckScript,
    simulate_free,
    waypoints_from_points,
)
from vision.sim.players import AWAY_BGR, HOME_BGR, Player, draw_kits
from vision.sim.rinkgeom import PUCK_FLAT_Z_M, PUCK_RADIUS_M, RinkGeom, rink_geom
from vision.sim.scene import PuckState, SceneState
from vision.sim.truth_events import TruthContext, compute_events, footprint_depth

R = PUCK_RADIUS_M
FPS = 30.0

SCENARIOS: dict[str, str] = {
    "onside_carried": "a carrier takes the puck over the blue line; a teammate's trailing blade is still on/behind the line (903 b1: onside)",
    "offside_carried": "a carrier takes the puck in; a teammate already has both blades completely over the line (903 b1: offside)",
    "onside_pass": "a pass crosses the blue line before the receiver's second blade is completely over (903 b1: onside)",
    "offside_pass": "the receiver is completely over the blue line before the pass completely crosses it (903 b1: offside)",
    "offside_backwards_control": "the carrier skates backwards with the puck and crosses ahead of it while in control (903 b3: onside)",
    "defender_carries_in": "a defender carries the puck into his own zone while an attacker is in offside position (903 e: no offside)",
    "delayed_offside_tagup": "a dump-in with an attacker offside, a defender plays the puck and the attackers tag up (904: delayed, nullified)",
    "icing": "a shot from just inside the own half crosses the opponent's goal line untouched (905 b: icing)",
    "icing_shorthanded": "the same shot by a team playing short-handed (905 d2: waved off)",
    "icing_touched": "the iced puck is deflected by a defender's stick on the way (905 d3: waved off)",
    "icing_faceoff": "the centre face-off winner shoots the puck directly down the ice (905 d4: waved off)",
    "icing_opponent_could_play": "a defender could reach the puck's path before the goal line (905 d5 proxy: waved off)",
    "icing_goalkeeper": "the goalkeeper leaves his crease and moves towards the iced puck (905 d6: waved off)",
    "icing_goal": "a shot from the own half goes into the net (905 d1: goal allowed, icing waved off)",
    "goal": "a shot from the slot into the net (906 1: goal, crease clear)",
    "goal_close": "a slow puck barely entirely across the line before the goalkeeper sweeps it out (906 1: goal)",
    "no_goal_on_line": "a slow puck stops on the line, not entirely across, and is swept out (906 1: no goal)",
    "no_goal_post": "a shot rings off the post and out (906 1: no goal)",
    "no_goal_from_behind": "a puck passes through a torn back netting and out of the goal mouth from behind (no goal, from behind)",
    "goal_crease_occupied": "a goal while an attacker's sledge is in the crease (906 1 goal, 907 a4: crease occupied)",
    "sponge_key_3s": "sponge: an attacker's foot stays in the goalkeeper's key for 3 s while his team controls the puck in the zone (Westridge 1 n, o)",
    "free_play": "60 s of game-like play stringing several of the above with all players",
}

_DEFAULT_DURATION_S = {"free_play": 60.0}


# ----------------------------------------------------------------------------------
# Play
# ----------------------------------------------------------------------------------
@dataclass
class Play:
    """A simulated play.

    Attributes:
        scenario, seed, profile: what was asked for.
        fps: nominal frame rate (30).
        duration_s: length of the play, seconds.
        game: GAME.json dict (validated by ``rulesfromvideo.game`` when available).
        events: truth events (design events.json format plus ``margin_m``), time-sorted.
        players: the simulated players.
        puck: the puck trajectory.
        geom: rink geometry.
        featured_end: the end (+1 | -1, world) the featured team attacks.
        intent: what the scenario meant to show (expected events, drawn margin).
    """

    scenario: str
    seed: int
    profile: str
    fps: float
    duration_s: float
    game: dict
    events: list[dict]
    players: list[Player]
    puck: PuckScript
    geom: RinkGeom
    featured_end: int
    intent: dict = field(default_factory=dict)

    @property
    def n_frames(self) -> int:
        """Number of frames at ``fps`` covering ``[0, duration_s)``."""
        return int(round(self.duration_s * self.fps))

    def state_at(self, t: float) -> SceneState:
        """Everything on the ice at ``t`` seconds (continuous in t)."""
        p = self.puck.position(np.array([t]))[0]
        last = self.puck.last_touch_before(t)
        return SceneState(
            t=float(t),
            puck=PuckState(xyz_rink_m=p, last_touch=None if last is None else last.player),
            players=[pl.state(t) for pl in self.players],
        )

    def focus_at(self, t: float) -> tuple[float, float]:
        """What a broadcast camera follows: the puck, smoothed over +-0.5 s, metres."""
        ts = np.clip(t + np.linspace(-0.5, 0.5, 11), 0.0, self.duration_s)
        w = 1.0 - np.abs(np.linspace(-1, 1, 11)) * 0.8
        xy = self.puck.position(ts)[:, :2]
        f = (xy * w[:, None]).sum(0) / w.sum()
        return float(f[0]), float(f[1])


# ----------------------------------------------------------------------------------
# Builder (canonical frame: the featured team attacks +x)
# ----------------------------------------------------------------------------------
class _Builder:
    def __init__(self, scenario: str, seed: int, profile: str, duration_s: float, open_back: bool = False,
                 skaters: dict | None = None, layout: str | None = None, kits: str = "classic") -> None:
        self.scenario, self.seed, self.profile = scenario, int(seed), profile
        self.kit_bgr = dict(zip(("home", "away"), draw_kits(seed) if kits == "drawn" else (HOME_BGR, AWAY_BGR)))
        self.rng = np.random.default_rng([int(seed), zlib.crc32(scenario.encode())])
        self.standing = not profile.startswith("ipc")
        # Sledge hockey is played on IPC rinks and often on NHL or IIHF ones; the sponge
        # league plays on NHL rinks.
        self.layout = layout or ("ipc" if not self.standing else "nhl")
        self.g = rink_geom(self.layout)
        self.att = "home" if self.rng.integers(2) == 0 else "away"
        self.dfn = "away" if self.att == "home" else "home"
        self.d = 1 if self.att == "home" else -1  # home attacks +x in GAME.json
        self.T = float(duration_s)
        self.obs = Obstacles(self.g, open_back_ends=(self.d,) if open_back else ())
        self.players: list[Player] = []
        self.pins: dict[int, list] = {}
        self.auto_goalies: dict[int, int] = {}
        self.puck: PuckScript | None = None
        self.skaters = skaters or {"att": 5, "def": 5}
        self._numbers = {"home": list(self.rng.permutation(np.arange(2, 99))),
                         "away": list(self.rng.permutation(np.arange(2, 99)))}
        g = self.g
        self.FAR, self.NEAR = g.blue_far_x(1), g.blue_near_x(1)
        self.GX, self.OUT, self.IN = g.goal_line_x_m, g.goal_outer_x(1), g.goal_inner_x(1)
        self.HALF = g.centre_line_width_m / 2 + R
        self.BACK = g.net_back_x(1)
        self.L2, self.W2 = g.length_m / 2, g.width_m / 2
        self.POST = g.post_inner_y_m

    # -- frames ----------------------------------------------------------------------
    def w(self, xy) -> np.ndarray:
        """Canonical -> world (half turn when the featured team is away)."""
        return self.d * np.asarray(xy, float)

    def h(self, heading: float) -> float:
        return float(heading) + (np.pi if self.d < 0 else 0.0)

    def team(self, rel: str) -> str:
        return self.att if rel == "att" else self.dfn

    def uniform(self, lo: float, hi: float) -> float:
        return float(self.rng.uniform(lo, hi))

    def margin(self, lo: float = 0.05, hi: float = 0.50) -> float:
        """A margin drawn from the seed (m), 5-50 cm unless told."""
        return round(self.uniform(lo, hi), 4)

    # -- players ---------------------------------------------------------------------
    def player(self, rel: str, role: str = "skater") -> Player:
        team = self.team(rel)
        ids = [p.id for p in self.players if p.team == team]
        base = 1 if team == "home" else 11
        pid = base + len(ids)
        number = 1 if role == "goalkeeper" else int(self._numbers[team].pop())
        kind = "standing" if self.standing else "sledge"
        if kind == "standing":
            gap, su, sw = self.uniform(0.25, 0.35), 0.9, 0.35
        elif role == "goalkeeper":
            gap, su, sw = self.uniform(0.24, 0.30), 0.55, 0.40
        else:
            # Sledge players carry the puck beside the sledge, clear of the frame and legs
            # (a puck under the frame would be hidden from every camera for the whole carry).
            gap, su, sw = self.uniform(0.20, 0.30), self.uniform(0.9, 1.1), self.uniform(0.45, 0.60)
        if self.rng.integers(2) and role == "skater":
            sw = -sw  # right-handed carry
        p = Player(pid, team, role, kind, number,
                   PlayerPath(np.array([0.0, 1.0]), np.zeros((2, 2)), np.zeros((2, 2))),
                   blade_gap_m=gap, stick_u_m=su, stick_w_m=sw,
                   color_bgr=self.kit_bgr[team])
        self.players.append(p)
        self.pins[p.id] = []
        return p

    def pin(self, p: Player, t: float, xy, v=(0.0, 0.0), heading: float | None = None,
            backward: bool = False) -> None:
        """Waypoint in canonical coordinates (heading canonical radians or None).

        ``v=None`` lets the velocity follow from the neighbouring waypoints (Catmull-Rom).
        """
        hw = np.nan if heading is None else self.h(heading)
        vw = np.full(2, np.nan) if v is None else self.w(v)
        self.pins[p.id] = [k for k in self.pins[p.id] if abs(k[0] - t) > 1e-9]
        self.pins[p.id].append((float(t), self.w(xy), vw, hw, bool(backward)))
        self.pins[p.id].sort(key=lambda k: k[0])
        self._rebuild(p)

    def pin_stick(self, p: Player, t: float, stick_xy, heading: float, v=(0.0, 0.0), backward=False) -> np.ndarray:
        """Pin the player so that his stick blade is at ``stick_xy`` (canonical) at ``t``."""
        f = np.array([np.cos(heading), np.sin(heading)])
        l = np.array([-f[1], f[0]])
        seat = np.asarray(stick_xy, float)[:2] - p.stick_u_m * f - p.stick_w_m * l
        self.pin(p, t, seat, v, heading, backward)
        return seat

    def line(self, p: Player, t0: float, t1: float, xy0, v, heading=None, backward=False, knots: int = 2) -> None:
        """Constant-velocity straight motion from ``xy0`` at ``t0`` (canonical)."""
        xy0, v = np.asarray(xy0, float), np.asarray(v, float)
        for t in np.linspace(t0, t1, knots):
            self.pin(p, t, xy0 + v * (t - t0), v, heading, backward)

    def drift(self, p: Player, xy0, v, t0: float = 0.0, t1: float | None = None, wobble: float = 0.25,
              step: float = 2.0) -> None:
        """A background player's gentle motion: constant drift plus a seeded lateral wobble."""
        t1 = self.T if t1 is None else t1
        ts = np.linspace(t0, t1, max(2, int(round((t1 - t0) / step)) + 1))
        xy0, v = np.asarray(xy0, float), np.asarray(v, float)
        pts = xy0[None] + v[None] * (ts - t0)[:, None]
        pts[1:] += self.rng.normal(0.0, wobble, (len(ts) - 1, 2))
        pts[:, 0] = np.clip(pts[:, 0], -self.L2 + 1.5, self.L2 - 1.5)
        pts[:, 1] = np.clip(pts[:, 1], -self.W2 + 1.5, self.W2 - 1.5)
        vel = waypoints_from_points(ts, pts, v_end=(v, None))
        for t, xy, vv in zip(ts, pts, vel):
            self.pin(p, t, xy, vv)

    def goalie(self, rel: str) -> Player:
        """A goalkeeper of team ``rel`` who tracks the puck in his crease (added at finish)."""
        p = self.player(rel, "goalkeeper")
        self.auto_goalies[p.id] = 1 if rel == "def" else -1  # canonical end he defends
        return p

    def _rebuild(self, p: Player) -> None:
        k = self.pins[p.id]
        t = np.array([x[0] for x in k])
        xy = np.array([x[1] for x in k])
        v = np.array([x[2] for x in k])
        auto = np.isnan(v[:, 0])
        if auto.any():
            v[auto] = waypoints_from_points(t, xy)[auto] if len(t) > 1 else 0.0
        hd = np.array([x[3] for x in k])
        bw = np.array([x[4] for x in k])
        default = self.h(np.pi) if p.team == self.dfn else self.h(0.0)
        p.path = PlayerPath(t, xy, v, hd, bw, default_heading_rad=default)

    # -- puck ------------------------------------------------------------------------
    def puck_start(self, t0: float, xyz, v=(0.0, 0.0, 0.0)) -> None:
        xyz = np.asarray(xyz, float)
        v = np.asarray(v, float)
        self.puck = PuckScript(self.obs, t0, [*self.w(xyz[:2]), xyz[2]], [*self.w(v[:2]), v[2]])

    def preview(self, t: float) -> np.ndarray:
        """Canonical (3,) position the loose puck *would* have at ``t`` (nothing committed)."""
        pk = self.puck
        if not pk._free:
            raise ValueError("preview: the puck is held")
        if t <= pk.t_end:
            return self.pc(t)
        segs = simulate_free(pk.t_end, pk._p, pk._v, t, self.obs)
        p = segs[-1].position(np.array([t]))[0]
        return np.array([*self.w(p[:2]), p[2]])

    def preview_when(self, f: Callable[[np.ndarray], float], t1: float, step: float = 0.002) -> float:
        """First instant after now where ``f(canonical puck xyz)`` goes from < 0 to >= 0 (previewed)."""
        pk = self.puck
        segs = simulate_free(pk.t_end, pk._p, pk._v, t1, self.obs)
        starts = np.array([sg.t0 for sg in segs])

        def at(t: float) -> np.ndarray:
            sg = segs[max(0, int(np.searchsorted(starts, t, side="right")) - 1)]
            p = sg.position(np.array([min(max(t, sg.t0), sg.t1)]))[0]
            return np.array([*self.w(p[:2]), p[2]])

        return self.time_when(lambda t: f(at(t)), pk.t_end + 1e-6, t1, step)

    def stick_c(self, p: Player, t: float) -> np.ndarray:
        """Canonical (2,) stick blade of ``p`` at ``t``."""
        return self.d * p.stick(np.array([t]))[0][:2]

    def pc(self, t: float) -> np.ndarray:
        """Canonical (3,) puck position at ``t`` (built part)."""
        p = self.puck.position(np.array([t]))[0]
        return np.array([*self.w(p[:2]), p[2]])

    def hold(self, p: Player, t0: float, t1: float, kind: str = "receive") -> None:
        self.puck.hold(p.id, p.team, lambda tt, p=p: p.stick(tt), t0, t1, kind)

    def _v3(self, v) -> np.ndarray:
        v = np.asarray(v, float)
        return np.array([*self.w(v[:2]), v[2] if len(v) > 2 else 0.0])

    def shoot(self, v, until: float, kind: str = "shot") -> np.ndarray:
        """Release the held puck with canonical velocity ``v`` (2 or 3,), fly until ``until``."""
        self.puck.launch(self._v3(v), until, kind)
        return self.pc(until)

    def deflect(self, t: float, p: Player, v, until: float, kind: str = "deflect") -> np.ndarray:
        self.puck.deflect(t, p.id, p.team, self._v3(v), until, kind)
        return self.pc(until)

    def speed_to_arrive(self, p0_c, target_c, dt: float, vz: float = 0.0, z0: float = PUCK_FLAT_Z_M) -> float:
        """Horizontal launch speed that brings a free puck from ``p0_c`` to ``target_c`` in ``dt``."""
        p0w = np.array([*self.w(np.asarray(p0_c)[:2]), z0])
        tw = self.w(np.asarray(target_c)[:2])
        dist = float(np.linalg.norm(tw - p0w[:2]))
        u = (tw - p0w[:2]) / dist

        def miss(s: float) -> float:
            segs = simulate_free(0.0, p0w, np.array([*(u * s), vz]), dt, self.obs)
            q = segs[-1].position(np.array([dt]))[0]
            return float((q[:2] - p0w[:2]) @ u) - dist

        if vz == 0.0:
            s = (dist + 0.5 * PUCK_FRICTION_MPS2 * dt * dt) / dt
            if s - PUCK_FRICTION_MPS2 * dt < 0.2:
                raise ValueError(f"{self.scenario}: a pass over {dist:.1f} m in {dt:.2f} s would stop short")
            return s
        return float(brentq(miss, 0.5, PUCK_MAX_SPEED_MPS, xtol=1e-10))

    def pass_to(self, t_arrive: float, target_c, kind: str = "pass", vz: float = 0.0) -> np.ndarray:
        """Release the held puck now so that it is at ``target_c`` at ``t_arrive``."""
        p0 = self.pc(self.puck.t_end)
        s = self.speed_to_arrive(p0, target_c, t_arrive - self.puck.t_end, vz)
        u = np.asarray(target_c, float)[:2] - p0[:2]
        u /= np.linalg.norm(u)
        got = self.shoot([*(u * s), vz], t_arrive, kind)
        if np.linalg.norm(got[:2] - np.asarray(target_c)[:2]) > 1e-3:
            raise ValueError(f"{self.scenario}: the pass hit something on the way ({got[:2]} vs {target_c})")
        return got

    def shoot_at(self, target_c, speed: float, until: float, vz: float = 0.0, kind: str = "shot") -> np.ndarray:
        p0 = self.pc(self.puck.t_end)
        u = np.asarray(target_c, float)[:2] - p0[:2]
        u /= np.linalg.norm(u)
        return self.shoot([*(u * speed), vz], until, kind)

    def time_when(self, f: Callable[[float], float], t0: float, t1: float, step: float = 0.002) -> float:
        """First instant in [t0, t1] where ``f`` changes sign from < 0 to >= 0."""
        ts = np.arange(t0, t1 + step, step)
        vals = np.array([f(t) for t in ts])
        k = np.nonzero((vals[:-1] < 0) & (vals[1:] >= 0))[0]
        if not len(k):
            raise ValueError(f"{self.scenario}: expected crossing not found in [{t0:.2f}, {t1:.2f}]")
        return float(brentq(f, ts[k[0]], ts[k[0] + 1], xtol=1e-12))

    # -- geometry helpers ------------------------------------------------------------
    def depth(self, p: Player, t: float, line_x: float = None) -> float:
        """Canonical offside depth of ``p`` over a line (default the attacking blue line)."""
        line_x = self.FAR if line_x is None else line_x
        b = p.blades(t)[0]
        return float(np.min(self.d * b[:, 0] - line_x))

    def shift(self, p: Player, dxy) -> None:
        """Translate all of a player's waypoints by canonical ``dxy``."""
        dw = self.w(dxy)
        self.pins[p.id] = [(t, xy + dw, v, h, b) for t, xy, v, h, b in self.pins[p.id]]
        self._rebuild(p)

    def set_depth(self, p: Player, t: float, target: float, line_x: float | None = None) -> None:
        """Shift ``p`` along x so that its offside depth at ``t`` is exactly ``target``."""
        self.shift(p, (target - self.depth(p, t, line_x), 0.0))

    def on_ice(self, xy, margin: float = 2.5) -> np.ndarray:
        """Clamp a canonical point into the ice, ``margin`` metres from the boards."""
        hx, hy = self.L2 - margin, self.W2 - margin
        rc = max(self.g.corner_radius_m - margin, 0.1)
        q = np.clip(np.asarray(xy, float), [-hx, -hy], [hx, hy])
        c = np.array([np.sign(q[0]) * (hx - rc), np.sign(q[1]) * (hy - rc)])
        if abs(q[0]) > hx - rc and abs(q[1]) > hy - rc and np.linalg.norm(q - c) > rc:
            q = c + (q - c) * (rc / np.linalg.norm(q - c))
        return q

    # -- finish ----------------------------------------------------------------------
    def _finish_goalies(self) -> None:
        ts = np.arange(0.0, self.T + 0.5, 1.0)
        for pid, end in self.auto_goalies.items():
            p = next(q for q in self.players if q.id == pid)
            if self.pins[pid]:
                continue
            # follow the puck's lateral position, smoothed over a second (a goalkeeper
            # sets his angle, he does not chase every pass)
            py = np.array([np.mean([self.pc(min(max(t + dt, 0.0), self.T))[1] for dt in np.linspace(-0.5, 0.5, 5)])
                           for t in ts])
            y = np.clip(0.12 * py, -0.45, 0.45)
            x = np.full(len(ts), end * (self.GX - 0.75))
            pts = np.column_stack([x, y])
            vel = waypoints_from_points(ts, pts)
            for t, xy, vv in zip(ts, pts, vel):
                self.pin(p, t, xy, vv, heading=np.pi if end > 0 else 0.0)

    def game(self) -> dict:
        st = {self.att: self.skaters["att"], self.dfn: self.skaters["def"]}
        g = {
            "rules": self.profile,
            "rink": {"layout": self.layout, "length_m": round(self.g.length_m, 6), "width_m": round(self.g.width_m, 6)},
            "teams": {"home": {"color": _hex(self.kit_bgr["home"]), "attacks": "+x"},
                      "away": {"color": _hex(self.kit_bgr["away"]), "attacks": "-x"}},
            "strength": [{"t": 0.0, "home": st["home"], "away": st["away"]}],
            "clock": {"period": 2, "remaining_s": 600.0},
            "score": {"home": 1, "away": 1},
        }
        try:
            from rulesfromvideo.game import GameDescriptor  # validates and fills defaults
            g = GameDescriptor.from_dict(g).to_dict()
        except ImportError:
            pass
        return g

    def finish(self, intent: dict) -> Play:
        """Complete the goalkeepers, check limits and continuity, compute the truth."""
        self.puck.free_until(self.T) if self.puck._free else None
        if self.puck.t_end < self.T - 1e-9:
            raise ValueError(f"{self.scenario}: the puck is held past its script end")
        self._finish_goalies()
        for p in self.players:
            if not self.pins[p.id]:
                raise ValueError(f"{self.scenario}: player {p.id} has no path")
            p.path.check_limits(name=f"{self.scenario}/{p.id}")
            xy = p.path.xy(np.linspace(0.0, self.T, 400))
            if np.any(np.abs(xy[:, 0]) > self.L2 - 0.5) or np.any(np.abs(xy[:, 1]) > self.W2 - 0.5):
                raise ValueError(f"{self.scenario}: player {p.id} leaves the ice")
        # the puck must be continuous at every segment boundary (a moved stick would break it)
        for a, b in zip(self.puck.segments[:-1], self.puck.segments[1:]):
            pa = a.position(np.array([a.t1]))[0]
            pb = b.position(np.array([b.t0]))[0]
            if np.linalg.norm(pa - pb) > 2e-3:
                raise ValueError(f"{self.scenario}: puck jumps {np.linalg.norm(pa - pb):.4f} m at t={a.t1:.3f}")
        game = self.game()
        ctx = TruthContext(self.puck, self.players, self.g, game, self.T, FPS, self.profile)
        events = compute_events(ctx)
        if self.standing:
            # Westridge 1 b: no offsides or icing are called in the sponge league (and no crease rule)
            intent = {**intent, "expect": [x for x in intent["expect"] if x[0] not in ("zone_entry", "icing", "crease")],
                      "margins": {k: v for k, v in intent.get("margins", {}).items()
                                  if k not in ("zone_entry", "icing", "crease")},
                      "evidence": {k: v for k, v in intent.get("evidence", {}).items() if k not in ("zone_entry", "icing")},
                      "exceptions": {k: v for k, v in intent.get("exceptions", {}).items()
                                     if k not in ("zone_entry", "icing")}}
        _check_intent(self.scenario, events, intent)
        return Play(self.scenario, self.seed, self.profile, FPS, self.T, game, events, self.players,
                    self.puck, self.g, self.d, intent)


class PlayIntentError(ValueError):
    """A scripted play whose truth does not say what the script meant (a seed or rink layout it
    does not fit): a clear error for ``rulesfromvideo synth``, never a crash."""


def _check_intent(scenario: str, events: list[dict], intent: dict) -> None:
    """Assert the truth computed from the motion says what the script meant."""
    got = [(e["type"], e["verdict"]) for e in events]
    want = [tuple(x) for x in intent["expect"]]
    if intent.get("subset"):
        pool = list(got)
        missing = []
        for typ, verdict in want:  # in time order; None accepts any verdict
            k = next((i for i, g in enumerate(pool) if g[0] == typ and verdict in (None, g[1])), None)
            if k is None:
                missing.append((typ, verdict))
            else:
                pool = pool[k + 1:]
        if missing:
            raise PlayIntentError(f"{scenario}: expected events {missing} missing from {got}")
    elif sorted(got) != sorted(want):
        raise PlayIntentError(f"{scenario}: truth events {got} != intended {want}")
    for typ, margin in intent.get("margins", {}).items():
        e = next(e for e in events if e["type"] == typ)
        if abs(e["margin_m"] - margin) > 1e-3:
            raise PlayIntentError(f"{scenario}: {typ} margin {e['margin_m']:.5f} != scripted {margin:.5f}")
    for typ, ev in intent.get("evidence", {}).items():
        e = next(e for e in events if e["type"] == typ)
        for k, v in ev.items():
            if e["evidence"].get(k) != v:
                raise PlayIntentError(f"{scenario}: {typ} evidence {k}={e['evidence'].get(k)!r} != {v!r}")
    for typ, exc in intent.get("exceptions", {}).items():
        e = next(e for e in events if e["type"] == typ)
        if e["evidence"].get("exception") != exc:
            raise PlayIntentError(f"{scenario}: {typ} exception {e['evidence'].get('exception')} != {exc}")


# ----------------------------------------------------------------------------------
# scenario building blocks
# ----------------------------------------------------------------------------------
def _bench(b: _Builder, rel: str, n: int, x_range, y_choices, vx_range, t0=0.0, t1=None, avoid=()) -> list[Player]:
    """``n`` background skaters of ``rel`` drifting inside a canonical x range."""
    out = []
    ys = list(b.rng.permutation(np.asarray(y_choices, float)))
    for i in range(n):
        p = b.player(rel)
        x0 = b.uniform(*x_range)
        y0 = ys[i % len(ys)] + b.uniform(-0.8, 0.8)
        b.drift(p, (x0, y0), (b.uniform(*vx_range), b.uniform(-0.3, 0.3)), t0, t1)
        out.append(p)
    return out


def _entry_carried(b: _Builder, offside: bool) -> Play:
    """903 b1 carried entry: the teammate beside the carrier decides."""
    m = b.margin()
    target = m if offside else -m
    t_c = b.uniform(1.6, 2.2)
    vc = b.uniform(4.0, 5.5)
    yc = b.uniform(-6.0, 6.0)
    carrier = b.player("att")
    # stick blade reaches x = FAR + R (puck completely over) at t_c: seat follows from the pin
    hc = 0.0
    stick_c = np.array([b.FAR + R, yc])
    seat_c = b.pin_stick(carrier, t_c, stick_c, hc, (vc, 0.0))
    b.pin(carrier, 0.0, seat_c - (vc * t_c, 0.0), (vc, 0.0), hc)
    t_end = b.T
    b.pin(carrier, t_end, seat_c + (vc * (t_end - t_c) - 0.5 * 1.0 * (t_end - t_c) ** 2, 0.0),
          (vc - 1.0 * (t_end - t_c), 0.0), hc)
    b.puck_start(0.0, [*b.stick_c(carrier, 0.0), PUCK_FLAT_Z_M])
    b.hold(carrier, 0.0, t_end)
    mate = b.player("att")
    ym = yc + (4.0 if yc < 0 else -4.0)
    ang = b.uniform(-0.25, 0.25)
    vm = b.uniform(3.5, 5.0)
    vmv = vm * np.array([np.cos(ang), np.sin(ang)])
    b.line(mate, 0.0, b.T, (b.FAR - vm * t_c, ym - vmv[1] * t_c), vmv, knots=3)
    b.set_depth(mate, t_c, target)
    _bench(b, "att", 3, (-12.0, -4.0), (-8.0, 0.0, 8.0), (1.5, 3.0))
    _bench(b, "def", 5, (b.FAR + 4.0, b.GX - 6.0), (-9.0, -4.0, 0.0, 4.0, 9.0), (-0.8, 0.3))
    b.goalie("def")
    b.goalie("att")
    return b.finish({"expect": [("zone_entry", "offside" if offside else "onside")],
                     "margins": {"zone_entry": target}, "drawn_margin_m": m})


def _entry_pass(b: _Builder, offside: bool) -> Play:
    """903 b1 pass entry: the receiver's depth when the pass completely crosses decides."""
    m = b.margin()
    target = m if offside else -m
    passer = b.player("att")
    receiver = b.player("att")
    yp = b.uniform(-7.0, 7.0)
    yr = yp + (b.uniform(4.0, 7.0) if yp < 0 else -b.uniform(4.0, 7.0))
    vp = b.uniform(3.0, 4.5)
    t_rel = b.uniform(0.9, 1.3)
    rel_x = b.FAR - b.uniform(3.5, 5.5)
    b.line(passer, 0.0, t_rel, (rel_x - vp * t_rel - 1.05, yp), (vp, 0.0))
    b.pin(passer, b.T, (rel_x - 1.05 + vp * 0.6 + 1.0, yp), (0.5, 0.0))
    b.puck_start(0.0, [*b.stick_c(passer, 0.0), PUCK_FLAT_Z_M])
    b.hold(passer, 0.0, t_rel)
    # receiver skates along heading hq at speed vq; iterate the pass target to the crossing time
    hq = b.uniform(-0.15, 0.15)
    vq = b.uniform(3.5, 5.0)
    fq = np.array([np.cos(hq), np.sin(hq)])
    speed = b.uniform(11.0, 15.0)
    t_cross = t_rel + (b.FAR + R - rel_x) / speed
    for _ in range(6):
        t_recv = t_cross + b.uniform(0.25, 0.35) if _ == 0 else t_recv
        # seat at t_cross has the target depth; seat at t_recv is vq*(t_recv - t_cross) further
        lw = abs(np.sin(hq)) * receiver.blade_gap_m / 2
        seat_cross = np.array([b.FAR + target + lw, yr])
        seat_recv = seat_cross + vq * (t_recv - t_cross) * fq
        l = np.array([-fq[1], fq[0]])
        stick_recv = seat_recv + receiver.stick_u_m * fq + receiver.stick_w_m * l
        p0 = b.pc(t_rel)
        dist = np.linalg.norm(stick_recv - p0[:2])
        s = (dist + 0.5 * PUCK_FRICTION_MPS2 * (t_recv - t_rel) ** 2) / (t_recv - t_rel)
        u = (stick_recv - p0[:2]) / dist
        # time at which the puck completely crosses: x(t) - R = FAR along the friction slide
        f = lambda t: p0[0] + u[0] * (s * (t - t_rel) - 0.5 * PUCK_FRICTION_MPS2 * (t - t_rel) ** 2) - R - b.FAR  # noqa: E731
        t_cross = brentq(f, t_rel, t_recv + 2.0)
    b.pin(receiver, t_cross, seat_cross, vq * fq, hq)
    b.pin(receiver, t_recv, seat_recv, vq * fq, hq)
    b.pin(receiver, 0.0, seat_cross - vq * t_cross * fq, vq * fq, hq)
    t_end = b.T
    b.pin(receiver, t_end, seat_recv + (vq * (t_end - t_recv) - 0.4 * (t_end - t_recv) ** 2) * fq,
          (vq - 0.8 * (t_end - t_recv)) * fq, hq)
    b.pass_to(t_recv, receiver.stick(np.array([t_recv]))[0][:2] * b.d)
    b.hold(receiver, t_recv, t_end)
    _bench(b, "att", 3, (-12.0, -3.0), (-9.0, 0.0, 9.0), (1.0, 2.5))
    _bench(b, "def", 5, (b.FAR + 4.0, b.GX - 6.0), (-9.0, -4.0, 0.0, 4.0, 9.0), (-0.8, 0.3))
    b.goalie("def")
    b.goalie("att")
    return b.finish({"expect": [("zone_entry", "offside" if offside else "onside")],
                     "margins": {"zone_entry": target}, "drawn_margin_m": m})




# ----------------------------------------------------------------------------------
# scenarios
# ----------------------------------------------------------------------------------
def _onside_carried(b: _Builder) -> Play:
    return _entry_carried(b, offside=False)


def _offside_carried(b: _Builder) -> Play:
    return _entry_carried(b, offside=True)


def _onside_pass(b: _Builder) -> Play:
    return _entry_pass(b, offside=False)


def _offside_pass(b: _Builder) -> Play:
    return _entry_pass(b, offside=True)



def _offside_backwards_control(b: _Builder) -> Play:
    """903 b3: the carrier skates backwards over the line ahead of the puck, in control."""
    m = b.margin()
    t_c = b.uniform(1.6, 2.2)
    vb = b.uniform(2.5, 3.5)
    yc = b.uniform(-6.0, 6.0)
    carrier = b.player("att")
    seat = b.pin_stick(carrier, t_c, (b.FAR + R, yc), np.pi, (vb, 0.0), backward=True)
    b.pin(carrier, 0.0, seat - (vb * t_c, 0.0), (vb, 0.0), np.pi, backward=True)
    dt = b.T - t_c
    b.pin(carrier, b.T, seat + (vb * dt - 0.3 * dt * dt, 0.0), (vb - 0.6 * dt, 0.0), np.pi, backward=True)
    b.puck_start(0.0, [*b.stick_c(carrier, 0.0), PUCK_FLAT_Z_M])
    b.hold(carrier, 0.0, b.T)
    mate = b.player("att")
    vm = b.uniform(3.0, 4.5)
    ym = yc + (4.0 if yc < 0 else -4.0)
    b.line(mate, 0.0, b.T, (b.FAR - vm * t_c, ym), (vm, 0.0), knots=3)
    b.set_depth(mate, t_c, -m)
    _bench(b, "att", 3, (-12.0, -4.0), (-8.0, 0.0, 8.0), (1.5, 3.0))
    _bench(b, "def", 5, (b.FAR + 4.0, b.GX - 6.0), (-9.0, -4.0, 0.0, 4.0, 9.0), (-0.8, 0.3))
    b.goalie("def")
    b.goalie("att")
    return b.finish({"expect": [("zone_entry", "onside")], "margins": {"zone_entry": -m},
                     "evidence": {"zone_entry": {"exempt": [carrier.id]}}, "drawn_margin_m": m})


def _defender_carries_in(b: _Builder) -> Play:
    """903 e: a defender carries the puck into his own zone past an attacker in offside position."""
    m = b.margin()
    t_c = b.uniform(1.6, 2.2)
    vc = b.uniform(3.5, 5.0)
    yc = b.uniform(-6.0, 6.0)
    carrier = b.player("def")
    seat = b.pin_stick(carrier, t_c, (b.FAR + R, yc), 0.0, (vc, 0.0))
    b.pin(carrier, 0.0, seat - (vc * t_c, 0.0), (vc, 0.0), 0.0)
    dt = b.T - t_c
    b.pin(carrier, b.T, seat + (vc * dt - 0.4 * dt * dt, 0.0), (vc - 0.8 * dt, 0.0), 0.0)
    b.puck_start(0.0, [*b.stick_c(carrier, 0.0), PUCK_FLAT_Z_M])
    b.hold(carrier, 0.0, b.T)
    # a forechecker caught deep, skating back out towards the blue line
    fore = b.player("att")
    yf = yc + (5.0 if yc < 0 else -5.0)
    b.line(fore, 0.0, b.T, (b.FAR + 2.0 + 1.5 * t_c, yf), (-1.5, 0.0), knots=3)
    b.set_depth(fore, t_c, m)
    _bench(b, "att", 4, (-10.0, -2.0), (-8.0, -3.0, 3.0, 8.0), (2.0, 3.0))
    _bench(b, "def", 4, (b.FAR + 5.0, b.GX - 6.0), (-9.0, -3.0, 3.0, 9.0), (-0.3, 0.5))
    b.goalie("def")
    b.goalie("att")
    return b.finish({"expect": [("zone_entry", "onside")], "margins": {"zone_entry": m},
                     "exceptions": {"zone_entry": "defender_carried"}, "drawn_margin_m": m})


def _delayed_offside_tagup(b: _Builder) -> Play:
    """904: offside dump-in, the defending team plays the puck, every attacker tags up."""
    m = b.margin()
    passer = b.player("att")
    yp = b.uniform(-5.0, 5.0)
    t_rel = b.uniform(0.9, 1.2)
    vp = b.uniform(3.0, 4.0)
    rel_x = b.FAR - b.uniform(3.0, 4.5)
    b.line(passer, 0.0, t_rel, (rel_x - 1.05 - vp * t_rel, yp), (vp, 0.0))
    b.pin(passer, t_rel + 2.0, (rel_x - 1.05 + vp * 1.0, yp), (0.0, 0.0))
    b.pin(passer, b.T, (rel_x - 1.05 + vp * 1.0 - 1.0, yp), (-0.5, 0.0))
    b.puck_start(0.0, [*b.stick_c(passer, 0.0), PUCK_FLAT_Z_M])
    b.hold(passer, 0.0, t_rel)
    side = 1.0 if b.rng.integers(2) else -1.0
    corner = np.array([b.GX - b.uniform(2.5, 4.0), side * (b.W2 - b.uniform(3.5, 5.0))])
    t_pick = t_rel + b.uniform(1.6, 2.0)
    b.pass_to(t_pick, corner, kind="shot")
    t_cross = b.time_when(lambda t: b.pc(t)[0] - R - b.FAR, t_rel, t_pick)
    # the defender skates from the net to the corner and takes the puck
    dman = b.player("def")
    hd = float(np.arctan2(side, 0.4))
    seat_pick = b.pin_stick(dman, t_pick, corner, hd, 1.5 * np.array([np.cos(hd), np.sin(hd)]))
    start = np.array([b.GX - 3.0, side * 4.5])
    b.pin(dman, 0.0, start, (0.0, side * 0.5))
    b.pin(dman, b.T, seat_pick + (1.6, side * 0.3), (0.6, 0.0))
    b.hold(dman, t_pick, b.T)
    # the offside attacker: deep when the dump crosses, then turns back and tags up
    off = b.player("att")
    yo = -side * b.uniform(2.0, 5.0)
    x0 = b.FAR + m + 0.2
    b.pin(off, 0.0, (x0 - 1.5 * t_cross, yo), (1.5, 0.0))
    b.pin(off, t_cross, (x0, yo), (1.5, 0.0))
    b.pin(off, t_cross + 1.2, (x0 + 0.9, yo - side * 1.1), (0.0, -side * 1.8))
    b.pin(off, t_cross + 2.4, (x0, yo - side * 2.2), (-2.2, 0.0))
    dt = b.T - (t_cross + 2.4)
    b.pin(off, b.T, (x0 - 2.2 * dt, yo - side * 2.2), (-2.2, 0.0))
    b.set_depth(off, t_cross, m)
    _bench(b, "att", 3, (-8.0, -1.0), (-8.0, 0.0, 8.0), (0.5, 1.5))
    _bench(b, "def", 3, (b.FAR + 4.0, b.GX - 7.0), (-8.0, 0.0, 8.0), (-0.5, 0.2))
    b.drift(b.player("def"), (b.FAR + 6.0, -side * 7.0), (0.0, 0.0))
    b.goalie("def")
    b.goalie("att")
    return b.finish({"expect": [("zone_entry", "offside")], "margins": {"zone_entry": m},
                     "evidence": {"zone_entry": {"delayed": True, "nullified_by": "tag_up"}},
                     "drawn_margin_m": m})


# -- icing (905) -----------------------------------------------------------------------
def _icing(b: _Builder, variant: str) -> Play:
    """905: a shot from the own half (contact ``m`` inside it) across the opponent's goal line."""
    m = b.margin()
    x_c = b.HALF - m  # 905 a / 206: the centre line counts as the shooter's half
    t_s = 1.0
    y_c = b.uniform(-4.0, 4.0)
    side = 1.0 if b.rng.integers(2) else -1.0
    speed = b.uniform(18.0, 24.0)
    if variant == "goal":
        y_a = side * b.uniform(0.3, 0.6)
        target = np.array([b.BACK - R, y_a])
    else:
        target = np.array([b.OUT + R + 0.3, side * b.uniform(3.0, 5.0)])
    dist = float(np.linalg.norm(target - (x_c, y_c)))
    tau = (speed - np.sqrt(speed**2 - 2 * PUCK_FRICTION_MPS2 * dist)) / PUCK_FRICTION_MPS2
    t_face = 0.75  # after the dropped puck has landed and settled
    if variant == "faceoff":
        t_s = t_face
    b.T = float(np.ceil((t_s + tau + (1.3 if variant == "touched" else 1.0)) * 10) / 10)
    shooter = b.player("att")
    if variant == "faceoff":
        # 905 d4: the puck is dropped (airborne) and the centre shoots it straight off the draw
        y_c = b.uniform(-0.08, 0.08)
        b.puck_start(0.0, (x_c, y_c, b.uniform(0.6, 0.9)))
        seat = b.pin_stick(shooter, t_s, (x_c, y_c), 0.0, (0.8, 0.0))
        b.pin(shooter, 0.0, seat - (0.3, 0.0), (0.0, 0.0), 0.0)
        b.pin(shooter, b.T, seat + (0.8, 0.0), (0.0, 0.0), 0.0)
        u = (target - (x_c, y_c)) / dist
        b.deflect(t_s, shooter, [*(u * speed), 0.0], t_s + 0.02, kind="faceoff")
        opp = b.player("def")
        seat_o = np.array([x_c + 1.45, y_c - opp.stick_w_m])
        b.pin(opp, 0.0, seat_o, (0.0, 0.0), np.pi)
        b.pin(opp, b.T, seat_o + (0.3, 0.0), (0.0, 0.0), np.pi)
    else:
        vs = b.uniform(3.0, 4.5)
        seat = b.pin_stick(shooter, t_s, (x_c, y_c), 0.0, (vs, 0.0))
        b.pin(shooter, 0.0, seat - (vs * t_s, 0.0), (vs, 0.0), 0.0)
        dt = b.T - t_s
        b.pin(shooter, b.T, seat + (vs * dt - 0.4 * dt * dt, 0.0), (max(vs - 0.8 * dt, 0.0), 0.0), 0.0)
        b.puck_start(0.0, [*b.stick_c(shooter, 0.0), PUCK_FLAT_Z_M])
        b.hold(shooter, 0.0, t_s)
        b.shoot_at(target, speed, t_s + 0.02)
    expect = [("zone_entry", "onside")]
    intent: dict[str, Any] = {"margins": {"icing": m}, "drawn_margin_m": m}
    if variant == "touched":
        # 905 d3: a defender's stick deflects the puck inside his zone
        x_d = b.FAR + b.uniform(4.0, 7.0)
        t_d = b.preview_when(lambda q: q[0] - x_d, b.T)
        q = b.preview(t_d)
        dfl = b.player("def")
        seat = b.pin_stick(dfl, t_d, q[:2], np.pi, (-1.0, 0.0))
        b.pin(dfl, 0.0, seat + (1.0 * t_d, 0.0), (-1.0, 0.0), np.pi)
        b.pin(dfl, b.T, seat - (1.0 * (b.T - t_d), 0.0), (-1.0, 0.0), np.pi)
        new_target = np.array([b.OUT + R + 0.3, np.sign(target[1]) * np.clip(abs(target[1]) + b.uniform(-1.0, 1.0), 3.0, 5.5)])
        u = (new_target - q[:2]) / np.linalg.norm(new_target - q[:2])
        b.deflect(t_d, dfl, [*(u * 0.8 * speed * 0.95), 0.0], t_d + 0.02)
    if variant == "opponent_could_play":
        # 905 d5 proxy: a defender close enough to the path to get there first
        t_q = b.preview_when(lambda q: q[0] - (b.GX - 6.0), b.T)
        q = b.preview(t_q)
        reach = 1.5 + 6.9 * (t_q - t_s)
        dpl = b.player("def")
        off = np.array([0.0, -np.sign(q[1])]) * 0.45 * reach
        start = q[:2] + off - (0.0, 0.0)
        b.pin(dpl, 0.0, start - (0.0, 0.0) + (1.0, 0.0), (-1.0, 0.0))
        b.pin(dpl, b.T, start + (1.0 - 1.0 * b.T, 0.0) - off * 0.3, (-0.5, -0.3 * off[1] / b.T))
    # the team being iced on was attacking: its skaters are behind the shooter
    n_att = b.skaters["att"] - 1
    n_def = b.skaters["def"] - (1 if variant in ("touched", "faceoff", "opponent_could_play") else 0)
    if variant == "faceoff":
        ys = [-6.0, 6.0, -3.5, 3.5]
        for i in range(n_att):
            p = b.player("att")
            b.drift(p, (-2.5 - 4.0 * (i >= 2), ys[i % 4]), (0.8, 0.0), wobble=0.1)
        for i in range(n_def):
            p = b.player("def")
            b.drift(p, (2.5 + 4.0 * (i >= 2), ys[i % 4] * 0.9), (-0.3, 0.0), wobble=0.1)
    else:
        _bench(b, "att", n_att, (-10.0, -3.0), (-8.0, -2.0, 2.0, 8.0), (0.5, 2.0))
        _bench(b, "def", n_def, (-14.0, -4.0), (-9.0, -4.0, 0.0, 4.0, 9.0), (-2.0, -0.5))
    if variant == "goalkeeper":
        # 905 d6: the goalkeeper leaves the crease towards the puck
        gk = b.player("def", "goalkeeper")
        home = np.array([b.GX - 0.75, 0.0])
        out = np.array([b.GX - 0.5, np.sign(target[1]) * b.uniform(2.4, 2.8)])
        sg = float(np.sign(target[1]))
        b.pin(gk, 0.0, home, (0.0, sg * 0.3), np.pi)
        b.pin(gk, t_s, home + (0.0, sg * 0.3 * t_s), None, np.pi)
        tx_est = t_s + tau
        b.pin(gk, tx_est, out, None, np.pi)
        b.pin(gk, b.T, out + (0.0, sg * 0.75 * (b.T - tx_est)), (0.0, 0.0), np.pi)
    elif variant == "goal":
        gk = b.player("def", "goalkeeper")
        gy = -np.sign(target[1]) * 0.55
        b.line(gk, 0.0, b.T, (b.GX - 0.8, gy), (0.0, -np.sign(target[1]) * 0.05), heading=np.pi)
    else:
        b.goalie("def")
    b.goalie("att")
    b.puck.free_until(b.T)
    if variant == "goal":
        expect += [("goal", "goal"), ("crease", "clear"), ("icing", "waved_off")]
        intent["exceptions"] = {"icing": "goal"}
    elif variant == "plain":
        expect += [("icing", "icing")]
    else:
        expect += [("icing", "waved_off")]
        intent["exceptions"] = {"icing": {"shorthanded": "shorthanded", "touched": "touched_by_opponent",
                                          "faceoff": "faceoff", "opponent_could_play": "opponent_could_play",
                                          "goalkeeper": "goalkeeper_moved"}[variant]}
    intent["expect"] = expect
    return b.finish(intent)


# -- goals (906, 907) -----------------------------------------------------------------
def _slot_shot(b: _Builder, m: float, airborne: bool) -> tuple[Player, float]:
    """A shot from the slot into the far side of the net; lateral clearance = m where the puck
    passes the goal mouth (906 1: at the instant it is entirely across the goal line, the
    widest point of its passage on a straight shot to the far side)."""
    t_s = 1.0
    shooter = b.player("att")
    y_s = b.uniform(-2.5, 2.5)
    x_s = b.uniform(17.0, 21.0)
    vs = b.uniform(2.0, 3.5)
    seat = b.pin_stick(shooter, t_s, (x_s, y_s), 0.0, (vs, 0.0))
    b.pin(shooter, 0.0, seat - (vs * t_s, 0.0), (vs, 0.0), 0.0)
    dt = b.T - t_s
    b.pin(shooter, b.T, seat + (vs * dt * 0.5, 0.0), (0.0, 0.0), 0.0)
    b.puck_start(0.0, [*b.stick_c(shooter, 0.0), PUCK_FLAT_Z_M])
    b.hold(shooter, 0.0, t_s)
    y_c = -np.sign(y_s) * (b.POST - R - m) if abs(y_s) > 0.05 else (b.POST - R - m)
    # On the straight line from the release through (entirely across, y_c), aimed at the back.
    p0, x_c = b.pc(t_s)[:2], b.OUT + R
    target = p0 + (np.array([x_c, y_c]) - p0) * (b.BACK - R - p0[0]) / (x_c - p0[0])
    speed = b.uniform(14.0, 24.0)
    vz = 0.0
    if airborne:
        p0 = b.pc(t_s)
        t_gl = (b.GX - p0[0]) / speed
        z_gl = b.uniform(0.25, 0.8)
        vz = (z_gl - PUCK_FLAT_Z_M + 0.5 * 9.81 * t_gl**2) / t_gl
        speed = float(np.sqrt(max(speed**2 - vz**2, 1.0)))
    b.shoot_at(target, speed, t_s + 0.02, vz=vz)
    return shooter, t_s


def _goal_keeper_static(b: _Builder, y: float) -> Player:
    gk = b.player("def", "goalkeeper")
    b.line(gk, 0.0, b.T, (b.GX - 0.8, y), (0.0, 0.0), heading=np.pi)
    return gk


def _goal(b: _Builder, occupied: bool = False) -> Play:
    m = b.margin()
    shooter, t_s = _slot_shot(b, m, airborne=bool(b.rng.integers(2)) and not occupied)
    b.puck.free_until(b.T)
    t_goal = b.time_when(lambda t: b.pc(t)[0] - R - b.OUT, t_s, b.T)
    y_near = -np.sign(b.pc(b.T)[1])
    _goal_keeper_static(b, y_near * 0.5)
    intent: dict[str, Any] = {"expect": [("goal", "goal"), ("crease", "occupied" if occupied else "clear")],
                              "margins": {"goal": m}, "drawn_margin_m": m}
    n_bench = 4
    if occupied:
        mc = b.margin()
        screen = b.player("att")
        ang = y_near * b.uniform(0.5, 0.9)  # approach from the near-post side
        dirn = np.array([np.cos(-ang), np.sin(-ang)])  # heading towards the goal centre
        base = np.array([b.GX, 0.0]) - 2.2 * dirn
        b.line(screen, 0.0, b.T, base - 0.4 * t_goal * dirn, 0.4 * dirn, heading=float(np.arctan2(dirn[1], dirn[0])), knots=3)
        crease_c = b.g.crease(b.d)

        def depth_after(s: float) -> float:
            b.shift(screen, s * dirn)
            d = footprint_depth(screen.footprint(t_goal), crease_c)
            b.shift(screen, -s * dirn)
            return d - mc

        grid = np.arange(-2.0, 2.0, 0.05)
        s_top = grid[int(np.argmax([depth_after(g) for g in grid]))]
        s = brentq(depth_after, -2.0, s_top, xtol=1e-10)
        b.shift(screen, s * dirn)
        intent["margins"]["crease"] = mc
        intent["drawn_crease_margin_m"] = mc
        n_bench = 3
    _bench(b, "att", n_bench, (b.FAR + 1.0, b.GX - 5.0), (-9.0, -5.0, 5.0, 9.0), (-0.3, 0.3))
    _bench(b, "def", 5, (b.FAR + 3.0, b.GX - 3.5), (-7.0, -3.5, 0.0, 3.5, 7.0), (-0.3, 0.3))
    b.goalie("att")
    return b.finish(intent)


def _goal_line_sweep(b: _Builder, depth_target: float, verdict: str) -> Play:
    """A slow puck reaches ``depth_target`` (906 depth) when the goalkeeper sweeps it out."""
    t_s = 1.0
    shooter = b.player("att")
    y_p = b.uniform(-0.45, 0.45)
    x_s = b.GX - b.uniform(2.5, 4.0)
    seat = b.pin_stick(shooter, t_s, (x_s, y_p), 0.0, (1.0, 0.0))
    b.pin(shooter, 0.0, seat - (1.0 * t_s, 0.0), (1.0, 0.0), 0.0)
    b.pin(shooter, b.T, seat + (0.5, 0.0), (0.0, 0.0), 0.0)
    b.puck_start(0.0, [*b.stick_c(shooter, 0.0), PUCK_FLAT_Z_M])
    b.hold(shooter, 0.0, t_s)
    b.shoot_at((b.GX + 3.0, y_p), b.uniform(3.0, 4.5), t_s + 0.02)
    t_g = b.preview_when(lambda q: q[0] - R - b.OUT - depth_target, b.T)
    q = b.preview(t_g)
    gk = b.player("def", "goalkeeper")
    # sideways at the post, reaching back over the line with the stick (heading -pi/2)
    seat_g = b.pin_stick(gk, t_g, q[:2], -np.pi / 2, (-0.4, 0.0))
    b.pin(gk, 0.0, seat_g + (0.4 * t_g * 0.5, 0.0), (-0.2, 0.0), -np.pi / 2)
    b.pin(gk, b.T, seat_g - (0.4 * (b.T - t_g) * 0.5, 0.0), (0.0, 0.0), -np.pi / 2)
    away = np.array([-1.0, np.sign(y_p + 1e-9) * 1.2])
    b.deflect(t_g, gk, [*(away / np.linalg.norm(away) * b.uniform(3.0, 5.0)), 0.0], b.T)
    _bench(b, "att", 4, (b.FAR + 1.0, b.GX - 5.0), (-9.0, -5.0, 5.0, 9.0), (-0.3, 0.3))
    _bench(b, "def", 5, (b.FAR + 3.0, b.GX - 3.5), (-7.0, -3.5, 0.0, 3.5, 7.0), (-0.3, 0.3))
    b.goalie("att")
    expect = [("goal", verdict)] + ([("crease", "clear")] if verdict == "goal" else [])
    return b.finish({"expect": expect, "margins": {"goal": depth_target}, "drawn_margin_m": abs(depth_target)})


def _goal_close(b: _Builder) -> Play:
    return _goal_line_sweep(b, b.margin(0.005, 0.05), "goal")


def _no_goal_on_line(b: _Builder) -> Play:
    return _goal_line_sweep(b, -b.margin(0.005, 0.05), "no_goal")


def _no_goal_post(b: _Builder) -> Play:
    """A straight shot rings off the front-inside of a post and out."""
    t_s = 1.0
    sig = 1.0 if b.rng.integers(2) else -1.0
    beta = np.deg2rad(b.uniform(25.0, 35.0))
    post_c = np.array([b.GX, sig * (b.POST + b.g.post_diameter_m / 2)])
    contact = post_c + (b.g.post_diameter_m / 2 + R) * np.array([-np.cos(beta), -sig * np.sin(beta)])
    shooter = b.player("att")
    x_s = b.uniform(18.0, 22.0)
    seat = b.pin_stick(shooter, t_s, (x_s, contact[1]), 0.0, (2.0, 0.0))
    b.pin(shooter, 0.0, seat - (2.0 * t_s, 0.0), (2.0, 0.0), 0.0)
    b.pin(shooter, b.T, seat + (2.0, 0.0), (0.0, 0.0), 0.0)
    b.puck_start(0.0, [*b.stick_c(shooter, 0.0), PUCK_FLAT_Z_M])
    b.hold(shooter, 0.0, t_s)
    b.shoot_at(contact, b.uniform(15.0, 24.0), b.T)
    _goal_keeper_static(b, -sig * 0.45)
    _bench(b, "att", 4, (b.FAR + 1.0, b.GX - 6.0), (-9.0, -5.0, 5.0, 9.0), (-0.3, 0.3))
    _bench(b, "def", 5, (b.FAR + 3.0, b.GX - 4.0), (-7.0, -3.5, 0.0, 3.5, 7.0), (-0.3, 0.3))
    b.goalie("att")
    return b.finish({"expect": [("goal", "no_goal")], "impact_angle_deg": round(float(np.rad2deg(beta)), 3)})


def _no_goal_from_behind(b: _Builder) -> Play:
    """Through a torn back netting and out of the goal mouth: an arrival from behind (906)."""
    t_s = 0.8
    y_s = b.uniform(-0.4, 0.4)
    shooter = b.player("att")
    seat = b.pin_stick(shooter, t_s, (b.BACK + 0.5, y_s), np.pi, (-0.5, 0.0))
    # He backs up to the shot from nearer the end boards, as far as they leave room (an NHL rink
    # has 3.35 m behind the goal line, IPC 4 m: 0.4 m put him off the ice there).
    room = max(0.0, b.L2 - 0.6 - float(seat[0]))
    b.pin(shooter, 0.0, seat + (min(0.4, room), 0.0), (0.0, 0.0), np.pi)
    b.pin(shooter, b.T, seat - (0.6, 0.0), (0.0, 0.0), np.pi)
    b.puck_start(0.0, [*b.stick_c(shooter, 0.0), PUCK_FLAT_Z_M])
    b.hold(shooter, 0.0, t_s)
    b.shoot_at((b.GX - 5.0, y_s + b.uniform(-0.3, 0.3)), b.uniform(5.0, 8.0), t_s + 0.02)
    t_pick = t_s + b.uniform(1.2, 1.5)
    q = b.preview(t_pick)
    dman = b.player("def")
    seat_d = b.pin_stick(dman, t_pick, q[:2], 0.0, (1.0, 0.0))
    b.pin(dman, 0.0, seat_d - (1.0 * t_pick, 0.0), (1.0, 0.0), 0.0)
    b.pin(dman, b.T, seat_d + (1.0 * (b.T - t_pick), 0.0), (1.0, 0.0), 0.0)
    b.hold(dman, t_pick, b.T)
    _goal_keeper_static(b, 1.3 if y_s < 0 else -1.3)
    _bench(b, "att", 4, (b.FAR + 2.0, b.GX - 6.0), (-9.0, -5.0, 5.0, 9.0), (-0.3, 0.3))
    _bench(b, "def", 4, (b.FAR + 3.0, b.GX - 4.0), (-7.0, -3.5, 3.5, 7.0), (-0.3, 0.3))
    b.goalie("att")
    return b.finish({"expect": [("goal", "no_goal")], "evidence": {"goal": {"from_behind": True}}})


def _goal_plain(b: _Builder) -> Play:
    return _goal(b, occupied=False)


def _goal_crease_occupied(b: _Builder) -> Play:
    return _goal(b, occupied=True)


# -- sponge (Westridge 1 n, o) ----------------------------------------------------------
def _sponge_key_3s(b: _Builder) -> Play:
    m = b.margin()
    key = b.g.crease(b.d)
    pt = b.player("att")
    mate = b.player("att")
    side = 1.0 if b.rng.integers(2) else -1.0
    y0 = side * b.uniform(3.0, 6.0)
    t_pass = b.uniform(2.5, 3.2)
    b.line(pt, 0.0, t_pass, (b.FAR + 1.5, y0 - side * 1.0 * t_pass - pt.stick_w_m), (0.0, -side * 1.0),
           heading=-side * np.pi / 2)
    b.pin(pt, b.T, (b.FAR + 1.5, y0 - side * (t_pass + 1.0)), (0.0, 0.0), heading=0.0)
    b.puck_start(0.0, [*b.stick_c(pt, 0.0), PUCK_FLAT_Z_M])
    b.hold(pt, 0.0, t_pass)
    t_recv = t_pass + b.uniform(0.7, 0.9)
    recv_stick = np.array([b.FAR + 2.5, -side * b.uniform(4.0, 7.0)])
    seat_m = b.pin_stick(mate, t_recv, recv_stick, side * np.pi / 2, (0.0, 0.5 * side))
    b.pin(mate, 0.0, seat_m - (0.0, 0.5 * side * t_recv), (0.0, 0.5 * side), side * np.pi / 2)
    b.pin(mate, b.T, seat_m + (0.0, 0.5 * side * (b.T - t_recv)), (0.0, 0.5 * side), side * np.pi / 2)
    b.pass_to(t_recv, recv_stick)
    b.hold(mate, t_recv, b.T)
    # the attacker who walks into the key, stands there, and walks out
    k = b.player("att")
    yk = b.uniform(-0.3, 0.3)
    t_stop, t_leave = b.uniform(1.2, 1.6), b.T - b.uniform(0.9, 1.1)
    rest = np.array([b.GX - 1.6, yk])
    b.pin(k, 0.0, rest - (1.4 * t_stop * 0.5 + 0.0, 0.0), (1.4, 0.0), 0.0)
    b.pin(k, t_stop, rest, (0.0, 0.0), 0.0)
    b.pin(k, t_leave, rest, (0.0, 0.0), 0.0)
    b.pin(k, b.T, rest - (0.5, 0.25), None)

    def foot_depth(s: float) -> float:
        b.shift(k, (s, 0.0))
        f = k.blades(np.array([t_stop + 0.5]))[0]
        dd = max(float(key.exterior.distance(Point(*q))) * (1 if key.contains(Point(*q)) else -1) for q in f)
        b.shift(k, (-s, 0.0))
        return dd - m

    grid = np.arange(-2.0, 2.5, 0.05)
    s_top = grid[int(np.argmax([foot_depth(g) for g in grid]))]
    s = brentq(foot_depth, -2.0, s_top, xtol=1e-10)
    b.shift(k, (s, 0.0))
    _bench(b, "att", 2, (b.FAR + 3.0, b.GX - 6.0), (-6.0, 6.0), (-0.2, 0.2))
    _bench(b, "def", 5, (b.FAR + 3.0, b.GX - 3.0), (-7.0, -3.5, 0.0, 3.5, 7.0), (-0.2, 0.2))
    b.goalie("def")
    b.goalie("att")
    return b.finish({"expect": [("key_3s", "violation")], "margins": {"key_3s": m}, "drawn_margin_m": m})



# -- free play ------------------------------------------------------------------------
_FORMATION = [(-3.0, 2.0), (-3.5, -7.0), (-3.5, 7.0), (-9.0, -4.0), (-9.0, 4.0)]  # (behind the puck, across)


class _Chain:
    """Free-play choreography helper: carries, passes and shots in canonical coordinates."""

    def __init__(self, b: _Builder) -> None:
        self.b = b
        self.protect: dict[int, list[tuple[float, float]]] = {p.id: [] for p in b.players}

    def carry(self, p: Player, t0: float, t1: float, s0, s1, start: float = 1.3) -> None:
        """Stick blade from ``s0`` (t0) to ``s1`` (t1) in a straight line, puck on it.

        The speed changes at a constant rate from ``start`` to ``2 - start`` times the mean:
        > 1 a carrier slowing to make his play, < 1 one starting from (nearly) a standstill.
        """
        s0, s1 = np.asarray(s0, float), np.asarray(s1, float)
        v = (s1 - s0) / (t1 - t0)
        h = float(np.arctan2(v[1], v[0]))
        sp = float(np.linalg.norm(v))
        start = float(np.clip(start, 2.0 - 6.5 / sp, 6.5 / sp))  # keep both ends under 6.5 m/s
        self.b.pin_stick(p, t0, s0, h, start * v)
        self.b.pin_stick(p, t1, s1, h, (2.0 - start) * v)
        self.b.hold(p, t0, t1)
        self.protect[p.id].append((t0, t1))

    def stand(self, p: Player, t0: float, t1: float, stick, heading: float, hold: bool = True) -> None:
        """Stand still with the stick at ``stick`` (a save, a goalkeeper holding the puck)."""
        self.b.pin_stick(p, t0, stick, heading, (0.0, 0.0))
        self.b.pin_stick(p, t1, stick, heading, (0.0, 0.0))
        if hold:
            self.b.hold(p, t0, t1)
        self.protect[p.id].append((t0, t1))

    def keep(self, p: Player, t0: float, t1: float) -> None:
        self.protect[p.id].append((t0, t1))


def _fill(b: _Builder, ch: _Chain, a_lim: float = 1.5, v_form: float = 3.5) -> None:
    """Give every player knots where the script left gaps: a formation around the puck.

    Skaters trail the puck (goal side when defending, behind it when attacking, so a
    filler never decides an offside); goalkeepers track the puck in their crease. The
    formation is smoothed and speed-limited (``v_form``); between two scripted knots the
    path is the Hermite piece joining them plus a sin^2-weighted pull towards the
    formation, its weight capped so that the pull adds at most about ``a_lim`` m/s^2.
    """
    dt = 0.25
    tg = np.arange(0.0, b.T + 1e-9, dt)
    puck = np.array([b.pc(t)[:2] for t in tg])
    slots: dict[str, int] = {}
    for p in b.players:
        rel = "att" if p.team == b.att else "def"
        a = 1.0 if rel == "att" else -1.0
        if p.role == "goalkeeper":
            raw = np.column_stack([np.full(len(tg), -a * (b.GX - 0.75)), np.clip(0.12 * puck[:, 1], -0.45, 0.45)])
        else:
            k = slots.get(rel, 0)
            slots[rel] = k + 1
            dx, dy = _FORMATION[k % len(_FORMATION)]
            raw = np.column_stack([np.clip(puck[:, 0] + a * dx, -b.L2 + 5.0, b.L2 - 5.0),
                                   np.clip(dy * 0.9 + 0.25 * puck[:, 1], -b.W2 + 2.0, b.W2 - 2.0)])
        form = gaussian_filter1d(raw, 1.5 / dt, axis=0, mode="nearest")
        for i in range(1, len(form)):  # a formation cannot outrun a sledge
            step = form[i] - form[i - 1]
            n = float(np.linalg.norm(step))
            if n > v_form * dt:
                form[i] = form[i - 1] + step * (v_form * dt / n)
        form = gaussian_filter1d(form, 1.0 / dt, axis=0, mode="nearest")
        F = lambda t, form=form: np.array([np.interp(t, tg, form[:, 0]), np.interp(t, tg, form[:, 1])])  # noqa: E731
        scripted = list(b.pins[p.id])
        for pull in (1.0, 0.5, 0.25, 0.1, 0.0):
            b.pins[p.id] = list(scripted)
            _fill_gaps(b, ch, p, F, pull * a_lim, (np.pi if a < 0 else 0.0) if p.role == "goalkeeper" else None)
            try:
                p.path.check_limits()
                break
            except ValueError:
                continue


def _fill_gaps(b: _Builder, ch: _Chain, p: Player, F, a_lim: float, heading) -> None:
    """Knots between the scripted ones of ``p``: Hermite join plus a capped pull towards ``F``."""
    anchors = [(k[0], b.d * k[1], np.zeros(2) if np.isnan(k[2][0]) else b.d * k[2]) for k in b.pins[p.id]]
    if not anchors:
        anchors = [(0.0, F(0.0), np.zeros(2))]
    if anchors[0][0] > 1e-6:  # coast back from the first scripted knot when it is close
        t1, x1, v1 = anchors[0]
        # starting from rest with a constant push: x1 - v1 t1 / 2
        start = b.on_ice(x1 - 0.5 * v1 * t1) if t1 < 5.0 else F(0.0)
        anchors.insert(0, (0.0, start, np.zeros(2)))
    if anchors[-1][0] < b.T - 1e-6:
        t1, x1, v1 = anchors[-1]
        rest = b.T - t1
        end = b.on_ice(x1 + v1 * rest * 0.5) if rest < 5.0 else F(b.T)
        anchors.append((b.T, end, np.zeros(2)))
    for (ta, xa, va), (tb, xb, vb) in zip(anchors[:-1], anchors[1:]):
        span = tb - ta
        if span < 1.5 or any(t0 <= ta + 1e-6 and tb - 1e-6 <= t1 for t0, t1 in ch.protect[p.id]):
            if not b.pins[p.id] or all(abs(k[0] - ta) > 1e-9 for k in b.pins[p.id]):
                b.pin(p, ta, xa, va, heading)
            continue
        # glide to a near stop within a second of each scripted knot, so that a long
        # gap never inherits the momentum of a carry (a cubic would overshoot the rink)
        ga = float(np.clip(np.linalg.norm(va) / 2.0, 1.0, span / 3.0))  # glide time, <= 2 m/s^2
        gb = float(np.clip(np.linalg.norm(vb) / 2.0, 1.0, span / 3.0))
        knots_t = [ta, ta + ga, tb - gb, tb] if span > 3.0 else [ta, tb]
        knots_x = ([xa, b.on_ice(xa + 0.5 * va * ga), b.on_ice(xb - 0.5 * vb * gb), xb]
                   if span > 3.0 else [xa, xb])
        knots_v = [va, np.zeros(2), np.zeros(2), vb] if span > 3.0 else [va, vb]
        herm = CubicHermiteSpline([ta, tb], np.vstack([xa, xb]), np.vstack([va, vb]), axis=0)
        if span > 3.0:
            glide = CubicHermiteSpline(knots_t, np.vstack(knots_x), np.vstack(knots_v), axis=0)
            probe = np.linspace(ta, tb, 60)

            def cost(hs):
                hp = hs(probe)
                off = np.any(np.abs(hp[:, 0]) > b.L2 - 2.5) or np.any(np.abs(hp[:, 1]) > b.W2 - 2.0)
                return (off, float(np.linalg.norm(hs(probe, 2), axis=1).max()))

            if cost(glide) < cost(herm):
                herm = glide
        ts = np.linspace(ta, tb, max(3, int(np.ceil(span / 0.5)) + 1))
        dev = np.array([F(t) for t in ts]) - herm(ts)
        w_max = min(1.0, a_lim * span**2 / (2 * np.pi**2 * max(float(np.abs(dev).max()), 1e-6)))
        w_max *= min(1.0, a_lim / 1.5)

        def path(t, ta=ta, span=span, herm=herm, w_max=w_max, F=F):
            return herm(t) + w_max * np.sin(np.pi * (t - ta) / span) ** 2 * (F(t) - herm(t))

        if all(abs(k[0] - ta) > 1e-9 for k in b.pins[p.id]):
            b.pin(p, ta, xa, va, heading)
        for t in ts[1:-1]:
            v = (path(t + 1e-3) - path(t - 1e-3)) / 2e-3
            b.pin(p, t, path(t), v, heading)
        if all(abs(k[0] - tb) > 1e-9 for k in b.pins[p.id]):
            b.pin(p, tb, xb, vb, heading)


def _free_play(b: _Builder) -> Play:
    """60 s: face-off, entries both ways, saves, a clear down the ice and goals."""
    A = [b.player("att") for _ in range(5)]
    GA = b.player("att", "goalkeeper")
    D = [b.player("def") for _ in range(5)]
    GD = b.player("def", "goalkeeper")
    ch = _Chain(b)
    intent: dict[str, Any] = {"expect": [], "subset": True, "margins": {}}
    F, GX, BACK, POST = b.FAR, b.GX, b.BACK, b.POST
    # 1. centre face-off: the puck is dropped and the centre draws it back to his defenceman
    b.puck_start(0.0, (0.0, 0.0, 0.8))
    t_f = 0.75
    seat = b.pin_stick(A[0], t_f, (0.0, 0.0), 0.0, (0.5, 0.0))
    b.pin(A[0], 0.0, seat - (0.3, 0.0), (0.0, 0.0), 0.0)
    ch.keep(A[0], 0.0, t_f)
    so = np.array([1.45, -D[0].stick_w_m])
    b.pin(D[0], 0.0, so, (0.0, 0.0), np.pi)
    b.pin(D[0], 0.9, so + (0.2, 0.0), (0.3, 0.0), np.pi)
    ch.keep(D[0], 0.0, 0.9)
    t1, s1 = 1.6, np.array([-7.0, -4.0])
    sp = b.speed_to_arrive((0.0, 0.0), s1, t1 - t_f)
    b.deflect(t_f, A[0], [*(s1 / np.linalg.norm(s1) * sp), 0.0], t1, kind="faceoff")
    # 2. the defenceman carries and passes to the left wing, who carries over the blue line
    ch.carry(A[3], t1, 3.0, s1, (-3.5, -5.0), start=0.6)
    b.pass_to(3.7, (3.0, -8.5))
    ch.carry(A[1], 3.7, 5.9, (3.0, -8.5), (14.0, -7.5))
    t_x1 = b.time_when(lambda t: b.pc(t)[0] - R - F, 3.7, 5.9)
    # the right wing decides the entry (903 b1), then takes a pass in the zone
    m1 = b.margin()
    on1 = bool(b.rng.integers(2))
    tgt1 = -m1 if on1 else m1
    t_r2, s_r2 = 6.7, np.array([18.5, 2.5])
    h = 0.3
    for _ in range(8):
        f = np.array([np.cos(h), np.sin(h)])
        l = np.array([-f[1], f[0]])
        seat_r = s_r2 - A[2].stick_u_m * f - A[2].stick_w_m * l
        lw = abs(np.sin(h)) * A[2].blade_gap_m / 2
        seat_x = np.array([F + tgt1 + lw, seat_r[1] - np.tan(h) * (seat_r[0] - (F + tgt1 + lw))])
        h = float(np.arctan2(*(seat_r - seat_x)[::-1]))
    vel = (seat_r - seat_x) / (t_r2 - t_x1)
    b.pin(A[2], t_x1 - 1.5, seat_x - 1.5 * vel, vel, h)
    b.pin(A[2], t_x1, seat_x, vel, h)
    b.pin(A[2], t_r2, seat_r, vel, h)
    ch.keep(A[2], t_x1 - 1.5, t_r2)
    b.pass_to(t_r2, s_r2)
    intent["expect"].append(("zone_entry", "onside" if on1 else "offside"))
    intent["margins"]["zone_entry"] = tgt1
    # 3. a shot from the slot, the goalkeeper saves and holds, then plays it to the corner
    ch.carry(A[2], t_r2, 7.6, s_r2, s_r2 + 0.8 * vel * (7.6 - t_r2))
    save1 = np.array([GX - 1.3, 0.2])
    b.pass_to(7.9, save1, kind="shot")
    ch.stand(GD, 7.9, 9.4, save1, np.pi)
    b.pass_to(10.2, (GX - 2.0, -8.0))
    ch.carry(D[3], 10.2, 12.2, (GX - 2.0, -8.0), (20.0, -11.0), start=0.4)
    # 4. up the boards, a pass to the centre who carries into the other zone
    b.pass_to(13.4, (8.0, -11.5))
    ch.carry(D[1], 13.4, 17.4, (8.0, -11.5), (-14.0, -9.0))
    t_x2 = b.time_when(lambda t: -b.pc(t)[0] - R - F, 13.4, 17.4)
    m2 = b.margin()
    on2 = bool(b.rng.integers(2))
    tgt2 = -m2 if on2 else m2
    seat2 = np.array([-(F + tgt2), b.uniform(2.0, 6.0)])
    b.pin(D[2], t_x2 - 1.5, seat2 + (6.0, 0.0), (-4.0, 0.0), np.pi)
    b.pin(D[2], t_x2, seat2, (-4.0, 0.0), np.pi)
    b.pin(D[2], t_x2 + 1.0, seat2 + (-3.0, 0.0), (-2.0, 0.0), np.pi)
    ch.keep(D[2], t_x2 - 1.5, t_x2 + 1.0)
    intent["expect"].append(("zone_entry", "onside" if on2 else "offside"))
    save2 = np.array([-(GX - 1.3), -0.3])
    b.pass_to(17.9, save2, kind="shot")
    ch.stand(GA, 17.9, 19.5, save2, 0.0)
    # 5. the goalkeeper gives it to his defenceman in the corner, who clears it down the ice
    b.pass_to(20.3, (-(GX - 2.0), 9.0))
    ch.carry(A[4], 20.3, 21.3, (-(GX - 2.0), 9.0), (-(GX - 4.5), 9.5), start=0.6)
    b.shoot_at((GX + 0.5, 4.5), b.uniform(19.0, 22.0), 21.32)
    t_ice = b.preview_when(lambda q: q[0] - R - b.OUT, 30.0)
    t_stop = t_ice + 0.05
    q = b.preview(t_stop)
    intent["expect"].append(("icing", None))
    # a defender waiting behind the goal line stops it and carries it up the boards
    end_s = np.array([GX - 1.0, 9.0])
    ch.carry(D[3], t_stop, t_stop + 1.6, q[:2], end_s, start=0.5)
    seat_s = b.d * D[3].path.xy(t_stop)
    v_start = 0.5 * (end_s - q[:2]) / 1.6
    v_app = np.array([0.3, 1.0])  # sliding along the end boards towards the puck
    b.pin(D[3], t_stop - 1.5, seat_s - 0.75 * (v_app + v_start), v_app)
    ch.keep(D[3], t_stop - 1.5, t_stop)
    # 6. his pass up the boards is intercepted at the point; shot, save, rebound to the corner
    t_i = t_stop + 2.6
    s_i = np.array([F + 2.0, -10.0])
    b.pass_to(t_i, s_i)
    ch.carry(A[3], t_i, t_i + 1.0, s_i, (F + 4.5, -8.5))
    save3 = np.array([GX - 1.25, -0.35])
    b.pass_to(t_i + 1.6, save3, kind="shot")
    b.pin_stick(GD, t_i + 1.6, save3, np.pi, (0.0, 0.0))
    ch.keep(GD, t_i + 1.0, t_i + 1.6)
    t_c = t_i + 3.2
    corner = np.array([GX - 3.0, 9.0])
    s_reb = b.speed_to_arrive(save3, corner, t_c - (t_i + 1.6))
    u = (corner - save3) / np.linalg.norm(corner - save3)
    b.deflect(t_i + 1.6, GD, [*(u * s_reb), 0.0], t_c)
    # 7. breakout the other way: corner, boards, centre; an entry and a shot on goal
    ch.carry(D[4], t_c, t_c + 2.0, corner, (14.0, 11.0), start=0.4)
    t_p = t_c + 3.0
    b.pass_to(t_p, (2.0, 4.0))
    ch.carry(D[0], t_p, t_p + 3.2, (2.0, 4.0), (-15.0, 3.0), start=1.15)
    intent["expect"].append(("zone_entry", None))
    save4 = np.array([-(GX - 1.3), 0.25])
    b.pass_to(t_p + 3.7, save4, kind="shot")
    ch.stand(GA, t_p + 3.7, t_p + 5.0, save4, 0.0)
    # 8. the goalkeeper to the defenceman, up to the centre, into the zone, a goal
    t_d = t_p + 5.8
    s_d = np.array([-(GX - 3.0), -8.0])
    b.pass_to(t_d, s_d)
    ch.carry(A[4], t_d, t_d + 2.0, s_d, (-15.5, -9.5), start=0.4)
    b.pass_to(t_d + 3.0, (-2.0, -3.0))
    ch.carry(A[0], t_d + 3.0, t_d + 6.5, (-2.0, -3.0), (16.0, -2.0))
    intent["expect"].append(("zone_entry", None))
    m5 = b.margin()
    ch.carry_end = t_d + 6.5
    y_a = POST - R - m5
    b.shoot_at((BACK - R, y_a), b.uniform(16.0, 22.0), b.T)
    intent["expect"] += [("crease", None), ("goal", "goal")]
    intent["goal_margin_m"] = m5
    b.pin(GD, t_d + 6.0, (GX - 0.8, -0.5), (0.0, 0.0), np.pi)
    ch.keep(GD, t_d + 6.0, t_d + 8.0)
    _fill(b, ch)
    return b.finish(intent)


_BUILDERS: dict[str, tuple[Callable[[_Builder], Play], dict]] = {
    "onside_carried": (_onside_carried, {}),
    "offside_carried": (_offside_carried, {}),
    "onside_pass": (_onside_pass, {}),
    "offside_pass": (_offside_pass, {}),
    "offside_backwards_control": (_offside_backwards_control, {}),
    "defender_carries_in": (_defender_carries_in, {}),
    "delayed_offside_tagup": (_delayed_offside_tagup, {"duration_s": 6.0}),
    "icing": (lambda b: _icing(b, "plain"), {}),
    "icing_shorthanded": (lambda b: _icing(b, "shorthanded"), {"skaters": {"att": 4, "def": 5}}),
    "icing_touched": (lambda b: _icing(b, "touched"), {}),
    "icing_faceoff": (lambda b: _icing(b, "faceoff"), {}),
    "icing_opponent_could_play": (lambda b: _icing(b, "opponent_could_play"), {}),
    "icing_goalkeeper": (lambda b: _icing(b, "goalkeeper"), {}),
    "icing_goal": (lambda b: _icing(b, "goal"), {}),
    "goal": (_goal_plain, {"duration_s": 3.0}),
    "goal_close": (_goal_close, {"duration_s": 4.0}),
    "no_goal_on_line": (_no_goal_on_line, {"duration_s": 4.0}),
    "no_goal_post": (_no_goal_post, {"duration_s": 3.0}),
    "no_goal_from_behind": (_no_goal_from_behind, {"duration_s": 3.5, "open_back": True}),
    "goal_crease_occupied": (_goal_crease_occupied, {"duration_s": 3.0}),
    "sponge_key_3s": (_sponge_key_3s, {"duration_s": 6.5}),
    "free_play": (_free_play, {"duration_s": 60.0}),
}


def _hex(bgr: tuple[int, int, int]) -> str:
    """(B, G, R) → "#rrggbb" (GAME.json's team colour)."""
    b, g, r = (int(v) for v in bgr)
    return f"#{r:02x}{g:02x}{b:02x}"


def make_play(scenario: str, seed: int, profile: str = "ipc-sledge", layout: str | None = None,
              kits: str = "classic") -> Play:
    """Build a scripted play.

    Args:
        scenario: a key of :data:`SCENARIOS`.
        seed: makes everything deterministic (margins, positions, which team attacks).
        profile: rule profile name ("ipc-sledge" | "sponge-westridge"); ``sponge_key_3s``
            always uses the sponge profile.
        layout: the rink's marking layout ("ipc" | "iihf" | "nhl", standard size); default:
            the profile's own (IPC for sledge, NHL for sponge). The same seed gives the same
            draws on every layout.
        kits: "classic": home red (#c8102e), away navy (#0b3d91), as every clip before stop 50;
            "drawn": a pair drawn from the seed (``vision.sim.players.draw_kits``; the play's
            other draws are the same).

    Returns:
        A :class:`Play` whose truth events were computed from its motion and checked
        against the scenario's intent.

    Raises:
        ValueError: unknown scenario or profile.
    """
    if scenario not in SCENARIOS:
        raise ValueError(f"make_play: unknown scenario {scenario!r}; known: {sorted(SCENARIOS)}")
    if scenario not in _BUILDERS:
        raise ValueError(f"make_play: scenario {scenario!r} is not built yet")
    if profile not in ("ipc-sledge", "sponge-westridge"):
        raise ValueError(f"make_play: unknown profile {profile!r}")
    fn, kw = _BUILDERS[scenario]
    if scenario == "sponge_key_3s":
        profile = "sponge-westridge"
    duration = kw.get("duration_s", _DEFAULT_DURATION_S.get(scenario, 4.0))
    if layout is not None and layout not in ("ipc", "iihf", "nhl"):
        raise ValueError(f"make_play: unknown layout {layout!r}; known: ipc, iihf, nhl")
    if kits not in ("classic", "drawn"):
        raise ValueError(f"make_play: unknown kits {kits!r}; known: classic, drawn")
    b = _Builder(scenario, seed, profile, duration, open_back=kw.get("open_back", False),
                 skaters=kw.get("skaters"), layout=layout, kits=kits)
    return fn(b)


def truth_to_tracks(play_or_truth):
    """Perfect-input tracks.jsonl records of a :class:`Play` or a truth dict (see ``vision.sim.synth``)."""
    from vision.sim.synth import truth_to_tracks as _tt

    return _tt(play_or_truth)
