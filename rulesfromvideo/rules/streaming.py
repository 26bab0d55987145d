"""Rule calls on a live feed: the clip rules re-run over a sliding window of recent frames.

The rule detectors (``run_rules``) look at a whole clip: a zone entry needs the frames
around the blue-line crossing, an icing the shot and the goal-line crossing. Live, the
last ``window_s`` seconds of tracks records are kept and the rules re-run on them every
``every_s``; an event is published once it lies at least ``settle_s`` behind the newest
frame (its context is then complete) and at least ``settle_s`` after the window's first
frame (not cut off at the start), and only once: a later window that finds the same call
again (same type and team within ``dedupe_s``) publishes nothing. The published events
are the clip events of ``events.json`` / ``extra_events.json`` (times are video seconds).

A call whose context is longer than the window (an icing shot from the far end that
takes longer than ``window_s − 2·settle_s``) is not made live; the clip job makes it.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import numpy as np

from rulesfromvideo.observations import Observations
from rulesfromvideo.rules.engine import run_rules


class StreamingRules:
    """Feed tracks records one by one; get each rule event once, ``settle_s`` after it happened.

    Args:
        game: ``GameDescriptor`` of the game.
        rink: ``RinkModel`` of its rink.
        fps: frame rate of the feed.
        window_s: seconds of records the rules see.
        every_s: how often the rules run, s of video.
        settle_s: an event is published when it is this far inside the window at both ends.
        dedupe_s: the same type and team within this many seconds is the same call.
        blade_sigma_m: the tracks' blade model error (``Observations.blade_sigma_m``), m; frames
            pushed with a per-player covariance (``push``) use that instead.
    """

    def __init__(self, game, rink, fps: float, window_s: float = 12.0, every_s: float = 0.5,
                 settle_s: float = 1.5, dedupe_s: float = 1.0, blade_sigma_m: float = 0.0) -> None:
        if not window_s > 2 * settle_s:
            raise ValueError(f"window_s ({window_s}) must exceed 2 × settle_s ({settle_s})")
        self.game, self.rink, self.fps = game, rink, float(fps)
        self.window_s, self.settle_s, self.dedupe_s = float(window_s), float(settle_s), float(dedupe_s)
        self.every = max(1, int(round(every_s * self.fps)))
        self.blade_sigma_m = float(blade_sigma_m)
        self._records: deque[dict] = deque(maxlen=max(2, int(round(window_s * self.fps))))
        self._blade_covs: deque[dict | None] = deque(maxlen=self._records.maxlen)
        self._quality: deque[float | None] = deque(maxlen=self._records.maxlen)
        self._puck_sigma: deque[float | None] = deque(maxlen=self._records.maxlen)
        self._published: list[dict] = []
        self._since_run = 0
        self.errors = 0

    def push(self, record: dict[str, Any], blade_cov_by_player: dict | None = None,
             quality: float | None = None, puck_sigma_m: float | None = None) -> list[dict[str, Any]]:
        """Add one frame's ``tracks.jsonl`` record (``frame``, ``t``, ``puck``, ``players``).

        Args:
            record: the frame's record.
            blade_cov_by_player: {player id: (2, 2) covariance of his blade points, m²} from the
                frame's camera (``Observations.blade_cov_rink_m2``), or None.
            quality: the frame's calibration quality (``calibration.jsonl``), which scales its
                position error as in ``analyze``; None when not known.
            puck_sigma_m: the puck's position error shared by nearby frames, from the frame's
                camera (``Observations.add_position_sigma``), m; None when not known.

        Returns:
            The events that became settled with this frame (usually none), sorted by ``t``.
        """
        self._records.append(record)
        self._blade_covs.append(blade_cov_by_player)
        self._quality.append(quality)
        self._puck_sigma.append(puck_sigma_m)
        self._since_run += 1
        if self._since_run < self.every:
            return []
        self._since_run = 0
        return self._run(final=False)

    def flush(self) -> list[dict[str, Any]]:
        """At the end of the feed: the events still waiting to settle."""
        return self._run(final=True) if self._records else []

    def _run(self, final: bool) -> list[dict[str, Any]]:
        recs = list(self._records)
        t_first, t_last = float(recs[0]["t"]), float(recs[-1]["t"])
        if len(recs) < 3:
            return []
        try:
            quality = {int(r["frame"]): float(q) for r, q in zip(recs, self._quality) if q is not None}
            obs = Observations.from_records(recs, fps=self.fps, blade_sigma_m=self.blade_sigma_m,
                                            quality_by_frame=quality or None)
            if any(c for c in self._blade_covs):
                obs.blade_cov_rink_m2 = _blade_covariances(obs, recs, self._blade_covs)
            if any(s is not None for s in self._puck_sigma):
                extra = np.full(obs.n_frames, np.nan)
                for r, s in zip(recs, self._puck_sigma):
                    if s is not None:
                        extra[int(r["frame"]) - int(obs.frame[0])] = s
                obs.add_position_sigma(extra)
            events = run_rules(obs, self.game, self.rink)
        except ValueError:
            self.errors += 1  # e.g. records that no rule can read; the next window tries again
            return []
        lo = t_first + (self.settle_s if len(recs) == self._records.maxlen else 0.0)
        hi = t_last if final else t_last - self.settle_s
        out = []
        for ev in events:
            t = float(ev["t"])
            if not (lo <= t <= hi) or self._seen(ev):
                continue
            self._published.append(ev)
            out.append(ev)
        # Only recent calls can come back; keep the list short.
        self._published = [e for e in self._published if float(e["t"]) >= t_first - self.dedupe_s]
        return sorted(out, key=lambda e: float(e["t"]))

    def _seen(self, ev: dict) -> bool:
        return any(e["type"] == ev["type"] and e.get("team") == ev.get("team")
                   and abs(float(e["t"]) - float(ev["t"])) < self.dedupe_s for e in self._published)


def _blade_covariances(obs: Observations, records: list[dict], covs) -> np.ndarray:
    """(P, F, 2, 2) ``Observations.blade_cov_rink_m2`` from per-record {player id: (2, 2)}, NaN elsewhere."""
    out = np.full(obs.blades_rink_m.shape[:2] + (2, 2), np.nan)
    pidx = {pid: k for k, pid in enumerate(obs.player_ids)}
    f0 = int(obs.frame[0])
    for rec, by_player in zip(records, covs):
        for pid, S in (by_player or {}).items():
            if pid in pidx:
                out[pidx[pid], int(rec["frame"]) - f0] = S
    return out
