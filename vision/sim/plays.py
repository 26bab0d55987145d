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
from scipy.optimize import brentq

from vision.sim.motion import (
    PUCK_FRICTION_MPS2,
    PUCK_MAX_SPEED_MPS,
    Obstacles,
    PlayerPath,
    PuckScript,
    simulate_free,
    waypoints_from_points,
)
from vision.sim.players import AWAY_BGR, HOME_BGR, Player
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
                 skaters: dict | None = None) -> None:
        self.scenario, self.seed, self.profile = scenario, int(seed), profile
        self.rng = np.random.default_rng([int(seed), zlib.crc32(scenario.encode())])
        self.standing = not profile.startswith("ipc")
        self.layout = "ipc" if not self.standing else "nhl"
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
            gap, su, sw = self.uniform(0.20, 0.30), self.uniform(1.0, 1.1), self.uniform(0.25, 0.35)
        if self.rng.integers(2) and role == "skater":
            sw = -sw  # right-handed carry
        p = Player(pid, team, role, kind, number,
                   PlayerPath(np.array([0.0, 1.0]), np.zeros((2, 2)), np.zeros((2, 2))),
                   blade_gap_m=gap, stick_u_m=su, stick_w_m=sw,
                   color_bgr=HOME_BGR if team == "home" else AWAY_BGR)
        self.players.append(p)
        self.pins[p.id] = []
        return p

    def pin(self, p: Player, t: float, xy, v=(0.0, 0.0), heading: float | None = None,
            backward: bool = False) -> None:
        """Waypoint in canonical coordinates (heading canonical radians or None)."""
        hw = np.nan if heading is None else self.h(heading)
        self.pins[p.id] = [k for k in self.pins[p.id] if abs(k[0] - t) > 1e-9]
        self.pins[p.id].append((float(t), self.w(xy), self.w(v), hw, bool(backward)))
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
        ts = np.arange(t0, t1 + 1e-9, step)
        if ts[-1] < t1 - 1e-9:
            ts = np.append(ts, t1)
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
        hd = np.array([x[3] for x in k])
        bw = np.array([x[4] for x in k])
        default = self.h(np.pi) if p.team == self.dfn else self.h(0.0)
        p.path = PlayerPath(t, xy, v, hd, bw, default_heading_rad=default)

    # -- puck ------------------------------------------------------------------------
    def puck_start(self, t0: float, xyz, v=(0.0, 0.0, 0.0)) -> None:
        xyz = np.asarray(xyz, float)
        v = np.asarray(v, float)
        self.puck = PuckScript(self.obs, t0, [*self.w(xyz[:2]), xyz[2]], [*self.w(v[:2]), v[2]])

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
            "teams": {"home": {"color": "#c8102e", "attacks": "+x"}, "away": {"color": "#0b3d91", "attacks": "-x"}},
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
        # the puck must be continuous at every segment boundary (a moved stick would break it)
        for a, b in zip(self.puck.segments[:-1], self.puck.segments[1:]):
            pa = a.position(np.array([a.t1]))[0]
            pb = b.position(np.array([b.t0]))[0]
            if np.linalg.norm(pa - pb) > 2e-3:
                raise ValueError(f"{self.scenario}: puck jumps {np.linalg.norm(pa - pb):.4f} m at t={a.t1:.3f}")
        game = self.game()
        ctx = TruthContext(self.puck, self.players, self.g, game, self.T, FPS, self.profile)
        events = compute_events(ctx)
        _check_intent(self.scenario, events, intent)
        return Play(self.scenario, self.seed, self.profile, FPS, self.T, game, events, self.players,
                    self.puck, self.g, self.d, intent)


def _check_intent(scenario: str, events: list[dict], intent: dict) -> None:
    """Assert the truth computed from the motion says what the script meant."""
    got = [(e["type"], e["verdict"]) for e in events]
    want = [tuple(x) for x in intent["expect"]]
    if intent.get("subset"):
        missing = [w for w in want if w not in got]
        if missing:
            raise AssertionError(f"{scenario}: expected events {missing} missing from {got}")
    elif got != want:
        raise AssertionError(f"{scenario}: truth events {got} != intended {want}")
    for typ, margin in intent.get("margins", {}).items():
        e = next(e for e in events if e["type"] == typ)
        if abs(e["margin_m"] - margin) > 1e-3:
            raise AssertionError(f"{scenario}: {typ} margin {e['margin_m']:.5f} != scripted {margin:.5f}")
    for typ, exc in intent.get("exceptions", {}).items():
        e = next(e for e in events if e["type"] == typ)
        if e["evidence"].get("exception") != exc:
            raise AssertionError(f"{scenario}: {typ} exception {e['evidence'].get('exception')} != {exc}")


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
    b.puck_start(0.0, [*b.pc_stub(carrier, 0.0), PUCK_FLAT_Z_M])
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
    b.puck_start(0.0, [*b.pc_stub(passer, 0.0), PUCK_FLAT_Z_M])
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


def _pc_stub(self: _Builder, p: Player, t: float) -> np.ndarray:
    """Canonical xy of a player's stick blade at ``t``."""
    return self.d * p.stick(np.array([t]))[0][:2]


_Builder.pc_stub = _pc_stub


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


_BUILDERS: dict[str, tuple[Callable[[_Builder], Play], dict]] = {
    "onside_carried": (_onside_carried, {}),
    "offside_carried": (_offside_carried, {}),
    "onside_pass": (_onside_pass, {}),
    "offside_pass": (_offside_pass, {}),
}


def make_play(scenario: str, seed: int, profile: str = "ipc-sledge") -> Play:
    """Build a scripted play.

    Args:
        scenario: a key of :data:`SCENARIOS`.
        seed: makes everything deterministic (margins, positions, which team attacks).
        profile: rule profile name ("ipc-sledge" | "sponge-westridge"); ``sponge_key_3s``
            always uses the sponge profile.

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
    b = _Builder(scenario, seed, profile, duration, open_back=kw.get("open_back", False),
                 skaters=kw.get("skaters"))
    return fn(b)
