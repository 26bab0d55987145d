"""905 icing (every d exception), 906 goal, 907 a4 crease, 1064, Westridge 1 b / 1 o / 1 r."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from rules_clip import Clip, moving, of_type, sledge_fp, still  # noqa: E402

R = 0.0381


def icing_clip(x0=-5.0, vy=0.0, y0=5.0, boards=29.5, profile="ipc-sledge", **game):
    """Home shoots at t = 0.5 s from (x0, y0) at 20 m/s along +x (vy across); the away team's
    five skaters (702) stand in the home end's corner, out of the puck's reach and far from its
    path backwards (905 d5 needs every opponent placed)."""
    c = Clip(2.8, profile, **game)
    v = np.array([20.0, vy])
    v = 20.0 * v / np.linalg.norm(v)

    def puck(t):
        if t <= 0.5:
            return (x0, y0)
        p = np.array([x0, y0]) + v * (t - 0.5)
        return (min(p[0], boards), p[1])
    c.puck = puck
    c.player(1, "home", still(x0 - 1.0, y0))
    c.player(21, "away", still(-20.0, -10.0))
    for j, xy in enumerate(((-16.0, -10.0), (-18.0, -12.0), (-22.0, -12.0), (-24.0, -10.0))):
        c.player(41 + j, "away", still(*xy))
    c.touches = {15: 1}
    return c


def goalie(c, team="away", x=25.6, y=0.0, blades=None):
    c.player(30, team, blades or still(x, y), role="goalkeeper")
    return c


def icing_event(c, **run_kw):
    ev = of_type(c.run(**run_kw), "icing")
    assert len(ev) == 1
    return ev[0]


def test_905_b_icing():
    """905 b: shot from his own half beyond the opponents' goal line -> icing."""
    e = icing_event(goalie(icing_clip()))
    assert e["verdict"] == "icing" and e["team"] == "home"
    assert e["margin_m"] == pytest.approx(0.15 + R + 5.0, abs=1e-3)
    assert e["t"] == pytest.approx(0.5 + (26.025 + R + 5.0) / 20.0, abs=1e-4)


def test_905_a_centre_line_belongs_to_shooters_half():
    """905 a + 206: a puck touching the centre line is still in the shooter's half."""
    e = icing_event(goalie(icing_clip(x0=0.1)))
    assert e["verdict"] == "icing" and e["margin_m"] == pytest.approx(0.15 + R - 0.1, abs=1e-3)


def test_905_not_from_own_half_gives_no_icing_event():
    """905 b: only pucks shot from the own half can be icing."""
    assert of_type(goalie(icing_clip(x0=3.0)).run(), "icing") == []


def test_905_d1_goal():
    """905 d1: if the puck enters the goal - the goal is allowed."""
    c = goalie(icing_clip(y0=0.0, boards=26.8), y=1.5)
    ev = c.run()
    assert of_type(ev, "goal")[0]["verdict"] == "goal"
    e = of_type(ev, "icing")[0]
    assert e["verdict"] == "waved_off" and e["evidence"]["exception"] == "goal"


def test_905_d2_shorthanded():
    """905 d2: the offending team is short handed at the instant the puck is shot."""
    c = goalie(icing_clip(strength=[{"t": 0.0, "home": 4, "away": 5}]))
    e = icing_event(c)
    assert e["verdict"] == "waved_off" and e["evidence"]["exception"] == "shorthanded"


def test_905_d3_touched_by_opponent():
    """905 d3: the puck touches an opposing player before crossing the goal line."""
    c = goalie(icing_clip())
    x_at = -5.0 + 20.0 * (38 / 30.0 - 0.5)
    base = c.puck

    def puck(t):
        x, y = base(t)
        return (x, y + (1.0 * (t - 38 / 30.0) if t > 38 / 30.0 else 0.0))
    c.puck = puck
    c.player(22, "away", still(x_at, 5.9))
    c.touches[38] = 22
    e = icing_event(c)
    assert e["verdict"] == "waved_off" and e["evidence"]["exception"] == "touched_by_opponent"


def test_905_d4_faceoff():
    """905 d4: the puck is iced directly from a player participating in a face-off."""
    c = goalie(icing_clip(x0=0.0, y0=0.0, vy=4.0))
    c.player(22, "away", still(1.0, -0.3))
    e = icing_event(c)
    assert e["verdict"] == "waved_off" and e["evidence"]["exception"] == "faceoff"


def test_905_d4_a_puck_passing_over_a_spot_is_no_faceoff_whatever_the_camera_error():
    """905 d4 needs the puck to have lain on the spot: one carried over the centre spot at 3 m/s
    and shot from it is iced. A camera error that every frame shares (``add_position_sigma``)
    moves the whole track, not its speed: it must not make the puck look at rest (with it in the
    speed test, 6 cm made 8.6 m/s "at rest" and waved the icing off; fresh render 868)."""
    c = goalie(icing_clip(x0=0.0, y0=0.0, vy=4.0))
    base = c.puck
    c.puck = lambda t: (-1.5 + 3.0 * t, 0.0) if t <= 0.5 else base(t)
    for bias in (None, 0.06):
        e = icing_event(c, position_bias_m=bias)
        assert e["verdict"] == "icing", (bias, e["evidence"])


def test_905_d5_opponent_could_play():
    """905 d5: an opponent (not the goalkeeper) is able to play the puck before the goal line.

    Proxy: an opponent's blade midpoint within 1.5 m + 6.9 m/s x elapsed time of the puck's path.
    """
    c = goalie(icing_clip())
    c.player(22, "away", still(15.0, 8.0))
    e = icing_event(c)
    assert e["verdict"] == "waved_off" and e["evidence"]["exception"] == "opponent_could_play"
    assert e["evidence"]["checks"]["d5_slack_m"] < 0


def test_905_d5_not_for_a_goalkeeper():
    """905 d5 excepts the goalkeeper: a goalkeeper near the path does not wave icing off."""
    c = goalie(icing_clip(), x=25.0, y=1.0)
    e = icing_event(c)
    assert e["verdict"] == "icing"


def test_905_d5_a_skater_in_his_own_crease_may_be_the_goalkeeper():
    """905 d5 excepts the goalkeeper, and a role label from footage may be wrong: the only
    opponent who could play it sits in his own goal crease throughout, labelled "skater".
    Undecided, not waved off (a goalkeeper taken for a skater gave a wrong waved-off call)."""
    c = icing_clip()
    c.player(30, "away", still(25.3, 0.0))  # in the away crease (the goal line is at x = 26)
    e = icing_event(c)
    assert e["verdict"] == "inconclusive" and "opponent_could_play" in e["evidence"]["undecided"]
    c.player(22, "away", still(15.0, 8.0))  # a skater out of the crease who could play it
    e = icing_event(c)
    assert e["verdict"] == "waved_off" and e["evidence"]["exception"] == "opponent_could_play"


