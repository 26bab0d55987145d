"""Ground-truth rule events computed from a play's continuous motion.

Definitions follow ``docs/interfaces.md`` ("Event semantics") exactly; where the
page is silent the choice is written here and in ``docs/simulator.md``:

* 903 e (a defender carries or passes the puck into his own defending zone): a
  ``zone_entry`` for the team whose attacking zone it is, verdict ``onside``,
  ``margin_m`` still the measured offside depth, ``evidence.exception =
  "defender_carried"``, rule "903 e".
* 904 delayed offside: the offside ``zone_entry`` carries ``evidence.delayed``
  (the defending team touches the puck next) and ``evidence.nullified_t`` (the
  instant all attackers have cleared the zone, 904 b2/c, or the puck left it, b1).
* 905 d5 proxy ("an opponent is able to play the puck"): an opponent other than the
  goalkeeper whose blade midpoint at the instant of the shot is within
  ``D5_REACH_M + D5_SPEED_MPS * (tau - t_shot)`` of the puck's position at some
  instant ``tau`` before it completely crosses the goal line.
* 905 d6: the defending goalkeeper's seat is outside his crease and his speed
  towards the puck exceeds ``D6_SPEED_MPS`` at some instant between shot and crossing.
* Icing events are emitted only for pucks last played from the shooter's own
  half (margin > 0), per the simulator brief.
* Sponge 1 n/o ("key_3s"): one event when an attacker's foot has stayed in the
  defending goalkeeper's key (the crease polygon) for 3 s while his team controls
  the puck in that zone; ``margin_m`` = depth of the deepest foot in the key then.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import shapely
from scipy.optimize import brentq, minimize_scalar
from shapely.geometry import Polygon

from vision.sim.motion import PuckScript, SLEDGE_MAX_SPEED_MPS
from vision.sim.players import Player
from vision.sim.rinkgeom import PUCK_RADIUS_M, RinkGeom

R = PUCK_RADIUS_M
D5_REACH_M = 1.5  # blade midpoint to stick blade (about 1 m) plus a reach with the stick
D5_SPEED_MPS = SLEDGE_MAX_SPEED_MPS
D6_SPEED_MPS = 0.3
KEY_LIMIT_S = 3.0  # sponge 1 n
SAMPLE_DT_S = 1e-3


def strength_at(game: dict, t: float) -> dict[str, int]:
    """Skaters per team at ``t`` from GAME.json's ``strength`` step function."""
    cur = {"home": 5, "away": 5}
    for step in sorted(game.get("strength", []), key=lambda s: s["t"]):
        if step["t"] <= t + 1e-12:
            cur = {"home": int(step["home"]), "away": int(step["away"])}
    return cur


def _up_crossings(f: Callable[[float], float], ts: np.ndarray, vals: np.ndarray) -> list[float]:
    """Instants where ``f`` goes from < 0 to >= 0, refined with Brent's method."""
    out = []
    for k in np.nonzero((vals[:-1] < 0) & (vals[1:] >= 0))[0]:
        a, b = ts[k], ts[k + 1]
        fa, fb = f(a), f(b)
        out.append(float(brentq(f, a, b, xtol=1e-12)) if fa < 0 <= fb and fb != 0 else float(b))
    return out


def _down_crossings(f, ts, vals) -> list[float]:
    return _up_crossings(lambda t: -f(t), ts, -vals)


def footprint_depth(footprint_xy: np.ndarray, area: Polygon) -> float:
    """Depth of a polygon inside ``area`` (m): > 0 overlap depth, < 0 minus the gap."""
    fp = Polygon(footprint_xy)
    if not fp.intersects(area):
        return -float(fp.distance(area))
    inter = fp.intersection(area)
    pts = shapely.get_coordinates(shapely.segmentize(inter.boundary, 0.002))
    if len(pts) == 0:
        return 0.0
    return float(np.max(shapely.distance(shapely.points(pts), area.exterior)))


