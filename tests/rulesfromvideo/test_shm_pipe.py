"""Items with arrays handed from a worker process to its parent through shared memory."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from multiprocessing import shared_memory

import numpy as np
import pytest

from rulesfromvideo.childproc import checkout_env
from rulesfromvideo.shm_pipe import SlotReader

# A worker that sends 7 frames of 40×60×3 (through 3 slots), then one frame larger than a slot
# (the pipe carries it whole), then None; it names its block on stderr after the first frame and
# frees it on every way out, as `rulesfromvideo.calibration_worker` does.
_WRITER = textwrap.dedent("""
    import os, sys
    if sys.argv[1] != "room":  # /dev/shm has no room (for more than one slot): ENOSPC
        room = {"full": 0, "one slot": 1}[sys.argv[1]]
        reserve = os.posix_fallocate
        def small(fd, offset, size):
            if size > room * 12288:  # a slot for a 40×60×3 frame and 4 floats (7232 B + 25 %, in pages)
                raise OSError(28, "No space left on device")
            reserve(fd, offset, size)
        os.posix_fallocate = small
    import numpy as np
    from rulesfromvideo.shm_pipe import SlotWriter
    w = SlotWriter(sys.stdout.buffer, sys.stdin.buffer, n_slots=3)
    try:
        for i in range(7):
            w.send((i, np.full((40, 60, 3), i, np.uint8), {"xy": np.arange(4.0) * i}))
            if i == 0:
                print(w.shm.name if w.shm else "-", w.n_slots, file=sys.stderr, flush=True)
        w.send((7, np.full((80, 60, 3), 7, np.uint8), {"xy": np.arange(4.0) * 7}))
        w.send(None)
    except BrokenPipeError:
        print("reader gone", file=sys.stderr, flush=True)
    finally:
        w.close()
""")


def _writer(shm="room"):
    return subprocess.Popen([sys.executable, "-c", _WRITER, shm], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=checkout_env())


@pytest.mark.parametrize("shm", ["room", "one slot", "full"])
def test_items_arrive_whole_in_order_and_stay_the_readers_own(shm):
    """Through the slots (three, or one where /dev/shm has room for one), or through the pipe alone
    where it has none."""
    proc = _writer(shm)
    reader = SlotReader(proc.stdout, proc.stdin)
    got = []
    while (item := reader.recv()) is not None:
        got.append(item)
    reader.close()
    proc.stdin.close()
    name, n_slots = proc.stderr.readline().decode().split()
    assert proc.wait(timeout=30) == 0 and not proc.stderr.read()
    assert [g[0] for g in got] == list(range(8))
    for i, frame, extra in got:
        # The slots were reused (7 items through 3): what arrived earlier was copied out.
        assert frame.shape == ((80 if i == 7 else 40), 60, 3) and np.all(frame == i)
        np.testing.assert_array_equal(extra["xy"], np.arange(4.0) * i)
        frame[0, 0, 0] = 255  # writable
    assert (name == "-") == (shm == "full")
    assert int(n_slots) == {"room": 3, "one slot": 1, "full": 3}[shm]
    if shm != "full":  # the worker freed its block once the reader had read every slot
        with pytest.raises(FileNotFoundError):
            shared_memory.SharedMemory(name=name)


def test_a_reader_that_stops_reading_lets_the_worker_end():
    """The parent closes both pipes after one item (max_frames, an error): the worker, waiting for
    a free slot or writing, sees the pipes gone, ends and frees its block."""
    proc = _writer()
    reader = SlotReader(proc.stdout, proc.stdin)
    assert reader.recv()[0] == 0
    name = proc.stderr.readline().decode().split()[0]
    reader.close()
    proc.stdin.close()
    proc.stdout.close()
    assert proc.wait(timeout=30) == 0
    assert proc.stderr.read().decode().strip() == "reader gone"
    with pytest.raises(FileNotFoundError):
        shared_memory.SharedMemory(name=name)
