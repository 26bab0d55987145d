"""VideoWriter / iter_frames / probe round trip and clear errors on bad files."""

from __future__ import annotations

import numpy as np
import pytest

from vision.video import VideoError, VideoWriter, iter_frames, iter_frames_at, probe


def test_write_then_read_back_ten_frames(tmp_path):
    path = tmp_path / "clip.mp4"
    rng = np.random.default_rng(0)
    frames = []
    with VideoWriter(path, 25.0, 96, 64, crf=18) as w:
        for i in range(10):
            f = np.zeros((64, 96, 3), np.uint8)
            f[:, :] = (20 * i, 255 - 20 * i, 128)
            f[10:30, 10 + 5 * i:30 + 5 * i] = 255  # a moving white square
            f = np.clip(f.astype(int) + rng.integers(-3, 4, f.shape), 0, 255).astype(np.uint8)
            frames.append(f)
            w.write(f)
    assert probe(path) == (25.0, 96, 64, 10)
    back = list(iter_frames(path))
    assert [i for i, _ in back] == list(range(10))
    for (_, g), f in zip(back, frames):
        assert g.shape == (64, 96, 3) and g.dtype == np.uint8
        assert np.abs(g.astype(int) - f.astype(int)).mean() < 6.0  # lossy, but the same picture


def test_bad_inputs_raise_video_error(tmp_path):
    with pytest.raises(VideoError, match="even"):
        VideoWriter(tmp_path / "odd.mp4", 30, 95, 64)
    w = VideoWriter(tmp_path / "a.mp4", 30, 64, 48)
    with pytest.raises(VideoError, match=r"\(48, 64, 3\)"):
        w.write(np.zeros((48, 63, 3), np.uint8))
    w.close()
    with pytest.raises(VideoError, match="no such file"):
        probe(tmp_path / "missing.mp4")
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"not a video" * 50)
    with pytest.raises(VideoError):
        list(iter_frames(junk))
    good = tmp_path / "good.mp4"
    with VideoWriter(good, 30, 64, 48) as w:
        for i in range(30):
            w.write(np.full((48, 64, 3), 8 * i, np.uint8))
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    with pytest.raises(VideoError):
        list(iter_frames(cut))


def test_frames_at_wanted_indices_are_the_same_frames_as_a_full_read(tmp_path):
    path = tmp_path / "clip.mp4"
    with VideoWriter(path, 25.0, 96, 64, crf=18) as w:
        for i in range(12):
            w.write(np.full((64, 96, 3), (10 * i, 200 - 10 * i, 90), np.uint8))
    every = dict(iter_frames(path))
    got = list(iter_frames_at(path, [7, 2, 2, 11, 40, -1]))
    assert [i for i, _ in got] == [2, 7, 11]  # sorted, once each; past the end and negative: none
    for i, frame in got:
        assert np.array_equal(frame, every[i])
    assert list(iter_frames_at(path, [])) == []
    with pytest.raises(VideoError, match="no such file"):
        list(iter_frames_at(tmp_path / "missing.mp4", [0]))