def _point_depth(xy: np.ndarray, area: Polygon) -> np.ndarray:
    """Signed depth (m) of points ``xy`` (N, 2) inside ``area`` (> 0 inside)."""
    pts = shapely.points(np.atleast_2d(xy))
    d = shapely.distance(pts, area.exterior)
    return np.where(shapely.contains(area, pts) | shapely.touches(area, pts), d, -d)


class TruthContext:
    """What the event computation needs from a play.

    Attributes:
        puck: the puck trajectory.
        players: all players.
        geom: rink geometry.
        game: the GAME.json dict.
        attacks: {"home": +1 | -1, "away": -1 | +1}.
        duration_s, fps, profile.
    """

    def __init__(self, puck: PuckScript, players: list[Player], geom: RinkGeom, game: dict,
                 duration_s: float, fps: float, profile: str) -> None:
        self.puck, self.players, self.geom, self.game = puck, players, geom, game
        self.duration_s, self.fps, self.profile = float(duration_s), float(fps), profile
        home = game["teams"]["home"].get("attacks", "+x")
        self.attacks = {"home": 1 if home == "+x" else -1}
        self.attacks["away"] = -self.attacks["home"]
        self.ts = np.arange(0.0, self.duration_s + 1e-12, SAMPLE_DT_S)
        self.P = puck.position(self.ts)

    def px(self, t: float) -> float:
        return float(self.puck.position(np.array([t]))[0, 0])

    def pxyz(self, t: float) -> np.ndarray:
        return self.puck.position(np.array([t]))[0]

    def team_attacking(self, end: int) -> str:
        return "home" if self.attacks["home"] == end else "away"

    def event(self, typ, t, team, verdict, margin, rule, evidence) -> dict[str, Any]:
        return {"type": typ, "t": float(t), "frame": int(round(t * self.fps)), "team": team,
                "verdict": verdict, "confidence": 1.0, "margin_m": float(margin) + 0.0, "rule": rule,
                "evidence": evidence}

    @staticmethod
    def depth_over_line(p: Player, t, line_x: float, end: int) -> np.ndarray:
        """Offside depth ``min over blades of end*(x_blade - line_x)`` (903 b1), (N,)."""
        b = p.blades(t)
        return np.min(end * (b[:, :, 0] - line_x), axis=1)


def zone_entries(ctx: TruthContext) -> list[dict]:
    """903/904: one event per complete crossing of an attacking blue line by the puck."""
    g, out = ctx.geom, []
    for end in (1, -1):
        att = ctx.team_attacking(end)
        dfn = "away" if att == "home" else "home"
        far = g.blue_far_x(end)
        f = lambda t, end=end, far=far: end * ctx.px(t) - R - end * far  # noqa: E731
        vals = end * ctx.P[:, 0] - R - end * far
        for t in _up_crossings(f, ctx.ts, vals):
            attackers = [p for p in ctx.players if p.team == att]
            holder = ctx.puck.holder_at(t)
            exempt = [holder] if holder is not None and any(p.id == holder for p in attackers) else []
            depths = {p.id: float(ctx.depth_over_line(p, t, far, end)[0]) for p in attackers}
            cand = {k: v for k, v in depths.items() if k not in exempt}
            pid = max(cand, key=cand.get)
            margin = cand[pid]
            last = ctx.puck.last_touch_before(t)
            ev: dict[str, Any] = {"player": pid, "exempt": exempt}
            if last is not None:
                ev["last_touch"] = {"player": last.player, "team": last.team, "t": round(last.t, 6)}
            if last is not None and last.team == dfn:
                verdict, rule = "onside", "903 e"
                ev["exception"] = "defender_carried"
            else:
                verdict = "offside" if margin > 0 else "onside"
                rule = "903 b1"
                if exempt and depths[exempt[0]] > 0:
                    hp = next(p for p in attackers if p.id == exempt[0])
                    fwd = np.array([np.cos(hp.path.heading(t)), np.sin(hp.path.heading(t))])
                    backwards = float(hp.path.velocity(t) @ fwd) < 0
                    rule = "903 b3" if backwards else "903 d"
            if verdict == "offside":
                ev.update(_delayed_offside(ctx, t, end, att, dfn, attackers))
                if ev.get("delayed"):
                    rule = "903 b1, 904"
            out.append(ctx.event("zone_entry", t, att, verdict, margin, rule, ev))
    return out


