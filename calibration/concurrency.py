"""One side thread for the calibration's per-colour image work.

Red and blue paint are processed independently, and OpenCV releases the GIL
inside its functions: the second colour's work (distance transforms, paint
coverage) runs on this thread while the caller does the first, so one frame
uses both cores of a small machine. Results are identical to running them in turn.
"""

from __future__ import annotations

import concurrent.futures
import functools

__all__ = ["side_pool"]


@functools.lru_cache(maxsize=1)
def side_pool() -> concurrent.futures.ThreadPoolExecutor:
    """The process's single-worker executor (created on first use, shared by all calibrators)."""
    return concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="calibration")