def test_905_an_icing_left_open_by_an_exception_says_which_and_claims_no_confidence():
    """An icing open because an exception may apply (905 d5: the only opponent near the path
    may be the goalkeeper) names it by its rule in ``evidence.reason``, and, like any call left
    open for want of data, claims no probability (confidence 0): a reviewer saw
    ``inconclusive`` with confidence 1.00 and no reason (tuning render 851, d5 undecided)."""
    c = icing_clip()
    c.player(30, "away", still(25.3, 0.0))
    e = icing_event(c)
    assert e["verdict"] == "inconclusive" and e["evidence"]["undecided"] == ["opponent_could_play"]
    assert "905 d5 (opponent could play)" in e["evidence"]["reason"] and e["confidence"] == 0.0
    c = unseen_release_clip()
    c.players = [p for p in c.players if p[0] != 1]
    e = icing_event(c)
    assert e["verdict"] == "inconclusive" and "who shot it" in e["evidence"]["reason"] and e["confidence"] == 0.0
    # Open only for the half of the contact: the margin's own reason, its confidence kept.
    e = icing_event(unseen_release_clip(x0=0.5, shown_from_s=0.7))
    assert e["evidence"]["undecided"] == ["own_half"] and "within 3 sigma" in e["evidence"]["reason"]
    assert e["confidence"] > 0.5


def _seen_from(t0, blades):
    """``blades`` seen only from time ``t0`` (s) on: out of the picture before."""
    return lambda t: blades(t) if t >= t0 else None


def test_905_d5_an_opponent_out_of_the_picture_at_the_shot_may_have_played_it():
    """905 d5 needs every opponent placed: one first seen 1.2 s after the shot, 1 m beside the
    puck's path near the goal line, was out of the picture at the shot (a broadcast camera
    follows the puck). Where he was then is only bounded by a sledge's top speed (6.9 m/s): he
    may have been able to play it -> undecided, not icing (a render, seed 523, was called icing
    while the defender who could play stood there unseen)."""
    c = goalie(icing_clip())
    c.players = [pl for pl in c.players if pl[0] != 41]  # his team's fifth skater is ...
    c.player(41, "away", _seen_from(1.7, still(20.0, 6.0)))  # ... only seen from 1.7 s on
    e = icing_event(c)
    assert e["verdict"] == "inconclusive" and "opponent_could_play" in e["evidence"]["undecided"]


def test_905_d5_an_opponent_seen_only_later_but_too_far_to_have_played_it_keeps_the_icing():
    """The same opponent first seen 0.3 s after the shot in his own corner (-22, -12): 6.9 m/s
    x 0.3 s keeps him more than 20 m from the puck's path, beyond any reach -> icing."""
    c = goalie(icing_clip())
    c.players = [pl for pl in c.players if pl[0] != 41]
    c.player(41, "away", _seen_from(0.8, still(-16.0, -10.0)))
    assert icing_event(c)["verdict"] == "icing"


def test_905_d5_an_opponent_never_seen_or_of_unknown_team_keeps_it_open():
    """Four of the opponents' five skaters tracked (GAME.json strength 5): the fifth may be
    anywhere -> undecided. With him back, a skater of unknown team beside the path (he may be
    an opponent) keeps it undecided too; a home skater there does not."""
    c = goalie(icing_clip())
    c.players = [pl for pl in c.players if pl[0] != 41]
    e = icing_event(c)
    assert e["verdict"] == "inconclusive" and "opponent_could_play" in e["evidence"]["undecided"]
    c.player(41, "away", still(-16.0, -10.0))
    assert icing_event(c)["verdict"] == "icing"
    c.player(50, None, still(15.0, 6.0))
    e = icing_event(c)
    assert e["verdict"] == "inconclusive" and "opponent_could_play" in e["evidence"]["undecided"]
    c.players[-1] = (50, "home", "skater", still(15.0, 6.0), None)
    assert icing_event(c)["verdict"] == "icing"


def test_905_a_contact_found_on_inferred_positions_carries_their_uncertainty():
    """905 a: the shot 8.8 cm inside the shooter's half (test_905_a_centre_line_...) is icing
    when the puck was measured up to the shot; carried unseen to it (the tracker's
    ``measured: false``, placed at the stick), the contact point is as good as that inference
    (``INFERRED_CONTACT_SIGMA_M`` = 0.3 m): inconclusive."""
    from rulesfromvideo.rules.common import INFERRED_CONTACT_SIGMA_M

    c = goalie(icing_clip(x0=0.1))
    c.inferred = set(range(0, 16))  # carried to the shot at frame 15
    e = icing_event(c)
    assert e["verdict"] == "inconclusive" and e["evidence"]["contact_on_inferred_positions"]
    assert e["margin_m"] == pytest.approx(0.15 + R - 0.1, abs=1e-3)
    assert e["evidence"]["sigma_m"] >= INFERRED_CONTACT_SIGMA_M


def out_of_view_clip(back_at_s=2.3, back_x=None, **game):
    """The icing shot of ``icing_clip``, out of the picture from 1.2 s (x = 9 m) until
    ``back_at_s``, then seen at the boards (29.5 m; ``back_x``: elsewhere instead)."""
    c = goalie(icing_clip(**game))
    base = c.puck
    c.puck = lambda t: None if 1.2 < t < back_at_s else (base(t) if back_x is None or t <= 1.2 else (back_x, 5.0))
    return c


def test_905_b_crossing_out_of_view_seen_beyond_the_line_is_inconclusive():
    """905 b: the camera lagged the shot; the puck left the picture at 9 m and is next seen
    at the end boards, beyond the goal line: it crossed unseen. The instant is its arrival at
    the speed it left with (here exactly the true one); a touch in the gap is unknown, so the
    call is open, not icing."""
    e = icing_event(out_of_view_clip())
    assert e["verdict"] == "inconclusive" and "out_of_view" in e["evidence"]["undecided"]
    assert e["t"] == pytest.approx(0.5 + (26.025 + R + 5.0) / 20.0, abs=1e-3)
    assert e["margin_m"] == pytest.approx(0.15 + R + 5.0, abs=1e-3)


def test_905_d2_holds_for_a_crossing_out_of_view():
    """905 d2 is decided at the shot, in view: a shorthanded team's shot is waved off even
    when the crossing itself was not seen."""
    e = icing_event(out_of_view_clip(strength=[{"t": 0.0, "home": 4, "away": 5}]))
    assert e["verdict"] == "waved_off" and e["evidence"]["exception"] == "shorthanded"


def test_905_puck_seen_again_short_of_the_line_gives_no_icing():
    """Out of the picture and next seen short of the goal line (at 24 m): whether it ever
    crossed is unknown, and no event is made up."""
    assert of_type(out_of_view_clip(back_x=24.0).run(), "icing") == []


