"""rulesfromvideo.allocator: frame-sized arrays reused from the heap, not faulted in afresh."""

import os
import platform
import subprocess
import sys

import pytest

# A frame loop in miniature: a 2.7 MB (720p) array allocated, written and freed 40 times; prints the
# process's minor page faults over the loop.
_LOOP = """
import resource, sys
import numpy as np
from rulesfromvideo.allocator import keep_frame_arrays_in_heap
took = keep_frame_arrays_in_heap() if sys.argv[1] == "set" else None
for _ in range(3):
    np.ones((720, 1280, 3), np.uint8)
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(40):
    a = np.ones((720, 1280, 3), np.uint8)
    del a
print(took, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _faults(mode: str) -> tuple[str, int]:
    # glibc told to map every block over 128 KiB afresh: the case the module guards against.
    env = dict(os.environ, MALLOC_MMAP_THRESHOLD_="131072")
    out = subprocess.run([sys.executable, "-c", _LOOP, mode], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    return out[0], int(out[1])


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt's thresholds are glibc's")
def test_frame_sized_arrays_are_reused_instead_of_faulted_in_again():
    took, faults_kept = _faults("set")
    _, faults_mapped = _faults("unset")
    assert took == "True"
    # Mapped afresh, each 2.7 MB array faults in its ~660 pages (40 × 660 ≈ 26 000); reused, none.
    assert faults_mapped > 20_000
    assert faults_kept < 1_000
