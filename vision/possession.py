"""A carried puck, inferred at its carrier's stick where the detector loses it.

A puck held against a stick blade is a few pixels merged with the blade: the
detector rarely separates it (``docs/vision.md``), so the track has a gap for as
long as a player carries it. Where the footage brackets the gap, the puck was on
the carrier's stick throughout:

* **before**: the last measured puck before the gap lies within ``CARRY_REACH_M`` of
  one player's seat (blade midpoint), nearer to him than to anyone else by
  ``CARRIER_MARGIN_M``: he has it. Not a lone blip: another measurement within
  ``ANCHOR_FRAMES`` before the gap, or, within ``CONFIRM_S`` before it, one that names
  the same carrier with the puck moving with him (slower than ``RELEASE_MIN_SPEED_MPS``
  relative to his seat): the carry detector finds a puck at the stick on some frames only;
* **after**: the first measured pucks after the gap give a straight path. A puck
  moving at speed was passed or shot, and the tracker found it a few frames later:
  traced back along that path over ``RELEASE_BACK_S``, the release is by the one
  player whose seat comes within ``RELEASE_REACH_M`` of it (two such players:
  unknown), at the latest instant the path is his stick's reach (``STICK_REACH_M`` for a seated
  player, ``vision.players.PlayerBody.stick_reach_m``) from his seat
  (between frames; else where it comes closest). A slow puck is still at the stick of
  the one player within ``CARRY_REACH_M``.

When both ends name the same player, the gap's frames up to the release get
``seat + offset``, the offset (puck minus seat, rink m) interpolated linearly in time
between the two ends, with ``measured: false``. A gap that opens the clip needs a
release seen at speed at its after end (a slow puck beside a player may be a dark
mark beside him); one that runs to the clip's end is not filled (its before end alone
does not say he kept it). Different players at the two ends (an unseen pass), a free
puck before the gap, a puck found again away from any carrier, or a carrier not
tracked on a frame: nothing is filled there. The flight between the release and the first
measurement stays unknown (the rules reconstruct releases from the measured flight).

The offset is the stick's place relative to the seat; a real player moves his
stick while carrying, by up to his reach (~1 m), so the inferred point is a
possession statement ("player 7 has it, at about his stick"), not a measurement.

``CarriedPuckFiller`` does this on the stream of ``tracks.jsonl`` records with a
bounded delay (``max_delay_frames``): records are held while a gap is open and
released once it is closed and its after-end seen, so memory stays flat in video
length. It only changes ``puck: null`` records, with the carry. (What the tracker learns
later about earlier frames — a new track's backfill, a flight's revisions — reaches the
records before, in ``vision.revisions.RecordReviser``; ``vision.revisions.HeldRecords`` chains
the two.)

Vision never knows rules: nothing here decides zones, offside or goals.
"""

from __future__ import annotations

from collections import deque
from typing import Iterable

import numpy as np

from vision.players import SEATED

CARRY_REACH_M = 1.5  # seat (blade midpoint) to the puck on the stick: arm and stick
CARRIER_MARGIN_M = 0.5  # the carrier is nearer to the puck than anyone else by this much
RELEASE_REACH_M = 1.2  # the back-traced path passes this near the releasing player's seat (stick ~1 m)
STICK_REACH_M = SEATED.stick_reach_m  # seat to stick blade while carrying, by default a seated player's
ANCHOR_FRAMES = 4  # a measured puck at most this many frames from the gap anchors it
# A carried puck is measured on some frames only (held-out s25: frames 3-5, 11, 16 of a carry),
# so a before-end's confirming measurement may be further back, if it names the same carrier.
CONFIRM_S = 0.3
AFTER_FIT_FRAMES = 3  # measured frames after the gap that give the puck's velocity
RELEASE_BACK_S = 0.25  # the flight from the release to the first measurement is at most this long
RELEASE_MIN_SPEED_MPS = 1.0  # slower than this the puck is still at the stick: no back-trace


def _seats(rec: dict) -> list[tuple[object, np.ndarray]]:
    """(player id, (2,) blade midpoint, rink m) of every player in ``rec`` with both blades."""
    out = []
    for p in rec.get("players") or ():
        b = np.asarray(p.get("blades"), dtype=np.float64)
        if b.shape == (2, 2) and np.isfinite(b).all():
            out.append((p.get("id"), b.mean(axis=0)))
    return out


def _seat(rec: dict, pid) -> np.ndarray | None:
    """(2,) blade midpoint of player ``pid`` in ``rec``, rink m, or None when not there."""
    return next((seat for q, seat in _seats(rec) if q == pid), None)


