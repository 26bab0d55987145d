"""The C allocator's thresholds for the frame loop's arrays.

Every frame allocates and frees dozens of image-sized arrays (a 720p frame is 2.7 MB; the
scene handed over by the calibration process ~9 MB). glibc's malloc serves blocks above its
mmap threshold with fresh pages from the kernel and unmaps them when they are freed, and it
gives the top of its heap back above its trim threshold; both thresholds adapt upwards, but
not far enough for this loop: every page touched again was a page fault and a zeroed page
(~470 000 minor faults and 1.2–1.4 s of system time over 300 frames of the benchmark's
60 s clip, both processes; ~86 000 and 0.4 s with the settings below, the same peak memory).
Fixed thresholds keep such blocks in the heap and reuse them.
"""

from __future__ import annotations

import ctypes

# glibc's mallopt parameters (malloc.h).
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
#: Blocks up to this size come from the heap: glibc's largest mmap threshold (half its heap
#: size on 64-bit); frames and scenes are far below it.
MMAP_THRESHOLD_BYTES = 32 << 20
#: Freed memory at the heap's top is kept up to this much (a few frames' arrays).
TRIM_THRESHOLD_BYTES = 128 << 20


def keep_frame_arrays_in_heap() -> bool:
    """Set the process's malloc thresholds to ``MMAP_THRESHOLD_BYTES`` and
    ``TRIM_THRESHOLD_BYTES`` (for the rest of the process's life).

    Returns:
        Whether the allocator took both (False where the C library has no ``mallopt`` or
        ignores it, e.g. macOS or musl: nothing changes there).
    """
    try:
        mallopt = ctypes.CDLL(None).mallopt  # the C library this process runs on
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)) and bool(
        mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD_BYTES))
