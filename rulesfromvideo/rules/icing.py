"""Icing (IPC 905; Westridge 1 b in the sponge profile).

905 b: a puck shot from the team's own half beyond the opponent's goal line.
The event time is the instant it has *completely* crossed that goal line,
``dir * x - r = dir * goal_outer_x``. 905 a: the point of last contact decides;
the centre line belongs to the shooter's half while any part of the puck
touches it (206), so ``margin_m = (centre_w / 2 + r) - dir * x_contact`` (> 0: own half).
A puck carried over the goal line (the last toucher in control) is not a shot;
only pucks played from the shooter's own half (margin > -k sigma) give events,
as in the simulator's truth.

Exceptions (905 d), each decided with the same k-sigma policy: decisively true
-> ``waved_off`` naming it, undecided -> ``inconclusive``:

* d1 ``goal``: the puck entered the goal (a ``goal`` event at the crossing).
* d2 ``shorthanded``: the shooting team has fewer skaters at the contact
  (``game.is_shorthanded``, the GAME.json strength step function).
* d3 ``touched_by_opponent``: an opponent (goalkeeper included) touched the puck
  after the contact without controlling it (a deflection).
* d4 ``faceoff``: the contact is the first touch after the puck lay on a face-off
  spot (within ``FACEOFF_SPOT_RADIUS_M``, at rest or at the clip start).
* d5 ``opponent_could_play`` (proxy for "able to play the puck"): an opponent
  skater whose blade midpoint at the contact is within
  ``D5_REACH_M + D5_SPEED_MPS * (tau - t_contact)`` of the puck at some instant
  ``tau`` before it crosses the goal line (a sledge at 6.9 m/s, stick reach 1.5 m).
* d6 ``goalkeeper_moved``: the defending goalkeeper's seat (blade midpoint) is
  outside his crease and moves towards the puck faster than ``D6_SPEED_MPS``
  at some instant between contact and crossing.

Sponge profile (Westridge 1 b): icing only in the profile's window (final minute
of the second half, ``game.clock_at``; no event outside it); exceptions ``leading_team_shorthanded``
and ``lead`` (a lead of 3 or more goals, from the score at t = 0 plus the goals
detected before the contact); the 905 d exceptions are not applied there
(the book lists only these), except that a puck entering the goal is a goal.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rulesfromvideo.rules.common import (
    K_SIGMA, SLEDGE_MAX_SPEED_MPS, contact_point, controller_at, interp_at, make_event, measured_near, moves_with,
    point_depth, team_players, tri, up_crossings,
)
from rulesfromvideo.rules.context import RuleContext

D5_REACH_M = 1.5  # blade midpoint to stick blade (~1 m) plus a reach with the stick
D5_SPEED_MPS = SLEDGE_MAX_SPEED_MPS
D6_SPEED_MPS = 0.3  # goalkeeper's speed towards the puck that counts as moving to it
D6_BASELINE_S = 0.2  # velocity estimated over this baseline (noise)
FACEOFF_SPOT_RADIUS_M = 1.0
FACEOFF_REST_SPEED_MPS = 0.5
DEFLECT_MIN_SPEED_MPS = 3.0

IPC_EXCEPTIONS = ("goal", "shorthanded", "touched_by_opponent", "faceoff",
                  "opponent_could_play", "goalkeeper_moved")


def _opponent_touches(obs, a: int, b: int, dfn: str) -> tuple[bool, bool]:
    """(deflected, controlled) by team ``dfn`` on frames (a, b)."""
    tf = [f for f in obs.touch_frames() if a < f < b]
    deflected = False
    for f in tf:
        k = int(obs.touch_player[f])
        if obs.player_team[k] != dfn:
            continue
        j = min(f + 3, obs.n_frames - 1)
        v = np.linalg.norm(obs.puck_xy_rink_m[j] - obs.puck_xy_rink_m[f]) / max(obs.t_s[j] - obs.t_s[f], 1e-9)
        if controller_at(obs, j) == k or not np.isfinite(v) or v < DEFLECT_MIN_SPEED_MPS:
            return deflected, True
        deflected = True
    return deflected, False


def _faceoff(ctx: RuleContext, f: int) -> bool | None:
    """905 d4 proxy: the touch on frame ``f`` is the first after the puck lay on a face-off spot."""
    obs = ctx.obs
    p = obs.puck_xy_rink_m
    tf = obs.touch_frames()
    prev = tf[tf < f]
    start = int(prev[-1]) + 1 if len(prev) else 0
    lo = max(start, f - int(obs.fps))
    if lo >= f:
        return False
    seg = p[lo:f]
    ok = np.isfinite(seg).all(axis=1)
    if not ok.any():
        return None
    d = np.min(np.linalg.norm(seg[ok][:, None, :] - ctx.faceoff_spots_xy[None], axis=2), axis=1)
    v = np.linalg.norm(np.diff(seg[ok], axis=0), axis=1) * obs.fps if ok.sum() > 1 else np.zeros(1)
    at_rest = (v < FACEOFF_REST_SPEED_MPS + 3 * obs.sigma_smoothed_m[f] * obs.fps * 1.5)
    on_spot = d[:-1] < FACEOFF_SPOT_RADIUS_M if len(d) > 1 else d < FACEOFF_SPOT_RADIUS_M
    if len(prev) == 0 and d[0] < FACEOFF_SPOT_RADIUS_M:
        return True  # the clip starts with the puck on a spot: a face-off
    return bool(np.any(on_spot & at_rest[:len(on_spot)]))


def _d5(ctx: RuleContext, i_c: int, t_c: float, i_x: int, t_x: float, dfn: str) -> tuple[bool | None, float, Any]:
    """905 d5 proxy: min slack ``|p(tau) - q| - reach(tau)`` over opponents (< 0: could play)."""
    obs = ctx.obs
    p = obs.puck_xy_rink_m
    frames = np.arange(i_c, i_x + 1)
    taus = obs.t_s[frames]
    path = p[frames]
    ok = np.isfinite(path).all(axis=1) & (taus >= t_c - 1e-9)
    best, who = np.inf, None
    for k in team_players(obs, dfn, skaters_only=True):
        q = interp_time_blade_mid(obs, k, t_c)
        if not np.isfinite(q).all():
            continue
        reach = D5_REACH_M + D5_SPEED_MPS * (taus[ok] - t_c)
        slack = np.linalg.norm(path[ok] - q, axis=1) - reach
        if len(slack) and slack.min() < best:
            best, who = float(slack.min()), obs.player_ids[k]
    sig = float(obs.sigma_smoothed_m[i_c]) * np.sqrt(2) + D5_SPEED_MPS * obs.dt_s / 2
    if not np.isfinite(best):
        return False, best, None
    return tri(-best, sig), best, who


def interp_time_blade_mid(obs, k: int, t: float) -> np.ndarray:
    x = (t - obs.t_s[0]) * obs.fps
    i = int(np.clip(np.floor(x), 0, obs.n_frames - 2))
    f = float(np.clip(x - i, 0, 1))
    m = obs.blades_rink_m[k, i:i + 2].mean(axis=1)  # (2, 2): frames i, i + 1
    return m[0] + f * (m[1] - m[0])


def _d6(ctx: RuleContext, i_c: int, i_x: int, dfn: str, end: int) -> tuple[bool | None, float]:
    """905 d6: goalkeeper outside his crease moving towards the puck (slack, m/s)."""
    obs = ctx.obs
    crease = ctx.crease(end)
    n = max(1, int(round(D6_BASELINE_S * obs.fps / 2)))
    result: bool | None = False
    best = -np.inf
    for k in team_players(obs, dfn):
        if obs.player_role[k] != "goalkeeper":
            continue
        lo, hi = max(0, i_c - n), min(obs.n_frames, i_x + n + 1)
        mid = np.full((obs.n_frames, 2), np.nan)
        mid[lo:hi] = obs.blades_rink_m[k, lo:hi].mean(axis=1)
        for f in range(i_c, i_x + 1):
            a, b = max(0, f - n), min(obs.n_frames - 1, f + n)
            if not (np.isfinite(mid[[a, b, f]]).all() and np.isfinite(obs.puck_xy_rink_m[f]).all()):
                continue
            v = (mid[b] - mid[a]) / (obs.t_s[b] - obs.t_s[a])
            u = obs.puck_xy_rink_m[f] - mid[f]
            u = u / (np.linalg.norm(u) + 1e-12)
            v_to = float(v @ u) - D6_SPEED_MPS
            sig_v = float(obs.sigma_smoothed_m[f]) * np.sqrt(2) / (obs.t_s[b] - obs.t_s[a])
            out = -float(point_depth(mid[f], crease)[0])
            sig_p = float(obs.sigma_smoothed_m[f])
            a_out, a_mov = tri(out, sig_p), tri(v_to, sig_v)
            best = max(best, min(v_to, out))
            if a_out and a_mov:
                return True, best
            if a_out is not False and a_mov is not False:
                result = None  # could be: undecided
    return result, best


def detect_icings(ctx: RuleContext, goals: list[dict[str, Any]], score_at) -> list[dict[str, Any]]:
    """All ``icing`` events.

    Args:
        goals: the ``goal`` events (905 d1).
        score_at: callable t -> {"home": int, "away": int} (sponge 1 b lead).
    """
    icing = ctx.profile.icing
    if not icing.enabled:
        return []
    obs = ctx.obs
    r = ctx.puck_radius_m
    out: list[dict[str, Any]] = []
    names = {e.name for e in icing.exceptions}
    for end in (1, -1):
        sh = ctx.team_attacking(end)
        dfn = ctx.opponent(sh)
        s = ctx.puck_x_signed(end) - r - end * ctx.goal_outer_x(end)
        for c in up_crossings(s, obs.t_s, ctx.rearm_m()):
            ev = _evaluate(ctx, end, sh, dfn, c, goals, score_at, icing, names)
            if ev is not None:
                out.append(ev)
    return out


def _evaluate(ctx, end, sh, dfn, c, goals, score_at, icing, names):
    obs = ctx.obs
    r = ctx.puck_radius_m
    i_x = c.i + 1
    if controller_at(obs, c.i) is not None:
        return None  # carried over the goal line, not shot
    tf = obs.touch_frames()
    mine = [f for f in tf if f <= c.i and obs.player_team[int(obs.touch_player[f])] == sh]
    if not mine:
        return None
    f = int(mine[-1])
    k_sh = int(obs.touch_player[f])
    # The shot itself may be on a dropped frame: if the puck still moved with the
    # shooter after his last recorded touch, the contact is his last controlled frame.
    released = f
    for j in range(f + 1, c.i + 1):
        if moves_with(obs, k_sh, j):
            released = j
        elif j - released > 3:
            break
    contact_from_release = released > f + 1
    if contact_from_release:
        f_touch = released
    else:
        f_touch = f
    deflected, controlled = _opponent_touches(obs, f, c.i + 1, dfn)
    if controlled:
        return None  # the defending team played it: not this team's icing
    f = f_touch
    xy, t_c, sig_tc = contact_point(obs, f)
    if not np.isfinite(xy).all():
        return None
    j = min(f + 2, obs.n_frames - 1)
    v_after = (obs.puck_xy_rink_m[j] - obs.puck_xy_rink_m[min(f + 1, j)]) * obs.fps
    v_x = abs(float(v_after[0])) if np.isfinite(v_after).all() else 0.0
    sig = float(np.hypot(obs.sigma_smoothed_m[f], v_x * sig_tc))
    margin = ctx.centre_half_width_m + r - end * float(xy[0])
    if margin < -K_SIGMA * sig:
        return None  # played from the attacking half: no icing situation
    k = int(obs.touch_player[f])
    ev: dict[str, Any] = {"shooter": obs.player_ids[k], "t_contact": t_c, "contact_xy_rink_m": xy,
                          "contact_frame": int(obs.frame[f]),
                          "frame_interval": [int(obs.frame[c.i]), int(obs.frame[c.i + 1])],
                          "decisive_frame": int(obs.frame[f]),
                          "puck_xy_at_goal_line_rink_m": interp_at(obs.puck_xy_rink_m, c),
                          "timing_bound_m": v_x * obs.dt_s / 2}
    if obs.touch_inferred:
        ev["touches"] = "inferred from puck motion"
    if contact_from_release:
        ev["contact"] = "release: the puck moved with the shooter after his last recorded touch"
    if not measured_near(obs, c.i):
        ev["reason"] = "puck not measured (or its track jumps) at the goal line"
        return make_event(obs, "icing", c.t_s, sh, "inconclusive", margin, sig, "905 b", ev)
    applies: list[str] = []
    undecided: list[str] = []
    checks: dict[str, Any] = {}
    sponge = icing.window is not None
    # d1: the goal is allowed
    if any(g["type"] == "goal" and g["team"] == sh and g["verdict"] in ("goal", "inconclusive")
           and abs(g["t"] - c.t_s) <= 2 * obs.dt_s for g in goals):
        g = next(g for g in goals if g["team"] == sh and abs(g["t"] - c.t_s) <= 2 * obs.dt_s)
        (applies if g["verdict"] == "goal" else undecided).append("goal")
    if sponge:
        period, remaining = ctx.game.clock_at(t_c)
        checks["clock"] = {"period": period, "remaining_s": remaining}
        if not (period == icing.window.period and remaining <= icing.window.final_s):
            return None  # Westridge 1 b: no icing is called outside the final minute
        sc = score_at(t_c)
        lead_home = sc["home"] - sc["away"]
        checks["score"] = sc
        leader = "home" if lead_home > 0 else "away" if lead_home < 0 else None
        if "leading_team_shorthanded" in names and leader is not None and \
                ctx.game.is_shorthanded(leader, t_c):
            applies.append("leading_team_shorthanded")
        ex = icing.exception("lead")
        if ex is not None and abs(lead_home) >= int(ex.min_lead_goals or 3):
            applies.append("lead")
    else:
        if "shorthanded" in names and icing.requires_equal_or_superior_strength and \
                ctx.game.is_shorthanded(sh, t_c):
            applies.append("shorthanded")
        if "touched_by_opponent" in names and deflected:
            applies.append("touched_by_opponent")
        if "faceoff" in names:
            fo = _faceoff(ctx, f)
            if fo:
                applies.append("faceoff")
            elif fo is None:
                undecided.append("faceoff")
        if "opponent_could_play" in names:
            d5, slack, who = _d5(ctx, f, t_c, c.i + 1, c.t_s, dfn)
            checks["d5_slack_m"] = slack
            checks["d5_player"] = who
            if d5:
                applies.append("opponent_could_play")
            elif d5 is None:
                undecided.append("opponent_could_play")
        if "goalkeeper_moved" in names:
            d6, slack6 = _d6(ctx, f, c.i + 1, dfn, -ctx.attack[dfn])
            checks["d6_slack"] = slack6
            if d6:
                applies.append("goalkeeper_moved")
            elif d6 is None:
                undecided.append("goalkeeper_moved")
    ev["checks"] = checks
    rule_of = {e.name: e.rule for e in icing.exceptions}
    own = margin >= K_SIGMA * sig
    if applies:
        ev["exception"], ev["exceptions"] = applies[0], applies
        rule = rule_of.get(applies[0], "Westridge 1 b" if sponge else "905 d")
        return make_event(obs, "icing", c.t_s, sh, "waved_off", margin, sig, rule, ev, conf=1.0 if own else None)
    if undecided or not own:
        ev["undecided"] = undecided + ([] if own else ["own_half"])
        return make_event(obs, "icing", c.t_s, sh, "inconclusive", margin, sig,
                          "Westridge 1 b" if sponge else "905 b", ev)
    return make_event(obs, "icing", c.t_s, sh, "icing", margin, sig,
                      "Westridge 1 b" if sponge else "905 b", ev)
