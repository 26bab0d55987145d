"""Offside at each zone entry (IPC 903; face-off location 903 c in the evidence).

903 a: attackers shall not precede the puck into the attacking zone.
903 b2: the puck enters when it has *completely* crossed the blue line: the event
time ``t`` solves ``dir * x_puck - r = dir * far_x`` (far_x = attacking-zone edge of
the line, 206), interpolated linearly between the two frames around it.
903 b1: a player is offside when both blades are completely over the line:
offside depth = ``min over blades of dir * (x_blade - far_x)`` (> 0: offside), with
the blades interpolated to ``t``.
903 b3 / d: the player propelling and in control of the puck is exempt (b3 when he
moves backwards, else d). 903 e: if the defending team carried or passed the puck
in (their touch was the last), no offside.

``margin_m`` = max offside depth over the attackers not exempt (> 0 offside).
An attacker whose blades are not seen at the crossing (out of view, hidden) keeps
the call open (inconclusive) unless he cannot have reached the zone: from his
nearest sightings before and after, at a sledge's top speed, his deepest blade
stays more than K sigma short of the line, or every skater of his team is seen at the
crossing (as many distinct skater tracks as GAME.json's ``strength`` puts on the ice:
he is then one of them under another track, or not of that team). Onside also needs as many
skater tracks of the attacking team in the clip as it has skaters on the ice: one never tracked
may be offside.
Sigma per player: puck and blade position sigma plus the crossing-time sigma
times the blade's speed along x; the frame interval's ``|v| * dt / 2`` bound is
recorded as ``timing_bound_m``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rulesfromvideo.observations import puck_jump_steps
from rulesfromvideo.rules.common import (
    HOLD_REACH_M, K_SIGMA, SLEDGE_MAX_SPEED_MPS, Crossing, blade_sigma, controller_at, crossing_time_sigma,
    interp_at, last_touch_before, make_event, measured_near, same_puck_possible, team_players, up_crossings,
)
from rulesfromvideo.rules.context import RuleContext


# An attacker seen for at least STILL_ATTACKER_S whose blades never got STILL_ATTACKER_M from
# where they were first seen may be paint, not a player: a logo in a team's colour is tracked as
# one for as long as the camera shows it, still where a fixed camera sees it and jittering up to
# 2.3 m with a moving one (docs/vision.md, stops 42 and 54). He keeps an onside call open but
# does not make an offside one. The deciding attackers of the render sets' offside-leaning
# entries (stop 52-54 outputs, 42 entries) moved 3.1-19.0 m in their clips; a logo at the edge
# of a blue-line camera's centre-ice circle, seen 4 s, 0.00 m (tuning render /tmp/tune33 1545:
# an offside 46.9 cm deep at σ 16.3 cm, 2 cm short of a call; truth onside).
STILL_ATTACKER_M = 2.0
STILL_ATTACKER_S = 3.0


def _never_moved(obs, k: int) -> bool:
    """Player ``k`` was seen over at least ``STILL_ATTACKER_S`` of the observations and his blade
    midpoint stayed within ``STILL_ATTACKER_M`` of where it was first seen on every frame."""
    mid = obs.blades_rink_m[k].mean(axis=1)  # (F, 2): his seat only, not every player's
    seen = np.flatnonzero(np.isfinite(mid).all(axis=1))
    if not len(seen) or obs.t_s[seen[-1]] - obs.t_s[seen[0]] < STILL_ATTACKER_S:
        return False
    pts = mid[seen]
    return bool(np.linalg.norm(pts - pts[0], axis=1).max() < STILL_ATTACKER_M)


def _forward(blades: np.ndarray) -> np.ndarray:
    """(2,) heading from the (left, right) blade pair: left - right rotated -90 degrees."""
    l = blades[0] - blades[1]
    n = np.linalg.norm(l)
    if not np.isfinite(n) or n < 1e-9:
        return np.array([np.nan, np.nan])
    l = l / n
    return np.array([l[1], -l[0]])


def _carrier_clause(ctx: RuleContext, h: int, hd: dict[str, Any], i: int) -> str:
    """903 b3 when the exempt carrier moves backwards (against his heading), else 903 d."""
    obs = ctx.obs
    if hd["blades"] is None:
        return "903 d"
    f = _forward(hd["blades"])
    v = (obs.blades_rink_m[h, i + 1].mean(0) - obs.blades_rink_m[h, i].mean(0)) * obs.fps
    return "903 b3" if bool(np.isfinite(f).all() and float(v @ f) < 0) else "903 d"


def _may_control(ctx: RuleContext, k: int, i: int) -> bool:
    """Whether player ``k`` could be in control of the puck at frame ``i`` given the noise:
    the puck within stick reach plus 3 sigma, and no team-mate nearer to it."""
    obs = ctx.obs
    p = obs.puck_xy_rink_m[i]
    if not np.isfinite(p).all() or obs.noise_estimate_m < 0.005:
        return False  # clean tracks: the strict control test is reliable
    mids = obs.blades_rink_m[:, i].mean(axis=1)
    d = np.linalg.norm(mids - p, axis=1)
    d = np.where(np.isfinite(d) & (obs.player_team == obs.player_team[k]), d, np.inf)
    reach = HOLD_REACH_M + 3.0 * np.sqrt(2.0) * float(obs.without_bias(obs.sigma_m)[i])
    return bool(d[k] <= reach and int(np.argmin(d)) == k)


# Longest stretch without a puck measurement around a crossing that an onside call may span:
# the attackers' positions are then checked at every frame of it, so a longer stretch only asks
# more of them. An iced puck outruns a broadcast camera: on the six tuning render sets (seeds
# 1270-1569, stop 52, `/tmp/s52/brdbg.py`) four entries of icing plays, every attacker 8 m short
# of the line, were measured last before the line and next 1.2-1.7 s later; at 2.5 s one more was
# called (onside, right) and no call changed otherwise (the others have an attacker never tracked
# or a frame without a camera).
UNMEASURED_CROSSING_MAX_S = 2.5


def measured_crossing_bracket(ctx: RuleContext, end: int, c: Crossing) -> tuple[int, int] | None:
    """Frames (lo, hi) of the last measurement before ``c`` with the puck not yet completely
    across the blue line and the first after it with the puck completely across (903 b2),
    when at most ``UNMEASURED_CROSSING_MAX_S`` apart and joined by a physically possible
    slide (no jump between objects); else None. The puck crossed somewhere between them."""
    obs = ctx.obs
    s = ctx.puck_x_signed(end) - ctx.puck_radius_m - end * ctx.blue_far_x(end)
    meas = obs.puck_measured & np.isfinite(s)
    before = np.flatnonzero(meas[: c.i + 1] & (s[: c.i + 1] < 0))
    after = np.flatnonzero(meas & (s >= 0) & (np.arange(obs.n_frames) > c.i))
    if not len(before) or not len(after):
        return None
    lo, hi = int(before[-1]), int(after[0])
    dt = float(obs.t_s[hi] - obs.t_s[lo])
    if not 0 < dt <= UNMEASURED_CROSSING_MAX_S:
        return None
    if not same_puck_possible(obs, lo, hi):
        return None
    return lo, hi


def onside_over(ctx: RuleContext, end: int, players: list[int], lo: int, hi: int) -> tuple[float, float, int] | None:
    """Whether each of ``players`` was short of the blue line (903 b1: not both blades completely
    over) by at least K sigma on every frame lo..hi; then (margin m, its sigma m, player) of the
    deepest one, else None. A player unseen on a frame counts by his reach bound
    (``_reach_depth``)."""
    obs = ctx.obs
    far = ctx.blue_far_x(end)
    worst = None
    for k in players:
        for f in range(lo, hi + 1):
            b = obs.blades_rink_m[k, f]
            if np.isfinite(b).all():
                d = float(np.min(end * (b[:, 0] - far)))  # the shallower blade decides
                sig = blade_sigma(obs, f, k, (1.0, 0.0))  # the tracks' noise and the blade model
            else:
                d, sig = _reach_depth(obs, k, end, far, float(obs.t_s[f])), float(obs.sigma_smoothed_m[f])
            if not (np.isfinite(d) and d < 0 and d <= -K_SIGMA * sig):
                return None
            if worst is None or d / max(sig, 1e-9) > worst[0] / max(worst[1], 1e-9):
                worst = (d, sig, k)
    return worst


def entry_crossings(ctx: RuleContext, end: int) -> list[Crossing]:
    """Instants the puck completely crosses the blue line into the zone at ``end`` (903 b2)."""
    obs = ctx.obs
    s = ctx.puck_x_signed(end) - ctx.puck_radius_m - end * ctx.blue_far_x(end)
    return up_crossings(s, obs.t_s, rearm_m=ctx.rearm_m())


def offside_depths(ctx: RuleContext, end: int, team: str, c: Crossing,
                   sig_t: float) -> dict[int, dict[str, Any]]:
    """Offside depth (903 b1) of each player of ``team`` at crossing ``c``.

    Returns:
        {player index: {"depth": m | nan, "sigma": m, "timing_bound_m": m, "blades": (2, 2),
        "reach_depth_m": m}}; ``reach_depth_m`` (players not seen at the crossing only) is
        the deepest the player can be: his depth at the nearest sighting plus a
        sledge's top speed times the time to it (nan when never seen).
    """
    obs = ctx.obs
    far = ctx.blue_far_x(end)
    out: dict[int, dict[str, Any]] = {}
    i = c.i
    for k in range(len(obs.player_ids)):
        if obs.player_team[k] != team:
            continue
        b0, b1 = obs.blades_rink_m[k, i], obs.blades_rink_m[k, i + 1]
        if not (np.isfinite(b0).all() and np.isfinite(b1).all()):
            out[k] = {"depth": np.nan, "sigma": np.inf, "timing_bound_m": np.nan, "blades": None,
                      "reach_depth_m": _reach_depth(obs, k, end, far, c.t_s)}
            continue
        b = interp_at(obs.blades_rink_m[k], c)  # (2, 2)
        d = end * (b[:, 0] - far)
        j = int(np.argmin(d))
        v_x = end * (b1[j, 0] - b0[j, 0]) * obs.fps
        sig_pos = float(obs.sigma_smoothed_m[i])  # the puck's, then the blade's
        sigma = float(np.sqrt(sig_pos ** 2 + blade_sigma(obs, i, k, (1.0, 0.0)) ** 2 + (v_x * sig_t) ** 2))
        out[k] = {"depth": float(d[j]), "sigma": sigma,
                  "timing_bound_m": abs(v_x) * obs.dt_s / 2.0, "blades": b}
    return out


def _reach_depth(obs, k: int, end: int, far_x: float, t: float) -> float:
    """Upper bound on player ``k``'s offside depth at time ``t`` (s) from his sightings, m.

    Each sighting at time t_j with deepest blade depth d_j bounds the depth at ``t`` by
    ``d_j + SLEDGE_MAX_SPEED_MPS * |t - t_j|``; the nearest sighting before and the
    nearest after are used (the tighter wins). nan when the player is never seen.
    """
    seen = np.isfinite(obs.blades_rink_m[k]).all(axis=(1, 2))
    before = np.flatnonzero(seen & (obs.t_s <= t))
    after = np.flatnonzero(seen & (obs.t_s > t))
    bounds = []
    for j in ([before[-1]] if len(before) else []) + ([after[0]] if len(after) else []):
        d = float(np.max(end * (obs.blades_rink_m[k, j, :, 0] - far_x)))
        bounds.append(d + SLEDGE_MAX_SPEED_MPS * abs(float(obs.t_s[j]) - t))
    return min(bounds) if bounds else float("nan")


def _may_be_offside(d: dict[str, Any], sig_pos: float) -> bool:
    """Whether an ``offside_depths`` entry leaves the player possibly offside (> -K sigma deep,
    or unseen and not provably out of reach)."""
    if np.isfinite(d["depth"]):
        return bool(d["depth"] > -K_SIGMA * d["sigma"])
    return not (d["reach_depth_m"] < -K_SIGMA * sig_pos)


# Two tracks seen this far apart at one instant are two sledges, not one split in two.
DISTINCT_PLAYERS_M = 1.0


def every_skater_seen(ctx: RuleContext, team: str, i: int) -> int | None:
    """The number of ``team``'s skaters on the ice (GAME.json ``strength``) when exactly that
    many distinct skater tracks of ``team`` have both blades seen on frames ``i`` and
    ``i + 1``; else None.

    Then every skater of the team is among those seen: another track of the team (a
    fragment of one of them, a mislabelled goalkeeper or opponent) or a skater of unknown
    team is not an unseen attacker. More tracks seen than skaters on the ice means some
    team label or track is wrong, and nothing is concluded.
    """
    obs = ctx.obs
    n_on_ice = ctx.skaters_on_ice(team, obs.t_s[i])
    seen = [k for k in range(len(obs.player_ids))
            if obs.player_team[k] == team and obs.player_role[k] != "goalkeeper"
            and np.isfinite(obs.blades_rink_m[k, i:i + 2]).all()]
    if len(seen) != n_on_ice or n_on_ice == 0:
        return None
    mids = obs.blades_rink_m[seen, i].mean(axis=1)  # (n, 2) m
    gaps = np.linalg.norm(mids[:, None] - mids[None], axis=-1)[np.triu_indices(len(seen), 1)]
    return n_on_ice if bool(np.all(gaps >= DISTINCT_PLAYERS_M)) else None


def _faceoff_spot(ctx: RuleContext, end: int, att: str, carried: bool,
                  origin_xy: np.ndarray | None, entry_xy: np.ndarray) -> dict[str, Any]:
    """903 c: where the face-off would be after this offside."""
    lm = ctx.rink.landmarks

    def nearest(prefix: str, xy: np.ndarray) -> str | None:
        names = [n for n in lm if n.startswith(prefix)]
        if not names or not np.isfinite(xy).all():
            return None
        return min(names, key=lambda n: float(np.linalg.norm(lm[n][:2] - xy)))

    sx = "+x" if end > 0 else "-x"
    own = "-x" if end > 0 else "+x"
    if carried:
        return {"clause": "903 c1", "spot": nearest(f"neutral_spot_{sx}", entry_xy)}
    if origin_xy is not None and np.isfinite(origin_xy).all() and \
            end * origin_xy[0] < end * ctx.blue_near_x(-end):
        return {"clause": "903 c4", "spot": nearest(f"faceoff_spot_{own}", origin_xy)}
    if origin_xy is not None:
        spots = [n for n in lm if n.startswith(("neutral_spot", "faceoff_spot", "centre_spot"))]
        return {"clause": "903 c2",
                "spot": min(spots, key=lambda n: float(np.linalg.norm(lm[n][:2] - origin_xy)))}
    return {"clause": "903 c1", "spot": nearest(f"neutral_spot_{sx}", entry_xy)}


def evaluate_entry(ctx: RuleContext, end: int, c: Crossing) -> dict[str, Any]:
    """The ``zone_entry`` event of one crossing (903)."""
    obs = ctx.obs
    att = ctx.team_attacking(end)
    dfn = ctx.opponent(att)
    i = c.i
    p = obs.puck_xy_rink_m
    v_puck = end * (p[i + 1, 0] - p[i, 0]) * obs.fps
    sig_t = crossing_time_sigma(obs, c, v_puck)
    puck_xy = interp_at(p, c)
    near = i + (1 if c.frac > 0.5 else 0)
    holder = controller_at(obs, near)
    depths = offside_depths(ctx, end, att, c, sig_t)
    exempt = [holder] if holder is not None and obs.player_team[holder] == att else []
    ev: dict[str, Any] = {
        "frame_interval": [int(obs.frame[i]), int(obs.frame[i + 1])],
        "decisive_frame": int(obs.frame[near]),
        "puck_xy_rink_m": puck_xy, "blue_line_far_x_m": ctx.blue_far_x(end),
        "t_sigma_s": sig_t,
        "exempt": [obs.player_ids[k] for k in exempt],
        "depths_m": {str(obs.player_ids[k]): v["depth"] for k, v in depths.items()},
    }
    lt = last_touch_before(obs, i if obs.t_s[min(i + 1, obs.n_frames - 1)] > c.t_s else i + 1)
    # Who brought the puck in is unknown when no touch is known before the crossing (the clip
    # opens with the puck moving) or the last one was lost in an unseen stretch (below).
    touch_unseen = lt is None
    if lt is not None:
        kk = int(obs.touch_player[lt])
        ev["last_touch"] = {"player": obs.player_ids[kk], "team": str(obs.player_team[kk]),
                            "t": float(obs.t_s[lt]), "xy_rink_m": p[lt]}
        if not followed_since(obs, lt, i):
            # An unseen stretch since that touch may hide another (a pass, a steal): who brought
            # the puck in is not known from it (903 e needs it; the holder at the line may say).
            ev["last_touch"]["unseen_since_s"] = unseen_since_s(obs, lt, i)
            ev["last_touch"]["track_jumps_since"] = jumps_since(obs, lt, i)
            lt, touch_unseen = None, True
    cand = {k: v for k, v in depths.items() if k not in exempt}
    known = {k: v for k, v in cand.items() if np.isfinite(v["depth"])}
    sig_pos = float(obs.sigma_smoothed_m[i])
    # Unseen attackers who cannot have reached the line in time do not keep the call open.
    unseen = {k: v for k, v in cand.items() if k not in known}
    unreachable = {k: v["reach_depth_m"] for k, v in unseen.items() if not _may_be_offside(v, sig_pos)}
    missing = [obs.player_ids[k] for k in unseen if k not in unreachable]
    if unreachable:
        ev["unseen_out_of_reach_m"] = {str(obs.player_ids[k]): d for k, d in unreachable.items()}
    # A skater whose team the footage never told may be an attacker: an onside call
    # needs him provably short of the line too (seen, or out of reach).
    unknown_team = [obs.player_ids[k] for k, v in offside_depths(ctx, end, "", c, sig_t).items()
                    if obs.player_role[k] != "goalkeeper" and _may_be_offside(v, sig_pos)]
    n_all_seen = every_skater_seen(ctx, att, i) if missing or unknown_team else None
    if n_all_seen is not None:
        # 702 / GAME.json strength: every skater of the attacking team is seen at the crossing.
        ev["all_skaters_seen"] = n_all_seen
        if missing:
            ev["not_attackers_on_ice"] = missing
        if unknown_team:
            ev["unknown_team_not_attackers"] = unknown_team
        missing, unknown_team = [], []
    if missing:
        ev["blades_missing"] = missing
    if unknown_team:
        ev["team_unknown_could_be_offside"] = unknown_team
    # "Onside" is a claim about every attacker: one the footage never showed (no track in the
    # whole clip) may be the offside one. Fewer skater tracks of the attacking team than it has
    # skaters on the ice (GAME.json strength) leaves onside undecided (fresh render 825: the
    # attacker offside by 0.39 m was never tracked, the four tracked were 3.7-11 m short).
    n_on_ice = ctx.skaters_on_ice(att, obs.t_s[i])
    untracked = max(0, n_on_ice - len(team_players(obs, att, skaters_only=True)))
    if untracked:
        ev["attackers_never_tracked"] = untracked
    never_seen_reason = f"{untracked} attacking skater(s) on the ice never tracked: one could be offside"
    if not measured_near(obs, i):
        # The instant is unknown, but it lies between two measurements: an entry is onside
        # when every attacker (and every skater of unknown team) stays short of the line at
        # every frame it can have happened on. The carrier too: who controls a puck that was
        # not measured is not known either.
        bracket = measured_crossing_bracket(ctx, end, c)
        others = [k for k in range(len(obs.player_ids)) if obs.player_role[k] != "goalkeeper"
                  and obs.player_team[k] in (att, "")]
        bound = None if bracket is None or brought_by_defender(obs, lt, holder, dfn) else \
            onside_over(ctx, end, others, *bracket)
        if bound is None:
            ev["reason"] = "puck not measured (or its track jumps) around the crossing"
            return make_event(obs, "zone_entry", c.t_s, att, "inconclusive", None, np.inf, "903 b2", ev)
        margin, sigma, kmax = bound
        if untracked:
            ev["reason"] = never_seen_reason
            ev["player"] = obs.player_ids[kmax]
            return make_event(obs, "zone_entry", c.t_s, att, "inconclusive", margin, sigma, "903 b1", ev)
        ev["crossing_between_frames"] = [int(obs.frame[bracket[0]]), int(obs.frame[bracket[1]])]
        ev["note"] = "puck not measured at the crossing: every attacker short of the line at every frame between"
        ev["player"] = obs.player_ids[kmax]
        return make_event(obs, "zone_entry", c.t_s, att, "onside", margin, sigma, "903 b1", ev)
    if brought_by_defender(obs, lt, holder, dfn):
        # 903 e: the defending team brought the puck into its own zone.
        ev["exception"] = "defender_carried"
        margin = max((v["depth"] for v in known.values()), default=None)
        sig = max((v["sigma"] for v in known.values()), default=float(obs.sigma_smoothed_m[i]))
        return make_event(obs, "zone_entry", c.t_s, att, "onside", margin, sig, "903 e", ev, conf=1.0)
    if not cand and exempt and not unknown_team and not untracked:
        # 903 b3 / d: the carrier is the only attacker; nobody can be offside.
        ev["reason"] = "only the exempt puck carrier attacked"
        ev["holder"] = obs.player_ids[exempt[0]]
        return make_event(obs, "zone_entry", c.t_s, att, "onside", 0.0, 0.0, _carrier_clause(
            ctx, exempt[0], depths[exempt[0]], i), ev, conf=1.0)
    if not known:
        ev["reason"] = "no attacker's blades at the crossing"
        return make_event(obs, "zone_entry", c.t_s, att, "inconclusive", None, np.inf, "903 b1", ev)
    kmax = max(known, key=lambda k: known[k]["depth"])
    margin, sigma = known[kmax]["depth"], known[kmax]["sigma"]
    any_off = any(v["depth"] >= K_SIGMA * v["sigma"] and v["depth"] > 0 for v in known.values())
    all_on = all(v["depth"] <= -K_SIGMA * v["sigma"] and v["depth"] < 0 for v in known.values())
    if any_off:
        verdict = "offside"
        off = [k for k, v in known.items() if v["depth"] >= K_SIGMA * v["sigma"] and v["depth"] > 0]
        # A goalkeeper of the attacking team inside the zone it attacks is at the other team's
        # goal: the defending goalkeeper with a wrong team (his crease's paint in his colour
        # votes, fresh render 862) or an attacker parked at the crease. He may be offside, which
        # keeps an onside call open, but he does not make one.
        sure = [k for k in off if obs.player_role[k] != "goalkeeper"]
        moved = [k for k in sure if not _never_moved(obs, k)]
        kmax = max(moved or sure or off, key=lambda k: known[k]["depth"] / max(known[k]["sigma"], 1e-9))
        margin, sigma = known[kmax]["depth"], known[kmax]["sigma"]
        if not sure:
            verdict = "inconclusive"
            ev["reason"] = "the only attacker over the line is a goalkeeper at the goal his team attacks: his team is in doubt"
        elif not moved:
            verdict = "inconclusive"
            ev["reason"] = (f"every attacker over the line stayed within {STILL_ATTACKER_M:g} m of where he was first "
                            f"seen for {STILL_ATTACKER_S:g} s or more: paint in the ice (a logo) is tracked so too")
        elif not exempt and all(_may_control(ctx, k, near) for k in moved):
            # 903 d: the only offside players may be the carrier that noise hid.
            verdict = "inconclusive"
            ev["reason"] = "the offside player may be the puck carrier (903 d)"
    elif all_on and not missing and not unknown_team and not untracked:
        verdict = "onside"
    else:
        verdict = "inconclusive"
        if missing and all_on:
            ev["reason"] = "blades missing for a player who could be offside"
        elif unknown_team and all_on:
            ev["reason"] = "a skater of unknown team could be offside"
        elif untracked and all_on:
            ev["reason"] = never_seen_reason
    ev["player"] = obs.player_ids[kmax]
    ev["blades_rink_m"] = known[kmax]["blades"]
    ev["timing_bound_m"] = known[kmax]["timing_bound_m"]
    rule = "903 b1"
    if exempt:
        h = exempt[0]
        hd = depths[h]
        ev["holder"] = obs.player_ids[h]
        if np.isfinite(hd["depth"]) and hd["depth"] > 0:
            ev["exemption"] = _carrier_clause(ctx, h, hd, i)
            if verdict != "offside":
                rule = ev["exemption"]
    if verdict == "offside" and touch_unseen and holder is None:
        # 903 e: with no last touch known (none seen, or lost in an unseen stretch) and nobody
        # holding the puck at the line, a defender may have brought it in: no offside can be called.
        why = "an unseen stretch since the last touch" if "last_touch" in ev else "no touch seen before the crossing"
        ev["reason"] = f"who brought the puck in is unknown ({why}): 903 e may apply"
        return make_event(obs, "zone_entry", c.t_s, att, "inconclusive", margin, sigma, "903 e", ev)
    if verdict == "offside":
        origin = ev.get("last_touch", {}).get("xy_rink_m")
        carried = holder is not None and obs.player_team[holder] == att
        ev["faceoff"] = _faceoff_spot(ctx, end, att, carried,
                                      None if origin is None else np.asarray(origin), puck_xy)
    return make_event(obs, "zone_entry", c.t_s, att, verdict, margin, sigma, rule, ev)


#: The longest stretch without a measured puck between a touch and a line crossing over which
#: that touch is still taken as the last one (903 e): a pass or a steal takes less.
TOUCH_FOLLOWED_GAP_S = 0.5


def unseen_since_s(obs, lt: int, i: int) -> float:
    """The longest run of frames without a measured puck in (lt, i], s."""
    meas = np.asarray(obs.puck_measured[lt + 1:i + 1], dtype=bool)
    run = longest = 0
    for m in meas:
        run = 0 if m else run + 1
        longest = max(longest, run)
    return longest / obs.fps


def jumps_since(obs, lt: int, i: int) -> bool:
    """Whether the puck track jumps between objects (``puck_jump_steps``) between frames ``lt``
    and ``i``: what was touched on ``lt`` need not be the puck that crossed on ``i``."""
    lo, hi = max(0, lt), min(obs.n_frames, i + 2)
    return bool(np.any(puck_jump_steps(obs.puck_xy_rink_m[lo:hi], obs.t_s[lo:hi],
                                       obs.without_bias(obs.sigma_m)[lo:hi])))


def followed_since(obs, lt: int, i: int) -> bool:
    """Whether the puck was followed from the touch on frame ``lt`` to frame ``i``: no unseen
    stretch longer than ``TOUCH_FOLLOWED_GAP_S`` and no jump of the track between objects (a
    track that held a dark spot beside a defender and then jumped to the real puck: the touch
    was of the spot, tuning render 1526, whose defender-carried "onside" was wrong)."""
    return unseen_since_s(obs, lt, i) <= TOUCH_FOLLOWED_GAP_S and not jumps_since(obs, lt, i)


def brought_by_defender(obs, lt: int | None, holder: int | None, dfn: str) -> bool:
    """903 e: the last toucher (else the holder) is of the defending team."""
    brought_by = obs.player_team[int(obs.touch_player[lt])] if lt is not None else (
        obs.player_team[holder] if holder is not None else None)
    return brought_by == dfn


def detect_zone_entries(ctx: RuleContext) -> list[dict[str, Any]]:
    """All ``zone_entry`` events (903), both ends."""
    out = []
    for end in (1, -1):
        for c in entry_crossings(ctx, end):
            out.append(evaluate_entry(ctx, end, c))
    return out