def _delayed_offside(ctx: TruthContext, t: float, end: int, att: str, dfn: str, attackers) -> dict:
    """904: delayed when the defending team plays the puck next; nullified at tag-up."""
    nxt = [k for k in ctx.puck.touches if k.t > t + 1e-9]
    if not nxt or nxt[0].team != dfn:
        return {"delayed": False}
    far, near = ctx.geom.blue_far_x(end), ctx.geom.blue_near_x(end)
    m = ctx.ts > t
    ts = ctx.ts[m]
    deep = np.max([ctx.depth_over_line(p, ts, far, end) for p in attackers], axis=0)
    gfun = lambda s: max(float(ctx.depth_over_line(p, s, far, end)[0]) for p in attackers)  # noqa: E731
    tag = _down_crossings(gfun, ts, deep + 1e-15)
    out_puck = _down_crossings(lambda s: end * ctx.px(s) + R - end * near, ts,
                               end * ctx.P[m, 0] + R - end * near)
    cands = [(x, "tag_up") for x in tag[:1]] + [(x, "puck_cleared") for x in out_puck[:1]]
    if not cands:
        return {"delayed": True, "nullified_t": None}
    tn, how = min(cands)
    return {"delayed": True, "nullified_t": round(tn, 6), "nullified_by": how}


def goals(ctx: TruthContext, crease: bool = True) -> list[dict]:
    """906: one event per puck arrival at the goal line between the posts (+ crease, 907 a4)."""
    g, out = ctx.geom, []
    post = g.post_inner_y_m
    for end in (1, -1):
        att = ctx.team_attacking(end)
        inner, outer = g.goal_inner_x(end), g.goal_outer_x(end)
        lead_f = lambda t: end * ctx.px(t) + R - end * inner  # noqa: E731
        depth_f = lambda t: end * ctx.px(t) - R - end * outer  # noqa: E731
        lead = end * ctx.P[:, 0] + R - end * inner
        depth = end * ctx.P[:, 0] - R - end * outer
        between = np.abs(ctx.P[:, 1]) < post
        arrivals = [(t, "front") for t in _up_crossings(lead_f, ctx.ts, lead)
                    if abs(ctx.pxyz(t)[1]) < post and depth_f(t) < 0]
        arrivals += [(t, "behind") for t in _down_crossings(depth_f, ctx.ts, depth)
                     if abs(ctx.pxyz(t)[1]) < post]
        arrivals.sort()
        busy_until = -1.0
        for ta, how in arrivals:
            if ta < busy_until:
                continue  # the puck is still inside the goal mouth region of the previous arrival
            after = ctx.ts > ta
            leaves = np.nonzero(after & (lead < 0))[0]
            k_end = leaves[0] if len(leaves) else len(ctx.ts) - 1
            busy_until = ctx.ts[k_end]
            if how == "behind":
                clear = float(post - abs(ctx.pxyz(ta)[1]) - R)
                ev = {"from_behind": True, "lateral_clearance_m": round(clear, 6), "z_m": round(ctx.pxyz(ta)[2], 6)}
                out.append(ctx.event("goal", ta, att, "no_goal", min(0.0, depth_f(ta), clear), "906 1", ev))
                continue
            k0 = int(np.searchsorted(ctx.ts, ta))
            seg = slice(k0, k_end + 1)
            km = k0 + int(np.argmax(depth[seg]))
            lo, hi = ctx.ts[max(km - 2, k0)], ctx.ts[min(km + 2, k_end)]
            tm = ctx.ts[km]
            if hi > lo:
                res = minimize_scalar(lambda s: -depth_f(s), bounds=(lo, hi), method="bounded",
                                      options={"xatol": 1e-9})
                if -res.fun >= depth[km]:
                    tm = float(res.x)
            dmax = float(depth_f(tm))
            if dmax > 0:
                t = float(brentq(depth_f, ta, tm, xtol=1e-12)) if depth_f(ta) < 0 else ta
                # 906 1: put between the posts and entirely across the line: the lateral
                # clearance over its passage through the goal mouth (arrival to entirely
                # across), not where it rolls inside the net afterwards.
                ss = np.concatenate([[ta, t], ctx.ts[(ctx.ts > ta) & (ctx.ts < t)]])
                clear = float(post - max(abs(ctx.pxyz(x)[1]) for x in ss) - R)
            else:
                t = tm
                clear = float(post - abs(ctx.pxyz(tm)[1]) - R)
            margin = min(dmax, clear)
            z = float(ctx.pxyz(t)[2])
            below_bar = z + 0.0127 < g.goal_height_m
            verdict = "goal" if margin > 0 and below_bar else "no_goal"
            ev = {"max_depth_m": round(dmax, 6), "lateral_clearance_m": round(clear, 6),
                  "t_max_depth": round(tm, 6), "z_m": round(z, 6)}
            last = ctx.puck.last_touch_before(t)
            if last is not None:
                ev["last_touch"] = {"player": last.player, "team": last.team}
            out.append(ctx.event("goal", t, att, verdict, margin, "906 1", ev))
            if verdict == "goal" and crease:
                out.append(_crease(ctx, t, end, att))
    return out


