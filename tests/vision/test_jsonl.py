import json
import warnings

import pytest

from vision.evaluation import load_tracks
from vision.jsonl import iter_jsonl, read_jsonl


RECORDS = [{"frame": 0, "t": 0.0, "puck": None, "players": []},
           {"frame": 1, "t": 0.04, "puck": {"x": 1.5, "y": -2.0, "measured": True}, "players": []}]


def test_round_trip_and_blank_lines(tmp_path):
    p = tmp_path / "tracks.jsonl"
    p.write_text("\n" + json.dumps(RECORDS[0]) + "\n\n   \n" + json.dumps(RECORDS[1]) + "\n\n")
    assert read_jsonl(p) == RECORDS
    assert list(iter_jsonl(p)) == RECORDS
    assert load_tracks(tmp_path) == RECORDS  # folder form


def test_truncated_last_line_is_skipped_with_warning(tmp_path):
    p = tmp_path / "tracks.jsonl"
    p.write_text(json.dumps(RECORDS[0]) + "\n" + json.dumps(RECORDS[1])[:20])
    with pytest.warns(UserWarning, match="line 2"):
        assert read_jsonl(p) == RECORDS[:1]


def test_bad_line_mid_file_raises_naming_line(tmp_path):
    p = tmp_path / "tracks.jsonl"
    p.write_text(json.dumps(RECORDS[0]) + "\n{oops\n" + json.dumps(RECORDS[1]) + "\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="line 2"):
            read_jsonl(p)


def test_empty_file(tmp_path):
    p = tmp_path / "tracks.jsonl"
    p.write_text("")
    assert read_jsonl(p) == []
