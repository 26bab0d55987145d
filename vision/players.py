"""Classical sledge/player detector: foreground blobs on the ice.

Method (work resolution of the ice model, usually half the frame):

1. Foreground = ice pixels that look neither like ice nor like the marking painted
   at that spot (``vision.ice``): thresholds relative to this frame's ice colour
   and local lightness; markings known from the rink geometry, not their colour
   (the red lines and the home jersey may be the very same red).
2. Morphological cleanup: an opening removes sticks, marking edges and noise; a
   closing restricted to marking pixels rejoins a player whose jersey has the
   colour of the line he sits on (the line would otherwise cut him in two); a
   small closing fills jersey numbers.
3. Connected components, kept when their area is plausible for a player's body
   (``PlayerBody``: seated on a sledge, or standing for the sponge leagues) at that spot
   (expected size from the camera recovered from the homography) not counting the face-off spots and L marks they cover, and not standing in a goal
   (``vision.ice.goal_nets_rink_m``) nor, narrower than a body, at a goal post.
4. Merged blobs (players side by side) are split at the emptiest column when
   the blob is much wider than one sledge at that distance and its column
   profile has a clear valley.
5. The ground contact is the bottom of the blob below the body (the tallest
   columns: torso and helmet), since the blades sit under the seat; the blob's
   lowest pixel is often a stick blade or the front of the sledge. Mapped to the
   rink on the ice plane it is the seat's edge nearest the camera; the tracker
   turns it into blade points. A camera looking down steeply (``steep_view``: an
   overhead camera, a goal camera over the crease) sees the sledge from above, where
   the blob's bottom edge means little: there the contact is the ground point under
   the blob's centroid (the body's mass, ``BODY_CENTRE_HEIGHT_M`` up), the seat itself.

6. In a game with a white (or silver) kit, seen from above, a white player leaves the ice model
   only his sledge and stick, thinner than the opening: a second pass reads the blobs of the
   foreground joined with where the luma departs from the local ice's (his lit and shaded body,
   ``IceScene.off_local_luma``) that the first did not, each needing a few of the ice model's
   own pixels (the sledge) and measured against a body's footprint seen from above.

Detections carry ``contact_xy_px`` (N, 2) full-resolution px and
``contact_rink_m`` (N, 2), plus the torso box used for the team colour.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import shapely

from vision.detections import PLAYER, Detections
from vision.ice import IceScene
from vision.puck import connected_components
from vision.teams import TeamAssignment, TeamClassifier

# Typical seated sledge-hockey player (metres): helmet top, torso band, torso half width, sledge length.
PLAYER_HEIGHT_M = 1.15
TORSO_BAND_M = (0.35, 0.85)
TORSO_HALF_WIDTH_M = 0.22
SLEDGE_LENGTH_M = 1.1
# Blade centre beyond the detected contact point, along the view direction, metres. The
# contact is the bottom of the blob under the body, i.e. the seat's near edge; measured on
# 279 simulated player views (3 plays, broadcast and blue-line cameras, all headings):
# −0.106 ± 0.14 m along the view, 0.00 ± 0.08 m across it, independent of the heading (the
# blades sit under the body whatever way the sledge points). Negative: the blob's bottom lies
# slightly beyond the blades (the mask's opening lifts it and the blades' own shadow is cut).
SEAT_BEYOND_CONTACT_M = -0.10
BLADE_HALF_GAP_M = 0.125
# Side of the foreground mask's opening, work px: anything narrower (sticks, a far sledge's
# legs) is erased from the blob.
OPENING_PX = 3
# A camera this high above the horizon seen from the player (an overhead camera; a goal camera
# over the crease) sees the sledge from above: the blob's bottom edge is not the seat's near
# edge but wherever the body leans in the image. The ground point under the blob's centroid,
# the body's mass at about BODY_CENTRE_HEIGHT_M, is the seat instead (its error from the
# centroid's unknown height shrinks as 1 / tan(elevation)). 35° chosen on 18 tuning clips
# (docs/vision.md, "Seen from above"); the broadcast and blue-line cameras never reach it.
STEEP_VIEW_ELEVATION_DEG = 35.0
BODY_CENTRE_HEIGHT_M = 0.45
# A blob standing up within this distance of a goal post's centre (218 b: posts 5 cm thick, 1.22 m
# tall) and narrower than POST_MAX_WIDTH_M is the post, not a player: any body is at least a
# torso wide (2 x TORSO_HALF_WIDTH_M = 0.44 m), the post with the net behind it 0.18-0.21 m
# (goal-camera tuning render 410, where a red post was tracked as a home player in the crease).
POST_REACH_M = 0.3
POST_MAX_WIDTH_M = 0.3
# The goal frame's pixels (posts and crossbar), where the camera pose lets them be drawn
# (``_goal_posts_mask``): drawn this much thicker than the tubes (the mask's closing and the blur
# spread them), and a blob with less than POST_MIN_BODY_FRAC of its pixels off them is the frame.
POST_MASK_MARGIN_M = 0.05
# A white (or silver) kit against a coloured one (``vision.teams.ICE_LIKE_KIT_*``): a torso box at
# most this share foreground is a white torso, one at least COLOURED_KIT_MIN_FILL is read by its
# colour, and one between gets no verdict; boxes under WHITE_KIT_MIN_BOX_PX work pixels (a far player from
# above) are read by their colour alone. Measured shares in ``vision.teams``.
WHITE_KIT_MAX_FILL = 0.45
# A white (or silver) jersey is plain ice to the ice model but not flat like the ice: lit and shaded
# it departs from the local ice luma (``IceScene.off_local_luma``) by more than
# ``vision.ice.OFF_LOCAL_LUMA_DY`` (Y units) over most of its torso box, where plain ice beside it
# does not. On five drawn-kit renders (stop 51, tune31, true camera, every third frame) the white
# and silver skaters' torso boxes had a
# median 0.75-1.00 of their pixels that far off (p10 0.23-0.97), same-size ice boxes beside them
# 0.00-0.09 (p90 up to 0.54 where they held boards or another player). A box with at least
# WHITE_BODY_MIN_SHARE so is a white body: it stands up from the ice (the height test), and seen
# from above it is a jersey, not paint that shows none (``TeamAssignment.by_absence``).
WHITE_BODY_MIN_SHARE = 0.4
WHITE_BODY_SHIFTS = (0.0, -0.5, 0.5, -1.0, 1.0, -1.5, 1.5)  # torso box widths aside (``_white_torso``)
COLOURED_KIT_MIN_FILL = 0.55
# A blob of the second pass (white bodies seen from above, ``PlayerDetector.detect``) has at least
# this many work px of the ice model's own foreground (his sledge, his stick): the ice's mottled
# shading departs from the local luma too, with none (drawn-kit tuning render 1441: 36 such blobs
# read as players on 12 frames without it, none with it).
WHITE_BODY_MIN_DARK_PX = 3
WHITE_KIT_MIN_BOX_PX = 20
POST_MIN_BODY_FRAC = 0.25
# Seen from the side, the frame's mask only drops a blob with less than POST_MIN_BODY_FRAC of its
# pixels off it (the frame alone); drawn this much thicker, as a panning broadcast camera's blur
# and a calibration's pixel of error spread a far frame (fresh renders 852, 879, 915).
POST_SIDE_MARGIN_M = 0.15
# A player cut by the picture's top edge is scored against at least this fraction of a whole
# player's expected area (a sliver at the edge starts no track on its own).
CUT_TOP_MIN_VIEW_FRAC = 0.25
# A blob with this share of its pixels within this many work px of a near post's projected axis
# is the post (``_along_goal_post``): 2.5 px covers a far post's blur, the foreground's closing
# and a pixel of calibration error.
POST_AXIS_SHARE = 0.9
POST_AXIS_SLACK_PX = 2.5
# A jersey in the colour of the paint under it (blue team on a blue line) is taken for the paint
# by the ice model's paint test where the body covers the painted area, and the body is cut there:
# its columns on that side thin out and the contact moves away from the line (broadcast tuning
# renders: blue-team sledges on a blue line read 12 cm ahead of their travel at >= 2.5 m/s, 20 cm
# at 1-2.5 m/s; `benchmarks/eval_blade_error.py --near-lines`). Painted pixels right below a
# column's lowest body pixel are given back to the body when their chroma is within
# PAINT_BODY_CHROMA_TOL (L1 in Cr, Cb) of the body's own colour (the median of its pixels more
# than BODY_MIN_CHROMA from grey), down to where a body of the expected height standing from the
# blob's top would end. A body of another colour than the paint keeps its pixels as they are.
# Seated bodies only: a standing player's jersey is a metre above the paint (his dark trousers and
# shoes stand on it), and below his shoes this would add the paint in front of him (sponge tuning
# renders 455 and 456: IDF1 93.8 -> 90.0 % and 74.9 -> 66.9 % with it).
PAINT_BODY_CHROMA_TOL = 60
BODY_MIN_CHROMA = 30
BODY_MIN_COLOURED_PX = 10


@dataclass(frozen=True)
class PlayerBody:
    """The body the detector and tracker expect on the ice, metres.

    The classical detector reads a player's size, team colour and ground contact from where
    his body should be; a seated sledge player and a standing sponge player differ in all three
    (a standing player's jersey is where a seated one's helmet would be, and a band at a seated
    torso's height reads his trousers). Which body applies is the game's (the rule profile's
    ``player_kind``), handed in by whoever builds the vision stage.

    Attributes:
        kind: "sledge" | "standing".
        height_m: top of the helmet above the ice.
        torso_band_m: (low, high) heights of the jersey band the team colour is read from.
        torso_half_width_m: half the torso's width.
        torso_beyond_contact_m: the torso's centre beyond the ground contact along the view (a
            seated body leans back over the seat; a standing one is over his feet).
        length_m: the player's longest extent seen from the side (a sledge; a stance with the
            stick held low), for the expected blob width and area.
        centre_height_m: height of the body's mass, for the ground point under a blob's centroid
            seen from above.
        centre_beyond_contact_m: the blades' (feet's) centre beyond the contact along the view.
        contact_half_gap_m: half the distance between the two blades (feet).
        legs_forward: the legs lie along the ice in front of the blades (a sledge's frame), so a
            player heading at the camera has his contact at the feet, not the seat.
        stick_reach_m: the stick blade's distance from the blades' (feet's) centre while he
            carries the puck: where a carried puck leaves his stick (``vision.possession``).
    """

    kind: str
    height_m: float
    torso_band_m: tuple[float, float]
    torso_half_width_m: float
    torso_beyond_contact_m: float
    length_m: float
    centre_height_m: float
    centre_beyond_contact_m: float
    contact_half_gap_m: float
    legs_forward: bool
    stick_reach_m: float


# A seated sledge-hockey player (IPC 300-306): the measured constants above; he carries the puck
# beside his sledge at an arm and a stick of at most 1 m (IPC 309) from his seat, ~1.1 m.
SEATED = PlayerBody("sledge", PLAYER_HEIGHT_M, TORSO_BAND_M, TORSO_HALF_WIDTH_M, 0.35, SLEDGE_LENGTH_M,
                    BODY_CENTRE_HEIGHT_M, SEAT_BEYOND_CONTACT_M, BLADE_HALF_GAP_M, True, 1.1)
# A standing adult in shoes (the sponge leagues): helmet top ~1.8 m, jersey from the waist
# (~1.0 m) to the shoulders (~1.45 m), feet ~0.3 m apart. The silhouette's centroid seen from
# above at the seated body's share of the height (0.45 of 1.15 m: its shadow and stick pull it
# down), and the feet's centre 0.2 m beyond the blob's bottom (half a shoe beyond its near edge,
# plus what the mask's opening eats: 0.19-0.26 m measured on six sponge tuning renders, seeds
# 451-456, broadcast and blue-line views; docs/vision.md "Standing players"). He carries the puck
# about a metre in front of his feet, nearer than a seated player's stick reaches.
STANDING = PlayerBody("standing", 1.80, (1.0, 1.45), 0.22, 0.10, 0.6, 0.7, 0.20, 0.15, False, 1.0)
PLAYER_BODIES = {"sledge": SEATED, "standing": STANDING}


# A blob this many times taller than one player at its bottom (seen from the side) is a player with
# others behind him stacked above him in the image (a seated player's stick held upright reaches
# about 1.5 of his height). Measured on the tuning renders (`rulesfromvideo eval tracks`, true
# homographies; docs/vision.md stop 34): 1.25, 1.4 and 1.6 all cut the broadcast blade p95 by
# about 3 cm, but below 1.6 a sledge sitting on a centre-ice logo (offside_carried_blueline_506) was
# read at the logo's near edge and left a still track there (IDF1 91.8 -> 88.4 %).
STACKED_BLOB_FACTOR = 1.6


def front_body(body: np.ndarray, expected_height_px: float) -> np.ndarray | None:
    """The front player's part of a blob (h, w) bool that others behind him make taller than one
    player: its rows within ``expected_height_px`` (his height at the blob's bottom) of its lowest
    row; None when the blob is no taller than ``STACKED_BLOB_FACTOR`` players.

    Seen from the side a player's blades are under his own torso, the tallest part of his own
    silhouette; a player behind him rises above it in the image and, merged with him, makes other
    columns the tallest of the blob (``PlayerDetector._contact``)."""
    rows = np.flatnonzero(body.any(axis=1))
    if len(rows) == 0 or rows[-1] - rows[0] + 1 <= STACKED_BLOB_FACTOR * expected_height_px:
        return None
    low = body.copy()
    low[: max(0, int(rows[-1] + 1 - np.ceil(expected_height_px)))] = False
    return low


def sits_on_paint(body: np.ndarray, scene: IceScene, x0: int, y0: int) -> bool:
    """Whether a column of a blob's body (h, w) bool at work px (x0, y0) ends right on a marking's
    painted area (``IceScene.marking_mask``): only then can ``paint_covered_body`` give anything
    back (a cheap test before it)."""
    cols = np.flatnonzero(body.any(axis=0))
    # The row under each column's lowest body pixel.
    below = y0 + body.shape[0] - np.argmax(body[::-1, cols], axis=0)
    ok = below < scene.marking_mask.shape[0]
    return bool(np.any(scene.marking_mask[below[ok], x0 + cols[ok]]))


def paint_covered_body(body: np.ndarray, scene: IceScene, x0: int, y0: int, top: int,
                       body_height_px: float) -> np.ndarray | None:
    """A blob's body with the painted pixels below it that are its own colour given back (see
    ``PAINT_BODY_CHROMA_TOL``), or None when there are none. Worth calling only where
    ``sits_on_paint`` holds (nothing can be given back elsewhere).

    Args:
        body: (h, w) bool the blob's pixels, at work px offset (x0, y0).
        scene: the frame's ice model (``marking_mask``, ``ycc``).
        top: the blob's top row within ``body``.
        body_height_px: the expected body height there, work px.

    Returns:
        (h2, w) bool with h2 >= h (rows below the blob's box added where the body reaches them).
    """
    h, w = body.shape
    lim = min(scene.marking_mask.shape[0], y0 + top + int(np.ceil(body_height_px)))
    n_r = max(h, lim - y0)
    last = np.where(body.any(axis=0), h - 1 - np.argmax(body[::-1], axis=0), n_r)
    chroma = scene.ycc[y0 : y0 + n_r, x0 : x0 + w, 1:].astype(np.int16)
    own = chroma[:h][body]
    own = own[np.abs(own - 128).sum(axis=1) > BODY_MIN_CHROMA]
    if len(own) < BODY_MIN_COLOURED_PX:
        return None
    ref = np.median(own, axis=0)
    ext = np.zeros((n_r, w), bool)
    ext[:h] = body
    paint = (scene.marking_mask[y0 : y0 + n_r, x0 : x0 + w] > 0) & \
        (np.abs(chroma - ref).sum(axis=2) < PAINT_BODY_CHROMA_TOL)
    rows = np.arange(n_r)[:, None]
    # Contiguous painted pixels of the body's colour below each column's lowest body pixel.
    run = np.logical_and.accumulate(paint | (rows <= last[None, :]), axis=0)
    add = run & (rows > last[None, :]) & (rows < lim - y0)
    if not add.any():
        return None
    return ext | add


def steep_view(cam, xy_rink_m: np.ndarray) -> np.ndarray:
    """(N,) whether the camera is at least ``STEEP_VIEW_ELEVATION_DEG`` above the horizon seen
    from these (N, 2) ground points, m (False without a camera pose)."""
    xy = np.asarray(xy_rink_m, dtype=np.float64).reshape(-1, 2)
    C = cam.position_xyz_m
    if C is None:
        return np.zeros(len(xy), bool)
    elev = np.degrees(np.arctan2(C[2], np.hypot(xy[:, 0] - C[0], xy[:, 1] - C[1])))
    return elev >= STEEP_VIEW_ELEVATION_DEG


def _steep_mask(scene: IceScene, shape: tuple[int, int], step: int = 8) -> np.ndarray:
    """(h, w) bool work-resolution mask of the pixels whose ground point the camera sees from
    above (``steep_view``), judged on a grid every ``step`` work px."""
    h, w = shape
    gy, gx = np.mgrid[step // 2 : h : step, step // 2 : w : step]
    uv = scene.to_full(np.column_stack([gx.ravel(), gy.ravel()]).astype(np.float64))
    xy, ok = scene.cam.rink_from_image(uv)
    ok = ok & np.isfinite(xy).all(axis=1)
    st = np.zeros(len(xy), bool)
    st[ok] = steep_view(scene.cam, xy[ok])
    grid = st.reshape(gy.shape).astype(np.uint8)
    return cv2.resize(grid, (w, h), interpolation=cv2.INTER_NEAREST) > 0


@dataclass
class PlayerDetectorConfig:
    """Thresholds of the classical player detector.

    Attributes:
        min_area_frac: smallest blob as a fraction of the expected player area at its spot.
        max_area_frac: largest blob (before splitting) as a multiple of the expected area.
        split_width_factor: split a blob wider than this many single-player widths.
        valley_frac: a split column must hold less than this fraction of the blob's median column count.
        line_gap_m: widest marking gap to rejoin across (a 30 cm blue/red line plus slack).
        min_height_frac: a blob lower than this fraction of a seated player's height at its
            spot is paint on the ice (a logo) or debris, not a player.
    """

    min_area_frac: float = 0.12
    max_area_frac: float = 8.0
    split_width_factor: float = 1.6
    valley_frac: float = 0.45
    line_gap_m: float = 0.4
    min_height_frac: float = 0.4


class PlayerDetector:
    """Find players (sledges) as foreground blobs and read their jersey colour.

    Args:
        teams: jersey colour classifier (None: no team assignment).
        config: thresholds.
        body: the players' body (``SEATED`` sledge players, ``STANDING`` sponge players).
    """

    def __init__(self, teams: TeamClassifier | None = None, config: PlayerDetectorConfig | None = None,
                 body: PlayerBody = SEATED) -> None:
        self.teams = teams
        self.config = config or PlayerDetectorConfig()
        self.body = body

    def detect(self, scene: IceScene) -> tuple[Detections, list[TeamAssignment]]:
        """Players in one frame.

        Args:
            scene: the frame's ice model.

        Returns:
            (Detections of class ``PLAYER`` in full-resolution px with ``data``:
            ``contact_xy_px`` (N, 2), ``contact_rink_m`` (N, 2), ``torso_xyxy_px`` (N, 4),
            ``area_px`` (N,) work-resolution area, ``cut_top`` (N,) bool: the blob runs out of the
            picture at its top edge and is no wider than two players; one ``TeamAssignment`` per
            detection).
        """
        cfg = self.config
        if not scene.ok:
            return _empty(), []
        s = scene.scale
        fg = scene.foreground
        posts = _goal_posts_mask(scene, fg.shape)
        side = _goal_posts_mask(scene, fg.shape, behind=False, margin_m=POST_SIDE_MARGIN_M)
        extra = _crease_unpainted_from_above(scene, posts, side)
        if extra is not None:
            fg = cv2.bitwise_or(fg, extra)
        fg = cv2.morphologyEx(fg, cv2.MORPH_OPEN, np.ones((OPENING_PX, OPENING_PX), np.uint8))
        # Scale at the middle of the ice in view sets the marking-gap kernel.
        ys, xs = np.nonzero(scene.ice_mask[:: 8, :: 8])
        if len(xs) == 0:
            return _empty(), []
        mid_full = scene.to_full(np.array([[np.median(xs) * 8, np.median(ys) * 8]], dtype=np.float64))
        mid_rink, _ = scene.cam.rink_from_image(mid_full)
        scale_mid = float(scene.cam.ground_scale_px_per_m(mid_rink)[0]) * s
        k_gap = int(np.clip(round(cfg.line_gap_m * scale_mid), 3, 31))
        if np.any(scene.marking_mask):
            closed = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, np.ones((k_gap, k_gap), np.uint8))
            fg = cv2.bitwise_or(fg, cv2.bitwise_and(closed, scene.marking_mask))
        fg = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))

        def read(fg_pass: np.ndarray, taken: np.ndarray | None = None, white_bodies: bool = False):
            """(boxes, contacts, the component labels (h, w), the labels of the blobs read) of the
            blobs of ``fg_pass`` (work px), but those with a pixel in ``taken``; ``white_bodies``: a blob needs
            ``WHITE_BODY_MIN_DARK_PX`` of the ice model's foreground, and is measured against a
            body's footprint seen from above (``_expected``)."""
            n, labels, stats, _ = connected_components(fg_pass)
            alive = self._group_vertically(labels, stats, n, scene)
            boxes, contacts, read_ids = [], [], []
            for i in alive:
                x, y, w, h, area = stats[i]
                if area < 6:
                    continue
                blob = labels[y : y + h, x : x + w] == i
                if taken is not None and np.any(blob & taken[y : y + h, x : x + w]):
                    continue  # read in the first pass
                if white_bodies and np.count_nonzero(blob & (scene.foreground[y : y + h, x : x + w] > 0)) \
                        < WHITE_BODY_MIN_DARK_PX:
                    continue  # shading in the ice: a white body sits on a sledge, and holds a stick
                parts = self._split(labels, i, x, y, w, h, scene)
                for (px0, px1) in parts:
                    sub = labels[y : y + h, px0:px1] == i
                    rows = np.nonzero(sub.any(axis=1))[0]
                    if len(rows) == 0:
                        continue
                    top, bot = int(rows[0]), int(rows[-1])
                    cols = np.nonzero(sub.any(axis=0))[0]
                    a = int(sub.sum())
                    # The goal frame is known (218 b): a player merged with a post or the crossbar is
                    # read from his own pixels (the frame would pull his contact to it), and the frame
                    # alone is no one.
                    body_sub = sub if posts is None else sub & (posts[y : y + h, px0:px1] == 0)
                    if np.count_nonzero(body_sub) < POST_MIN_BODY_FRAC * a:
                        continue
                    if extra is not None:
                        # The pads lie in front of his seat: it is read from the rest of him where
                        # that is a quarter of the blob; with less (a blue jersey on a blue crease)
                        # from all of it (tuning render 910: his seat 0.95 m up the ice).
                        own = body_sub & (extra[y : y + h, px0:px1] == 0)
                        if np.count_nonzero(own) >= POST_MIN_BODY_FRAC * np.count_nonzero(body_sub):
                            body_sub = own
                    # Seen from the side, a player at the frame keeps its pixels (he may be in front of
                    # it), but a blob almost all on the frame is the frame: a red frame in the home
                    # team's colour was a home skater at the goal line (fresh render 879, 73 frames).
                    if side is not None and np.count_nonzero(
                            sub & (side[y : y + h, px0:px1] == 0)) < POST_MIN_BODY_FRAC * a:
                        continue
                    found = self._front_contact(body_sub, px0, y, scene)
                    if found is None:
                        continue
                    if self.body.kind == "sledge" and sits_on_paint(body_sub, scene, px0, y) and \
                            not steep_view(scene.cam, found[1])[0]:
                        body_full = paint_covered_body(body_sub, scene, px0, y, top, self._height_px(scene, found[1]))
                        if body_full is not None:
                            found = self._contact_on_ice(body_full, px0, y, scene)
                            if found is None:
                                continue
                    contact_full, contact_rink = found
                    if steep_view(scene.cam, contact_rink)[0]:
                        contact_full, contact_rink = self._under_body(body_sub, px0, y, scene, contact_full, contact_rink,
                                                                      self.body.centre_height_m)
                    if scene.goal_nets_rink_m is not None and \
                            shapely.contains_xy(scene.goal_nets_rink_m, *contact_rink[0]):
                        continue  # the goal frame and net, standing up from the ice like a player
                    if _is_goal_post(scene, contact_rink[0], int(cols[-1]) - int(cols[0]) + 1) or \
                            _along_goal_post(scene, sub, px0, y, contact_rink[0]):
                        continue
                    exp_area, exp_w = self._expected(scene, contact_rink, footprint=white_bodies)
                    # Face-off spots and L marks are foreground (the ice model does not know their
                    # paint: ``IceScene.in_hole_mask``), and from above a spot is as large as a seated
                    # player: only the blob's pixels off them count towards a player's area.
                    a_paint = 0 if scene.in_hole_mask is None else \
                        int(np.count_nonzero(sub & (scene.in_hole_mask[y : y + h, px0:px1] > 0)))
                    if a - a_paint < cfg.min_area_frac * exp_area or a > cfg.max_area_frac * exp_area:
                        continue
                    x0w, x1w = px0 + int(cols[0]), px0 + int(cols[-1]) + 1
                    # Runs out of the picture at its top, no wider than two players: a body standing
                    # up out of view (his jersey may be above the picture), not a logo cut by the edge;
                    # its height in view says nothing then.
                    cut_top = y + top == 0 and x1w - x0w <= 2.0 * exp_w
                    # Players stand up from the ice; paint on it (logos, ads) is flat and low in the image.
                    exp_h = self._height_px(scene, contact_rink)
                    if bot - top + 1 < cfg.min_height_frac * exp_h and not cut_top:
                        # A white player's own foreground is his trousers and sledge, as flat as paint:
                        # his torso above them stands up all the same (``WHITE_BODY_MIN_SHARE``), and his
                        # contact is read from all of him, as a coloured player's is.
                        torso_px = self._white_torso(scene, contact_full, contact_rink) if white_kit else None
                        if torso_px is None:
                            continue
                        whole, wx, wy = _union_window(sub, px0, y, torso_px)
                        found = self._front_contact(whole, wx, wy, scene)
                        if found is None:
                            continue
                        contact_full, contact_rink = found
                        rows_w, cols_w = np.nonzero(whole.any(axis=1))[0], np.nonzero(whole.any(axis=0))[0]
                        x0w, x1w = wx + int(cols_w[0]), wx + int(cols_w[-1]) + 1
                        top, bot, a = wy + int(rows_w[0]) - y, wy + int(rows_w[-1]) - y, int(whole.sum())
                    # Of a body standing up out of the picture only the part below its top edge shows:
                    # his area is measured against that part of the expected one (a sledge alone in
                    # view scored 0.13-0.26 of a whole player, too faint to start a track: goal-camera
                    # tuning render 900 never tracked a skater waiting there).
                    in_view = 1.0 if not cut_top else float(np.clip((bot - top + 1) / max(exp_h, 1e-6),
                                                                    CUT_TOP_MIN_VIEW_FRAC, 1.0))
                    boxes.append((x0w, y + top, x1w, y + bot + 1, a, min(1.0, a / (exp_area * in_view)), cut_top))
                    contacts.append((contact_full[0], contact_rink[0]))
                    read_ids.append(i)
            return boxes, contacts, labels, read_ids
        white_kit = self.teams is not None and self.teams.ice_like_team is not None
        boxes, contacts, labels, read_ids = read(fg)
        # Games with a white (or silver) kit, seen from above: a white player leaves the ice model
        # his sledge and stick alone, which the opening erases. Lit and shaded, his body departs
        # from the local ice luma (``IceScene.off_local_luma``): blobs of that with the ice model's
        # foreground not read above are read as bodies too.
        if white_kit:
            off = (scene.off_local_luma() & _steep_mask(scene, fg.shape)).astype(np.uint8) * 255
            if np.any(off):
                off = cv2.morphologyEx(off, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
                off = cv2.morphologyEx(off, cv2.MORPH_OPEN, np.ones((OPENING_PX, OPENING_PX), np.uint8))
                more_boxes, more_contacts, _, _ = read(cv2.bitwise_or(fg, off), taken=np.isin(labels, read_ids),
                                                       white_bodies=True)
                boxes += more_boxes
                contacts += more_contacts
        if not boxes:
            return _empty(), []
        b = np.asarray(boxes, dtype=np.float64)
        # Work px box edges → full-resolution px box edges.
        xyxy = np.column_stack([b[:, 0] / s, b[:, 1] / s, b[:, 2] / s, b[:, 3] / s])
        c_px = np.array([c[0] for c in contacts])
        c_rink = np.array([c[1] for c in contacts])
        torso = self._torso_boxes(scene, c_px, c_rink)
        det = Detections(
            xyxy,
            np.clip(b[:, 5], 0.05, 1.0),
            np.full(len(b), PLAYER),
            data={"contact_xy_px": c_px, "contact_rink_m": c_rink, "torso_xyxy_px": torso, "area_px": b[:, 4],
                  "cut_top": b[:, 6] > 0},
        )
        if self.teams is None:
            teams = [TeamAssignment(None, 0.0, None) for _ in torso]
        else:
            # Only a white kit's verdict asks whether the view is steep (``_team``).
            steep = steep_view(scene.cam, c_rink) if self.teams.ice_like_team is not None and len(c_rink) \
                else np.zeros(len(torso), bool)
            teams = [self._team(scene, fg, tb, bool(st)) for tb, st in zip(torso, steep)]
        return det, teams

    # ----------------------------------------------------------------- parts
    def _expected(self, scene: IceScene, xy_rink_m: np.ndarray, footprint: bool = False) -> tuple[float, float]:
        """Expected work-resolution (area px², single-player width px) of a player standing there;
        ``footprint``: at least half the image box of his body's cuboid where seen from above."""
        s = scene.scale
        J = scene.cam.jacobian_image_from_rink(xy_rink_m)[0] * s
        width = self.body.length_m * max(np.linalg.norm(J[0]), np.linalg.norm(J[1])) * 0.8
        height = self.body.height_m * float(scene.cam.vertical_px_per_m(xy_rink_m)[0]) * s
        # Body plus sledge: roughly half of the bounding box is filled.
        area = max(4.0, 0.45 * width * max(height, 0.4 * width))
        # Seen from above the body is not a height but a footprint: the box of a cuboid over the
        # spot (his length, his torso's width, his height), either way along the rink.
        if footprint and steep_view(scene.cam, xy_rink_m)[0]:
            x, y = np.asarray(xy_rink_m, dtype=np.float64).reshape(-1, 2)[0]
            hl, hw, hgt = 0.5 * self.body.length_m, self.body.torso_half_width_m, self.body.height_m
            for ax, ay in ((hl, hw), (hw, hl)):
                pts = np.array([[x + sx * ax, y + sy * ay, z] for sx in (-1, 1) for sy in (-1, 1) for z in (0.0, hgt)])
                uv, _ = scene.cam.image_from_rink(pts)
                box = (uv.max(axis=0) - uv.min(axis=0)) * s
                area = max(area, 0.45 * float(box[0] * box[1]))
        return area, max(width, 2.0)

    def _group_vertically(self, labels: np.ndarray, stats: np.ndarray, n: int, scene: IceScene) -> list[int]:
        """Merge small blobs standing above a bigger one within a player's height (a helmet or a
        torso cut off from its sledge by a same-coloured marking) into it; returns the kept labels.

        ``labels`` and ``stats`` are updated in place for the merged blobs.
        """
        idx = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= 6]
        if len(idx) < 2:
            return idx
        idx.sort(key=lambda i: -stats[i, cv2.CC_STAT_AREA])
        bottoms = {}
        for i in idx:
            x, y, w, h, _ = stats[i]
            c_full = scene.to_full(np.array([[x + w / 2.0, y + h - 0.5]]))
            c_rink, ok = scene.cam.rink_from_image(c_full)
            hpx = self.body.height_m * float(scene.cam.vertical_px_per_m(c_rink)[0]) * scene.scale if ok[0] else 0.0
            bottoms[i] = hpx
        kept: list[int] = []
        for i in idx:
            x, y, w, h, a = stats[i]
            host = None
            for b in kept:
                bx, by, bw, bh, ba = stats[b]
                if a > 0.6 * ba:
                    continue
                overlap = min(x + w, bx + bw) - max(x, bx)
                if overlap < 0.3 * min(w, bw):
                    continue
                b_bot = by + bh
                if y + h <= b_bot + 2 and y >= b_bot - 1.15 * bottoms[b]:
                    host = b
                    break
            if host is None:
                kept.append(i)
                continue
            ys, xs = y, x
            sub = labels[ys : ys + h, xs : xs + w]
            sub[sub == i] = host
            bx, by, bw, bh, ba = stats[host]
            nx0, ny0 = min(bx, x), min(by, y)
            nx1, ny1 = max(bx + bw, x + w), max(by + bh, y + h)
            stats[host] = (nx0, ny0, nx1 - nx0, ny1 - ny0, ba + a)
        return sorted(kept)

    def _split(self, labels, i, x, y, w, h, scene) -> list[tuple[int, int]]:
        """Column ranges (work px, absolute) of the players merged in blob ``i``."""
        sub = labels[y : y + h, x : x + w] == i
        rows = np.nonzero(sub.any(axis=1))[0]
        bot = int(rows[-1])
        cols_bot = np.nonzero(sub[max(0, bot - 2) : bot + 1].any(axis=0))[0]
        cx = x + (float(cols_bot.mean()) if len(cols_bot) else w / 2.0)
        contact_full = scene.to_full(np.array([[cx, y + bot + 0.5]]))
        contact_rink, ok = scene.cam.rink_from_image(contact_full)
        if not ok[0]:
            return [(x, x + w)]
        _, w_single = self._expected(scene, contact_rink)
        if w <= self.config.split_width_factor * w_single:
            return [(x, x + w)]
        # Bodies stand up from the sledges: split between "humps" of the column profile
        # (columns at least half as full as the fullest), never inside a sledge-only stretch.
        counts = sub.sum(axis=0).astype(np.float64)
        k = max(3, int(w_single * 0.15) | 1)
        smooth = np.convolve(counts, np.ones(k) / k, mode="same")
        top = smooth.max()
        if top <= 0:
            return [(x, x + w)]
        high = smooth >= 0.55 * top
        humps, start = [], None
        for c, on in enumerate(np.append(high, False)):
            if on and start is None:
                start = c
            elif not on and start is not None:
                humps.append((start, c))
                start = None
        cuts = []
        for (a0, a1), (b0, b1) in zip(humps, humps[1:]):
            if (b0 + b1) / 2 - (a0 + a1) / 2 < 0.45 * w_single:
                continue
            j = a1 + int(np.argmin(smooth[a1:b0])) if b0 > a1 else a1
            if smooth[j] <= self.config.valley_frac * top:
                cuts.append(j)
        if not cuts:
            return [(x, x + w)]
        edges = [0] + cuts + [w]
        return [(x + e0, x + e1) for e0, e1 in zip(edges, edges[1:]) if e1 - e0 >= 2]

    def _height_px(self, scene: IceScene, xy_rink_m: np.ndarray) -> float:
        """Work px a player of this body stands tall at the (1, 2) ground point, m."""
        return self.body.height_m * float(scene.cam.vertical_px_per_m(xy_rink_m)[0]) * scene.scale

    def _front_contact(self, body: np.ndarray, x_off: int, y_off: int,
                       scene: IceScene) -> tuple[np.ndarray, np.ndarray] | None:
        """``_contact_on_ice`` of a body mask, from the side of its front player's part alone
        (``front_body``: players stacked behind him make the blob taller than one)."""
        found = self._contact_on_ice(body, x_off, y_off, scene)
        if found is None or steep_view(scene.cam, found[1])[0]:
            return found
        low = front_body(body, self._height_px(scene, found[1]))
        return found if low is None else self._contact_on_ice(low, x_off, y_off, scene)

    def _contact_on_ice(self, body: np.ndarray, x_off: int, y_off: int,
                        scene: IceScene) -> tuple[np.ndarray, np.ndarray] | None:
        """(full px (1, 2), rink m (1, 2)) of ``_contact`` of a body mask at work px (x_off, y_off);
        None where its ray does not meet the ice."""
        contact_full = scene.to_full(self._contact(body, x_off, y_off))
        contact_rink, ok = scene.cam.rink_from_image(contact_full)
        return (contact_full, contact_rink) if ok[0] else None

    @staticmethod
    def _contact(sub: np.ndarray, x_off: int, y_off: int) -> np.ndarray:
        """(1, 2) work px ground contact of one player's blob mask ``sub`` (rows × columns).

        The body (torso and helmet) is the tallest part of the blob; the blades sit
        under the seat, straight below it. So the contact is the bottom of the blob
        within the body's columns (columns at least 70 % as full as the fullest), not
        the blob's lowest pixel, which is often a stick blade or the sledge's front.
        """
        counts = sub.sum(axis=0).astype(np.float64)
        k = 3 if len(counts) >= 6 else 1
        smooth = np.convolve(counts, np.ones(k) / k, mode="same")
        body = np.nonzero(smooth >= 0.7 * smooth.max())[0]
        cx = float(np.average(body, weights=smooth[body]))
        bottoms = np.array([np.nonzero(sub[:, c])[0][-1] for c in body if counts[c] > 0])
        by = float(np.percentile(bottoms, 75)) if len(bottoms) else float(sub.shape[0] - 1)
        return np.array([[x_off + cx, y_off + by + 0.5]])

    @staticmethod
    def _under_body(sub: np.ndarray, x_off: int, y_off: int, scene: IceScene,
                    contact_full: np.ndarray, contact_rink: np.ndarray,
                    centre_height_m: float = BODY_CENTRE_HEIGHT_M) -> tuple[np.ndarray, np.ndarray]:
        """(full px (1, 2), rink m (1, 2)) of the ground point under the body of a blob seen
        from above (``steep_view``): the blob's centroid taken at ``centre_height_m``;
        the given contact when that ray does not meet the plane."""
        ys, xs = np.nonzero(sub)
        centroid_full = scene.to_full(np.array([[x_off + xs.mean(), y_off + ys.mean()]]))
        under, ok = scene.cam.rink_from_image(centroid_full, z_m=centre_height_m)
        if not ok[0]:
            return contact_full, contact_rink
        uv, _ = scene.cam.image_from_rink(np.c_[under, [0.0]])
        return uv, under

    def _torso_boxes(self, scene: IceScene, c_px: np.ndarray, c_rink: np.ndarray) -> np.ndarray:
        """(N, 4) full-res px boxes of the torso band above each contact point."""
        body = self.body
        out = np.zeros((len(c_px), 4))
        cam = scene.cam
        steep = steep_view(cam, c_rink)
        for k, (cp, cr) in enumerate(zip(c_px, c_rink)):
            if steep[k]:
                # Seen from above the band is the top of a cuboid over the seat: the box of its
                # corners (a vertical band of the image would be a sliver there).
                hw = body.torso_half_width_m
                pts = np.array([[cr[0] + sx * hw, cr[1] + sy * hw, z] for sx in (-1, 1) for sy in (-1, 1)
                                for z in body.torso_band_m])
                uv, _ = cam.image_from_rink(pts)
                out[k] = (*uv.min(axis=0), *uv.max(axis=0))
                continue
            # The band is centred beyond the contact along the view: for a seated player an
            # allowance for the body leaning back over the seat and for the contact error.
            seat = cr + cam.away_direction_rink(cr[None])[0] * body.torso_beyond_contact_m
            pts = np.array([[seat[0], seat[1], body.torso_band_m[0]], [seat[0], seat[1], body.torso_band_m[1]]])
            uv, _ = cam.image_from_rink(pts)
            half_w = body.torso_half_width_m * float(cam.ground_scale_px_per_m(seat[None])[0])
            u = uv[:, 0].mean()
            out[k] = (u - half_w, uv[:, 1].min(), u + half_w, uv[:, 1].max())
        return out

    def _white_torso(self, scene: IceScene, contact_full: np.ndarray,
                     contact_rink: np.ndarray) -> tuple[np.ndarray, int, int] | None:
        """A white body's torso near the torso box over a contact point (full-res px (1, 2), rink
        m (1, 2)): the first box, of those ``WHITE_BODY_SHIFTS`` aside, with at least
        ``WHITE_BODY_MIN_SHARE`` of its plain-ice-coloured pixels off the local ice luma
        (``IceScene.off_local_luma``; ``_box_share``). Returns (mask, x0, y0): those pixels as a
        (h, w) bool work-resolution mask at work px offset (x0, y0), or None."""
        off_ice_luma = scene.off_local_luma()
        box = self._torso_boxes(scene, np.asarray(contact_full, float).reshape(1, 2),
                                np.asarray(contact_rink, float).reshape(1, 2))[0]
        # His contact is read from his trousers and sledge, in front of the seat and to either
        # side of it as he faces: the box is tried up to one and a half widths aside.
        w = box[2] - box[0]
        for dx in WHITE_BODY_SHIFTS:
            b = box + np.array([dx * w, 0.0, dx * w, 0.0])
            share = _box_share(scene, off_ice_luma, b)
            if share is not None and share >= WHITE_BODY_MIN_SHARE:
                x0, y0, x1, y1 = _work_window(scene, off_ice_luma.shape, b)
                jersey = off_ice_luma[y0:y1, x0:x1] & (scene.not_plain_ice[y0:y1, x0:x1] == 0)
                return jersey, x0, y0
        return None

    def _team(self, scene: IceScene, fg: np.ndarray, torso_xyxy_full: np.ndarray, steep: bool = False) -> TeamAssignment:
        x0, y0, x1, y1 = _work_window(scene, fg.shape, torso_xyxy_full)
        if x1 <= x0 or y1 <= y0:
            return TeamAssignment(None, 0.0, None)
        # Pixels not of the plain ice colour, also above the ice outline (a far player's torso
        # may hide the boards) and on markings (a jersey of the line's own colour is still a jersey).
        m = scene.not_plain_ice[y0:y1, x0:x1] > 0
        white = self.teams.ice_like_team
        if white is not None and m.size >= WHITE_KIT_MIN_BOX_PX:
            # A white (or silver) kit against a coloured one: a torso box mostly plain ice is a white torso
            # (its dark remains would read as the other kit); half full, neither is sure. From the
            # side the blob stood up from the ice (the height test): a body. From above a mark on
            # the ice is as tall as a player, and shows no jersey either: the verdict then says
            # which team a player is, not that the blob is one (``TeamAssignment.by_absence``).
            fill = float(m.mean())
            if fill <= WHITE_KIT_MAX_FILL:
                # Seen from above, a white body's lit and shaded torso is evidence of a jersey.
                seen = (_box_share(scene, scene.off_local_luma(), torso_xyxy_full) or 0.0) >= WHITE_BODY_MIN_SHARE
                return TeamAssignment(white, 1.0 - fill / WHITE_KIT_MAX_FILL, None, by_absence=steep and not seen)
            if fill < COLOURED_KIT_MIN_FILL:
                return TeamAssignment(None, 0.0, None)
        # But where enough are left without them, not those that look like the paint at their
        # place: seen from above a goalkeeper's small torso lies on his crease, whose blue decided
        # a red goalkeeper's team (fresh render 862: 20 of 35 pixels the crease's, voted away).
        own = m & ~(scene.ice_like[y0:y1, x0:x1] > 0)
        if int(own.sum()) >= self.teams.min_pixels:
            m = own
        pix_bgr = scene.small_bgr[y0:y1, x0:x1][m]
        if len(pix_bgr) == 0:
            return TeamAssignment(None, 0.0, None)
        pix = cv2.cvtColor(pix_bgr.reshape(-1, 1, 3), cv2.COLOR_BGR2LAB).reshape(-1, 3)
        return self.teams.classify_pixels(pix)


def _work_window(scene: IceScene, shape: tuple[int, int], xyxy_full: np.ndarray) -> tuple[int, int, int, int]:
    """A full-resolution box as work-resolution slice bounds (x0, y0, x1, y1), clipped to ``shape``."""
    h, w = shape
    x0, y0, x1, y1 = np.asarray(xyxy_full, float) * scene.scale
    x0, y0 = max(0, int(np.floor(x0))), max(0, int(np.floor(y0)))
    return x0, y0, min(w, int(np.ceil(x1)) + 1), min(h, int(np.ceil(y1)) + 1)


def _union_window(sub: np.ndarray, sx: int, sy: int, other: tuple[np.ndarray, int, int]) -> tuple[np.ndarray, int, int]:
    """The union of two bool masks at work px offsets (``sub`` at (sx, sy), ``other`` = (mask, x, y))
    in one window: (mask, x0, y0)."""
    om, ox, oy = other
    x0, y0 = min(sx, ox), min(sy, oy)
    x1, y1 = max(sx + sub.shape[1], ox + om.shape[1]), max(sy + sub.shape[0], oy + om.shape[0])
    out = np.zeros((y1 - y0, x1 - x0), bool)
    out[sy - y0 : sy - y0 + sub.shape[0], sx - x0 : sx - x0 + sub.shape[1]] |= sub
    out[oy - y0 : oy - y0 + om.shape[0], ox - x0 : ox - x0 + om.shape[1]] |= om
    return out, x0, y0


def _box_share(scene: IceScene, mask: np.ndarray, xyxy_full: np.ndarray) -> float | None:
    """Share of ``mask`` (work resolution) over a full-resolution box's pixels of the plain ice
    colour on unmarked ice (None: fewer than ``WHITE_KIT_MIN_BOX_PX`` of them): where a white jersey
    would be, not its dark remains nor paint."""
    x0, y0, x1, y1 = _work_window(scene, mask.shape, xyxy_full)
    if x1 <= x0 or y1 <= y0:
        return None
    valid = (scene.ice_mask[y0:y1, x0:x1] > 0) & (scene.marking_mask[y0:y1, x0:x1] == 0) & \
        (scene.not_plain_ice[y0:y1, x0:x1] == 0)
    n = int(np.count_nonzero(valid))
    if n < WHITE_KIT_MIN_BOX_PX:
        return None
    return float(np.count_nonzero(mask[y0:y1, x0:x1] & valid)) / n


def _goal_posts_mask(scene: IceScene, shape: tuple[int, int], behind: bool = True,
                     margin_m: float = POST_MASK_MARGIN_M) -> np.ndarray | None:
    """(h, w) uint8 work-resolution mask of the goal frames' posts and crossbars (218 b:
    upright tubes ``IceScene.goal_height_m`` tall, the bar joining their tops; drawn
    ``margin_m`` thicker). With ``behind`` those that stand between the camera and the players:
    of a goal whose line the camera stands behind (a goal camera); without it the others, seen
    from the side. None without a camera pose or with no such goal in view.

    From a camera behind the goal line the frame is nearer than anyone playing in front of the
    goal, so its pixels are the frame's; from the side a goalkeeper or an attacker at the crease
    is as often in front of it, and the pixels would be his: there the mask only tells a blob
    that is all frame (``POST_SIDE_MARGIN_M``).
    """
    cam, posts = scene.cam, scene.goal_posts_rink_m
    if posts is None or not cam.has_pose:
        return None
    r = scene.goal_post_radius_m + margin_m
    top = scene.goal_height_m
    ang = np.linspace(0.0, 2.0 * np.pi, 12, endpoint=False)
    ring = np.stack([r * np.cos(ang), r * np.sin(ang)], axis=1)
    x_cam = float(cam.position_xyz_m[0])
    pieces = []
    for a, b in zip(posts[0::2], posts[1::2]):  # each goal's two posts, on its goal line
        if (np.sign(a[0]) * x_cam > abs(a[0])) != behind:
            continue  # the camera is not behind this goal line (or is, for the side view's mask)
        for cx, cy in (a, b):  # each post: its ring at the ice and at the top
            pieces.append(np.array([[cx + dx, cy + dy, z] for dx, dy in ring for z in (0.0, top)]))
        pieces.append(np.array([[p[0] + dx, p[1] + dy, top + dz] for p in (a, b) for dx, dy in ring
                                for dz in (-r, r)]))  # the crossbar between their tops
    h, w = shape
    mask = None
    for pts in pieces:
        uv, depth = cam.image_from_rink(pts)
        if np.any(depth <= 0):
            continue
        uv_work = scene.to_work(uv)
        if uv_work[:, 0].max() < 0 or uv_work[:, 0].min() >= w or uv_work[:, 1].max() < 0 or uv_work[:, 1].min() >= h:
            continue
        if mask is None:
            mask = np.zeros(shape, np.uint8)
        hull = cv2.convexHull(np.round(uv_work * 16).astype(np.int32))
        cv2.fillConvexPoly(mask, hull, 255, lineType=cv2.LINE_8, shift=4)
    return mask


def _crease_unpainted_from_above(scene: IceScene, posts: np.ndarray | None,
                                 side: np.ndarray | None) -> np.ndarray | None:
    """(h, w) uint8 0/255 work-resolution mask: ``IceScene.crease_unpainted`` where a crease is
    seen from above (``steep_view``) and not from behind its goal line, off the goal frames
    (``posts``, ``side``: ``_goal_posts_mask``); None where there is none.

    Seen from above, a goalkeeper's white pads on the blue crease are most of what shows of him
    (overhead tuning renders: goalkeepers detected in 43 % of frames). From a low or a goal
    camera his jersey shows him, and the pads beside a post would come apart from him as a
    player of their own (tuning render 856).
    """
    extra = scene.crease_unpainted
    if extra is None or scene.goal_posts_rink_m is None or not scene.cam.has_pose:
        return None
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(extra)
    if n <= 1:
        return None
    ground, ok = scene.cam.rink_from_image(scene.to_full(centroids[1:]))
    steep = steep_view(scene.cam, ground) & np.asarray(ok, bool)
    line_x = float(np.max(np.abs(scene.goal_posts_rink_m[:, 0])))
    x_cam = float(scene.cam.position_xyz_m[0])
    behind = np.sign(ground[:, 0]) * x_cam > line_x  # the camera stands behind that end's goal line
    keep = np.concatenate([[False], steep & ~behind])
    if not keep.any():
        return None
    out = np.where(keep[labels], 255, 0).astype(np.uint8)
    for m in (posts, side):
        if m is not None:
            out = cv2.bitwise_and(out, cv2.bitwise_not(m))
    return out


def _post_within_reach(scene: IceScene, contact_rink_m: np.ndarray) -> np.ndarray | None:
    """(2,) rink m of the goal post nearest a ground contact (2,) when within ``POST_REACH_M``
    of it, else None (no post known or none near)."""
    posts = scene.goal_posts_rink_m
    if posts is None or not len(posts):
        return None
    d = np.linalg.norm(posts - contact_rink_m, axis=1)
    k = int(np.argmin(d))
    return posts[k] if d[k] <= POST_REACH_M else None


def _is_goal_post(scene: IceScene, contact_rink_m: np.ndarray, width_work_px: int) -> bool:
    """Whether a blob ``width_work_px`` wide (work px) with its ground contact at
    ``contact_rink_m`` (2,) is a goal post standing up (``POST_REACH_M``, ``POST_MAX_WIDTH_M``)."""
    if _post_within_reach(scene, contact_rink_m) is None:
        return False
    scale = float(scene.cam.ground_scale_px_per_m(contact_rink_m[None])[0]) * scene.scale
    return width_work_px < POST_MAX_WIDTH_M * scale


def _along_goal_post(scene: IceScene, blob: np.ndarray, x_off: int, y_off: int, contact_rink_m: np.ndarray) -> bool:
    """Whether a blob (work-resolution (h, w) bool at offset (x_off, y_off) px) with its ground
    contact within ``POST_REACH_M`` of a goal post lies along that post's projected axis: at least
    ``POST_AXIS_SHARE`` of its pixels within ``POST_AXIS_SLACK_PX`` (work px) of it, row by row.

    A far post is a few pixels wide whatever its 5 cm (blur, the foreground's closing), as wide as
    a far torso, so its width cannot tell it from a player; its shape can: a body widens into
    the sledge and pads at the ice, a post is the same thin upright line from the ice to the bar.
    """
    if not scene.cam.has_pose:
        return False  # without a pose the post's image axis is not known
    post = _post_within_reach(scene, contact_rink_m)
    if post is None:
        return False
    px, py = post
    uv, depth = scene.cam.image_from_rink(np.array([[px, py, 0.0], [px, py, scene.goal_height_m]]))
    if np.any(depth <= 0):
        return False
    (u0, v0), (u1, v1) = scene.to_work(uv)  # the post's foot and top, work px
    if abs(v0 - v1) < 2.0:
        return False  # seen from above: no upright line to follow
    ys, xs = np.nonzero(blob)
    ys, xs = ys + y_off, xs + x_off
    u_axis = u0 + (ys - v0) * (u1 - u0) / (v1 - v0)
    return bool(np.mean(np.abs(xs - u_axis) <= POST_AXIS_SLACK_PX) >= POST_AXIS_SHARE)


def _empty() -> Detections:
    d = Detections.empty()
    d.data.update(
        contact_xy_px=np.zeros((0, 2)), contact_rink_m=np.zeros((0, 2)), torso_xyxy_px=np.zeros((0, 4)),
        area_px=np.zeros(0), cut_top=np.zeros(0, bool),
    )
    return d