def _crease(ctx: TruthContext, t: float, end: int, att: str) -> dict:
    """907 a4 / 217: depth of the attackers' sledge footprints in the crease at the goal."""
    crease = ctx.geom.crease(end)
    best, pid = -np.inf, None
    for p in ctx.players:
        if p.team != att or p.role == "goalkeeper":
            continue
        d = footprint_depth(p.footprint(t), crease)
        if d > best:
            best, pid = d, p.id
    verdict = "occupied" if best > 0 else "clear"
    return ctx.event("crease", t, att, verdict, best, "907 a4", {"player": pid})


def icings(ctx: TruthContext, goal_events: list[dict]) -> list[dict]:
    """905: each complete crossing of a goal line by a puck last played from the shooter's half."""
    g, out = ctx.geom, []
    half = g.centre_line_width_m / 2.0 + R  # 206 with 905 a: the centre line is the shooter's half
    for end in (1, -1):
        sh = ctx.team_attacking(end)
        dfn = "away" if sh == "home" else "home"
        outer = g.goal_outer_x(end)
        f = lambda t: end * ctx.px(t) - R - end * outer  # noqa: E731
        vals = end * ctx.P[:, 0] - R - end * outer
        for tx in _up_crossings(f, ctx.ts, vals):
            if ctx.puck.holder_at(tx) is not None:
                continue  # carried over the line, not shot
            touched, contact = False, None
            for k in reversed([k for k in ctx.puck.touches if k.t <= tx]):
                if k.team == dfn:
                    if k.kind == "deflect":
                        touched = True
                        continue
                    break  # the defending team played it
                contact = k
                break
            if contact is None or contact.kind == "receive":
                continue
            margin = half - end * float(contact.xy[0])
            if margin <= 0:
                continue
            exc = []
            if any(e["verdict"] == "goal" and abs(e["t"] - tx) < 1e-6 for e in goal_events
                   if e["type"] == "goal" and e["team"] == sh):
                exc.append("goal")  # d1
            st = strength_at(ctx.game, contact.t)
            if st[sh] < st[dfn]:
                exc.append("shorthanded")  # d2
            if touched:
                exc.append("touched_by_opponent")  # d3
            if contact.kind == "faceoff":
                exc.append("faceoff")  # d4
            if _opponent_could_play(ctx, contact.t, tx, dfn):
                exc.append("opponent_could_play")  # d5 proxy
            if _goalkeeper_moved(ctx, contact.t, tx, dfn, end):
                exc.append("goalkeeper_moved")  # d6
            ev: dict[str, Any] = {"shooter": contact.player, "t_contact": round(contact.t, 6),
                                  "contact": [round(float(v), 6) for v in contact.xy]}
            if exc:
                ev["exception"], ev["exceptions"] = exc[0], exc
            rule = "905 b" if not exc else "905 d" + str(
                ["goal", "shorthanded", "touched_by_opponent", "faceoff", "opponent_could_play",
                 "goalkeeper_moved"].index(exc[0]) + 1)
            out.append(ctx.event("icing", tx, sh, "waved_off" if exc else "icing", margin, rule, ev))
    return out