def rebound_clip(played_back_at_x=None):
    """The icing shot of ``icing_clip`` out of the picture from 1.2 s (x = 9 m) to 2.6 s. It
    bounces off the end boards (29.5 m) at 2.225 s and comes back at 10 m/s, seen again at
    25.75 m, short of the goal line (26.0 m); or (``played_back_at_x``) a player stops it there
    and plays it back at 10 m/s 0.15 s later."""
    c = goalie(icing_clip())
    base = c.puck
    x_stop = 29.5 if played_back_at_x is None else played_back_at_x
    t_stop = 0.5 + (x_stop + 5.0) / 20.0
    t_back = t_stop if played_back_at_x is None else t_stop + 0.15

    def puck(t):
        if 1.2 < t < 2.6:
            return None
        if t <= t_stop:
            return base(t)
        return (x_stop - 10.0 * max(0.0, t - t_back), 5.0)
    c.puck = puck
    return c


def test_905_b_crossing_out_of_view_seen_coming_back_off_the_end_boards():
    """905 b: the puck left the picture at 9 m and came back into it short of the goal line,
    moving away from the end. Its path in and its path out meet at the end boards at one
    instant: it bounced there, so it crossed the line unseen. As for any unseen crossing a
    touch in the gap is unknown, so the call stays open, with the instant of its arrival."""
    e = icing_event(rebound_clip())
    assert e["verdict"] == "inconclusive" and "out_of_view" in e["evidence"]["undecided"]
    assert "end boards" in e["evidence"]["out_of_view"]
    assert e["t"] == pytest.approx(0.5 + (26.025 + R + 5.0) / 20.0, abs=1e-3)
    assert e["margin_m"] == pytest.approx(0.15 + R + 5.0, abs=1e-3)


def test_905_puck_played_back_out_of_view_short_of_the_line_gives_no_icing():
    """Out of the picture, stopped by a player at 23 m and played back: its paths in and out
    meet where he stood, short of the goal line, not at the boards; no crossing is made up."""
    assert of_type(rebound_clip(played_back_at_x=23.0).run(), "icing") == []


def test_905_d6_goalkeeper_moves_to_the_puck():
    """905 d6: the goalkeeper is outside his crease during icing and moves in the direction of the puck."""
    c = goalie(icing_clip(), blades=lambda t: [[23.0 + 0.5 * t, 2.0 + 1.0 * t + 0.12],
                                              [23.0 + 0.5 * t, 2.0 + 1.0 * t - 0.12]])
    e = icing_event(c)
    assert e["verdict"] == "waved_off" and e["evidence"]["exception"] == "goalkeeper_moved"


def unseen_release_clip(x0=-10.0, shown_from_s=0.8, **game):
    """Home 1 shoots from (x0, 5) at t = 0.5 s, the puck hidden until ``shown_from_s``; no touch recorded."""
    c = goalie(icing_clip(x0=x0, **game))
    base = c.puck
    c.puck = lambda t: base(t) if t >= shown_from_s else None
    c.touches = {}
    return c


def test_905_a_contact_of_an_unseen_shot_is_bounded_by_the_shooters_reach():
    """905 a: the point of last contact of a shot out of sight lies on the flight's backward
    path where the shooter's stick could reach it; all of it in his own half -> icing."""
    e = icing_event(unseen_release_clip())
    assert e["verdict"] == "icing" and e["team"] == "home" and e["evidence"]["shooter"] == 1
    (x_lo, _), (x_hi, _) = e["evidence"]["contact_interval_xy_rink_m"]
    # seat at x = -11: the path is within 1.8 m for x in [-12.8, -9.2], one frame out each side
    assert x_lo == pytest.approx(-20.0 + 2 * 10 / 3, abs=0.02) and x_hi == pytest.approx(-20.0 + 2 * 17 / 3, abs=0.02)
    assert e["margin_m"] == pytest.approx(0.15 + R - 0.5 * (x_lo + x_hi), abs=1e-3)


def test_905_a_unseen_contact_straddling_the_centre_line_is_inconclusive():
    """905 a + 206: a reach interval on both sides of the centre line cannot decide the half."""
    c = unseen_release_clip(x0=0.5, shown_from_s=0.7)
    e = icing_event(c)
    assert e["verdict"] == "inconclusive" and "own_half" in e["evidence"]["undecided"]


def test_905_unseen_shot_with_an_opponent_in_reach_is_inconclusive():
    """905 b: icing is the shooting team's; if an opponent could have played the puck last, it is undecided."""
    c = unseen_release_clip()
    c.player(22, "away", still(-12.5, 6.0))
    e = icing_event(c)
    assert e["verdict"] == "inconclusive" and "both teams" in e["evidence"]["reason"]


def test_905_shooter_of_either_team_but_d2_applies_is_no_icing_either_way():
    """905 b + d2: players of both teams could have shot it. The defending team's shot into its
    own end is no icing; the attacking team's, shorthanded over the whole contact, is waved off
    (905 d2): either way no icing, so the call is made (waved off) and says the shooter is unsure."""
    c = unseen_release_clip()
    c.player(22, "away", still(-12.5, 6.0))
    c.game["strength"] = [{"t": 0.0, "home": 4, "away": 5}]
    e = icing_event(c)
    assert e["verdict"] == "waved_off" and e["evidence"]["exception"] == "shorthanded"
    assert "both teams" in e["evidence"]["shooter_team_unknown"]
    assert sorted(e["evidence"]["shooter_candidates"]) == [1, 22]


def test_905_unseen_shooter_is_never_icing_but_d2_still_waves_it_off():
    """No tracked player near the flight's path: the shooter may be an opponent, so no decisive
    icing; 905 d2 (shorthanded over the whole contact interval) still waves it off."""
    c = unseen_release_clip()
    c.players = [p for p in c.players if p[0] != 1]
    e = icing_event(c)
    assert e["verdict"] == "inconclusive" and "shooter" in e["evidence"]["undecided"]
    c.game["strength"] = [{"t": 0.0, "home": 4, "away": 5}]
    e = icing_event(c)
    assert e["verdict"] == "waved_off" and e["evidence"]["exception"] == "shorthanded"
    assert e["evidence"]["shooter"] is None and "shooter unseen" in e["evidence"]["contact"]
    assert e["evidence"]["contact_interval_s"][0] == pytest.approx(0.0)  # back to the clip's start


def test_905_d3_unseen_shot_deflected_by_an_opponent_is_waved_off():
    """905 a + d3: the shot is out of sight and no touch is recorded; an opponent deflects the
    puck in view (a kink next to him). The contact is on the flight before the deflection, not
    the deflection itself (which would make the opponent the shooter): waved off."""
    c = unseen_release_clip()
    x_at = -10.0 + 20.0 * (38 / 30.0 - 0.5)
    base = c.puck

    def puck(t):
        p = base(t)
        return None if p is None else (p[0], p[1] + (2.0 * (t - 38 / 30.0) if t > 38 / 30.0 else 0.0))
    c.puck = puck
    c.player(22, "away", still(x_at, 5.9))
    e = icing_event(c)
    assert e["verdict"] == "waved_off" and e["evidence"]["exception"] == "touched_by_opponent"
    assert e["evidence"]["shooter"] == 1 and e["team"] == "home"
    (x_lo, _), (x_hi, _) = e["evidence"]["contact_interval_xy_rink_m"]
    # the shooter's reach, as without the deflection (test_905_a_contact_of_an_unseen_shot_...)
    assert x_lo == pytest.approx(-20.0 + 2 * 10 / 3, abs=0.02) and x_hi == pytest.approx(-20.0 + 2 * 17 / 3, abs=0.02)


