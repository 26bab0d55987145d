"""Records revised after the fact, on the stream of ``tracks.jsonl`` records.

The tracker learns some things about earlier frames only later:

* **backfill** (``FrameObservation.puck_backfill``): a new puck track confirmed on this frame
  by its candidates on the frames just before, reported unknown then — they were the puck;
* **flight revisions** (``FrameObservation.puck_revisions``): a flight recognised on this frame
  (``vision.puck_flight``: after ``FLIGHT_MIN_MEASUREMENTS`` rays) — the earlier frames of the
  same trajectory, reported where their rays meet the ice, were in the air, where the fit puts
  them (unmeasured, with ``z``);
* **player retractions** (``FrameObservation.player_retractions``): a still track that the learned
  model's checks found to be paint in the ice (a logo in a team's colour) — it was never a
  player, on the earlier frames either;
* **puck retractions** (``FrameObservation.puck_retractions``): a still spot that a track held
  was not the puck (a carried puck moving elsewhere took the track) — on the earlier frames the
  puck is unknown instead;
* **player backfill** (``FrameObservation.player_backfill``): a track first reported on this
  frame (confirmed by its detections) was tentative on the frames just before — he was there
  too (a clip's first frames, a player coming into the picture).

``RecordReviser`` holds the last ``delay_frames`` records and applies all five to the records it
still holds, then releases them in frame order: memory stays flat, and a writer adds a fixed
delay of ``delay_frames`` frames (the overlay feed, which must keep up live, does not use it).
``HeldRecords`` is the whole way from the tracker to a ``tracks.jsonl`` writer (``analyze``,
``eval tracks``): the reviser, then the carried-puck filler (``vision.possession``), which
holds records while the puck is unknown.

Vision never knows rules: nothing here decides zones, offside or goals.
"""

from __future__ import annotations

from collections import deque
from typing import Iterable

from vision.possession import STICK_REACH_M, CarriedPuckFiller
from vision.tracking import FLIGHT_MAX_MEASUREMENTS

#: How long ``HeldRecords`` holds records, s: a logo's track is found to be paint once
#: ``PAINT_CHECKS`` checks a third of a second apart have missed it, 1.7 s or more after its
#: checks begin (2.7 s until stop 37); its records of those seconds are then still held and
#: taken out.
RETRACT_HOLD_S = 4.0