def _opponent_could_play(ctx: TruthContext, t0: float, tx: float, dfn: str) -> bool:
    """905 d5 proxy (see module doc)."""
    taus = np.arange(t0, tx, 0.005)
    if len(taus) == 0:
        return False
    path = ctx.puck.position(taus)[:, :2]
    for p in ctx.players:
        if p.team != dfn or p.role == "goalkeeper":
            continue
        mid = p.blades(t0)[0].mean(axis=0)
        reach = D5_REACH_M + D5_SPEED_MPS * (taus - t0)
        if np.any(np.linalg.norm(path - mid, axis=1) <= reach):
            return True
    return False


def _goalkeeper_moved(ctx: TruthContext, t0: float, tx: float, dfn: str, end: int) -> bool:
    """905 d6: goalkeeper outside his crease moving towards the puck."""
    crease = ctx.geom.crease(end)
    taus = np.arange(t0, tx, 0.01)
    for p in ctx.players:
        if p.team != dfn or p.role != "goalkeeper" or len(taus) == 0:
            continue
        xy = p.path.xy(taus)
        outside = _point_depth(xy, crease) < 0
        to_puck = ctx.puck.position(taus)[:, :2] - xy
        to_puck /= np.linalg.norm(to_puck, axis=1, keepdims=True) + 1e-12
        v_to = np.einsum("nd,nd->n", p.path.velocity(taus), to_puck)
        if np.any(outside & (v_to > D6_SPEED_MPS)):
            return True
    return False


def key_violations(ctx: TruthContext) -> list[dict]:
    """Sponge 1 n/o: an attacker's foot in the defending goalkeeper's key for 3 s."""
    out = []
    ts = ctx.ts
    for end in (1, -1):
        att = ctx.team_attacking(end)
        key = ctx.geom.crease(end)
        in_zone = ctx.geom.attacking_zone_contains_x(ctx.P[:, 0], end)
        ctrl = np.zeros(len(ts), bool)
        for i, t in enumerate(ts[::10]):
            h = ctx.puck.holder_at(t)
            last = ctx.puck.last_touch_before(t)
            team = next((p.team for p in ctx.players if p.id == h), None) if h is not None else (
                last.team if last is not None else None)
            ctrl[i * 10:(i + 1) * 10] = team == att
        ctrl &= in_zone
        for p in ctx.players:
            if p.team != att or p.role == "goalkeeper":
                continue
            b = p.blades(ts)
            d = np.max([_point_depth(b[:, j], key) for j in range(2)], axis=0)
            fd = lambda s, p=p: float(np.max(_point_depth(p.blades(s)[0], key)))  # noqa: E731
            for tin in _up_crossings(fd, ts, d):
                tv = tin + KEY_LIMIT_S
                if tv > ctx.duration_s:
                    continue
                span = (ts >= tin) & (ts <= tv)
                if np.all(d[span][1:] > 0) and np.all(ctrl[span]):
                    depth = fd(tv)
                    ev = {"player": p.id, "entered_t": round(tin, 6), "dwell_s": KEY_LIMIT_S}
                    out.append(ctx.event("key_3s", tv, att, "violation", depth, "sponge 1 n, o", ev))
    return out


def compute_events(ctx: TruthContext) -> list[dict]:
    """All truth events of a play, sorted by time."""
    ev: list[dict] = []
    if ctx.profile.startswith("ipc"):
        g = goals(ctx)
        ev += zone_entries(ctx) + g + icings(ctx, g)
    else:
        # Westridge 1 b: no offsides (icing only in the final minute, not simulated); the
        # book has no crease rule, its key rule is 1 n/o
        ev += goals(ctx, crease=False) + key_violations(ctx)
    ev.sort(key=lambda e: (round(e["t"], 6), e["type"]))
    return ev
