"""Output-file schemas (design: events.json, tracks.jsonl, calibration.jsonl) and safe I/O."""

from __future__ import annotations

import json
import os

import pytest
from pydantic import ValidationError

from rulesfromvideo import schema
from rulesfromvideo.schema import (
    ALLOWED_VERDICTS,
    CalibrationFrame,
    Event,
    EventsFile,
    SchemaError,
    TrackFrame,
    read_calibration_jsonl,
    read_events_json,
    read_tracks_jsonl,
    write_events_json,
    write_jsonl,
)


def event(**kw) -> dict:
    base = {
        "type": "zone_entry",
        "t": 12.345,
        "frame": 370,
        "team": "home",
        "verdict": "offside",
        "confidence": 0.9,
        "margin_m": 0.042,
        "rule": "903 b1",
        "evidence": {"player": 7},
    }
    base.update(kw)
    return base


TRACK = {
    "frame": 3,
    "t": 0.1,
    "puck": {"x": 1.5, "y": -2.0, "measured": True},
    "players": [
        {"id": 7, "team": "home", "role": "skater", "blades": [[1.0, 2.0], [1.2, 2.1]]},
        {"id": 30, "team": "away", "role": "goalkeeper", "blades": [[-26.0, 0.3], [-26.0, -0.3]]},
    ],
}


# ---- events -------------------------------------------------------------------

# Design: zone_entry onside|offside|inconclusive; icing icing|waved_off|inconclusive;
# goal goal|no_goal|inconclusive; crease clear|occupied|inconclusive.
DESIGN_VERDICTS = {
    "zone_entry": {"onside", "offside", "inconclusive"},
    "icing": {"icing", "waved_off", "inconclusive"},
    "goal": {"goal", "no_goal", "inconclusive"},
    "crease": {"clear", "occupied", "inconclusive"},
}


def test_allowed_verdicts_are_the_designs():
    assert {k: set(v) for k, v in ALLOWED_VERDICTS.items()} == DESIGN_VERDICTS


@pytest.mark.parametrize(
    "etype, verdict, ok",
    [(t, v, True) for t, vs in DESIGN_VERDICTS.items() for v in vs]
    + [
        ("zone_entry", "icing", False),
        ("icing", "offside", False),
        ("goal", "occupied", False),
        ("crease", "goal", False),
        ("goal", "GOAL", False),
    ],
)
def test_verdict_per_type(etype, verdict, ok):
    data = event(type=etype, verdict=verdict)
    if ok:
        assert Event.model_validate(data).verdict == verdict
    else:
        with pytest.raises(ValidationError, match=f"verdict: '{verdict}' is not a {etype} verdict"):
            Event.model_validate(data)


@pytest.mark.parametrize(
    "override, field",
    [
        ({"type": "penalty"}, "type"),
        ({"team": "visitors"}, "team"),
        ({"confidence": 1.01}, "confidence"),
        ({"confidence": -0.1}, "confidence"),
        ({"t": -0.5}, "t"),
        ({"frame": -1}, "frame"),
        ({"margin_m": float("nan")}, "margin_m"),
        ({"margin_m": None}, "margin_m"),  # only inconclusive calls may lack a margin
        ({"rule": ""}, "rule"),
        ({"extra": 1}, "extra"),
    ],
)
def test_bad_events_name_the_field(tmp_path, override, field):
    with pytest.raises(SchemaError) as info:
        write_events_json(tmp_path / "events.json", [event(**override)])
    assert str(info.value).startswith(f"events[0]: {field}")
    assert not (tmp_path / "events.json").exists()


def test_inconclusive_may_lack_a_margin():
    assert Event.model_validate(event(verdict="inconclusive", margin_m=None)).margin_m is None


def test_write_then_read_events(tmp_path):
    path = tmp_path / "out" / "events.json"
    events = [Event.model_validate(event()), event(type="goal", verdict="no_goal", margin_m=-0.01,
                                                   rule="906 1", evidence={"from_behind": True})]
    write_events_json(path, events)
    doc = json.loads(path.read_text())
    assert list(doc) == ["events"]
    assert doc["events"][0] == event()
    assert doc["events"][1]["evidence"] == {"from_behind": True}
    back = read_events_json(path)
    assert isinstance(back, EventsFile) and [e.type for e in back.events] == ["zone_entry", "goal"]
    assert not [p for p in path.parent.iterdir() if p.name != "events.json"]  # no temp files left