def _carrier(rec: dict, xy_rink_m: np.ndarray, reach_m: float) -> tuple[object, np.ndarray] | None:
    """(player id, offset = puck - seat (2,)) of the one player who has the puck at ``xy_rink_m``
    in ``rec``: his seat within ``reach_m`` and nearer than any other by ``CARRIER_MARGIN_M``,
    and of a known team. A player whose team the footage did not tell is mostly one half out of
    the picture or merged with another, and the player beside him may be missing altogether:
    he keeps anyone else from being the carrier, but is not named one himself."""
    best = sorted(((float(np.linalg.norm(xy_rink_m - seat)), pid, seat) for pid, seat in _seats(rec)),
                  key=lambda e: e[0])
    if not best:
        return None
    d, pid, seat = best[0]
    if d > reach_m or (len(best) > 1 and best[1][0] - d < CARRIER_MARGIN_M):
        return None
    if _team(rec, pid) is None:
        return None
    return pid, xy_rink_m - seat


def _team(rec: dict, pid) -> str | None:
    """Team of player ``pid`` in ``rec`` (None: unknown or not there)."""
    return next((p.get("team") for p in rec.get("players") or () if p.get("id") == pid), None)


def _measured_xy(rec: dict) -> np.ndarray | None:
    pk = rec.get("puck")
    if pk is None or not pk.get("measured", True):
        return None
    return np.array([float(pk["x"]), float(pk["y"])])


def fill_carried(records: list[dict], fps: float, context: Iterable[dict] = (), clip_start: bool = False,
                 stick_reach_m: float = STICK_REACH_M) -> int:
    """Fill the carried-puck gaps of ``records`` in place (see the module doc).

    Args:
        records: consecutive ``tracks.jsonl`` records (``frame``, ``t``, ``puck``, ``players``).
        fps: frame rate (the back-trace's reach in frames).
        context: the records just before ``records`` (read only), for a gap's before-end.
        clip_start: ``records[0]`` is the first frame of the clip: a gap there has no before-end
            to disagree with.
        stick_reach_m: the players' stick blade from their blades' centre while carrying, m
            (``vision.players.PlayerBody.stick_reach_m``): where a release is placed.

    Returns:
        The number of records filled.
    """
    ctx = list(context)
    allr = ctx + list(records)
    off = len(ctx)
    n = len(allr)
    filled = 0
    i = off
    while i < n:
        if allr[i].get("puck") is not None:
            i += 1
            continue
        a = i
        while i < n and allr[i].get("puck") is None:
            i += 1
        b = i  # the gap is allr[a:b]
        before = _before_end(allr, a, fps)
        after = _after_end(allr, b, a, fps, stick_reach_m)
        at_start = clip_start and a == off and not any(
            r.get("puck") is not None for r in allr[max(0, a - ANCHOR_FRAMES):a])
        if before is None and (after is None or not at_start or not after[3]):
            # A free puck before the gap (or none): when it was picked up is unknown. At the
            # clip's start only a release (a pass or shot seen leaving the stick) tells
            # who had it; a slow puck next to a player may be a dark mark beside him.
            continue
        if after is None:
            # Found again away from any carrier, not yet, or never (the clip's end): when he
            # lost it is unknown. (Filled from its before end alone, a carry to the clip's end
            # was 13-23 m off on two renders, s22 and tuning 407, where that end was a false
            # puck track beside a player.)
            continue
        if before is not None and before[0] != after[0]:
            continue  # different players at the two ends: an unseen pass
        pid = after[0]
        f_lo, o_lo = (before[2], before[1]) if before is not None else (a, after[1])
        f_hi, o_hi = after[2], after[1]
        for j in range(a, min(b, f_hi + 1)):
            seat = _seat(allr[j], pid)
            if seat is None:
                continue
            w = 0.0 if f_hi == f_lo else (j - f_lo) / (f_hi - f_lo)
            xy = seat + (1.0 - w) * o_lo + w * o_hi
            allr[j]["puck"] = {"x": round(float(xy[0]), 4), "y": round(float(xy[1]), 4), "measured": False}
            filled += 1
    return filled


