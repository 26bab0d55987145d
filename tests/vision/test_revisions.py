"""vision.revisions: later knowledge of earlier frames applied to held tracks.jsonl records."""

from __future__ import annotations

from vision.revisions import RecordReviser


def _rec(f, puck=None):
    return {"frame": f, "t": f / 30.0, "puck": puck, "players": []}


def test_records_come_out_in_order_after_the_delay_and_all_on_flush():
    rv = RecordReviser(3)
    out = []
    for f in range(5):
        got = rv.push(_rec(f))
        assert len(got) == (1 if f >= 3 else 0)
        out += got
    out += rv.flush()
    assert [r["frame"] for r in out] == list(range(5))
    assert rv.flush() == []


def test_backfill_fills_unknown_pucks_and_revisions_replace_known_ones():
    rv = RecordReviser(4)
    rv.push(_rec(0))
    rv.push(_rec(1, {"x": 5.0, "y": 1.0, "measured": True, "touch": {"player": 3, "team": "home"}}))
    rv.push(_rec(2, {"x": 5.1, "y": 1.0, "measured": True}))
    rv.push(_rec(3, {"x": 5.2, "y": 1.0, "measured": True}),
            backfill=[{"frame": 0, "x": 4.9, "y": 1.0, "measured": True},
                      {"frame": 2, "x": 9.0, "y": 9.0, "measured": True}],  # frame 2 is known: kept
            revisions=[{"frame": 1, "x": 6.0, "y": 2.0, "z": 0.5, "measured": False},
                       {"frame": 0, "x": 7.0, "y": 7.0, "z": 0.4, "measured": False}])  # frame 0 was unknown
    out = rv.flush()
    assert out[0]["puck"] == {"x": 4.9, "y": 1.0, "measured": True}
    assert out[1]["puck"] == {"x": 6.0, "y": 2.0, "z": 0.5, "measured": False,
                              "touch": {"player": 3, "team": "home"}}
    assert out[2]["puck"] == {"x": 5.1, "y": 1.0, "measured": True}
    assert rv.backfilled == 1 and rv.revised == 1


def test_a_revision_of_a_record_already_released_changes_nothing():
    rv = RecordReviser(1)
    first = rv.push(_rec(0, {"x": 1.0, "y": 0.0, "measured": True}))
    released = rv.push(_rec(1, {"x": 1.1, "y": 0.0, "measured": True}))
    assert first == [] and released[0]["frame"] == 0
    rv.push(_rec(2, {"x": 1.2, "y": 0.0, "measured": True}),
            revisions=[{"frame": 0, "x": 3.0, "y": 3.0, "z": 0.5, "measured": False}])
    assert released[0]["puck"] == {"x": 1.0, "y": 0.0, "measured": True} and rv.revised == 0


def _with_players(f, ids):
    return {"frame": f, "t": f / 30.0, "puck": None,
            "players": [{"id": k, "team": "home", "role": "skater", "blades": [[k, 0.0], [k, 0.25]]} for k in ids]}


def test_a_retracted_track_leaves_every_held_record_and_only_those():
    # Track 7 (a logo found to be paint on frame 3) goes from the records still held (1, 2), not
    # from the one already released (0); track 2 stays everywhere.
    rv = RecordReviser(2)
    out = []
    for f in range(3):
        out += rv.push(_with_players(f, [2, 7]))
    out += rv.push(_with_players(3, [2]), retractions=[7])
    out += rv.flush()
    assert [[p["id"] for p in r["players"]] for r in out] == [[2, 7], [2], [2], [2]]
    assert rv.retracted == 2


def test_held_records_hold_long_enough_for_a_logo_to_be_found():
    # A logo is paint after PAINT_CHECKS checks a third of a second apart: its records of
    # that time (and the checks' start) are still held then.
    from vision.revisions import RETRACT_HOLD_S, HeldRecords
    from vision.tracking import PAINT_CHECKS

    held = HeldRecords(30.0)
    assert held.reviser.delay == int(round(RETRACT_HOLD_S * 30.0)) > PAINT_CHECKS * 0.33 * 30.0


def test_a_new_tracks_tentative_frames_get_him_in_the_records_still_held():
    # Track 5, first reported on frame 3, was tentative on frames 0-2: frame 0's record is
    # already released (unchanged), frames 1 and 2 get him; frame 2 already has a player 5
    # (another track's id reused cannot happen, but a record is never given an id twice).
    rv = RecordReviser(2)
    out = rv.push(_with_players(0, [2]))
    out += rv.push(_with_players(1, [2]))
    out += rv.push(_with_players(2, [2, 5]))
    late = {"id": 5, "team": "away", "role": "skater", "blades": [[9.0, 1.0], [9.0, 1.25]]}
    out += rv.push(_with_players(3, [2, 5]), player_backfill=[{"frame": f, "player": late} for f in (0, 1, 2)])
    out += rv.flush()
    assert [[p["id"] for p in r["players"]] for r in out] == [[2], [2, 5], [2, 5], [2, 5]]
    assert out[1]["players"][1] == late and out[2]["players"][1]["blades"] == [[5, 0.0], [5, 0.25]]
    assert rv.players_backfilled == 1


def test_puck_retractions_unset_the_held_spot_in_their_frame_range_only():
    """A still spot that was not the puck (``FrameObservation.puck_retractions``): held records of
    those frames with the puck within the radius of it get an unknown puck; a record outside the
    range, or with the puck elsewhere (the puck itself, before the track came to the spot), keeps it;
    a record already released is not touched."""
    rv = RecordReviser(4)
    out = rv.push(_rec(0, {"x": 5.0, "y": 0.0, "measured": True}))
    out += rv.push(_rec(1, {"x": 2.0, "y": 0.0, "measured": True}))  # elsewhere: kept
    out += rv.push(_rec(2, {"x": 5.1, "y": 0.1, "measured": True}))
    out += rv.push(_rec(3, {"x": 4.9, "y": 0.0, "measured": False}))
    out += rv.push(_rec(4, {"x": 5.0, "y": 0.05, "measured": True}))  # releases frame 0
    out += rv.push(_rec(5, {"x": -9.0, "y": 2.0, "measured": True}),
                   puck_retractions=[{"from_frame": 0, "to_frame": 3, "x": 5.0, "y": 0.0, "radius_m": 0.3}])
    out += rv.flush()
    assert [r["puck"] is None for r in out] == [False, False, True, True, False, False]
    assert out[0]["puck"]["x"] == 5.0 and out[4]["puck"]["x"] == 5.0  # released before / after the range
    assert rv.puck_retracted == 2