def test_write_events_replaces_atomically(tmp_path, monkeypatch):
    path = tmp_path / "events.json"
    write_events_json(path, [event()])
    before = path.read_text()

    def boom(*_a, **_k):
        raise KeyboardInterrupt  # an interrupted run, mid-write

    monkeypatch.setattr(schema.json, "dump", boom)
    with pytest.raises(KeyboardInterrupt):
        write_events_json(path, [event(verdict="onside", margin_m=-0.2)])
    assert path.read_text() == before  # old file intact, never torn
    assert os.listdir(tmp_path) == ["events.json"]  # temp file removed


def test_invalid_events_leave_existing_file_untouched(tmp_path):
    path = tmp_path / "events.json"
    write_events_json(path, [event()])
    before = path.read_text()
    with pytest.raises(SchemaError, match=r"events\[1\]: verdict"):
        write_events_json(path, [event(), event(verdict="maybe")])
    assert path.read_text() == before


@pytest.mark.parametrize(
    "content, expected",
    [("{", "not valid JSON"), ('{"events": [{"type": "goal"}]}', r"events\[0\]\.t: Field required")],
)
def test_read_events_errors(tmp_path, content, expected):
    path = tmp_path / "events.json"
    path.write_text(content)
    with pytest.raises(SchemaError, match=expected):
        read_events_json(path)


# ---- tracks -------------------------------------------------------------------


def test_track_frame_design_shape_round_trips():
    frame = TrackFrame.model_validate(TRACK)
    assert frame.model_dump(mode="json") == TRACK  # optional z / touch omitted, not null


def test_track_frame_optional_z_touch_and_null_puck():
    data = {**TRACK, "puck": {"x": 0.0, "y": 0.0, "measured": False, "z": 0.3,
                              "touch": {"player": 7, "team": "home"}}}
    frame = TrackFrame.model_validate(data)
    assert frame.puck.z == 0.3 and frame.puck.touch.player == 7
    assert frame.model_dump(mode="json") == data
    empty = TrackFrame.model_validate({"frame": 0, "t": 0.0, "puck": None, "players": []})
    assert empty.puck is None and empty.model_dump(mode="json")["puck"] is None


def test_track_frame_keeps_unknown_keys_and_normalises_goalie():
    data = {**TRACK, "source": "other-tracker",
            "players": [{**TRACK["players"][1], "role": "goalie", "conf": 0.8}]}
    frame = TrackFrame.model_validate(data)
    dumped = frame.model_dump(mode="json")
    assert dumped["source"] == "other-tracker"
    assert dumped["players"][0]["role"] == "goalkeeper" and dumped["players"][0]["conf"] == 0.8


def test_read_tracks_jsonl_iterates_and_skips_blank_lines(tmp_path):
    path = tmp_path / "tracks.jsonl"
    rows = [{**TRACK, "frame": i, "t": i / 30} for i in range(3)]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n")
    it = read_tracks_jsonl(path)
    assert iter(it) is it  # a lazy iterator, not a list
    assert [f.frame for f in it] == [0, 1, 2]


@pytest.mark.parametrize(
    "bad_line, expected",
    [
        ("{not json", r"line 2: not valid JSON"),
        (json.dumps({**TRACK, "frame": -1}), r"line 2: frame"),
        (json.dumps({**TRACK, "puck": {"x": 1.0, "y": 2.0}}), r"line 2: puck\.measured: Field required"),
        (json.dumps({**TRACK, "players": [{**TRACK["players"][0], "blades": [[1.0, 2.0]]}]}),
         r"line 2: players\[0\]\.blades"),
        (json.dumps({**TRACK, "players": [{**TRACK["players"][0], "team": "ref"}]}),
         r"line 2: players\[0\]\.team"),
        (json.dumps({**TRACK, "puck": {"x": "NaN", "y": 0, "measured": True}}), r"line 2: puck\.x"),
    ],
)
def test_read_tracks_jsonl_names_the_bad_line(tmp_path, bad_line, expected):
    path = tmp_path / "tracks.jsonl"
    path.write_text(json.dumps(TRACK) + "\n" + bad_line + "\n" + json.dumps(TRACK) + "\n")
    it = read_tracks_jsonl(path)
    assert next(it).frame == 3  # lines before the bad one are still delivered
    with pytest.raises(SchemaError, match=expected) as info:
        next(it)
    assert "tracks.jsonl" in str(info.value)


def test_read_tracks_missing_file(tmp_path):
    with pytest.raises(SchemaError, match="cannot read"):
        read_tracks_jsonl(tmp_path / "none.jsonl")  # at the call, before iterating


# ---- calibration --------------------------------------------------------------