def _before_end(allr: list[dict], a: int, fps: float) -> tuple[object, np.ndarray, int] | None:
    """(carrier id, offset, its index) from the last measured puck before index ``a``, within
    ``ANCHOR_FRAMES`` of the gap and not a lone blip: another measurement within those frames,
    or one within ``CONFIRM_S`` before it whose carrier is the same player, the puck moving
    with him (its offset from his seat changing slower than ``RELEASE_MIN_SPEED_MPS``)."""
    recent = [j for j in range(a - 1, max(-1, a - 1 - ANCHOR_FRAMES), -1) if _measured_xy(allr[j]) is not None]
    if not recent:
        return None
    got = _carrier(allr[recent[0]], _measured_xy(allr[recent[0]]), CARRY_REACH_M)
    if got is None:
        return None
    if len(recent) < 2:
        lo = max(-1, recent[0] - 1 - int(round(CONFIRM_S * fps)))
        earlier = next((j for j in range(recent[0] - 1, lo, -1) if _measured_xy(allr[j]) is not None), None)
        if earlier is None:
            return None
        confirm = _carrier(allr[earlier], _measured_xy(allr[earlier]), CARRY_REACH_M)
        if confirm is None or confirm[0] != got[0]:
            return None
        # Carried, it moved with him: a free puck passing his stick (held-out s16's shot past
        # the goalkeeper) moves relative to his seat at its own speed.
        dt = float(allr[recent[0]]["t"]) - float(allr[earlier]["t"])
        if float(np.linalg.norm(got[1] - confirm[1])) > RELEASE_MIN_SPEED_MPS * max(dt, 1e-9):
            return None
    return got[0], got[1], recent[0]


def _after_end(allr: list[dict], b: int, a: int, fps: float,
               stick_reach_m: float = STICK_REACH_M) -> tuple[object, np.ndarray, int, bool] | None:
    """(carrier id, offset, index of the release, released at speed) from the puck after index ``b``.

    The measured pucks in the ``AFTER_FIT_FRAMES + 1`` frames from the first one within
    ``ANCHOR_FRAMES`` of ``b`` (at least ``AFTER_FIT_FRAMES`` of them) give a straight path.
    A puck moving at ``RELEASE_MIN_SPEED_MPS`` or more was passed or shot: traced back frame by frame over at most ``RELEASE_BACK_S`` (not before
    ``a``), the release is by the one player whose seat comes within ``RELEASE_REACH_M`` of
    that path, at the latest frame it does; two or more such players, or one of unknown team:
    unknown. A slower
    puck is still at a stick: its carrier is the one player within ``CARRY_REACH_M``.
    """
    first = next((j for j in range(b, min(len(allr), b + ANCHOR_FRAMES)) if _measured_xy(allr[j]) is not None), None)
    if first is None or first + AFTER_FIT_FRAMES >= len(allr):
        return None
    # A steady track, not a blip: AFTER_FIT_FRAMES measurements in the first AFTER_FIT_FRAMES + 1
    # frames (the tracker may coast one frame).
    run = [r for r in allr[first:first + AFTER_FIT_FRAMES + 1] if _measured_xy(r) is not None]
    if len(run) < AFTER_FIT_FRAMES:
        return None
    t = np.array([float(r["t"]) for r in run])
    xy = np.stack([_measured_xy(r) for r in run])
    v = np.polyfit(t - t[0], xy, 1)[0]
    p0, t0 = xy[0], t[0]
    if float(np.linalg.norm(v)) < RELEASE_MIN_SPEED_MPS:
        got = _carrier(allr[first], p0, CARRY_REACH_M)
        return None if got is None else (got[0], got[1], first, False)
    lo = max(a, first - int(round(RELEASE_BACK_S * fps)))
    found: dict[object, int] = {}  # player id -> the latest frame his seat is within reach of the path
    for j in range(first - 1, lo - 1, -1):
        path = p0 + v * (float(allr[j]["t"]) - t0)
        for pid, seat in _seats(allr[j]):
            if pid not in found and np.linalg.norm(path - seat) <= RELEASE_REACH_M:
                found[pid] = j
    if len(found) != 1:
        return None
    (pid, j), = found.items()
    if _team(allr[j], pid) is None:
        return None  # as ``_carrier``: a player of unknown team is never named the carrier
    offset, j = _release_offset(allr, pid, p0, v, t0, lo, first, stick_reach_m)
    return pid, offset, j, True