SPONGE = [
    # (clause, game fields, expected verdict or None for no event, exception)
    ("1 b: icing will be called in the final minute of the second half",
     {"clock": {"period": 2, "remaining_s": 50.0}}, "icing", None),
    ("1 b: no icing will be called (outside the final minute)",
     {"clock": {"period": 2, "remaining_s": 120.0}}, None, None),
    ("1 b: no icing if the leading team is shorthanded at the time",
     {"clock": {"period": 2, "remaining_s": 50.0}, "score": {"home": 2, "away": 1},
      "strength": [{"t": 0.0, "home": 4, "away": 5}]}, "waved_off", "leading_team_shorthanded"),
    ("1 b: no icing if there is a three (3) or more goal lead",
     {"clock": {"period": 2, "remaining_s": 50.0}, "score": {"home": 0, "away": 3}}, "waved_off", "lead"),
]


@pytest.mark.parametrize("clause,game,verdict,exc", SPONGE, ids=[s[0][:45] for s in SPONGE])
def test_westridge_1b_last_minute_icing(clause, game, verdict, exc):
    c = goalie(icing_clip(profile="sponge-westridge", boards=30.2, **game), x=26.8)
    ev = of_type(c.run(), "icing")
    if verdict is None:
        assert ev == [], clause
        return
    assert len(ev) == 1 and ev[0]["verdict"] == verdict, clause
    if exc:
        assert ev[0]["evidence"]["exception"] == exc


def goal_clip(depth, y=0.2, z=None, t_end=2.0):
    """A puck along +x at 8 m/s stopping at goal depth ``depth`` (906 1 depth)."""
    x_stop = 26.025 + R + depth
    c = Clip(t_end)
    c.puck = lambda t: (min(20.0 + 8.0 * t, x_stop), y)
    if z is not None:
        c.puck_z = lambda t: z
    c.player(1, "home", still(19.0, y)).player(20, "away", still(15.0, -5.0))
    c.touches = {0: 1}
    return c


GOALS = [
    ("906 1: entire puck across the goal line between the posts -> goal", 0.10, 0.2, "goal"),
    ("906 1: puck on the line, not entirely across -> no goal", -0.02, 0.2, "no_goal"),
    ("906 1: puck just touching the line's inner edge -> no goal", -0.07, 0.2, "no_goal"),
]


@pytest.mark.parametrize("clause,depth,y,verdict", GOALS, ids=[g[0][:40] for g in GOALS])
def test_906_1(clause, depth, y, verdict):
    g = of_type(goal_clip(depth, y).run(), "goal")
    assert len(g) == 1 and g[0]["verdict"] == verdict, clause
    assert g[0]["margin_m"] == pytest.approx(depth, abs=2e-3)
    assert "unknown" in g[0]["evidence"]["height"]


def test_906_a_camera_that_cannot_tell_12_cm_leaves_a_stopped_puck_undecided():
    """906 1: a puck stopped with its trailing edge 12 cm short of across is no goal when the
    camera places it to a centimetre; seen from above at 5 cm a pixel (a pixel of calibration and
    centroid error, ``vision.puck.puck_sigma_rink_m``), 3 sigma is 15 cm: inconclusive (fresh
    render 878, overhead, called no_goal at 12.7 cm with a 1.4 cm sigma)."""
    c = goal_clip(-0.12)
    assert of_type(c.run(), "goal")[0]["verdict"] == "no_goal"
    g = of_type(c.run(position_bias_m=0.05), "goal")[0]
    assert g["verdict"] == "inconclusive" and g["margin_m"] == pytest.approx(-0.12, abs=2e-3)


def test_906_puck_rolling_into_the_back_corner_of_the_net_is_still_a_goal():
    """906 1: "put between the goal posts ... and entirely across the goal line". Once in,
    where the puck rolls inside the net (an NHL or IIHF net is wider at the back than between
    the posts) does not count: its lateral clearance is where it passed the goal mouth."""
    x_in = 26.025 + R + 0.5  # 0.5 m deep
    c = Clip(3.0)
    t_in = (x_in - 20.0) / 8.0
    c.puck = lambda t: (min(20.0 + 8.0 * t, x_in), 0.2 if t < t_in else min(0.2 + 1.5 * (t - t_in), 1.05))
    c.player(1, "home", still(19.0, 0.2)).player(20, "away", still(15.0, -5.0))
    c.touches = {0: 1}
    g = of_type(c.run(), "goal")
    assert len(g) == 1 and g[0]["verdict"] == "goal"
    assert g[0]["evidence"]["lateral_clearance_at"] == "goal mouth passage"
    assert g[0]["evidence"]["lateral_clearance_m"] == pytest.approx(0.915 - 0.2 - R, abs=2e-3)
    assert g[0]["margin_m"] == pytest.approx(0.5, abs=2e-3)  # the depth decides now


def test_906_puck_passing_outside_the_post_line_is_not_saved_by_rolling_inward():
    """The other way round: a puck whose body was not between the posts as it crossed (its
    clearance there is negative) is not a goal because it ends up in the middle of the net."""
    x_in = 26.025 + R + 0.5
    c = Clip(3.0)
    t_line = (26.025 - R - 20.0) / 8.0  # leading edge at the line's inner edge
    c.puck = lambda t: (min(20.0 + 8.0 * t, x_in), 0.9 if t < t_line + 0.2 else 0.3)
    c.player(1, "home", still(19.0, 0.9)).player(20, "away", still(15.0, -5.0))
    c.touches = {0: 1}
    g = of_type(c.run(), "goal")
    assert len(g) == 1 and g[0]["verdict"] == "no_goal"
    assert g[0]["evidence"]["lateral_clearance_m"] == pytest.approx(0.915 - 0.9 - R, abs=2e-3)


def _shot_lost_at_the_mouth(rest_xy):
    """A puck shot along +x at 12 m/s, measured until 1 m short of the goal line, unseen for six
    frames (its passage through the mouth hidden: behind the goalkeeper, under the crossbar from
    above), then measured lying still at ``rest_xy`` to the end."""
    c = Clip(2.0)
    x_lost = 25.0
    f_lost = int(np.floor((x_lost - 20.0) / 12.0 * 30))
    f_rest = f_lost + 7

    def puck(t):
        f = int(round(t * 30))
        if f <= f_lost:
            return (20.0 + 12.0 * t, 0.1 + 0.1 * t)
        return None if f < f_rest else rest_xy
    c.puck = puck
    c.player(1, "home", still(19.0, 0.1)).player(20, "away", still(15.0, -5.0))
    c.touches = {0: 1}
    return c