def test_calibration_frames_write_and_read(tmp_path):
    H = [[0.01, 0.0, -6.4], [0.0, -0.02, 7.2], [0.0, 0.0001, 1.0]]
    rows = [{"frame": 0, "H_rink_from_image": H, "quality": 0.93},
            {"frame": 1, "H_rink_from_image": None, "quality": 0.0, "method": "lost"}]
    path = tmp_path / "calibration.jsonl"
    write_jsonl(path, rows, model=CalibrationFrame)
    back = list(read_calibration_jsonl(path))
    assert [list(map(list, b.H_rink_from_image)) if b.H_rink_from_image else None for b in back] == [H, None]
    assert back[1].model_dump()["method"] == "lost"


@pytest.mark.parametrize(
    "row, field",
    [
        ({"frame": 0, "H_rink_from_image": [[1, 0], [0, 1]], "quality": 0.5}, "H_rink_from_image"),
        ({"frame": 0, "H_rink_from_image": None, "quality": 1.5}, "quality"),
        ({"frame": 0, "quality": 0.5}, "H_rink_from_image"),
    ],
)
def test_bad_calibration_rows(row, field):
    with pytest.raises(ValidationError) as info:
        CalibrationFrame.model_validate(row)
    assert info.value.errors()[0]["loc"][0] == field


def test_write_jsonl_tracks_round_trip(tmp_path):
    path = tmp_path / "tracks.jsonl"
    write_jsonl(path, [TrackFrame.model_validate(TRACK), {**TRACK, "frame": 4}], model=TrackFrame)
    lines = path.read_text().splitlines()
    assert len(lines) == 2 and json.loads(lines[0]) == TRACK
    assert [f.frame for f in read_tracks_jsonl(path)] == [3, 4]


def _jsonish(x):
    import json as _json

    return _json.loads(_json.dumps(x))


FAST_CASES = [
    {"frame": 0, "t": 0.0, "puck": None, "players": []},
    {"frame": 3, "t": 0.1, "puck": {"x": 1.0, "y": -2, "measured": True, "z": None},
     "players": [{"id": 4, "team": None, "role": "goalie", "blades": [[1, 2], [3.5, 4]]}]},
    {"frame": 5, "t": 0.2, "puck": {"x": 1.0, "y": 2.0, "measured": False,
                                    "touch": {"player": 7, "team": "away"}, "z": 0.3},
     "players": [{"id": "a", "team": "home", "role": "skater", "blades": [[0, 0], [1, 1]],
                  "footprint": [[0, 0], [1, 0], [1, 1]]}]},
    # A touch by a player whose team vision could not tell (found by the 720p suite: the
    # whole analyze failed on this line before).
    {"frame": 6, "t": 0.25, "puck": {"x": 1.0, "y": 2.0, "measured": True, "touch": {"player": 9, "team": None}},
     "players": [{"id": 9, "team": None, "role": "skater", "blades": [[0, 0], [1, 1]]}]},
]
FAST_REJECTS = [
    {"frame": -1, "t": 0.0, "puck": None},
    {"frame": 1, "t": float("nan"), "puck": None},
    {"frame": 1, "t": 0.0, "puck": {"x": 1.0, "y": 2.0}},
    {"frame": 1, "t": 0.0, "puck": None, "players": [{"id": 1, "team": "red", "role": "skater",
                                                      "blades": [[0, 0], [1, 1]]}]},
    {"frame": 1, "t": 0.0, "puck": None, "players": [{"id": 1, "team": "home", "role": "skater",
                                                      "blades": [[0, 0]]}]},
    {"frame": 1, "t": 0.0, "puck": {"x": float("inf"), "y": 2.0, "measured": True}},
    {"frame": 1, "t": 0.0, "puck": {"x": 1.0, "y": 2.0, "measured": True, "touch": {"player": 9, "team": "red"}}},
]


@pytest.mark.parametrize("rec", FAST_CASES)
def test_fast_track_reader_matches_pydantic(rec, tmp_path):
    """iter_track_dicts (fast path) yields what TrackFrame validation yields."""
    from rulesfromvideo.schema import TrackFrame, iter_track_dicts

    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(rec) + "\n")
    assert _jsonish(list(iter_track_dicts(path))[0]) == _jsonish(TrackFrame.model_validate(rec).model_dump())


@pytest.mark.parametrize("rec", FAST_REJECTS)
def test_fast_track_reader_rejects_what_pydantic_rejects(rec, tmp_path):
    from rulesfromvideo.schema import SchemaError, _plain_track, iter_track_dicts

    assert _plain_track(rec) is None
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(rec) + "\n")
    with pytest.raises(SchemaError, match="line 1"):
        list(iter_track_dicts(path))