def _release_offset(allr: list[dict], pid, p0: np.ndarray, v: np.ndarray, t0: float, lo: int,
                    first: int, stick_reach_m: float = STICK_REACH_M) -> tuple[np.ndarray, int]:
    """(offset = puck - seat at the release (2,), index of the last frame before it) of player
    ``pid``, from the puck's path ``p0 + v (t - t0)`` traced back from index ``first`` to ``lo``.

    The release is the latest instant the path is ``stick_reach_m`` from his seat (the offset
    along the path interpolated between frames), else the path's closest approach to it. Not a
    frame's own offset: the puck leaves the stick between frames, and a threshold on whole
    frames moved the release by a frame (a fast shot's 0.5 m) for a seat a few cm off.
    """
    ks = [k for k in range(min(first, len(allr) - 1), lo - 1, -1) if _seat(allr[k], pid) is not None]
    offs = [p0 + v * (float(allr[k]["t"]) - t0) - _seat(allr[k], pid) for k in ks]  # latest first
    d = [float(np.linalg.norm(o)) for o in offs]
    reach = stick_reach_m + 1e-9  # a path exactly at the reach on a frame is released there
    for n in range(1, len(ks)):
        if d[n] <= reach < d[n - 1]:
            # |o + w (o_n - o)| = stick_reach_m between the two frames (relative motion straight).
            o, seg = offs[n - 1], offs[n] - offs[n - 1]
            qa, qb, qc = float(seg @ seg), 2.0 * float(o @ seg), float(o @ o) - stick_reach_m ** 2
            w = (-qb - np.sqrt(max(qb * qb - 4.0 * qa * qc, 0.0))) / (2.0 * qa) if qa > 1e-12 else 1.0
            return o + float(np.clip(w, 0.0, 1.0)) * seg, ks[n]
    if d and d[0] <= reach:
        return offs[0], ks[0]  # within reach on the first measured frame itself
    n = int(np.argmin(d))
    best, best_d, k_rel = offs[n], d[n], ks[n]
    for m in (n - 1, n + 1):  # the closest point on the segments either side
        if 0 <= m < len(ks):
            seg = offs[m] - offs[n]
            w = float(np.clip(-(offs[n] @ seg) / max(float(seg @ seg), 1e-12), 0.0, 1.0))
            q = offs[n] + w * seg
            if float(np.linalg.norm(q)) < best_d:
                best, best_d, k_rel = q, float(np.linalg.norm(q)), min(ks[n], ks[m]) if w > 0 else ks[n]
    return best, k_rel


class CarriedPuckFiller:
    """``fill_carried`` on a stream of records, with a bounded delay.

    ``push(record)`` returns the records that are final (in order); ``flush()`` the rest.
    Records are held while the puck is unknown (a gap may be a carry) and until
    ``AFTER_FIT_FRAMES + ANCHOR_FRAMES`` records after it are in, at most
    ``max_delay_frames``; then the held records are filled and released.

    Args:
        fps: frame rate.
        max_delay_frames: the longest a record is held; a gap open for longer stays unknown.
        stick_reach_m: ``fill_carried``'s (the players' body's).
    """

    def __init__(self, fps: float, max_delay_frames: int = 300, stick_reach_m: float = STICK_REACH_M) -> None:
        self.fps = float(fps)
        self.stick_reach_m = float(stick_reach_m)
        self.max_delay = max(ANCHOR_FRAMES + AFTER_FIT_FRAMES + 1, int(max_delay_frames))
        self._held: deque[dict] = deque()
        # a gap's before-end looks back ANCHOR_FRAMES, then CONFIRM_S for a confirming measurement
        self._context: deque[dict] = deque(maxlen=ANCHOR_FRAMES + 2 + int(round(CONFIRM_S * self.fps)))
        self._started = False  # records have been released since the clip start
        self.filled = 0

    def push(self, record: dict) -> list[dict]:
        """Take the next ``tracks.jsonl`` record; return the records that are final, in frame order."""
        self._held.append(record)
        tail = AFTER_FIT_FRAMES + ANCHOR_FRAMES
        held = list(self._held)
        if not any(r.get("puck") is None for r in held):
            return self._release(keep=0)
        if len(held) > tail and all(r.get("puck") is not None for r in held[-tail:]):
            return self._release(keep=0)  # the gaps are closed and their after-ends in
        if len(held) >= self.max_delay:
            return self._release(keep=tail)  # a gap still open: it stays unknown
        return []

    def flush(self) -> list[dict]:
        """The held records (the clip's end, an error or Ctrl-C)."""
        return self._release(keep=0)

    def _release(self, keep: int) -> list[dict]:
        held = list(self._held)
        self.filled += fill_carried(held, self.fps, self._context, clip_start=not self._started,
                                    stick_reach_m=self.stick_reach_m)
        out = held[: len(held) - keep]
        self._held = deque(held[len(out):])
        self._context.extend(out)
        if out:
            self._started = True
        return out