def test_906_a_puck_measured_lying_inside_the_goal_frame_passed_between_the_posts():
    """906 1 "between the goal posts": the passage was not seen (six frames, the chord across the
    gap as unsure as the shot was fast), but the puck is then measured lying in the net, 0.6 m
    behind the line between the side nets: the frame and the net close every other way in, so it
    went in by the mouth — a goal, decided on that frame."""
    rest = (26.025 + R + 0.6, 0.25)
    g = of_type(_shot_lost_at_the_mouth(rest).run(detection_sigma_m=0.03), "goal")
    assert len(g) == 1 and g[0]["verdict"] == "goal", g
    assert g[0]["evidence"]["lateral_clearance_at"] == "inside the goal frame"
    assert g[0]["margin_m"] == pytest.approx(0.6, abs=2e-3)


def test_906_a_puck_lying_in_a_back_corner_within_reach_of_the_side_net_decides_nothing():
    """The same shot, the puck measured in a back corner 0.85 m off the goal's axis: within
    3 sigma (a 3 cm detector) of the post's line it may lie outside the side net (gone wide), so
    the unseen passage keeps the call open."""
    rest = (26.025 + R + 0.6, 0.85)
    g = of_type(_shot_lost_at_the_mouth(rest).run(detection_sigma_m=0.03), "goal")
    assert len(g) == 1 and g[0]["verdict"] == "inconclusive", g


def test_906_goal_time_is_when_depth_reaches_zero():
    g = of_type(goal_clip(0.3).run(), "goal")[0]
    assert g["t"] == pytest.approx((26.025 + R - 20.0) / 8.0, abs=1e-4)


def _coasted_into_the_net(depth_measured):
    """A puck along +x at 8 m/s, measured until its centre is ``depth_measured`` across the goal
    line's outer edge (906 1 depth), then coasted on (``measured: false``) 2 m into the net, as a
    tracker carries a puck it lost in the net."""
    c = Clip(2.0)
    x_last = 26.025 + R + depth_measured
    c.puck = lambda t: (min(20.0 + 8.0 * t, 28.0), 0.2)
    c.player(1, "home", still(19.0, 0.2)).player(20, "away", still(15.0, -5.0))
    c.touches = {0: 1}
    c.inferred = {f for f in range(c.n) if 20.0 + 8.0 * f / 30 > x_last + 1e-9}
    return c, x_last


def test_906_goal_on_a_measured_frame_entirely_across_when_the_deepest_point_was_coasted():
    """906 1 "entirely across the goal line": a measured frame with the whole puck across decides
    the goal even though the track then coasted (unmeasured) deeper; the decisive frame and the
    margin are the measured frame's."""
    c, x_last = _coasted_into_the_net(0.15)
    g = of_type(c.run(), "goal")
    assert len(g) == 1 and g[0]["verdict"] == "goal"
    f_last = max(f for f in range(c.n) if f not in c.inferred)
    assert g[0]["evidence"]["decisive_frame"] == f_last
    depth_last = 20.0 + 8.0 * f_last / 30 - R - 26.025
    assert g[0]["margin_m"] == pytest.approx(depth_last, abs=2e-3) and 0.0 < depth_last <= 0.15


def test_906_a_coasted_crossing_alone_is_no_goal_call():
    """906 1: with the puck measured only short of the line (or straddling it), a track coasted
    across is not evidence of a goal, nor of none: inconclusive."""
    c, _ = _coasted_into_the_net(-0.05)
    g = of_type(c.run(), "goal")
    assert len(g) == 1 and g[0]["verdict"] == "inconclusive"
    assert "deepest point" in g[0]["evidence"]["reason"]


def test_906_a_coast_into_the_net_that_the_next_measurement_contradicts_is_no_goal():
    """906 1: the puck slides at 3 m/s to a stop on the line (its centre 0.6 cm short of entirely
    across), hidden behind the goalkeeper; the source coasts it on (``measured: false``) 0.3 m
    into the net for nine frames, then measures it again 0.5 m in front of the line, swept out.
    The deepest point rests on the coast alone — the measurement one frame after it says the
    puck was elsewhere — so it decides nothing (a render, no_goal_on_line broadcast seed 606, was
    a wrong decisive goal this way): inconclusive, never goal."""
    x_stop = 26.025 + R - 0.006
    f_stop, f_back = 40, 50  # on the line from frame 40; coasted 41-49; seen again from 50

    def puck(t):
        f = int(round(t * 30))
        if f <= f_stop:
            return (x_stop - 3.0 * (f_stop - f) / 30, 0.4)
        if f < f_back:
            return (x_stop + 3.0 * (f - f_stop) / 30, 0.4)  # the source's coast
        return (x_stop - 0.5 - 2.4 * (f - f_back) / 30, 0.4 + 3.0 * (f - f_back) / 30)  # swept out

    c = Clip(2.0)
    c.puck = puck
    c.inferred = set(range(f_stop + 1, f_back))
    c.player(1, "home", still(21.0, 0.4)).player(20, "away", still(15.0, -5.0))
    c.touches = {0: 1}
    g = of_type(c.run(), "goal")
    assert len(g) == 1 and g[0]["verdict"] == "inconclusive"
    assert "deepest point" in g[0]["evidence"]["reason"]


def test_906_a_peak_of_coasted_and_gap_filled_positions_is_no_arrival():
    """906 1: the puck, measured moving diagonally towards the goal line (it would pass wide of
    the post), stops 1.3 m short of it: the source coasts it three frames on (``measured:
    false``), then reports nothing for six, then measures it where it stopped (positions noisy
    by 1 cm, so the rules smooth them). The coast and the gap filled after it make a peak 0.6 m
    short of the line, inside the gap, whose stated uncertainty reaches the line; with no
    measurement near it, that is no sighting of an arrival: no goal event."""
    v = np.array([7.0, -7.6])
    stop = np.array([24.69, 0.19])
    f_stop = 15  # measured up to here
    c = Clip(1.2)

    def puck(t):
        f = int(round(t * 30))
        if f <= f_stop:
            return tuple(stop + v * (f - f_stop) / 30)
        if f <= f_stop + 3:
            return tuple(stop + v * (f - f_stop) / 30)  # coasted on
        if f <= f_stop + 9:
            return None
        return tuple(stop)
    c.puck = puck
    c.inferred = {f_stop + 1, f_stop + 2, f_stop + 3}
    c.player(1, "home", still(22.0, 2.0)).player(20, "away", still(24.9, 0.8))
    c.touches = {0: 1}
    assert of_type(c.run(noise_m=0.01), "goal") == []  # noisy: the source positions get smoothed


