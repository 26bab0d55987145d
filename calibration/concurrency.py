"""One side thread for the calibration's per-colour image work.

Red and blue paint are processed independently, and OpenCV releases the GIL
inside its functions: the second colour's work (distance transforms, paint
coverage) runs on this thread while the caller does the first, so one frame
uses both cores of a small machine. Results are identical to running them in turn.

Where calibration already runs beside another busy process (``analyze``'s
calibration process next to the vision stage), the side thread only takes that
process's core: ``use_side_thread(False)`` runs the same work in the caller's thread.
"""

from __future__ import annotations

import concurrent.futures
import functools
from collections.abc import Callable
from typing import Any

__all__ = ["side_pool", "use_side_thread"]

_SIDE_THREAD = True


class _InlineExecutor:
    """``submit`` runs the call at once in the caller's thread and returns its finished future."""

    @staticmethod
    def submit(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> concurrent.futures.Future:
        fut: concurrent.futures.Future = concurrent.futures.Future()
        try:
            fut.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # handed to .result(), as a thread pool's future would
            fut.set_exception(exc)
        return fut


def use_side_thread(enabled: bool) -> None:
    """Whether ``side_pool()`` runs work on the side thread (default) or in the caller's thread."""
    global _SIDE_THREAD
    _SIDE_THREAD = bool(enabled)


def side_pool() -> concurrent.futures.ThreadPoolExecutor | _InlineExecutor:
    """The process's single-worker executor (created on first use, shared by all calibrators), or
    an inline one after ``use_side_thread(False)``."""
    return _thread_pool() if _SIDE_THREAD else _InlineExecutor()


@functools.lru_cache(maxsize=1)
def _thread_pool() -> concurrent.futures.ThreadPoolExecutor:
    return concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="calibration")
