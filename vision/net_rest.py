"""A puck at rest in a goal net, found as a new dark spot there.

From above a puck lying in the net is a pixel or two of dark on the goal frame and the mesh:
the detectors' shape scores and the learned verifier doubt it, and a still candidate they doubt
may not start a track (``vision.tracking.START_STILL_MIN_VERIFIER_P``), so the track of a puck
shot into the net ended at the goal frame and the puck stayed unknown for the rest of the
clip (overhead renders: 368 of 426 frames of a free, still, visible puck missed, nearly all
in a net after a goal; docs/vision.md, stop 57). Where such a puck is has a strong prior — the
tracked puck was just in front of that goal — and there is a test of change, not of looks: the
spot is darker than the same pixels on a frame from before the puck arrived, the camera unmoved.

``NetWatch`` keeps, per goal, the latest frame on which the tracked puck was measured in front
of it (``note``); for ``NET_REST_WINDOW_S`` after it (kept open while the puck is measured in
that net) it compares each frame's view of the net with that frame (``spots``) and reports the
compact dark spots that are new there and have stayed put ``NET_SPOT_STILL_FRAMES`` frames, none
that appeared while the puck was measured elsewhere. Only nets seen steeply from above, by a camera
that has not moved since the reference, are watched. The puck tracker lets them start a track
whatever the verifier says, and take over one started after the puck was last seen in front of
that goal that moves no faster than a sledge (``PuckTracker``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from vision.detections import Detections
from vision.geometry import apply_homography

#: The tracked puck measured within this distance in front of a goal line (and
#: ``NET_APPROACH_HALF_WIDTH_M`` of the goal's axis) makes that frame the net's reference, m.
NET_APPROACH_M = 4.0
NET_APPROACH_HALF_WIDTH_M = 3.0
#: How long after its reference (or the last puck measured in the net) a net is watched, s.
NET_REST_WINDOW_S = 2.0
#: The watched box: from NET_BOX_FRONT_M behind the goal line's centre to the frame's depth,
#: between the posts, widened by NET_BOX_MARGIN_M sideways and at the back, m. Its front is
#: kept off the line, where a goalkeeper's pads and stick reach over it (overhead tuning render
#: 1715: a white goalkeeper's dark gear 6 cm behind the line held the track for 17 frames).
NET_BOX_FRONT_M = 0.3
NET_BOX_MARGIN_M = 0.2
#: Nor is a spot within this distance of a player's seat (blade midpoint) the puck, m: his
#: sledge's dark parts and stick are new wherever he goes.
NET_SPOT_PLAYER_M = 0.8
#: A spot is new where it is at least this much darker (max(B, G, R) levels) than on the
#: reference frame, after the box's median change (the exposure's drift) is taken out: about half
#: the least a puck lying in the net darkened its darkest pixel by on the overhead renders whose
#: track was lost there (76-155 levels over eight goals of the suite, /tmp/tune31, /tmp/tune33,
#: /tmp/tune37).
NET_DARKEN_MIN = 40
#: Largest new dark spot taken for a puck: this many times the puck's expected image area,
#: plus NET_SPOT_AREA_SLACK_PX (a stick blade or a player entering the net is larger).
NET_SPOT_AREA_FACTOR = 4.0
NET_SPOT_AREA_SLACK_PX = 8.0
#: A spot reported stays within NET_SPOT_STILL_M of where it was on each of the last
#: NET_SPOT_STILL_FRAMES frames: a stick moves, a puck at rest does not.
NET_SPOT_STILL_FRAMES = 3
NET_SPOT_STILL_M = 0.1
#: The candidates' score: enough to start a track (``PuckTracker.acquire_score``), not enough to
#: do it in two frames (``confident_score``).
NET_REST_SCORE = 0.5
#: A spot that appears while the tracked puck is measured farther than this from it (on its
#: first frame or the NET_SPOT_BIRTH_FRAMES before) is not the puck, as long as it stays, m: a
#: goalkeeper's pad or stick moving over the line while the puck is still in front (goal-camera
#: tuning render 1737: a spot 16 cm past the line took the track from a puck a metre short of
#: it, and made a wrong goal). Only the track that followed the puck to the goal vetoes (one
#: started after the reference is a re-acquisition: a player's dark parts once the puck was lost
#: in the net, tuning render 1714), and only at a spot's birth.
NET_SPOT_ELSEWHERE_M = 0.5
NET_SPOT_BIRTH_FRAMES = 2
#: ... beyond where the puck could have got meanwhile at this many times its last measured speed
#: (a shot into the net comes to rest there a frame or two after it was seen in front: tuning
#: render 1539, 1.4 m in two frames), or at ``PUCK_SPEED_UNKNOWN_MPS`` when that is unknown.
NET_SPOT_SPEED_FACTOR = 1.5
PUCK_SPEED_UNKNOWN_MPS = 35.0
#: A spot missed on up to this many frames in a row (a puck a pixel wide, its darkening near the
#: threshold) keeps its run.
NET_SPOT_GAP_FRAMES = 2
#: Only a net the camera looks down on at least this steeply (degrees above the horizon) is
#: watched: from lower, the players in front of the goal are drawn over the ice of the net, and
#: their pads and sticks are new dark spots there (broadcast cameras see the nets at 7-18°,
#: overhead ones at 52-60°, goal cameras their own net at 41-69°: the sets of stop 57).
NET_MIN_ELEVATION_DEG = 35.0
#: The box's corners may lie this far from where they were on the reference, px (the
#: calibration's jitter); a camera that moved farther compares nothing.
NET_STILL_CAMERA_PX = 2.0
#: Margin of the reference crop around the net's box, px.
REF_PAD_PX = 12
#: Largest box watched, px per side: a goal camera right at the net sees it over a few hundred.
MAX_BOX_PX = 480


@dataclass
class _Reference:
    frame: int  # the frame it was taken on
    alive: int  # the last frame that keeps it watched (its own, or a puck measured in the net)
    v: np.ndarray  # (h, w) uint8 max(B, G, R) crop of that frame
    origin_px: tuple[int, int]  # the crop's top-left corner in that frame, px
    H_image_from_rink: np.ndarray  # (3, 3) that frame's ice plane → image px (the camera then)


@dataclass
class NetWatch:
    """New dark spots in the goal nets after the puck went there (see the module doc).

    Args:
        goal_line_x_m: |x| of the goal lines' centres, m.
        post_inner_y_m: |y| of the posts' inner faces, m.
        goal_depth_m: the goal frame's depth behind the line, m.
        puck_diameter_m: m.
        puck_z_m: height of the puck's centre above the ice, m.
        fps: frames per second.
    """

    goal_line_x_m: float
    post_inner_y_m: float
    goal_depth_m: float
    puck_diameter_m: float
    puck_z_m: float
    fps: float
    _refs: dict[int, _Reference] = field(default_factory=dict)
    # Per end: the spots of the latest frame, [first frame, last frame, (2,) rink m, vetoed].
    _seen: dict[int, list[list]] = field(default_factory=dict)
    # (frame, (2,) rink m, speed m/s or None) of the last puck measured by a track started before
    # the references.
    _last_measured: tuple[int, np.ndarray, float | None] | None = None

    @property
    def window_frames(self) -> int:
        return max(1, int(round(NET_REST_WINDOW_S * self.fps)))

    def box_rink_m(self, end: int) -> np.ndarray:
        """(4, 2) corners of the watched box at ``end`` (+1 / -1), rink m."""
        x0 = end * (self.goal_line_x_m + NET_BOX_FRONT_M)
        x1 = end * (self.goal_line_x_m + self.goal_depth_m + NET_BOX_MARGIN_M)
        y = self.post_inner_y_m + NET_BOX_MARGIN_M
        return np.array([[x0, -y], [x1, -y], [x1, y], [x0, y]], dtype=np.float64)

    def in_box(self, end: int, xy_rink_m: np.ndarray) -> np.ndarray:
        """(N,) bool: the (N, 2) points lie in the watched box at ``end`` (``box_rink_m``)."""
        xy = np.asarray(xy_rink_m, dtype=np.float64).reshape(-1, 2)
        box = self.box_rink_m(end)
        return np.all((xy >= box.min(axis=0)) & (xy <= box.max(axis=0)), axis=1)

    def _box_px(self, end: int, cam: Any, pad: int, shape: tuple[int, int]) -> tuple[int, int, int, int] | None:
        """The box's image bounds (x0, y0, x1, y1) padded by ``pad`` and clipped to the image, or
        None when it is not wholly in front of the camera and in the picture, or too large."""
        box = self.box_rink_m(end)
        uv, depth = cam.image_from_rink(np.c_[box, np.full(len(box), self.puck_z_m)])
        if not np.all(depth > 0) or not np.all(np.isfinite(uv)):
            return None
        h, w = shape
        lo, hi = uv.min(axis=0), uv.max(axis=0)
        if lo[0] < 0 or lo[1] < 0 or hi[0] > w - 1 or hi[1] > h - 1 or np.any(hi - lo > MAX_BOX_PX):
            return None  # the net is not wholly in view: nothing to compare
        x0, y0 = int(max(0, np.floor(lo[0]) - pad)), int(max(0, np.floor(lo[1]) - pad))
        x1, y1 = int(min(w, np.ceil(hi[0]) + pad + 1)), int(min(h, np.ceil(hi[1]) + pad + 1))
        return x0, y0, x1, y1

    def steep_enough(self, end: int, cam: Any) -> bool:
        """Whether ``cam`` looks down on the net at ``end`` at ``NET_MIN_ELEVATION_DEG`` or more."""
        C = cam.position_xyz_m
        if C is None:
            return False
        centre = np.array([end * (self.goal_line_x_m + self.goal_depth_m / 2.0), 0.0])
        return bool(np.degrees(np.arctan2(C[2], np.hypot(*(C[:2] - centre)))) >= NET_MIN_ELEVATION_DEG)

    def note(self, frame_index: int, puck: dict | None, v_full: np.ndarray, cam: Any,
             track_start: int | None = None) -> None:
        """After the puck tracker: a puck measured in front of a goal makes this frame that net's
        reference; one measured in a watched net keeps it watched; one measured elsewhere vetoes
        the spots that appeared in the nets on this frame.

        Args:
            frame_index: this frame.
            puck: this frame's puck record (``{"x", "y", "measured"}``) or None.
            v_full: (H, W) uint8 max(B, G, R) of the frame.
            cam: this frame's ``PlaneCamera``.
            track_start: the frame the puck's track was started on (None: unknown, as early).
        """
        if puck is None or not puck.get("measured"):
            return
        xy = np.array([puck["x"], puck["y"]], dtype=np.float64)
        early = track_start is None or all(track_start <= r.frame for r in self._refs.values())
        if early:
            last = self._last_measured
            speed = (float(np.hypot(*(xy - last[1]))) * self.fps / (frame_index - last[0])
                     if last is not None and 0 < frame_index - last[0] <= NET_SPOT_BIRTH_FRAMES + 1 else None)
            self._last_measured = (frame_index, xy, speed)
        for end in (+1, -1):
            for spot in self._seen.get(end, []):
                if early and spot[0] == frame_index and np.hypot(*(spot[2] - xy)) > NET_SPOT_ELSEWHERE_M:
                    spot[3] = True
            ref = self._refs.get(end)
            if ref is not None and self.in_box(end, xy)[0]:
                ref.alive = frame_index
                continue
            ahead = self.goal_line_x_m - end * xy[0]  # m in front of the line's centre
            if not (self.puck_diameter_m / 2.0 < ahead <= NET_APPROACH_M
                    and abs(xy[1]) <= NET_APPROACH_HALF_WIDTH_M) or not self.steep_enough(end, cam):
                continue
            b = self._box_px(end, cam, REF_PAD_PX, v_full.shape[:2])
            if b is None:
                continue
            x0, y0, x1, y1 = b
            self._refs[end] = _Reference(frame_index, frame_index, v_full[y0:y1, x0:x1].copy(), (x0, y0),
                                         np.asarray(cam.H_image_from_rink, dtype=np.float64).copy())

    def spots(self, frame_index: int, v_full: np.ndarray, cam: Any, lens_map: Any = None,
              seats_xy_rink_m: np.ndarray | None = None) -> Detections:
        """This frame's new, still, puck-sized dark spots in the watched nets.

        Args:
            frame_index: this frame.
            v_full: (H, W) uint8 max(B, G, R) of the frame.
            cam: this frame's ``PlaneCamera``.
            lens_map: raw px → rink m through the calibration's lens (``tracking._lens_mapper``),
                or None.
            seats_xy_rink_m: (P, 2) the reported players' seats, rink m (none within
                ``NET_SPOT_PLAYER_M`` of a spot), or None.

        Returns:
            Detections (image px) with ``centre_xy_px`` (N, 2), ``xy_rink_m`` (N, 2),
            ``area_px`` (N,), ``expected_area_px`` (N,), ``net_rest`` (N,) = 1 and ``net_since``
            (N,): the frame the puck was last measured in front of that goal (the reference).
        """
        found: list[tuple[np.ndarray, np.ndarray, float, float, int]] = []  # (px, rink m, area, expected, since)
        for end in (+1, -1):
            ref = self._refs.get(end)
            if ref is None:
                continue
            if frame_index - ref.alive > self.window_frames:
                del self._refs[end]
                self._seen.pop(end, None)
                continue
            now = self._new_spots(end, ref, v_full, cam, lens_map)
            before = self._seen.get(end, [])
            seen, matched = [], set()
            seats = np.zeros((0, 2)) if seats_xy_rink_m is None else np.asarray(seats_xy_rink_m, np.float64).reshape(-1, 2)
            for uv, xy, area, expected in now:
                if len(seats) and float(np.min(np.hypot(*(seats - xy).T))) <= NET_SPOT_PLAYER_M:
                    continue
                prev = [j for j, s in enumerate(before) if np.hypot(*(s[2] - xy)) <= NET_SPOT_STILL_M]
                matched.update(prev)
                first = min((before[j][0] for j in prev), default=frame_index)
                vetoed = (any(before[j][3] for j in prev) if prev
                          else self._measured_elsewhere(frame_index, xy))
                seen.append([first, frame_index, xy, vetoed])
                if frame_index - first + 1 >= NET_SPOT_STILL_FRAMES and not vetoed:
                    found.append((uv, xy, area, expected, ref.frame))
            # Missed on this frame: kept for NET_SPOT_GAP_FRAMES.
            seen += [s for j, s in enumerate(before) if j not in matched and frame_index - s[1] <= NET_SPOT_GAP_FRAMES]
            self._seen[end] = seen
        n = len(found)
        uv = np.array([f[0] for f in found], dtype=np.float64).reshape(n, 2)
        r = np.sqrt(np.array([f[2] for f in found], dtype=np.float64) / np.pi) if n else np.zeros(0)
        return Detections(
            xyxy=np.c_[uv - r[:, None], uv + r[:, None]].reshape(n, 4),
            confidence=np.full(n, NET_REST_SCORE), class_id=np.zeros(n, np.int64),
            data={"centre_xy_px": uv, "xy_rink_m": np.array([f[1] for f in found], np.float64).reshape(n, 2),
                  "area_px": np.array([f[2] for f in found], np.float64).reshape(n),
                  "expected_area_px": np.array([f[3] for f in found], np.float64).reshape(n),
                  "net_rest": np.ones(n), "net_since": np.array([f[4] for f in found], np.float64).reshape(n)})

    def _measured_elsewhere(self, frame_index: int, xy: np.ndarray) -> bool:
        """Whether the puck was measured within ``NET_SPOT_BIRTH_FRAMES`` before ``frame_index``
        farther from ``xy`` (2,) rink m than ``NET_SPOT_ELSEWHERE_M`` plus the way it could have
        gone since (``NET_SPOT_SPEED_FACTOR`` × its speed)."""
        if self._last_measured is None or frame_index - self._last_measured[0] > NET_SPOT_BIRTH_FRAMES:
            return False
        f, at, speed = self._last_measured
        speed = PUCK_SPEED_UNKNOWN_MPS if speed is None else NET_SPOT_SPEED_FACTOR * speed
        return bool(np.hypot(*(at - xy)) > NET_SPOT_ELSEWHERE_M + speed * (frame_index - f) / self.fps)

    def _new_spots(self, end: int, ref: _Reference, v_full: np.ndarray, cam: Any,
                   lens_map: Any) -> list[tuple[np.ndarray, np.ndarray, float, float]]:
        """[(centre (2,) px, (2,) rink m, area px, expected puck area px)] of the compact spots in
        the box at ``end`` darker by ``NET_DARKEN_MIN`` than on the reference."""
        b = self._box_px(end, cam, 6, v_full.shape[:2])
        if b is None:
            return []
        # Only a camera that has not moved since compares: the goal frame stands up to 1.22 m above
        # the ice, and the ice's homography draws it elsewhere once the camera moved (suite s34:
        # an overhead camera following an icing, the frame's tubes new "spots" that took the track
        # from the puck along the boards).
        corners = self.box_rink_m(end)
        shift = np.hypot(*(apply_homography(ref.H_image_from_rink, corners)[0]
                           - apply_homography(cam.H_image_from_rink, corners)[0]).T)
        if not np.all(shift <= NET_STILL_CAMERA_PX):
            return []
        x0, y0, x1, y1 = b
        ox, oy = ref.origin_px
        before = ref.v[y0 - oy:y1 - oy, x0 - ox:x1 - ox]
        cur = v_full[y0:y1, x0:x1]
        if y0 < oy or x0 < ox or before.shape != cur.shape:
            return []
        darker = before.astype(np.int16) - cur.astype(np.int16)
        darker -= np.int16(np.median(darker))
        mask = (darker >= NET_DARKEN_MIN).astype(np.uint8)
        n, _, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
        out = []
        for k in range(1, n):
            uv = cents[k] + (x0, y0)
            if lens_map is not None:
                xy = np.asarray(lens_map(uv[None], cam, self.puck_z_m), np.float64).reshape(2)
            else:
                xy = cam.rink_from_image(uv[None], self.puck_z_m)[0].reshape(2)
            if not np.all(np.isfinite(xy)) or not self.in_box(end, xy)[0]:
                continue
            scale = float(cam.ground_scale_px_per_m(xy[None])[0])
            expected = np.pi / 4.0 * (self.puck_diameter_m * scale) ** 2
            area = float(stats[k, cv2.CC_STAT_AREA])
            if area > NET_SPOT_AREA_FACTOR * expected + NET_SPOT_AREA_SLACK_PX:
                continue
            out.append((uv, xy, area, expected))
        return out