def test_906_a_track_jumping_back_into_the_net_is_no_second_goal():
    """906 1: one goal per arrival between the posts. The puck goes in and lies in the net; the
    tracker leaves it for a mark 11 m out for eight frames (a phantom) and jumps back to it. That
    jump crosses the goal line between two frames, but nobody saw the puck pass the goal mouth:
    no second goal (sponge tuning render 459 gave one, decided on the frames in the net)."""
    x_in = 26.025 + R + 0.6
    c = Clip(3.0)

    def puck(t):
        f = int(round(t * 30))
        if 60 <= f < 68:
            return (18.1, 4.3 - 0.05 * (f - 60))  # the phantom, moving slowly
        return (min(20.0 + 8.0 * t, x_in), 0.2)
    c.puck = puck
    c.player(1, "home", still(19.0, 0.2)).player(20, "away", still(15.0, -5.0))
    c.touches = {0: 1}
    g = of_type(c.run(), "goal")
    assert [e["verdict"] for e in g] == ["goal", "inconclusive"]
    assert g[0]["t"] == pytest.approx((26.025 + R - 20.0) / 8.0, abs=1e-4)
    assert g[1]["frame"] in (67, 68) and "jumps" in g[1]["evidence"]["reason"]


def test_906_from_behind_is_no_goal():
    """906 1: the puck must be put into the goal from the front; from behind -> no goal."""
    c = Clip(2.0)
    c.puck = lambda t: (28.0 - 5.0 * t, 0.1)
    c.player(1, "home", still(29.0, 0.1)).player(20, "away", still(15.0, -5.0))
    c.touches = {0: 1}
    g = of_type(c.run(), "goal")
    assert len(g) == 1 and g[0]["verdict"] == "no_goal" and g[0]["evidence"]["from_behind"]


def test_906_from_behind_needs_the_puck_measured_behind_the_line():
    """906 1: "from behind" is a fact only where the puck was seen behind the line; a track
    coasted (unmeasured) through the net and picked up again in front is open, not no_goal."""
    from calibration.rink import RinkModel
    from rules_clip import FPS
    from rulesfromvideo.game import GameDescriptor
    from rulesfromvideo.observations import Observations
    from rulesfromvideo.rules import run_rules

    c = Clip(2.0)
    c.puck = lambda t: (28.0 - 5.0 * t, 0.1)
    c.player(1, "home", still(29.0, 0.1)).player(20, "away", still(15.0, -5.0))
    c.touches = {0: 1}
    recs = c.records()
    for r in recs:
        if r["puck"]["x"] > 25.6:  # behind the line and just in front of it: coasted
            r["puck"]["measured"] = False
    game = GameDescriptor.from_dict(c.game)
    obs = Observations.from_records(recs, fps=FPS, detection_sigma_m=0.002, calibration_sigma_m=0.0)
    g = of_type(run_rules(obs, game, RinkModel(game.rink_spec())), "goal")
    assert len(g) == 1 and g[0]["verdict"] == "inconclusive" and g[0]["evidence"]["from_behind"]
    assert "behind" in g[0]["evidence"]["reason"] and g[0]["confidence"] == 0.0


def test_906_over_the_crossbar_is_no_goal():
    """906 1: below the crossbar (1.22 m): a puck known to be higher is no goal."""
    g = of_type(goal_clip(0.3, z=1.5).run(), "goal")[0]
    assert g["verdict"] == "no_goal" and g["evidence"]["over_crossbar"]


def test_906_wide_of_the_post_gives_no_event():
    """906 1: only a puck arriving between the posts is a goal arrival."""
    assert of_type(goal_clip(0.3, y=1.5).run(), "goal") == []


@pytest.mark.parametrize("y", [0.925, 0.94])
def test_906_puck_at_the_post_is_an_arrival_not_silence(y):
    """906 1 (between the posts, 218 b: posts 1.83 m apart inside, 0.915 m each side): a puck
    whose measured centre lies 1–2.5 cm outside a post's inner edge, within 3 sigma (1.5 cm
    here) of it, may have been between the posts: the judge gets an event — not a goal, since
    its lateral clearance 0.915 − |y| − r is negative — instead of no event at all."""
    c = goal_clip(0.3, y=y)
    g = of_type(c.run(detection_sigma_m=0.015), "goal")
    assert len(g) == 1 and g[0]["verdict"] in ("no_goal", "inconclusive")
    assert g[0]["margin_m"] == pytest.approx(0.915 - y - R, abs=2e-3)
    assert of_type(goal_clip(0.3, y=0.915 + 0.06).run(detection_sigma_m=0.015), "goal") == []


def _lost_clip(depth, hidden_from_s=0.55, hidden_to_s=1.6, y=0.2):
    """``goal_clip`` whose puck is hidden (a goalkeeper's pad, the net in front of a goal camera)
    from ``hidden_from_s`` (at 20 + 8 t m) to ``hidden_to_s``; it then comes back out towards
    the slot at 2 m/s from where it stopped."""
    c = goal_clip(depth, y=y)
    base = c.puck
    t_back = hidden_to_s

    def puck(t):
        if hidden_from_s <= t < hidden_to_s:
            return None
        if t >= t_back:
            x, yy = base(t_back)
            return (x - 2.0 * (t - t_back), yy)
        return base(t)
    c.puck = puck
    return c


@pytest.mark.parametrize("depth", [0.05, -0.05])
def test_906_puck_lost_moving_into_the_goal_mouth_is_inconclusive_not_silence(depth):
    """906 1: the puck, last seen 1.1 m short of the goal line between the posts and moving
    into the goal at 8 m/s, is hidden for a second; it may have entirely crossed the line
    unseen, or not (the same footage whether it stopped 5 cm in or 5 cm short). The judge gets
    an ``inconclusive`` goal at the instant it could first have arrived, not silence."""
    g = of_type(_lost_clip(depth).run(), "goal")
    assert len(g) == 1 and g[0]["verdict"] == "inconclusive"
    assert "lost" in g[0]["evidence"]["reason"]
    # last seen at t = 16/30 s (x = 24.27 m): its leading edge reaches the line's inner edge
    # (25.975 m) 1.71 m / 8 m/s later
    assert g[0]["t"] == pytest.approx(16 / 30 + (25.975 - (20.0 + 8.0 * 16 / 30) - R) / 8.0, abs=0.02)


def test_906_puck_lost_wide_of_the_posts_or_moving_away_gives_no_event():
    """906 1: only a puck that could arrive between the posts is a possible goal."""
    assert of_type(_lost_clip(0.05, y=1.6).run(), "goal") == []
    assert of_type(_lost_clip(0.05, hidden_from_s=1.7, hidden_to_s=1.9).run(), "goal")[0]["verdict"] == "goal"


