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

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import shapely
from shapely.geometry import LineString

from rulesfromvideo.rules.common import (
    INFERRED_CONTACT_SIGMA_M, K_SIGMA, SLEDGE_MAX_SPEED_MPS, Crossing, Release, contact_point, controller_at,
    flight_release, interp_at, interp_time, make_event, measured_near, moves_with, nearest_frame, point_depth,
    same_puck_possible, team_players, tri, up_crossings,
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
    at_rest = (v < FACEOFF_REST_SPEED_MPS + 3 * obs.sigma_random_m[f] * obs.fps * 1.5)
    on_spot = d[:-1] < FACEOFF_SPOT_RADIUS_M if len(d) > 1 else d < FACEOFF_SPOT_RADIUS_M
    if len(prev) == 0 and d[0] < FACEOFF_SPOT_RADIUS_M:
        return True  # the clip starts with the puck on a spot: a face-off
    return bool(np.any(on_spot & at_rest[:len(on_spot)]))


def _d5(ctx: RuleContext, i_c: int, t_c: float, i_x: int, t_x: float, dfn: str) -> tuple[bool | None, float, Any]:
    """905 d5 proxy: min slack ``|p(tau) - q| - reach(tau)`` over opponents (< 0: could play).

    905 d5 leaves the goalkeeper out, and the footage's role label is the tracker's guess: a
    "skater" whose seat stays in his own goal crease from the contact to the crossing sits
    where the goalkeeper sits. He alone can only make the exception undecided, never apply it.

    "No opponent could play it" needs every opponent placed. One not seen at the contact (a
    camera that follows the puck leaves the far end out) is placed by his sightings
    (``_unseen_slack_bound``), and a skater of unknown team may be an opponent: either keeps the
    exception undecided unless his bound rules him out. So does a defending team with fewer
    skater tracks in the clip than it has skaters on the ice (GAME.json ``strength``): one of
    them was never seen. On a render (``icing_opponent_could_play``, seed 523) the defender
    who could play stood deep in the zone out of the picture until after the contact, and the
    call was a wrong decisive icing.
    """
    obs = ctx.obs
    p = obs.puck_xy_rink_m
    frames = np.arange(i_c, i_x + 1)
    taus = obs.t_s[frames]
    path = p[frames]
    ok = np.isfinite(path).all(axis=1) & (taus >= t_c - 1e-9)
    reach = D5_REACH_M + D5_SPEED_MPS * (taus[ok] - t_c)
    crease = ctx.crease(-ctx.attack[dfn])
    sig = float(obs.sigma_random_m[i_c]) * np.sqrt(2) + D5_SPEED_MPS * obs.dt_s / 2
    # best: the least slack of the defending skaters; maybe: of those who can only make it undecided
    # (a "skater" in the goalkeeper's place, a skater of unknown team)
    best, who, maybe, unplaced = np.inf, None, np.inf, False
    defenders = team_players(obs, dfn, skaters_only=True)
    unknown = set(team_players(obs, "", skaters_only=True))
    for k in defenders + sorted(unknown):
        q = interp_time(obs.blades_rink_m[k].mean(axis=1), obs, t_c)  # his seat at the contact
        if not np.isfinite(q).all():
            if ok.any() and tri(-_unseen_slack_bound(obs, k, t_c, path[ok], reach), sig) is not False:
                unplaced = True  # not seen then, and his sightings do not rule him out
            continue
        slack = np.linalg.norm(path[ok] - q, axis=1) - reach
        if not len(slack):
            continue
        seats = obs.blades_rink_m[k, frames].mean(axis=1)
        seats = seats[np.isfinite(seats).all(axis=1)]
        if k in unknown or (len(seats) and bool(np.all(point_depth(seats, crease) > 0))):
            maybe = min(maybe, float(slack.min()))
        elif slack.min() < best:
            best, who = float(slack.min()), obs.player_ids[k]
    verdict = tri(-best, sig) if np.isfinite(best) else False
    n_on_ice = ctx.skaters_on_ice(dfn, t_c)
    if verdict is not True and (unplaced or len(defenders) < n_on_ice
                                or (np.isfinite(maybe) and tri(-maybe, sig) is not False)):
        verdict = None  # someone who may be an opponent able to play it is not placed
    return verdict, best, who


def _unseen_slack_bound(obs, k: int, t_c: float, path: np.ndarray, reach: np.ndarray) -> float:
    """A lower bound on ``_d5``'s slack of player ``k``, not seen at the contact ``t_c`` (s):
    at every sighting (t_j, q_j) his seat at the contact lay within ``SLEDGE_MAX_SPEED_MPS``
    · |t_c - t_j| of q_j, so his distance to the path point p is at least
    max_j (|p - q_j| - that radius).

    Args:
        path: (T, 2) the puck's path after the contact, rink m; ``reach``: (T,) his reach then, m.

    Returns:
        The bound's minimum over the path, m (-inf when he is never seen).
    """
    seen = np.flatnonzero(np.isfinite(obs.blades_rink_m[k]).all(axis=(1, 2)))
    if not len(seen):
        return -np.inf
    q = obs.blades_rink_m[k, seen].mean(axis=1)  # (J, 2) his seat at each sighting
    radius = SLEDGE_MAX_SPEED_MPS * np.abs(obs.t_s[seen] - t_c)  # (J,)
    dist = np.linalg.norm(path[:, None] - q[None], axis=2) - radius[None]  # (T, J)
    return float(np.min(dist.max(axis=1) - reach))


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
            sig_v = float(obs.sigma_random_m[f]) * np.sqrt(2) / (obs.t_s[b] - obs.t_s[a])
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
        for c, i_next, how in _unseen_crossings(ctx, end, s):
            ev = _evaluate(ctx, end, sh, dfn, c, goals, score_at, icing, names, i_seen_again=i_next,
                           seen_again_how=how)
            if ev is not None:
                out.append(ev)
    return out


#: A puck that left view slower than this towards the goal line: its crossing instant is
#: taken as the gap's middle, m/s.
UNSEEN_MIN_SPEED_MPS = 3.0
#: The puck must have been measured within this many frames before it was lost (and once more
#: within 5 frames before that).
UNSEEN_COAST_FRAMES = 10
#: A puck seen again short of the line, coming back: its straight paths in and out (fitted to
#: at most ``REBOUND_FIT_FRAMES`` measured frames each side of the gap) must meet, at one
#: instant of the gap, within ``REBOUND_MEET_M`` of each other ...
REBOUND_FIT_FRAMES = 8
REBOUND_MEET_M = 0.6
#: ... beyond the goal line and within this distance of the boards, m (a bounce off the end
#: boards; a pass a player stopped and played back meets its return where he stood).
REBOUND_BOARDS_M = 1.0


def _unseen_crossings(ctx: RuleContext, end: int, s: np.ndarray) -> list[tuple[Crossing, int, str]]:
    """Goal-line crossings hidden in a gap of the puck track (905 b out of view).

    A broadcast camera lags a long shot: the puck leaves the picture short of the goal line
    and comes back off the end boards. For each run of unknown frames after a puck short of
    the line (``s < 0``), last measured at most ``UNSEEN_COAST_FRAMES`` before (and once more
    shortly before that), and next measured beyond it (``s >= 0`` on two measured frames, a
    step a puck can make): it crossed in the gap. The instant is its arrival at the speed it
    left with, or the gap's middle when it left slower than ``UNSEEN_MIN_SPEED_MPS``.

    A puck seen again short of the line crossed it too when it came back off the end boards
    (``_rebounded_off_end_boards``): its paths in and out meet at the boards beyond the goal
    line at one instant of the gap. A puck that only *may* have reached the line (it left
    towards it and came back short of it, the paths meeting elsewhere or never) gives
    nothing: on the tuning and held-out renders that added four phantom icings (passes into
    the zone that a player stopped out of view) for two real ones.

    Returns:
        (crossing at the last frame before the gap with the estimated ``t_s``, index of the
        first frame after it, how it is known to have crossed).
    """
    obs = ctx.obs
    n = obs.n_frames
    fin = np.isfinite(s)
    out: list[tuple[Crossing, int, str]] = []
    a = 1
    while a < n:
        if fin[a] or not fin[a - 1] or s[a - 1] >= 0:
            a += 1
            continue
        b = a
        while b < n and not fin[b]:
            b += 1
        lo = max(0, a - UNSEEN_COAST_FRAMES - 5)
        meas = np.flatnonzero(obs.puck_measured[lo:a]) + lo
        last = a - 1
        seen_beyond = (b + 1 < n and s[b] >= 0 and s[b + 1] >= 0 and obs.puck_measured[b]
                       and obs.puck_measured[b + 1] and same_puck_possible(obs, last, b))
        if (len(meas) >= 2 and last - meas[-1] <= UNSEEN_COAST_FRAMES
                and (seen_beyond or _rebounded_off_end_boards(ctx, end, meas, b))):
            i1, i0 = int(meas[-1]), int(meas[0])
            v = float((s[i1] - s[i0]) / max(obs.t_s[i1] - obs.t_s[i0], 1e-9))  # towards the line, m/s
            t_gap = (float(obs.t_s[last]), float(obs.t_s[b]))
            t = t_gap[0] - float(s[last]) / v if v >= UNSEEN_MIN_SPEED_MPS else 0.5 * sum(t_gap)
            how = "seen beyond it afterwards" if seen_beyond else "came back off the end boards"
            out.append((Crossing(last, 0.0, float(np.clip(t, *t_gap))), b, how))
        a = b + 1
    return out


def _straight_path(obs, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Least-squares straight path through the puck on frames ``idx`` (at least 2).

    Returns:
        ((2,) position at the mean time of ``idx``, m; (2,) velocity, m/s).
    """
    t = obs.t_s[idx] - obs.t_s[idx].mean()
    xy = obs.puck_xy_rink_m[idx]
    v = (t[:, None] * (xy - xy.mean(axis=0))).sum(axis=0) / max(float((t * t).sum()), 1e-12)
    return xy.mean(axis=0), v


def _rebounded_off_end_boards(ctx: RuleContext, end: int, meas_before: np.ndarray, b: int) -> bool:
    """Whether the puck lost after frames ``meas_before`` and seen again from frame ``b`` came
    back off the end boards at ``end`` (so it crossed the goal line in the gap).

    Its straight path in (the last ``REBOUND_FIT_FRAMES`` measured frames before the gap) and
    its path out (the first ones after it, moving away from the end, no jump between them)
    are followed into the gap; at their closest instant they must be within
    ``REBOUND_MEET_M`` of each other, beyond the goal line and within ``REBOUND_BOARDS_M`` of
    the boards. Both paths are independent measurements, so a meeting in space and time at
    the boards is the bounce, not chance; a pass stopped by a player and played back meets
    its return where he stood, a puck lying still never comes back.
    """
    obs = ctx.obs
    after = np.flatnonzero(obs.puck_measured[b:b + 2 * REBOUND_FIT_FRAMES]) + b
    after = after[:REBOUND_FIT_FRAMES]
    before = np.asarray(meas_before)[-REBOUND_FIT_FRAMES:]
    if len(after) < 2 or len(before) < 2 or after[0] != b:
        return False
    if any(not same_puck_possible(obs, int(i), int(j)) for i, j in zip(after[:-1], after[1:])):
        return False
    p_in, v_in = _straight_path(obs, before)
    p_out, v_out = _straight_path(obs, after)
    if end * v_in[0] <= 0 or end * v_out[0] >= 0:
        return False  # not going towards the end and coming back from it
    t_in, t_out = float(obs.t_s[before].mean()), float(obs.t_s[after].mean())
    # Gap between the paths at time t: d0 + dv * t (linear), closest within the gap.
    d0 = (p_in - v_in * t_in) - (p_out - v_out * t_out)
    dv = v_in - v_out
    t_lo, t_hi = float(obs.t_s[before[-1]]), float(obs.t_s[b])
    t = float(np.clip(-(d0 @ dv) / max(float(dv @ dv), 1e-12), t_lo, t_hi))
    if float(np.linalg.norm(d0 + dv * t)) > REBOUND_MEET_M:
        return False
    meet = 0.5 * (p_in + v_in * (t - t_in) + p_out + v_out * (t - t_out))
    if end * meet[0] - ctx.puck_radius_m < end * ctx.goal_outer_x(end):
        return False  # met short of the goal line
    boards = ctx.cache.get("boards_ring")
    if boards is None:
        boards = ctx.cache["boards_ring"] = shapely.LinearRing(ctx.rink.boards_outline_xy())
    return bool(boards.distance(shapely.Point(meet)) <= REBOUND_BOARDS_M)


@dataclass
class _Contact:
    """The shot's point of last contact (905 a), as far as the footage shows it.

    Attributes:
        shooter: player index, or None when no tracked player could have shot it.
        t_lo_s, t_hi_s: the contact instant lies in this interval, s (equal for a recorded touch).
        xy_lo_rink_m, xy_hi_rink_m: (2,) puck centre at those instants, m.
        sigma_m: 1-sigma of the contact point along x, m (measurement, not the interval).
        frame_lo, frame_hi: frame indices of the interval's ends.
        deflected: an opponent deflected the puck after the contact (905 d3; None: may have).
        faceoff: 905 d4 proxy at the contact (True / False / None undecided).
        open_before: an earlier contact than ``t_lo_s`` cannot be excluded.
        team_known: the shooter's team is certain (a recorded touch, or only his
            team's players could reach the puck's path).
        evidence: what the event reports about the contact.
    """

    shooter: int | None
    t_lo_s: float
    t_hi_s: float
    xy_lo_rink_m: np.ndarray
    xy_hi_rink_m: np.ndarray
    sigma_m: float
    frame_lo: int
    frame_hi: int
    deflected: bool | None
    faceoff: bool | None
    open_before: bool = False
    team_known: bool = True
    evidence: dict[str, Any] = field(default_factory=dict)


def _recorded_contact(ctx: RuleContext, sh: str, dfn: str, c, rel: Release | None,
                      names: set[str]) -> _Contact | str | None:
    """The contact from the shooting team's last recorded touch before crossing ``c``.

    ``rel`` is the flight that crosses the goal line (``flight_release``) and ``names``
    the profile's icing exceptions.

    Returns:
        The contact; "controlled" when the defending team controlled the puck after
        it; None when no touch of ``sh`` is recorded during the puck's last flight.
    """
    obs = ctx.obs
    tf = obs.touch_frames()
    mine = [f for f in tf if f <= c.i and obs.player_team[int(obs.touch_player[f])] == sh]
    if not mine:
        return None
    f = int(mine[-1])
    k_sh = int(obs.touch_player[f])
    ev: dict[str, Any] = {}
    opponent_in_reach = False
    if rel is not None and not rel.seen and f < rel.i0 - 2 and not _touched_in_flight(obs, rel, c.i):
        # The puck was unseen between this touch and its last flight: whoever could
        # reach the flight's backward path may have played it since.
        teams = {str(obs.player_team[k]) for k in rel.players}
        if sh in teams:
            return None  # a shooter of this team later: the flight tells the contact
        if teams:
            opponent_in_reach = True  # an opponent (or a player of unknown team): 905 d3 undecided
            ev["opponent_in_reach_of_flight"] = [obs.player_ids[k] for k in rel.players]
    # The shot itself may be on a dropped frame: if the puck still moved with the
    # shooter after his last recorded touch, the contact is his last controlled frame.
    released = f
    for j in range(f + 1, c.i + 1):
        if moves_with(obs, k_sh, j):
            released = j
        elif j - released > 3:
            break
    deflected, controlled = _opponent_touches(obs, f, c.i + 1, dfn)
    if controlled:
        return "controlled"
    if released > f + 1:
        f = released
        ev["contact"] = "release: the puck moved with the shooter after his last recorded touch"
    xy, t_c, sig_tc = contact_point(obs, f)
    if not np.isfinite(xy).all():
        return None
    j = min(f + 2, obs.n_frames - 1)
    v_after = (obs.puck_xy_rink_m[j] - obs.puck_xy_rink_m[min(f + 1, j)]) * obs.fps
    v_x = abs(float(v_after[0])) if np.isfinite(v_after).all() else 0.0
    sig = float(np.hypot(obs.sigma_smoothed_m[f], v_x * sig_tc))
    if not obs.puck_measured[max(0, f - 2):f + 1].all():
        # 905 a on inferred positions (the puck carried to the contact, placed at the stick):
        # the point is as good as the inference, not as the detector.
        sig = float(np.hypot(sig, INFERRED_CONTACT_SIGMA_M))
        ev["contact_on_inferred_positions"] = True
    ev.update({"contact_frame": int(obs.frame[f]), "timing_bound_m": v_x * obs.dt_s / 2})
    fo = _faceoff(ctx, f) if "faceoff" in names else False
    return _Contact(k_sh, t_c, t_c, xy, xy, sig, f, f, True if deflected else None if opponent_in_reach else False,
                    fo, evidence=ev)


def _flight(ctx: RuleContext, i_end: int) -> Release | None:
    """The puck's straight flight that reaches frame index ``i_end`` (``flight_release``)."""
    spec = ctx.rink.spec
    r = ctx.puck_radius_m
    return flight_release(ctx.obs, i_end, spec.length_m / 2 - r, spec.width_m / 2 - r)


def _touches_in_flight(obs, rel: Release, i_end: int) -> np.ndarray:
    """Frame indices of the touches on the flight (two frames before its start to ``i_end``)."""
    tf = obs.touch_frames()
    return tf[(tf >= rel.i0 - 2) & (tf <= i_end)]


def _touched_in_flight(obs, rel: Release, i_end: int) -> bool:
    """Whether a touch is recorded on the flight (from two frames before its start to ``i_end``)."""
    return bool(len(_touches_in_flight(obs, rel, i_end)))


def _contact_before_deflection(ctx: RuleContext, sh: str, dfn: str, c, rel: Release | None) -> _Contact | None:
    """905 a + d3: the contact of a shot out of sight that an opponent deflected in view.

    The flight that crosses the goal line starts at touches of the defending team only, the
    first of which left the puck fast and uncontrolled (a deflection, ``_opponent_touches``).
    The shot's contact then lies on the flight before that touch, found from that flight alone
    (``_release_contact``), and the deflection is 905 d3's touch. Without this the deflecting
    opponent would be the only one who could have shot the puck, and no event would be given.
    """
    obs = ctx.obs
    if rel is None:
        return None
    touches = _touches_in_flight(obs, rel, c.i)
    if not len(touches) or any(obs.player_team[int(obs.touch_player[f])] != dfn for f in touches):
        return None
    f_d = int(touches[0])
    deflected, controlled = _opponent_touches(obs, f_d - 1, c.i + 1, dfn)
    if controlled or not deflected or f_d < 2:
        return None
    con = _release_contact(ctx, sh, f_d - 1, _flight(ctx, f_d - 1))
    if con is None:
        return None
    con.deflected = True
    con.evidence["deflected_by"] = obs.player_ids[int(obs.touch_player[f_d])]
    con.evidence["deflection_frame"] = int(obs.frame[f_d])
    return con


def _release_contact(ctx: RuleContext, sh: str, i_end: int, rel: Release | None) -> _Contact | None:
    """The contact from the flight ``rel`` (reaching frame index ``i_end``) alone, when no touch
    of the shot was recorded.

    The puck was shot out of sight (under the shooter's body, or before the camera
    saw it): the contact lies on the flight's backward path (``flight_release``).
    The shooter is the one tracked player who could reach that path; with players
    of both teams in reach the team is unknown, with none the shooter is unseen.
    """
    obs = ctx.obs
    if rel is None:
        return None
    if _touched_in_flight(obs, rel, i_end):
        return None  # a recorded touch during the flight: it is the contact or a deflection
    teams = {str(obs.player_team[k]) for k in rel.players}
    shooter = rel.players[0] if teams == {sh} and len(rel.players) == 1 else None
    f_lo, f_hi = nearest_frame(obs, rel.t_lo_s), nearest_frame(obs, rel.t_hi_s)
    # 905 d4: a puck iced from a face-off is shot from the spot; a contact interval
    # away from every spot rules it out whatever happened unseen.
    spot_m = float(np.min(shapely.distance(shapely.points(ctx.faceoff_spots_xy),
                                           LineString([rel.xy_lo_rink_m, rel.xy_hi_rink_m])), initial=np.inf))
    if spot_m > FACEOFF_SPOT_RADIUS_M + K_SIGMA * float(obs.sigma_smoothed_m[rel.i0]):
        fo = False
    elif rel.seen:
        fo = _faceoff(ctx, rel.i0)
    elif rel.i_seen is not None and not rel.open_before:
        # Last seen on a spot at rest: the shot may or may not be the first touch since.
        fo = None if _faceoff(ctx, rel.i_seen + 1) is not False else False
    else:
        fo = None
    ev: dict[str, Any] = {
        "contact": ("release seen: the puck turned into its flight between two measured frames" if rel.seen else
                    "release unseen: on the flight's backward path, where a tracked player could reach it"
                    if rel.players else "release unseen, shooter unseen: on the flight's backward path"),
        "shooter_candidates": [obs.player_ids[k] for k in rel.players]}
    sig = float(obs.sigma_smoothed_m[rel.i0])
    return _Contact(shooter, rel.t_lo_s, rel.t_hi_s, rel.xy_lo_rink_m, rel.xy_hi_rink_m, sig, f_lo, f_hi,
                    False, fo, open_before=rel.open_before, team_known=teams == {sh}, evidence=ev)


def _evaluate(ctx, end, sh, dfn, c, goals, score_at, icing, names, i_seen_again=None,
              seen_again_how: str = "seen beyond it afterwards"):
    """The icing event of goal-line crossing ``c`` (None: no icing situation).

    ``i_seen_again``: for a crossing out of view (``_unseen_crossings``), the frame index the
    puck was seen again (beyond the line, or coming back off the end boards:
    ``seen_again_how``). Such a call is never ``icing`` (a touch, a deflection
    or a defender's play in the gap is unknown), but ``waved_off`` when an exception holds on
    what was seen.
    """
    obs = ctx.obs
    r = ctx.puck_radius_m
    if controller_at(obs, c.i) is not None:
        return None  # carried over the goal line, not shot
    rel = _flight(ctx, c.i)
    con = _recorded_contact(ctx, sh, dfn, c, rel, names)
    if con is None:
        con = _release_contact(ctx, sh, c.i, rel)
    if con is None:
        con = _contact_before_deflection(ctx, sh, dfn, c, rel)
    if con is None or con == "controlled":
        return None  # no shot by this team, or the defending team played it
    # 905 a: the contact lies in [t_lo, t_hi]; earlier is deeper in the shooter's half.
    # A decisive call must hold at both ends: sigma grows by the half-interval / K.
    m_lo = ctx.centre_half_width_m + r - end * float(con.xy_lo_rink_m[0])
    m_hi = ctx.centre_half_width_m + r - end * float(con.xy_hi_rink_m[0])
    margin = 0.5 * (m_lo + m_hi)
    sig = con.sigma_m + 0.5 * abs(m_lo - m_hi) / K_SIGMA
    if margin < -K_SIGMA * sig:
        return None  # played from the attacking half: no icing situation
    t_c = con.t_hi_s
    ev: dict[str, Any] = {
        "shooter": None if con.shooter is None else obs.player_ids[con.shooter],
        "t_contact": 0.5 * (con.t_lo_s + con.t_hi_s),
        "contact_xy_rink_m": 0.5 * (con.xy_lo_rink_m + con.xy_hi_rink_m),
        "contact_frame": int(obs.frame[con.frame_hi]),
        "frame_interval": [int(obs.frame[c.i]), int(obs.frame[c.i + 1])],
        "decisive_frame": int(obs.frame[con.frame_hi]),
        "puck_xy_at_goal_line_rink_m": interp_at(obs.puck_xy_rink_m, c), **con.evidence}
    if con.t_hi_s > con.t_lo_s:
        ev["contact_interval_s"] = [con.t_lo_s, con.t_hi_s]
        ev["contact_interval_xy_rink_m"] = [con.xy_lo_rink_m, con.xy_hi_rink_m]
    if con.open_before:
        ev["contact_open_before"] = True
    if obs.touch_inferred:
        ev["touches"] = "inferred from puck motion"
    if i_seen_again is not None:
        ev["frame_interval"] = [int(obs.frame[c.i]), int(obs.frame[i_seen_again])]
        ev["puck_xy_at_goal_line_rink_m"] = None
        ev["out_of_view"] = f"crossed the goal line out of view: {seen_again_how}"
    elif not measured_near(obs, c.i):
        ev["reason"] = "puck not measured (or its track jumps) at the goal line"
        return make_event(obs, "icing", c.t_s, sh, "inconclusive", margin, sig, "905 b", ev)
    # Players of both teams (or of unknown team) may have shot it. Were it the defending team,
    # the puck went into its own end: no icing (905 b is a team's shot beyond the opponents'
    # goal line). Were it the attacking team, its icing is waved off by any exception that
    # applies whoever shot it. So such an exception decides "no icing" either way; 905 d3 (an
    # opponent's touch after the contact) does not, as the touch may have been the shot.
    shooter_unsure = bool(not con.team_known and con.evidence.get("shooter_candidates"))
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
        if "shorthanded" in names and icing.requires_equal_or_superior_strength:
            _sort(_over_contact(con, obs, lambda t: ctx.game.is_shorthanded(sh, t)),
                  "shorthanded", applies, undecided)
        if "touched_by_opponent" in names:
            _sort(con.deflected, "touched_by_opponent", applies, undecided)
        if "faceoff" in names:
            _sort(con.faceoff, "faceoff", applies, undecided)
        if "opponent_could_play" in names:
            d5, slack, who = _d5(ctx, con.frame_hi, t_c, c.i + 1, c.t_s, dfn)
            if d5 is False and (con.t_lo_s < t_c or con.open_before):
                # An earlier contact gives opponents longer to reach the path.
                d5_lo, slack, who = _d5(ctx, con.frame_lo, con.t_lo_s, c.i + 1, c.t_s, dfn)
                d5 = None if (d5_lo is not False or con.open_before) else False
            checks["d5_slack_m"] = slack
            checks["d5_player"] = who
            _sort(d5, "opponent_could_play", applies, undecided)
        if "goalkeeper_moved" in names:
            d6, slack6 = _d6(ctx, con.frame_hi, c.i + 1, dfn, -ctx.attack[dfn])
            if d6 is False and (con.t_lo_s < t_c or con.open_before):
                d6_lo, slack6 = _d6(ctx, con.frame_lo, c.i + 1, dfn, -ctx.attack[dfn])
                d6 = None if (d6_lo is not False or con.open_before) else False
            checks["d6_slack"] = slack6
            _sort(d6, "goalkeeper_moved", applies, undecided)
    ev["checks"] = checks
    rule_of = {e.name: e.rule for e in icing.exceptions}
    own = margin >= K_SIGMA * sig
    if shooter_unsure:
        applies = [a for a in applies if a != "touched_by_opponent"]
        if not applies:
            ev["reason"] = "players of both teams (or of unknown team) could have shot it"
            return make_event(obs, "icing", c.t_s, sh, "inconclusive", margin, sig, "905 b", ev)
        ev["shooter_team_unknown"] = ("players of both teams could have shot it: the defending team's shot "
                                      "into its own end is no icing, the attacking team's is waved off")
    if applies:
        ev["exception"], ev["exceptions"] = applies[0], applies
        rule = rule_of.get(applies[0], "Westridge 1 b" if sponge else "905 d")
        return make_event(obs, "icing", c.t_s, sh, "waved_off", margin, sig, rule, ev, conf=1.0 if own else None)
    if not con.team_known:
        undecided.append("shooter")  # an unseen shooter may be an opponent: never a decisive icing
    if i_seen_again is not None:
        undecided.append("out_of_view")  # a touch, a deflection, a defender's play in the gap
    if undecided or not own:
        ev["undecided"] = undecided + ([] if own else ["own_half"])
        if undecided:
            ev["reason"] = _undecided_reason(undecided, own, margin, sig, rule_of)
        return make_event(obs, "icing", c.t_s, sh, "inconclusive", margin, sig,
                          "Westridge 1 b" if sponge else "905 b", ev)
    return make_event(obs, "icing", c.t_s, sh, "icing", margin, sig,
                      "Westridge 1 b" if sponge else "905 b", ev)


def _undecided_reason(undecided: list[str], own: bool, margin: float, sigma: float,
                      rule_of: dict[str, str]) -> str:
    """``evidence.reason`` of an icing left open by what the footage cannot decide: each
    exception that may apply (by its rule), an unseen shooter, a puck out of view before the
    goal line, and the half of the last contact when its margin is within K sigma (alone,
    ``make_event`` says that)."""
    parts = []
    for name in undecided:
        if name == "shooter":
            parts.append("who shot it (the shooter was not seen: it may have been an opponent)")
        elif name == "out_of_view":
            parts.append("what happened while the puck was out of view before the goal line")
        else:
            parts.append(f"whether {rule_of.get(name, '905 d')} ({name.replace('_', ' ')}) applies")
    if not own:
        parts.append(f"which half the last contact was in (margin {100 * margin:+.1f} cm, "
                     f"{K_SIGMA:g} sigma {100 * K_SIGMA * float(sigma):.1f} cm)")
    return "the footage cannot decide " + "; ".join(parts)


def _sort(decided: bool | None, name: str, applies: list[str], undecided: list[str]) -> None:
    """File exception ``name`` under ``applies`` (True) or ``undecided`` (None)."""
    if decided:
        applies.append(name)
    elif decided is None:
        undecided.append(name)


def _over_contact(con: _Contact, obs, holds) -> bool | None:
    """Whether ``holds(t)`` is true at every frame of the contact interval (None: at some)."""
    ts = [con.t_lo_s, *obs.t_s[con.frame_lo:con.frame_hi + 1], con.t_hi_s]
    values = {bool(holds(float(t))) for t in ts}
    return values.pop() if len(values) == 1 else None