class RecordReviser:
    """Hold ``tracks.jsonl`` records long enough for the tracker's later knowledge to reach them.

    Args:
        delay_frames: how many records are held (the longest trajectory a flight is fitted on,
            ``vision.tracking.FLIGHT_MAX_MEASUREMENTS``, covers both kinds).

    Attributes:
        backfilled: records whose unknown puck was filled by a backfill.
        revised: records whose puck was replaced by a flight revision.
        retracted: players taken out of held records by retractions.
        players_backfilled: players added to held records by player backfills.
    """

    def __init__(self, delay_frames: int) -> None:
        self.delay = max(0, int(delay_frames))
        self._held: deque[dict] = deque()
        self.backfilled = 0
        self.revised = 0
        self.retracted = 0
        self.players_backfilled = 0
        self.puck_retracted = 0

    def push(self, record: dict, backfill: Iterable[dict] = (), revisions: Iterable[dict] = (),
             retractions: Iterable[int] = (), player_backfill: Iterable[dict] = (),
             puck_retractions: Iterable[dict] = ()) -> list[dict]:
        """Take the next record; return the records that are final, in frame order.

        Args:
            record: a ``tracks.jsonl`` record.
            backfill: ``[{"frame", "x", "y", "measured"}]``: a held record of that frame with an
                unknown puck gets it.
            revisions: ``[{"frame", "x", "y", "z", "measured"}]``: a held record of that frame
                with a puck gets this one instead (its ``touch`` kept).
            retractions: player ids that were never players: taken out of every held record.
            player_backfill: ``[{"frame", "player"}]``: a held record of that frame without a
                player of that id gets him.
            puck_retractions: ``[{"from_frame", "to_frame", "x", "y", "radius_m"}]``: a held
                record of a frame in that range whose puck lies within ``radius_m`` of (x, y)
                gets an unknown puck.
        """
        for pr in puck_retractions:
            for r in self._held:
                p = r.get("puck")
                if p is not None and pr["from_frame"] <= int(r["frame"]) <= pr["to_frame"] and \
                        (p["x"] - pr["x"]) ** 2 + (p["y"] - pr["y"]) ** 2 <= pr["radius_m"] ** 2:
                    r["puck"] = None
                    self.puck_retracted += 1
        gone = {int(k) for k in retractions}
        if gone:
            for r in self._held:
                kept = [p for p in r.get("players", []) if int(p["id"]) not in gone]
                self.retracted += len(r.get("players", [])) - len(kept)
                r["players"] = kept
        fill = {int(b["frame"]): {k: b[k] for k in ("x", "y", "measured")} for b in backfill}
        rev = {int(r["frame"]): {k: r[k] for k in ("x", "y", "z", "measured") if k in r} for r in revisions}
        if fill or rev:
            for r in self._held:
                f = int(r["frame"])
                if r.get("puck") is None and f in fill:
                    r["puck"] = dict(fill[f])
                    self.backfilled += 1
                elif r.get("puck") is not None and f in rev:
                    touch = r["puck"].get("touch")
                    r["puck"] = dict(rev[f], **({"touch": touch} if touch is not None else {}))
                    self.revised += 1
        added: dict[int, list[dict]] = {}
        for b in player_backfill:
            added.setdefault(int(b["frame"]), []).append(b["player"])
        if added:
            for r in self._held:
                have = {int(p["id"]) for p in r.get("players", [])}
                new = [dict(p) for p in added.get(int(r["frame"]), []) if int(p["id"]) not in have]
                r["players"] = list(r.get("players", [])) + new
                self.players_backfilled += len(new)
        self._held.append(record)
        out = []
        while len(self._held) > self.delay:
            out.append(self._held.popleft())
        return out

    def flush(self) -> list[dict]:
        """The held records (the clip's end, an error or Ctrl-C)."""
        out = list(self._held)
        self._held.clear()
        return out


class HeldRecords:
    """The records' way from ``FrameTracker`` to a writer: ``RecordReviser``, then
    ``CarriedPuckFiller`` (which sees the revised and backfilled pucks).

    Args:
        fps: frame rate (the filler's).
        stick_reach_m: the players' stick reach while carrying (``PlayerBody.stick_reach_m``), m.

    Attributes:
        reviser: the ``RecordReviser`` (``RETRACT_HOLD_S`` of records held, at least
            ``FLIGHT_MAX_MEASUREMENTS``).
        carried: the ``CarriedPuckFiller``.
    """

    def __init__(self, fps: float, stick_reach_m: float = STICK_REACH_M) -> None:
        self.reviser = RecordReviser(max(FLIGHT_MAX_MEASUREMENTS, int(round(RETRACT_HOLD_S * fps))))
        self.carried = CarriedPuckFiller(fps, stick_reach_m=stick_reach_m)

    def push(self, record: dict, backfill: Iterable[dict] = (), revisions: Iterable[dict] = (),
             retractions: Iterable[int] = (), player_backfill: Iterable[dict] = (),
             puck_retractions: Iterable[dict] = ()) -> list[dict]:
        """Take the next record with what the tracker learnt on its frame about earlier ones
        (``FrameObservation.puck_backfill``, ``puck_revisions``, ``player_retractions``,
        ``player_backfill``, ``puck_retractions``); return the final records, in frame order."""
        return [out for held in self.reviser.push(record, backfill, revisions, retractions, player_backfill,
                                                  puck_retractions)
                for out in self.carried.push(held)]

    def flush(self) -> list[dict]:
        """Every record still held, in frame order (the clip's end, an error or Ctrl-C): the
        reviser's through the filler first, then the filler's."""
        return [out for held in self.reviser.flush() for out in self.carried.push(held)] + self.carried.flush()