def _crease_clip(blades, footprint):
    """``goal_clip`` with a second attacker (``blades``, ``footprint``) and the attacking team's
    other three skaters out at the blue line: all five placed at the goal (907 a4 "clear" needs it)."""
    c = goal_clip(0.3)
    c.player(2, "home", blades, footprint=footprint)
    for j, y in enumerate((-8.0, -2.0, 8.0)):
        c.player(61 + j, "home", still(9.5, y))
    return c


def test_907_a4_sled_in_crease_occupied():
    """907 a4: an attacking player has any part of his sled in the goal crease when the puck enters."""
    b = still(24.0, 1.0)
    cr = of_type(_crease_clip(b, sledge_fp(b)).run(), "crease")
    assert len(cr) == 1 and cr[0]["verdict"] == "occupied" and cr[0]["evidence"]["source"] == "footprint"


def test_907_a4_clear_and_blades_only():
    """217: crease polygon; without a footprint a nominal sled outline is placed on the blades."""
    b = still(15.0, 5.0)
    assert of_type(_crease_clip(b, sledge_fp(b)).run(), "crease")[0]["verdict"] == "clear"
    # blades outside, the sled's front (0.85 m ahead, facing +x) inside -> occupied
    e = of_type(_crease_clip(still(24.0, 1.0), None).run(), "crease")[0]
    assert e["verdict"] == "occupied" and e["evidence"]["source"] == "nominal_outline_from_blades"
    # facing away from the goal (-x): the outline stays out of the crease
    away = lambda t: [[23.7, 1.0 - 0.125], [23.7, 1.0 + 0.125]]
    assert of_type(_crease_clip(away, None).run(), "crease")[0]["verdict"] == "clear"
    # heading undefined (blades on one point) near the crease -> cannot prove it clear
    point = lambda t: [[23.5, 1.0], [23.5, 1.0]]
    assert of_type(_crease_clip(point, None).run(), "crease")[0]["verdict"] == "inconclusive"
    assert of_type(_crease_clip(still(15.0, 5.0), None).run(), "crease")[0]["verdict"] == "clear"


def test_907_a4_an_attacker_without_blades_at_the_goal_keeps_clear_open_and_says_so():
    """907 a4: every attacker placed well out of the crease but one whose blades are not known
    at the goal (tracked, then lost): he may be in it. ``inconclusive``, naming him in
    ``evidence.reason``, confidence 0 (open for want of data; 14 such calls on 260 renders
    read confidence 1.00 with no reason)."""
    b = still(15.0, 5.0)
    c = _crease_clip(b, sledge_fp(b))
    c.players = [pl for pl in c.players if pl[0] != 63]
    c.player(63, "home", lambda t: [[9.5 - 0.125, 8.0], [9.5 + 0.125, 8.0]] if t < 0.2 else None)
    e = of_type(c.run(), "crease")[0]
    assert e["verdict"] == "inconclusive" and e["evidence"]["blades_missing"] == [63]
    assert "63" in e["evidence"]["reason"] and e["confidence"] == 0.0


def test_907_a4_blade_model_error_keeps_a_shallow_sled_open():
    """907 a4: a nominal sled 0.31 m into the crease is occupied on exact blades; on blades placed
    from a camera silhouette (1-sigma 0.25 m, ``Observations.blade_sigma_m``) it is undecided."""
    e = of_type(_crease_clip(still(24.0, 1.0), None).run(), "crease")[0]
    assert e["verdict"] == "occupied" and e["margin_m"] == pytest.approx(0.3147, abs=1e-3)
    e = of_type(_crease_clip(still(24.0, 1.0), None).run(blade_sigma_m=0.25), "crease")[0]
    assert e["verdict"] == "inconclusive" and e["evidence"]["sigma_m"] >= 0.25


def test_907_a4_a_sled_clear_of_the_crease_is_judged_by_its_error_towards_it():
    """907 a4 with a per-view blade error: a sled beside the crease (0.68 m from it, across the
    rink) is clear by 3 sigma where the camera places y to 15 cm, even though it places x only to
    45 cm (a goal camera); the same sled under the error turned 90 degrees is undecided. The gap
    changes, to first order, by the shift along the normal from the sled to the crease."""
    side = lambda t: [[24.875, 2.6], [25.125, 2.6]]  # heading +y, away from the crease
    goalcam = np.diag([0.45 ** 2, 0.15 ** 2])
    e = of_type(_crease_clip(side, None).run(blade_sigma_m=0.25, blade_cov_m2=goalcam), "crease")[0]
    assert e["verdict"] == "clear" and e["margin_m"] == pytest.approx(-0.682, abs=2e-3)
    assert e["evidence"]["sigma_m"] < 0.682 / 3
    turned = np.diag([0.15 ** 2, 0.45 ** 2])
    e = of_type(_crease_clip(side, None).run(blade_sigma_m=0.25, blade_cov_m2=turned), "crease")[0]
    assert e["verdict"] == "inconclusive" and e["evidence"]["sigma_m"] > 0.682 / 3


def test_1064_goalkeeper_beyond_centre_red_line():
    """1064: a goalkeeper participating in the play beyond the centre red line; the blades decide."""
    for x, expected in ((1.0, ["penalty"]), (-3.0, [])):
        c = Clip(1.0)
        c.puck = lambda t, x=x: (x + 0.9 + (6.0 * (t - 1 / 3) if t > 1 / 3 else 0.0), 0.0)
        c.player(30, "home", still(x, 0.0), role="goalkeeper").player(20, "away", still(-10, 5))
        c.touches = {10: 30}
        ev = of_type(c.run(), "goalkeeper_beyond_centre")
        assert [e["verdict"] for e in ev] == expected
        if expected:
            assert ev[0]["margin_m"] == pytest.approx(x - 0.15, abs=1e-6) and ev[0]["rule"] == "1064"


def key_clip(dwell_end):
    """Sponge (NHL rink): home player 2's feet enter the +x key and stay until ``dwell_end``."""
    c = Clip(6.0, "sponge-westridge")
    c.puck = lambda t: (20.9, 5.0)
    c.player(3, "home", still(20.0, 5.0))

    def feet(t):
        x = 24.0 + 1.0 * t if t < dwell_end else 24.0 + dwell_end - 2.0 * (t - dwell_end)
        x = min(x, 26.3)
        return [[x, 0.3 + 0.1], [x, 0.3 - 0.1]]
    c.player(2, "home", feet).player(20, "away", still(15.0, -5.0))
    c.touches = {0: 3}
    return c


def test_westridge_1o_three_second_key():
    """1 n / 1 o: three (3) second limit in the goalie's key, counted from the foot entering."""
    k = of_type(key_clip(9.0).run(), "key_3s")
    assert len(k) == 1 and k[0]["verdict"] == "violation" and k[0]["team"] == "home"
    assert k[0]["t"] == pytest.approx(k[0]["evidence"]["entered_t"] + 3.0, abs=1e-9)
    assert of_type(key_clip(3.0).run(), "key_3s") == []


