"""Delayed offside (IPC 904) after an offside zone entry.

904 a: an attacker preceded the puck in but a defending player is able to play
it: the linesman signals a delayed offside -- here when the first touch after the
entry is the defending team's; if that touch is the goalkeeper's save of a shot
on goal (the puck was heading between the posts), 904 a's exception applies and
offside is called at once.
904 b1: nullified when the defending team moves the puck into the neutral zone
(the whole puck past the line's neutral edge, ``dir * x + r < dir * near_x``).
904 b2 / c: nullified when all attackers have cleared the zone -- every attacker
has blade contact with the blue line or is out (max offside depth <= 0).
904 d: an attacker touching the puck before that: offside is called.

Events (type ``delayed_offside``, not a contract type; docs/rules.md):
``signal`` at the entry, then ``nullified`` (evidence ``reason``: ``tag_up`` /
``puck_cleared``) or ``offside`` (the call, at the attacker's touch).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rulesfromvideo.rules.common import (
    down_crossings, make_event, next_touch_after, team_players,
)
from rulesfromvideo.rules.context import RuleContext


def _max_depth_track(ctx: RuleContext, end: int, team: str) -> tuple[np.ndarray, np.ndarray]:
    """(F,) max over ``team``'s players of their offside depth, and (F,) all-present mask."""
    obs = ctx.obs
    far = ctx.blue_far_x(end)
    ks = team_players(obs, team)
    if not ks:
        return np.full(obs.n_frames, np.nan), np.zeros(obs.n_frames, bool)
    d = np.min(end * (obs.blades_rink_m[ks, :, :, 0] - far), axis=2)  # (P, F)
    present = np.isfinite(d).all(axis=0)
    with np.errstate(all="ignore"):
        m = np.nanmax(np.where(np.isfinite(d), d, -np.inf), axis=0)
    m[~np.isfinite(m)] = np.nan
    return m, present


def _shot_on_goal(ctx: RuleContext, end: int, i: int) -> bool:
    """Whether the puck at frame ``i`` heads between the posts of the goal at ``end``."""
    obs = ctx.obs
    p = obs.puck_xy_rink_m
    j = min(i + 2, obs.n_frames - 1)
    if j == i or not np.isfinite(p[[i, j]]).all():
        return False
    v = (p[j] - p[i]) / (obs.t_s[j] - obs.t_s[i])
    gx = ctx.goal_inner_x(end)
    if end * v[0] <= 0:
        return False
    y = p[i, 1] + v[1] * (gx - p[i, 0]) / v[0]
    return abs(y) < ctx.post_inner_y_m


def delayed_offside(ctx: RuleContext, entry: dict[str, Any], end: int) -> list[dict[str, Any]]:
    """904 events following one offside ``zone_entry`` event; updates its evidence.

    Args:
        entry: the zone_entry event (verdict ``offside``); its evidence gains
            ``delayed``, ``nullified_t`` and ``nullified_by``.
        end: the end the attacking team attacks.
    """
    obs = ctx.obs
    att = entry["team"]
    dfn = ctx.opponent(att)
    t0 = entry["t"]
    i0 = int(np.searchsorted(obs.t_s, t0, side="right")) - 1
    nt = next_touch_after(obs, i0)
    ev_e = entry["evidence"]
    if nt is None or obs.player_team[int(obs.touch_player[nt])] != dfn:
        ev_e["delayed"] = False
        return []
    k = int(obs.touch_player[nt])
    if obs.player_role[k] == "goalkeeper" and _shot_on_goal(ctx, end, i0):
        ev_e["delayed"] = False
        ev_e["delayed_exception"] = "904 a: shot on goal played by the goalkeeper"
        return []
    ev_e["delayed"] = True
    out = [make_event(obs, "delayed_offside", t0, att, "signal", entry["margin_m"],
                      entry["evidence"].get("sigma_m") or 0.0, "904 a",
                      {"entry_t": t0, "defender_touch": {"player": obs.player_ids[k],
                                                         "t": float(obs.t_s[nt])}})]
    # Nullification candidates after the entry.
    key = ("max_depth", end, att)
    if key not in ctx.cache:
        ctx.cache[key] = _max_depth_track(ctx, end, att)
    m, present = ctx.cache[key]
    seg = slice(i0 + 1, obs.n_frames)
    ts = obs.t_s[seg]
    rearm = ctx.rearm_m()
    tag = down_crossings(m[seg], ts, rearm)
    near = ctx.blue_near_x(end)
    lead = ctx.puck_x_signed(end) + ctx.puck_radius_m - end * near
    cleared = down_crossings(lead[seg], ts, rearm)
    cands = []
    if tag:
        cands.append((tag[0].t_s, "tag_up", tag[0]))
    if cleared:
        cands.append((cleared[0].t_s, "puck_cleared", cleared[0]))
    t_null, how, cr = min(cands, key=lambda c: c[0]) if cands else (np.inf, None, None)
    # 904 d: an attacker touching the puck before nullification -> the call.
    tf = obs.touch_frames()
    att_touch = [f for f in tf if f > i0 and obs.t_s[f] < t_null
                 and obs.player_team[int(obs.touch_player[f])] == att]
    if att_touch:
        f = int(att_touch[0])
        kk = int(obs.touch_player[f])
        margin = float(m[f]) if np.isfinite(m[f]) else None
        sig = float(obs.sigma_smoothed_m[f]) * np.sqrt(2)
        verdict = "offside" if margin is not None and margin > 0 else "inconclusive"
        ev_e["nullified_t"] = None
        out.append(make_event(obs, "delayed_offside", float(obs.t_s[f]), att, verdict, margin, sig,
                              "904 d", {"reason": "attacker_touched_puck",
                                        "player": obs.player_ids[kk],
                                        "decisive_frame": int(obs.frame[f])}))
        return out
    if how is None:
        ev_e["nullified_t"] = None
        return out
    ev_e["nullified_t"] = round(float(t_null), 6)
    ev_e["nullified_by"] = how
    j = i0 + 1 + cr.i + 1  # the frame after the crossing
    j = min(j, obs.n_frames - 1)
    if how == "tag_up":
        margin = -float(m[j]) if np.isfinite(m[j]) else None
        rule = "904 b2, c"
        extra = {"all_attackers_present": bool(present[j])}
        verdict = "nullified" if present[j] else "inconclusive"
    else:
        margin = -float(lead[j]) if np.isfinite(lead[j]) else None
        rule = "904 b1"
        extra = {}
        verdict = "nullified"
    sig = float(obs.sigma_smoothed_m[j]) * np.sqrt(2)
    out.append(make_event(obs, "delayed_offside", float(t_null), att, verdict, margin, sig, rule,
                          {"reason": how, "decisive_frame": int(obs.frame[j]),
                           "frame_interval": [int(obs.frame[j - 1]), int(obs.frame[j])], **extra},
                          conf=1.0 if verdict == "nullified" else 0.0))
    return out
