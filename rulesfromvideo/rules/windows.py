"""Clip rules over a long video in overlapping windows, so memory stays flat in its length.

``Observations`` holds every player track on a complete frame grid, (P, F). The number of
track ids P grows with the video as the frames F do (90 ids in a 60 s 720p clip of our
vision), so one pass over a whole game would need memory quadratic in its length (a
60-minute game: ~5000 ids × 108 000 frames × two (2, 2) float arrays, tens of GB).

``run_rules_windowed`` gives a video up to ``single_pass_s`` long the single pass: exactly
the calls of ``run_rules`` on all of it. A longer one is cut into cores of ``core_s``
seconds; each core is judged with ``lead_s`` seconds of frames before it and ``tail_s``
after it (the context a call needs: the zone the puck came from before a blue-line
crossing, the shot of an icing, the tag-up after a delayed offside, the frames after a
goal-line arrival), and only the events whose ``t`` falls inside the core are kept, so each
instant is judged by exactly one window and no call is made twice. Goals called in earlier
windows carry into the score that later windows read (sponge icing and mercy depend on it,
``run_rules(prior_goals=...)``); the mercy call is made once, at its first instant.

A call that needs more context than ``lead_s`` before it or ``tail_s`` after it (an icing
whose shot is more than 30 s before the goal-line crossing) is not made in windowed mode.
Statistics that ``Observations`` takes from its whole span -- the tracks' noise estimate
and with it whether positions are smoothed -- are taken per window, so a call whose inputs
sit at such a threshold can differ from a single pass over the whole video (measured:
``benchmarks/bench_rules_memory.py``, docs/benchmarks.md). Whether touches are inferred is
the caller's to decide once for the file (``pipeline.run_rules_on_files``).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from rulesfromvideo.observations import Observations
from rulesfromvideo.rules.engine import run_rules

SINGLE_PASS_S = 180.0  # videos up to 3 min (every clip of the suite, a review clip): one pass
CORE_S = 60.0          # s of video whose calls one window makes
LEAD_S = 30.0          # s of frames before its core that a window sees
TAIL_S = 30.0          # s of frames after its core that a window sees


def run_rules_windowed(items: Iterable[Any], build: Callable[[list[Any]], Observations], game, rink, *,
                       time_of: Callable[[Any], float] = lambda item: float(item["t"]),
                       single_pass_s: float | None = None, core_s: float | None = None,
                       lead_s: float | None = None, tail_s: float | None = None) -> list[dict[str, Any]]:
    """All rule events of a video whose frames arrive one by one, in time order.

    Args:
        items: one item per frame in time order (a ``tracks.jsonl`` record, or a tuple that
            holds one with what ``build`` needs beside it, e.g. the frame's camera).
        build: list of consecutive items -> their ``Observations``.
        game: ``GameDescriptor``.
        rink: ``RinkModel``.
        time_of: an item's video time, s.
        single_pass_s: videos at most this long are judged in one pass (``run_rules``).
        core_s, lead_s, tail_s: window core, and the context before and after it, s.
            Each of these four defaults to the module constant of its name, read at the call.

    Returns:
        Events sorted by ``t`` as ``run_rules`` returns them.

    Raises:
        ValueError: a window's items cannot make ``Observations`` (e.g. no frames), or bad
            window lengths.
    """
    single_pass_s = SINGLE_PASS_S if single_pass_s is None else single_pass_s
    core_s = CORE_S if core_s is None else core_s
    lead_s = LEAD_S if lead_s is None else lead_s
    tail_s = TAIL_S if tail_s is None else tail_s
    if not (core_s > 0 and lead_s >= 0 and tail_s >= 0 and single_pass_s >= core_s + tail_s):
        raise ValueError("windows: need core_s > 0, lead_s, tail_s >= 0 and single_pass_s >= core_s + tail_s")
    buf: deque[Any] = deque()
    events: list[dict[str, Any]] = []
    t_first: float | None = None
    core_lo, core_hi = -math.inf, math.inf  # the first window keeps everything before its core's end
    windowed = False
    for item in items:
        t = time_of(item)
        buf.append(item)
        if t_first is None:
            t_first = t
        if not windowed:
            if t - t_first <= single_pass_s:
                continue
            windowed, core_hi = True, t_first + core_s
        while t >= core_hi + tail_s:
            events += _judge(list(buf), build, game, rink, core_lo, core_hi, events, time_of)
            core_lo, core_hi = core_hi, core_hi + core_s
            while buf and time_of(buf[0]) < core_lo - lead_s:
                buf.popleft()
    if buf:
        events += _judge(list(buf), build, game, rink, core_lo, math.inf, events, time_of)
    return events


def _judge(items: list[Any], build, game, rink, core_lo: float, core_hi: float,
           earlier: list[dict[str, Any]], time_of) -> list[dict[str, Any]]:
    """The events of one window whose ``t`` lies in [core_lo, core_hi)."""
    # Goals before the window's first frame come from earlier windows; those within its
    # lead the window sees and calls itself.
    t0 = time_of(items[0])
    prior_goals = [e for e in earlier if e["type"] == "goal" and float(e["t"]) < t0]
    mercy_called = any(e["type"] == "mercy" for e in earlier)
    out = []
    for ev in run_rules(build(items), game, rink, prior_goals=prior_goals):
        if not core_lo <= float(ev["t"]) < core_hi:
            continue
        if ev["type"] == "mercy" and mercy_called:
            continue  # called once, at the first instant the spread reached the limit
        out.append(ev)
    return out
