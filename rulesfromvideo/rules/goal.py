"""Goal (IPC 906 1; the sponge profile applies it by analogy).

906 1: a goal needs the puck between the posts, below the crossbar and *entirely*
across the goal line. Depth = ``dir * x - r - dir * goal_outer_x`` (> 0: the whole
puck is past the line's outer edge). One event per arrival of the puck at the
goal line between the posts (its leading edge reaching the line's inner edge
with the centre between the posts, or within K sigma of a post's inner edge: a
puck at the post gets a call, or ``inconclusive``, rather than silence):

* ``margin_m = min(max depth, lateral clearance)``, max depth sub-frame (a "V" or a
  parabola through the frames around the maximum), lateral clearance
  ``= post inner y - |y| - r``: for a puck that goes entirely across, the least over
  its passage through the goal mouth (from its arrival at the line to the instant it is
  entirely across: "put between the goal posts ... and entirely across the goal line");
  once in the net its lateral position no longer counts (an NHL or IIHF net is wider at
  the back than between the posts). For a puck that stays short, at its deepest point;
* ``t`` = the instant the depth reaches 0 for a goal, else the instant of maximum depth;
* height: with ``z`` known the puck must pass below the crossbar
  (``z + thickness / 2 < 1.22``); without ``z`` the evidence says the crossbar
  was not checked;
* the deepest point must be measured; where the track coasted (unmeasured) deeper, a
  measured frame with the whole puck across still decides a goal (its depth the margin),
  never a no_goal;
* a puck crossing the line from the outer side (behind the net) is ``no_goal``
  with evidence ``from_behind``;
* an arrival whose step across the line is physically impossible (the track jumps between
  objects there: it left a puck lying in the net for a mark outside and came back) is no
  sighting of the puck passing the goal mouth: ``inconclusive``, never a goal;
* a puck lost from view in front of the goal mouth while moving into it (behind a
  goalkeeper's pad, through the net in front of a goal camera) may have arrived unseen:
  when the line lies within its reach at its last speed before it is measured again, that
  is an arrival too, ``inconclusive`` at the instant it could first have reached the line.

Odd input (puck missing around the line, NaNs) gives ``inconclusive``, never an error.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rulesfromvideo.rules.common import (
    K_SIGMA, PUCK_HALF_THICKNESS_M, Crossing, down_crossings, interp_at, interp_time,
    last_touch_before, make_event, measured_near, peak, puck_jumps_near, up_crossings,
)
from rulesfromvideo.rules.context import RuleContext


def detect_goals(ctx: RuleContext) -> list[dict[str, Any]]:
    """All ``goal`` events (906 1), both ends, sorted by t."""
    obs = ctx.obs
    r = ctx.puck_radius_m
    post = ctx.post_inner_y_m
    p = obs.puck_xy_rink_m
    y = p[:, 1]
    out: list[dict[str, Any]] = []
    rearm = ctx.rearm_m()
    for end in (1, -1):
        att = ctx.team_attacking(end)
        inner, outer = ctx.goal_inner_x(end), ctx.goal_outer_x(end)
        lead = ctx.puck_x_signed(end) + r - end * inner
        depth = ctx.puck_x_signed(end) - r - end * outer
        arrivals = []

        def at_mouth(c: Crossing) -> bool:
            # Between the posts, or too near a post to tell: a puck at the post arrives there
            # too, and gets its call (or `inconclusive`) from the lateral clearance.
            return abs(float(interp_at(y, c))) < post + K_SIGMA * float(obs.sigma_smoothed_m[c.i])

        for c in up_crossings(lead, obs.t_s, rearm):
            if at_mouth(c) and interp_at(depth, c) < 0:
                arrivals.append((c.t_s, "front", c))
        # A puck stopped or bounced between two frames may touch the line unseen:
        # local maxima whose sub-frame peak reaches the line are arrivals too.
        for km in np.nonzero((lead[1:-1] < 0) & (lead[1:-1] >= lead[:-2]) & (lead[1:-1] >= lead[2:]))[0] + 1:
            tp, vp, _ = peak(lead, obs.t_s, int(km))
            # Within k sigma of the line counts: with noise the peak may be hidden. A peak of
            # coasted or gap-filled positions alone is no sighting (a lost puck moving into the
            # mouth is ``_lost_arrivals``'s).
            if vp >= -K_SIGMA * float(obs.sigma_smoothed_m[km]) and measured_near(obs, int(km)):
                i0 = int(np.clip(np.floor((tp - obs.t_s[0]) * obs.fps), 0, obs.n_frames - 2))
                frac = float(np.clip((tp - obs.t_s[i0]) * obs.fps, 0, 1))
                c = Crossing(i0, frac, tp)
                if at_mouth(c):
                    arrivals.append((tp, "front", c))
        for c in down_crossings(depth, obs.t_s, rearm):
            if at_mouth(c):
                arrivals.append((c.t_s, "behind", c))
        seen_t = [a[0] for a in arrivals]
        seen_again: dict[int, int] = {}  # lost arrival's frame -> frame the puck is measured again
        for t_arr, c, k_back in _lost_arrivals(ctx, end, lead):
            if not any(obs.t_s[c.i] <= ts <= obs.t_s[k_back] for ts in seen_t):
                arrivals.append((t_arr, "lost", c))
                seen_again[c.i] = k_back
        arrivals.sort(key=lambda a: a[0])
        busy_until = -np.inf
        for ta, how, c in arrivals:
            if ta < busy_until:
                continue  # still the previous arrival's visit to the goal mouth
            # The visit lasts until the puck is back in front of the line (seen again, for a lost one).
            k0 = seen_again[c.i] if how == "lost" else c.i + 1
            after = np.nonzero((np.arange(obs.n_frames) > k0) & (lead < -rearm))[0]
            k_end = int(after[0]) if len(after) else obs.n_frames - 1
            busy_until = float(obs.t_s[k_end])
            out.append(_lost_event(ctx, att, c, seen_again[c.i], lead) if how == "lost"
                       else _evaluate(ctx, end, att, how, c, k_end, depth, lead))
    out.sort(key=lambda e: e["t"])
    return out


# A puck unmeasured for fewer frames than this is bridged by the track itself.
LOST_MIN_FRAMES = 3
# Its speed towards the line before it was lost, from up to this many frames back.
LOST_SPEED_FRAMES = 3


def _lost_arrivals(ctx: RuleContext, end: int, lead: np.ndarray) -> list[tuple[float, Crossing, int]]:
    """Arrivals at the goal line that the footage may have hidden (906 1).

    The puck, last measured on frame ``a`` short of the line (``lead`` < 0) and moving
    towards it, goes unmeasured until frame ``b`` (or the clip's end) for at least
    ``LOST_MIN_FRAMES``; at its speed then it could reach the line's inner edge before ``b``,
    between the posts (within K sigma).

    Returns:
        (instant it could first have arrived, s; Crossing on frame ``a``; frame ``b`` or the
        last frame) for each such gap.
    """
    obs = ctx.obs
    p = obs.puck_xy_rink_m
    m = np.flatnonzero(obs.puck_measured & np.isfinite(lead))
    out = []
    for n, a in enumerate(m):
        b = int(m[n + 1]) if n + 1 < len(m) else obs.n_frames - 1
        if b - a < LOST_MIN_FRAMES or not lead[a] < 0:
            continue
        prev = m[(m < a) & (m >= a - LOST_SPEED_FRAMES)]
        if not len(prev):
            continue
        j = int(prev[0])
        v = (p[a] - p[j]) / (obs.t_s[a] - obs.t_s[j])
        v_in = end * float(v[0])
        if not v_in > 0:
            continue
        t_arr = float(obs.t_s[a]) - float(lead[a]) / v_in
        if t_arr > obs.t_s[b]:
            continue  # too slow to reach the line before it is seen again
        y_arr = float(p[a, 1] + v[1] * (t_arr - obs.t_s[a]))
        if abs(y_arr) >= ctx.post_inner_y_m + K_SIGMA * float(obs.sigma_smoothed_m[a]):
            continue
        out.append((t_arr, Crossing(int(a), 0.0, t_arr), b))
    return out


def _deepest_measured(obs, seg: np.ndarray, depth: np.ndarray) -> int | None:
    """The frame of ``seg`` with the puck deepest across the line among those measured, with the
    track not jumping there (``measured_near``), or None."""
    ok = [int(k) for k in seg if obs.puck_measured[k] and np.isfinite(depth[k]) and measured_near(obs, int(k))]
    return max(ok, key=lambda k: float(depth[k])) if ok else None


def _in_net_measured(ctx: RuleContext, end: int, seg: np.ndarray, depth: np.ndarray) -> int | None:
    """The frame of ``seg`` on which the puck, measured (its track not jumping there,
    ``measured_near``), lies inside the goal frame at ``end`` by K sigma: entirely across the line,
    short of the frame's depth (218 c) and within the posts; the surest such frame, or None."""
    obs = ctx.obs
    r = ctx.puck_radius_m
    centre = (ctx.goal_inner_x(end) + ctx.goal_outer_x(end)) / 2.0
    best, best_z = None, 0.0
    for k in seg:
        k = int(k)
        sig = float(obs.sigma_smoothed_m[k])
        x, y = obs.puck_xy_rink_m[k]
        if not (obs.puck_measured[k] and np.isfinite(depth[k]) and sig > 0):
            continue
        inside = (depth[k] >= K_SIGMA * sig and end * x - end * centre + r <= ctx.goal_depth_m + K_SIGMA * sig
                  and abs(y) + r + K_SIGMA * sig <= ctx.post_inner_y_m)
        if inside and measured_near(obs, k) and depth[k] / sig > best_z:
            best, best_z = k, float(depth[k] / sig)
    return best


def _depth_measured(obs, depth: np.ndarray, k: int, span: int = 3) -> bool:
    """Whether the puck's depth on frame ``k`` rests on measurements: ``k`` measured, or between
    a measured frame at most ``span`` frames before and one at most ``span`` after whose chord
    gives the same depth within K sigma (and the track does not jump there, ``measured_near``).

    A track coasted on while the puck was hidden is not evidence: on a render (no_goal_on_line,
    broadcast, seed 606) the puck stopped on the line behind the goalkeeper, the track coasted
    it 0.6 m into the net for nine frames and was measured again in front of the line one frame
    after its deepest point — a measurement that near, alone, had made the coast decide a goal.
    """
    if not measured_near(obs, k, span):
        return False
    if obs.puck_measured[k]:
        return True
    ok = obs.puck_measured & np.isfinite(depth)
    before = [j for j in range(k - 1, max(-1, k - span - 1), -1) if ok[j]]
    after = [j for j in range(k + 1, min(obs.n_frames, k + span + 1)) if ok[j]]
    if not before or not after:
        return False
    lo, hi = before[0], after[0]
    w = float((obs.t_s[k] - obs.t_s[lo]) / (obs.t_s[hi] - obs.t_s[lo]))
    chord = float(depth[lo] + w * (depth[hi] - depth[lo]))
    sig = float(max(obs.sigma_smoothed_m[lo], obs.sigma_smoothed_m[hi], obs.sigma_smoothed_m[k]))
    return abs(float(depth[k]) - chord) <= K_SIGMA * sig


def _lost_event(ctx: RuleContext, att: str, c: Crossing, k_back: int, lead: np.ndarray) -> dict[str, Any]:
    """The ``inconclusive`` goal of a puck lost moving into the goal mouth (``_lost_arrivals``)."""
    obs = ctx.obs
    a = c.i
    ev: dict[str, Any] = {
        "reason": "puck lost from view moving into the goal mouth: it may have crossed the line unseen",
        "last_seen_frame": int(obs.frame[a]), "seen_again_frame": int(obs.frame[k_back]),
        "distance_to_line_m": -float(lead[a]), "puck_xy_rink_m": obs.puck_xy_rink_m[a],
        "decisive_frame": int(obs.frame[a])}
    lt = last_touch_before(obs, a)
    if lt is not None:
        k = int(obs.touch_player[lt])
        ev["last_touch"] = {"player": obs.player_ids[k], "team": str(obs.player_team[k])}
    return make_event(obs, "goal", c.t_s, att, "inconclusive", None, np.inf, "906 1", ev)


def _evaluate(ctx: RuleContext, end: int, att: str, how: str, c, k_end: int,
              depth: np.ndarray, lead: np.ndarray) -> dict[str, Any]:
    obs = ctx.obs
    r = ctx.puck_radius_m
    post = ctx.post_inner_y_m
    p = obs.puck_xy_rink_m
    i = c.i
    sig = float(obs.sigma_smoothed_m[i])
    ev: dict[str, Any] = {"frame_interval": [int(obs.frame[i]), int(obs.frame[i + 1])],
                          "goal_line_outer_x_m": ctx.goal_outer_x(end)}
    if how == "behind":
        clear = post - abs(float(interp_at(p[:, 1], c))) - r
        ev.update({"from_behind": True, "lateral_clearance_m": clear,
                   "puck_xy_rink_m": interp_at(p, c), "decisive_frame": int(obs.frame[i])})
        margin = min(0.0, clear)
        # Coming from behind is decisive when the puck was *measured* clearly behind the line
        # before and its track does not jump at the crossing: a track coasted through the
        # net and re-acquired in front would otherwise "come from behind".
        lo = max(0, i - int(obs.fps))
        win = depth[lo:i + 1]
        seen = obs.puck_measured[lo:i + 1] & np.isfinite(win)
        was_behind = float(np.max(win[seen])) if seen.any() else np.nan
        verdict = "no_goal" if np.isfinite(was_behind) and was_behind > K_SIGMA * sig else "inconclusive"
        if verdict == "no_goal" and not measured_near(obs, i):
            verdict = "inconclusive"
        if verdict == "inconclusive":
            ev["reason"] = "puck not measured behind the line (or its track jumps) where it came back across"
        return make_event(obs, "goal", c.t_s, att, verdict, margin, sig, "906 1", ev,
                          conf=1.0 if verdict == "no_goal" else None)
    if puck_jumps_near(obs, i, span=0):
        # The crossing is interpolated along a teleport: where and whether the puck passed
        # between the posts was not seen (a measured frame deep in the net decides nothing).
        ev["reason"] = "the puck track jumps across the goal line: the puck was not seen arriving"
        return make_event(obs, "goal", c.t_s, att, "inconclusive", None, np.inf, "906 1", ev)
    seg = np.arange(i, k_end + 1)
    dseg = depth[seg]
    if not np.isfinite(dseg).any():
        ev["reason"] = "puck not tracked at the goal line"
        return make_event(obs, "goal", c.t_s, att, "inconclusive", None, np.inf, "906 1", ev)
    km = int(seg[int(np.nanargmax(dseg))])
    tm, dmax, _ = peak(depth, obs.t_s, km)
    t = tm
    cr = None
    if dmax > 0:
        ups = up_crossings(depth[i:km + 1], obs.t_s[i:km + 1])
        if ups:
            cr = ups[0]
            t = cr.t_s
        elif depth[i] >= 0:
            t = c.t_s
        elif depth[km] < 0:
            # the sampled frames never show it across: the crossing is on the V's rising side
            j = int(np.clip(np.floor((tm - obs.t_s[0]) * obs.fps), 1, obs.n_frames - 1))
            sb = (depth[j] - depth[j - 1]) * obs.fps
            if np.isfinite(sb) and sb > 0:
                t = float(tm - dmax / sb)
    fi = int(np.searchsorted(obs.t_s, t, side="right")) - 1
    fi = int(np.clip(fi, 0, obs.n_frames - 1))
    verdict_sigma = float(obs.sigma_smoothed_m[km])  # the call rests on the deepest point ...
    if dmax > 0:
        # ... and on where the puck passed the goal mouth: from its arrival to the instant it
        # is entirely across (906 1), not where it rolled to inside the net.
        ys = [interp_at(p[:, 1], c), interp_time(p[:, 1], obs, t)]
        ys += [p[k, 1] for k in range(i + 1, fi + 1)]
        ys = np.abs(np.asarray(ys, dtype=float))
        clear = float(post - np.nanmax(ys) - r) if np.isfinite(ys).any() else None
        clear_at = "goal mouth passage"
        verdict_sigma = max(verdict_sigma, float(np.nanmax(obs.sigma_smoothed_m[i:fi + 2])))
    else:
        clear = post - abs(float(interp_time(p[:, 1], obs, tm))) - r
        clear_at = "deepest point"
    if clear is None:
        ev.update({"max_depth_m": dmax, "reason": "puck's lateral position unknown where it passed the goal line"})
        return make_event(obs, "goal", t, att, "inconclusive", None, verdict_sigma, "906 1", ev)
    margin = min(dmax, clear)
    z = float(obs.puck_z_m[fi]) if np.isfinite(obs.puck_z_m[fi]) else None
    ev.update({"max_depth_m": dmax, "lateral_clearance_m": clear, "lateral_clearance_at": clear_at,
               "t_max_depth": tm,
               "decisive_frame": int(obs.frame[km]), "puck_xy_rink_m": p[km],
               "puck_measured_at_max": bool(obs.puck_measured[km])})
    if cr is not None:
        ev["crossing_frame_interval"] = [int(obs.frame[i + cr.i]), int(obs.frame[i + cr.i + 1])]
    if z is None:
        ev["height"] = "unknown: tracks carry no z, the crossbar (1.22 m) was not checked"
        below = True
    else:
        top = z + PUCK_HALF_THICKNESS_M
        ev["z_m"] = z
        ev["crossbar_clearance_m"] = ctx.goal_height_m - top
        below = top < ctx.goal_height_m
    lt = last_touch_before(obs, fi)
    if lt is not None:
        k = int(obs.touch_player[lt])
        ev["last_touch"] = {"player": obs.player_ids[k], "team": str(obs.player_team[k])}
    if dmax > 0 and below and clear is not None and abs(clear) < K_SIGMA * verdict_sigma:
        # 906 1's "between the goal posts" where the passage was not seen well enough to tell: a
        # puck measured lying inside the goal frame went in by its mouth (the frame and the net
        # close every other way), and that measurement, not the passage, carries the call.
        kn = _in_net_measured(ctx, end, seg, depth)
        if kn is not None:
            sig_n = float(obs.sigma_smoothed_m[kn])
            ev.update({"decisive_frame": int(obs.frame[kn]), "puck_xy_rink_m": p[kn],
                       "measured_depth_m": float(depth[kn]), "lateral_clearance_at": "inside the goal frame",
                       "note": "the puck lies inside the goal frame on a measured frame: it passed between the posts"})
            return make_event(obs, "goal", t, att, "goal", float(depth[kn]), sig_n, "906 1", ev)
    if not _depth_measured(obs, depth, km, span=3):
        kg = _deepest_measured(obs, seg, depth)
        if dmax > 0 and kg is not None and below:
            # The deepest point was inferred (a track coasted on into the net), but a measured
            # frame already shows the puck entirely across: that frame decides a goal. It never
            # decides a no_goal: the unmeasured frames may hold a deeper puck.
            sig_g = max(verdict_sigma, float(obs.sigma_smoothed_m[kg]))
            margin_g = min(float(depth[kg]), clear)
            if margin_g > 0 and margin_g >= K_SIGMA * sig_g:
                ev.update({"decisive_frame": int(obs.frame[kg]), "puck_xy_rink_m": p[kg],
                           "measured_depth_m": float(depth[kg]),
                           "note": "deepest point not measured: the puck is entirely across on a measured frame"})
                return make_event(obs, "goal", t, att, "goal", margin_g, sig_g, "906 1", ev)
        ev["reason"] = "puck not measured (or its track jumps) at its deepest point"
        return make_event(obs, "goal", t, att, "inconclusive", margin, verdict_sigma, "906 1", ev)
    if z is not None and not below:
        bar = ctx.goal_height_m - (z + PUCK_HALF_THICKNESS_M)
        if bar < -K_SIGMA * verdict_sigma:
            return make_event(obs, "goal", t, att, "no_goal", margin, verdict_sigma, "906 1",
                              {**ev, "over_crossbar": True})
        return make_event(obs, "goal", t, att, "inconclusive", margin, verdict_sigma, "906 1", ev)
    if margin >= K_SIGMA * verdict_sigma and margin > 0:
        verdict = "goal"
    elif margin <= -K_SIGMA * verdict_sigma and margin < 0:
        verdict = "no_goal"
    else:
        verdict = "inconclusive"
    return make_event(obs, "goal", t, att, verdict, margin, verdict_sigma, "906 1", ev)
