"""Crease occupation at a goal (IPC 907 a4 with 217) and the sponge key limit (Westridge 1 n, o).

907 a4: no goal if an attacking player has any part of his sled in the goal crease
when the puck enters the goal. 217 c: the crease includes its line and extends
vertically 1.27 m -- a sled on the ice is always below that, so the test is the
footprint on the ice against the crease polygon (``rink.crease(end)``).

``crease`` event at each ``goal`` (verdict goal or inconclusive), same ``t``:
``margin_m`` = max over attacking skaters of the footprint's depth in the crease
(> 0 ``occupied``; < 0 minus the gap, ``clear``). Without a footprint in the
tracks, a nominal sledge outline (``SLED_OUTLINE_UW_M``, feet for standing
players) is placed on the blades, heading from their (left, right) order, and its
model error (``SLED_MODEL_SIGMA_M``, 5 cm) enters sigma. With the heading
undefined only the blades are used: blades inside decide ``occupied``; blades
outside decide ``clear`` only when farther than a sled reaches
(``SLED_BEYOND_BLADES_M``). Sticks are not in the tracks,
so "holds his stick in the goal crease" cannot be checked (said in evidence).
907 a4 is about any attacking player: a track of the attacking team labelled goalkeeper
within a sled's reach of this crease (an attacker the tracker took for the goalkeeper, or
the goalkeeper with the wrong colour) keeps a ``clear`` call open (``inconclusive``); so do
two tracks labelled the defending goalkeeper there (a team has one) and a track of unknown
team there.

Westridge 1 n/o (``key_3s``): while his team controls the puck in the attacking
zone, an attacker's foot in the defending goalkeeper's key (the crease polygon)
for 3 s, counted from the foot entering (1 o), is a violation at entry + 3 s.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from shapely.geometry import MultiPoint, Polygon
from shapely.ops import nearest_points

from rulesfromvideo.rules.common import (
    K_SIGMA, blade_sigma, controller_at, footprint_depth, last_touch_before, make_event, point_depth,
    team_players,
)
from rulesfromvideo.rules.context import RuleContext

#: How far a sled (or a foot) reaches beyond its blade contact points, m (sled frame 1.1 m long).
SLED_BEYOND_BLADES_M = {"sledge": 0.9, "standing": 0.2}
#: Nominal sledge outline in the player's frame (u forward, w left), m, around the blade
#: midpoint (the blades sit under the seat, 305): seat 0.40 m wide from -0.25 to +0.15 m,
#: frame tapering to 0.12 m at the front, 0.85 m ahead (frame about 1.1 m long, 302).
SLED_OUTLINE_UW_M = ((-0.25, 0.20), (0.15, 0.20), (0.85, 0.06), (0.85, -0.06), (0.15, -0.20), (-0.25, -0.20))
FOOT_HALF_LEN_M, FOOT_HALF_W_M = 0.14, 0.055
#: 1-sigma of the nominal outline against a real sled (sizes vary), m.
SLED_MODEL_SIGMA_M = 0.05


def nominal_footprint(blades: np.ndarray, kind: str) -> np.ndarray | None:
    """(N, 2) outline from the two blades (left, right) with nominal dimensions, or None.

    The heading is the left-to-right vector turned -90 degrees (the blade order of
    the tracks contract: left, right).
    """
    l = blades[0] - blades[1]
    n = float(np.linalg.norm(l))
    if not np.isfinite(n) or n < 1e-6:
        return None
    l = l / n
    f = np.array([l[1], -l[0]])
    c = blades.mean(axis=0)
    if kind == "standing":
        half = n / 2 + FOOT_HALF_W_M
        uw = [(-FOOT_HALF_LEN_M, half), (FOOT_HALF_LEN_M, half), (FOOT_HALF_LEN_M, -half), (-FOOT_HALF_LEN_M, -half)]
    else:
        uw = SLED_OUTLINE_UW_M
    return np.array([c + u * f + w * l for u, w in uw])


def crease_at_goal(ctx: RuleContext, goal: dict[str, Any]) -> dict[str, Any]:
    """The ``crease`` event for one goal event (907 a4)."""
    obs = ctx.obs
    att = goal["team"]
    end = ctx.attack[att]
    area = ctx.crease(end)
    t = goal["t"]
    x = (t - obs.t_s[0]) * obs.fps
    i = int(np.clip(np.floor(x), 0, obs.n_frames - 2))
    frac = float(np.clip(x - i, 0, 1))
    near = i + (1 if frac > 0.5 else 0)
    kind = "standing" if getattr(ctx.profile.team_composition, "player_kind", "sledge") == "standing" \
        else "sledge"
    best = None
    per: dict[str, float] = {}
    missing = []
    for k in team_players(obs, att, skaters_only=True):
        depth = _crease_depth(ctx, area, k, i, frac, near, kind)
        if depth is None:
            missing.append(obs.player_ids[k])
            continue
        d, src, sig = depth
        per[str(obs.player_ids[k])] = d
        cand = (d, k, src, sig)
        if best is None or d > best[0]:
            best = cand
    # A track of the attacking team labelled goalkeeper at this goal is an attacker taken for the
    # goalkeeper (the tracker names whoever sits in front of a goal its goalkeeper), or the
    # goalkeeper with the wrong colour: either way it may be an attacker in the crease.
    def at_crease(players: list[int]) -> dict[str, float]:
        """{id: depth m} of ``players`` whose sled may reach the crease (3 sigma and a sled's reach)."""
        out = {}
        for k in players:
            depth = _crease_depth(ctx, area, k, i, frac, near, kind)
            if depth is not None and depth[0] > -(K_SIGMA * depth[2] + SLED_BEYOND_BLADES_M[kind]):
                out[str(obs.player_ids[k])] = depth[0]
        return out

    def goalkeepers(team: str) -> list[int]:
        return [k for k in team_players(obs, team) if obs.player_role[k] == "goalkeeper"]

    labelled_gk = at_crease(goalkeepers(att))
    # A team has one goalkeeper: a second track of the defending team labelled goalkeeper at this
    # goal, or a track of unknown team there, is someone the tracker could not tell apart — he
    # may be an attacker in the crease (a render, goal_crease_occupied goalcam seed 549: the
    # attacker in the crease beside the goalkeeper was taken for a second home goalkeeper).
    gk_here = at_crease(goalkeepers(ctx.opponent(att)))
    unknown_here = at_crease(team_players(obs, ""))
    ev: dict[str, Any] = {"goal_t": t, "decisive_frame": int(obs.frame[near]),
                          "frame_interval": [int(obs.frame[i]), int(obs.frame[i + 1])],
                          "depths_m": per, "stick": "not tracked: 907 a4's stick clause not checked"}
    rule = "907 a4, 217" if ctx.profile.crease.mode == "no_attacker_at_goal" else "907 a4 (IPC, by analogy)"
    if labelled_gk:
        ev["attacking_team_goalkeeper_at_this_goal"] = labelled_gk
    if best is None:
        ev["reason"] = "no attacker tracked at the goal"
        if missing:
            ev["blades_missing"] = missing
        return make_event(obs, "crease", t, att, "inconclusive", None, np.inf, rule, ev)
    d, k, src, sig = best
    ev.update({"player": obs.player_ids[k], "source": src, "blades_rink_m": obs.blades_rink_m[k, near]})
    if d >= K_SIGMA * sig and d > 0:
        verdict = "occupied"
    elif src != "blades" and d <= -K_SIGMA * sig and not missing:
        verdict = "clear"
    elif src == "blades" and d <= -(K_SIGMA * sig + SLED_BEYOND_BLADES_M[kind]) and not missing:
        verdict = "clear"
    else:
        verdict = "inconclusive"
        if src == "blades":
            ev["reason"] = "no footprint: the sled may reach the crease beyond its blades"
        elif missing and d <= -K_SIGMA * sig:
            # Clear but for them: say so, or a reviewer sees a high confidence and no call.
            ev["reason"] = (f"no blades at the goal for attacking skater(s) {', '.join(map(str, missing))}: "
                            "one may be in the crease")
    if verdict == "clear" and labelled_gk:
        verdict = "inconclusive"
        ev["reason"] = ("a player of the attacking team labelled goalkeeper sits at this goal: "
                        "he may be an attacker in the crease")
    # "Clear" needs every attacker placed: with fewer attacking skater tracks seen at the goal
    # than the team has skaters on the ice (GAME.json strength), one never seen may sit in the
    # crease hidden in another's blob (a render, goal_crease_occupied goalcam seed 609: the
    # attacker in the crease merged with the goalkeeper into one "goalkeeper" track).
    n_on_ice = ctx.skaters_on_ice(att, t)
    if verdict == "clear" and len(per) < n_on_ice:
        verdict = "inconclusive"
        ev["attackers_placed"] = f"{len(per)} of {n_on_ice}"
        ev["reason"] = (f"{len(per)} of the attacking team's {n_on_ice} skaters placed at the goal: "
                        "one not seen may be in the crease")
    if verdict == "clear" and (len(gk_here) > 1 or unknown_here):
        verdict = "inconclusive"
        ev["defending_goalkeepers_at_this_goal"] = gk_here
        if unknown_here:
            ev["unknown_team_at_this_goal"] = unknown_here
        ev["reason"] = ("two players labelled the defending goalkeeper, or a player of unknown team, "
                        "sit at this goal: one may be an attacker in the crease")
    if missing:
        ev["blades_missing"] = missing
    return make_event(obs, "crease", t, att, verdict, d, sig, rule, ev)


def _crease_depth(ctx: RuleContext, area: Polygon, k: int, i: int, frac: float, near: int,
                  kind: str) -> tuple[float, str, float] | None:
    """(depth m, source, sigma m) of player ``k``'s sled (or feet) in the crease ``area`` at the
    instant ``i + frac``: a measured footprint, else a nominal outline on the blades, else the
    blades alone; None without blades."""
    obs = ctx.obs
    b = obs.blades_rink_m[k, i] + frac * (obs.blades_rink_m[k, i + 1] - obs.blades_rink_m[k, i])
    v = float(np.nanmax(np.linalg.norm(obs.blades_rink_m[k, i + 1] - obs.blades_rink_m[k, i], axis=1))) \
        * obs.fps if np.isfinite(b).all() else 0.0
    fp = obs.footprints_rink_m[k].get(near) if obs.footprints_rink_m else None
    nominal = nominal_footprint(b, kind) if fp is None and np.isfinite(b).all() else None
    # A source's footprint is measured; an outline or blades carry its blade model error: in the
    # direction from the sled to the nearest point of the crease where it lies clear of it (a
    # shift of the whole sled changes its gap by the shift along that normal, to first order: a
    # goal camera that places x to 40 cm and y to 15 cm knows the gap of a sled beside the crease
    # by its y), else in the covariance's worst direction.
    normal = None
    if fp is None and np.isfinite(b).all():
        sled = Polygon(nominal) if nominal is not None else MultiPoint(b)
        if sled.is_valid and not sled.intersects(area):
            p_sled, p_area = nearest_points(sled, area)
            d = np.array([p_area.x - p_sled.x, p_area.y - p_sled.y])
            if float(np.linalg.norm(d)) > 1e-6:
                normal = d / float(np.linalg.norm(d))
    sig_pos = float(obs.sigma_smoothed_m[i]) if fp is not None else blade_sigma(obs, i, k, normal)
    sig = float(np.hypot(sig_pos, v * obs.dt_s / 2))
    if fp is not None:
        return footprint_depth(fp, area), "footprint", sig
    if nominal is not None:
        return footprint_depth(nominal, area), "nominal_outline_from_blades", float(np.hypot(sig, SLED_MODEL_SIGMA_M))
    if np.isfinite(b).all():
        return float(np.max(point_depth(b, area))), "blades", sig
    return None


def detect_key_violations(ctx: RuleContext) -> list[dict[str, Any]]:
    """Westridge 1 n, o: ``key_3s`` events (sponge profile, crease mode ``time_limit``)."""
    cr = ctx.profile.crease
    if cr.mode != "time_limit":
        return []
    obs = ctx.obs
    limit = float(cr.time_limit_s or 3.0)
    out = []
    for end in (1, -1):
        att = ctx.team_attacking(end)
        key = ctx.crease(end)
        zone_edge = end * ctx.blue_near_x(end)  # 206: the line belongs to the zone
        in_zone = ctx.puck_x_signed(end) + ctx.puck_radius_m >= zone_edge
        ctrl = np.zeros(obs.n_frames, bool)
        for f in range(obs.n_frames):
            h = controller_at(obs, f)
            if h is not None:
                ctrl[f] = obs.player_team[h] == att
            else:
                lt = last_touch_before(obs, f)
                ctrl[f] = lt is not None and obs.player_team[int(obs.touch_player[lt])] == att
        ctrl &= in_zone
        for k in team_players(obs, att, skaters_only=True):
            b = obs.blades_rink_m[k]
            d = np.stack([point_depth(b[:, j], key) for j in range(2)], axis=1)  # (F, 2)
            dmax = np.max(np.where(np.isfinite(d), d, -np.inf), axis=1)
            sig = obs.sigma_smoothed_m
            entered = dmax > 0
            # Once in, the foot stays in until it is decisively out (noise hysteresis).
            inside = dmax > -K_SIGMA * sig
            f = 1
            while f < obs.n_frames:
                if entered[f] and not entered[f - 1]:
                    a, b_ = dmax[f - 1], dmax[f]
                    t_in = float(obs.t_s[f - 1] + (-a / (b_ - a)) * obs.dt_s) if np.isfinite(a) else float(obs.t_s[f])
                    t_v = t_in + limit
                    if t_v > obs.t_s[-1]:
                        break
                    fv = int(np.ceil((t_v - obs.t_s[0]) * obs.fps))
                    fv = min(fv, obs.n_frames - 1)
                    span = slice(f, fv + 1)
                    if np.all(inside[span]) and np.all(ctrl[span]):
                        depth = float(dmax[fv])
                        # Decisive when the foot was clearly in at entry + 3 s and never
                        # possibly out in between.
                        firm = bool(dmax[fv] >= K_SIGMA * sig[fv] and
                                    np.all(dmax[span] >= -0.0) if obs.noise_estimate_m < 0.005
                                    else dmax[fv] >= K_SIGMA * sig[fv] and
                                    np.mean(dmax[span] > 0) > 0.9)
                        ev = {"player": obs.player_ids[k], "entered_t": t_in, "dwell_s": limit,
                              "decisive_frame": int(obs.frame[fv]),
                              "foot_rink_m": b[fv]}
                        out.append(make_event(obs, "key_3s", t_v, att, "violation" if firm else "inconclusive",
                                              depth, float(sig[fv]), "Westridge 1 n, o", ev))
                        f = fv
                f += 1
    return out