def test_westridge_1r_mercy():
    """1 r: ahead by a fifteen (15) goal spread during the second half: the game is called."""
    for clock, expected in (({"period": 2, "remaining_s": 600.0}, 1), ({"period": 1, "remaining_s": 600.0}, 0)):
        c = goal_clip(0.3)
        c.game = {**c.game, "rules": "sponge-westridge", "rink": {"layout": "nhl"},
                  "score": {"home": 14, "away": 0}, "clock": clock}
        x_stop = 27.1526 + R + 0.3
        c.puck = lambda t, x_stop=x_stop: (min(20.0 + 8.0 * t, x_stop), 0.2)
        m = of_type(c.run(), "mercy")
        assert len(m) == expected
        if expected:
            assert m[0]["verdict"] == "game_called" and m[0]["evidence"]["spread"] == 15


def test_odd_input_does_not_crash():
    """Bad input: no puck at all, NaN-free but empty players -> no events, no crash."""
    c = Clip(1.0)
    assert c.run() == []


def test_crossing_on_a_track_jump_is_inconclusive():
    """design: never a confident call from a teleport. A tracker that followed another
    object and re-acquires the puck 18 m away across the blue line (903 b2 needs the
    puck's real crossing) must not yield a decisive zone entry."""
    import numpy as np

    from rulesfromvideo.observations import Observations
    from rulesfromvideo.rules.common import PUCK_MAX_SPEED_MPS, puck_jumps_near

    recs = []
    for f in range(20):
        x = 7.0 - 0.05 * f if f < 10 else -11.5 - 0.15 * (f - 10)
        recs.append({"frame": f, "t": f / 30.0, "puck": {"x": x, "y": 0.0, "measured": True},
                     "players": []})
    obs = Observations.from_records(recs, fps=30.0)
    assert puck_jumps_near(obs, 9)
    assert not puck_jumps_near(obs, 3)
    # 100 km/h over one frame stays below the limit
    assert 27.8 / 30.0 < PUCK_MAX_SPEED_MPS / 30.0
    assert np.isfinite(obs.puck_xy_rink_m).all()


def test_906_unmeasured_deepest_point_is_open_with_no_confidence():
    """906 1: a puck coasted (not measured) past the line cannot make a goal; the call is
    ``inconclusive`` for want of data, and says so with confidence 0 rather than the
    Φ(|margin| / sigma) ≈ 1 of its unmeasured 0.3 m depth."""
    c = goal_clip(0.3)
    recs = c.records()
    for r in recs:
        if r["puck"] is not None and r["puck"]["x"] > 25.0:  # from 5 frames before the line
            r["puck"]["measured"] = False
    from calibration.rink import RinkModel
    from rules_clip import FPS
    from rulesfromvideo.game import GameDescriptor
    from rulesfromvideo.observations import Observations
    from rulesfromvideo.rules import run_rules

    game = GameDescriptor.from_dict(c.game)
    obs = Observations.from_records(recs, fps=FPS, detection_sigma_m=0.002, calibration_sigma_m=0.0)
    g = of_type(run_rules(obs, game, RinkModel(game.rink_spec())), "goal")
    assert len(g) == 1 and g[0]["verdict"] == "inconclusive" and "measured" in g[0]["evidence"]["reason"]
    assert g[0]["confidence"] == 0.0
    assert of_type(goal_clip(0.3).run(), "goal")[0]["confidence"] > 0.99  # measured: decisive and sure


def test_907_a4_an_attacker_labelled_goalkeeper_at_the_goal_keeps_the_crease_open():
    """907 a4 is about any attacking player. A track of the attacking team labelled goalkeeper
    sitting in the crease of the goal being scored on is an attacker the tracker took for the
    goalkeeper (tuning render 471: the crease called clear by 6.6 m while a home attacker sat
    in it) or the goalkeeper with the wrong colour: the call cannot be clear. At his own goal
    such a track is his team's goalkeeper and changes nothing."""
    c = _crease_clip(still(15.0, 5.0), None)
    c.player(3, "home", still(25.0, 0.5), role="goalkeeper")
    e = of_type(c.run(), "crease")[0]
    assert e["verdict"] == "inconclusive" and "3" in e["evidence"]["attacking_team_goalkeeper_at_this_goal"]
    c = _crease_clip(still(15.0, 5.0), None)
    c.player(3, "home", still(-25.0, 0.5), role="goalkeeper")
    assert of_type(c.run(), "crease")[0]["verdict"] == "clear"


def test_907_a4_a_second_defending_goalkeeper_or_an_unknown_skater_at_the_goal_keeps_the_crease_open():
    """907 a4 is about any attacking player, and a team has one goalkeeper. Two tracks of the
    defending team labelled goalkeeper in the crease: one is someone else, maybe an attacker
    (render goal_crease_occupied goalcam seed 549: the attacker in the crease beside the
    goalkeeper was taken for a second goalkeeper of the defending team, and the crease was called clear). A
    track of unknown team there may be an attacker too. One goalkeeper alone changes nothing."""
    def with_players(*extra):
        c = _crease_clip(still(15.0, 5.0), None)
        for pid, team, xy, role in extra:
            c.player(pid, team, still(*xy), role=role)
        return of_type(c.run(), "crease")[0]

    assert with_players((30, "away", (25.6, 0.0), "goalkeeper"))["verdict"] == "clear"
    e = with_players((30, "away", (25.6, 0.0), "goalkeeper"), (31, "away", (25.2, -0.8), "goalkeeper"))
    assert e["verdict"] == "inconclusive" and set(e["evidence"]["defending_goalkeepers_at_this_goal"]) == {"30", "31"}
    e = with_players((30, "away", (25.6, 0.0), "goalkeeper"), (32, None, (24.8, 1.2), "skater"))
    assert e["verdict"] == "inconclusive" and "32" in e["evidence"]["unknown_team_at_this_goal"]
    assert with_players((30, "away", (25.6, 0.0), "goalkeeper"), (33, "away", (24.8, 1.2), "skater"))["verdict"] == "clear"


def test_907_a4_clear_needs_every_attacker_placed():
    """907 a4 is about any attacking player: with four of the attacking team's five skaters
    (GAME.json strength, 702) seen at the goal, the fifth may sit in the crease hidden in
    another's blob (a render, goal_crease_occupied goalcam seed 609: the attacker in the crease
    and the goalkeeper were one "goalkeeper" track, and the crease was called clear by 3.3 m).
    Undecided; with the team short-handed to four, clear."""
    c = _crease_clip(still(15.0, 5.0), None)
    c.players = [pl for pl in c.players if pl[0] != 63]
    e = of_type(c.run(), "crease")[0]
    assert e["verdict"] == "inconclusive" and e["evidence"]["attackers_placed"] == "4 of 5"
    c.game["strength"] = [{"t": 0.0, "home": 4, "away": 5}]
    assert of_type(c.run(), "crease")[0]["verdict"] == "clear"
