"""Per-frame tracking: detections in pixels → one ``tracks.jsonl`` record in rink metres.

``FrameTracker(rink, game, fps).update(frame_bgr, frame_index, t, calib)`` runs the
classical detectors (``vision.puck``, ``vision.players``) on the frame, maps them
to the rink with the frame's ``rink_from_image`` and keeps two kinds of tracks:

Puck (``PuckTracker``): a constant-velocity Kalman filter in rink metres
(state x, y, vx, vy). Each frame the detector searches a window around the
prediction (the whole ice when lost). A candidate is accepted when it passes a
χ² gate on the innovation; the best-scoring gated candidate updates the filter
(``measured: true``). Without one the filter coasts (``measured: false``) for up
to ``max_coast_s``, after which the puck is unknown (``null``); within a player's
reach it is reported for ``NEAR_PLAYER_COAST_FRAMES`` only (he may have stopped or
received it), then unknown while the filter keeps predicting. A strong
candidate outside the gate but within reach of a velocity change of at most
25 m/s since the last measurement (a pass, shot or deflection) restarts the
filter with the new velocity; one farther away is adopted only after it is seen
in three consecutive frames at physically consistent positions (re-acquisition
after a loss). A puck in the air projects through the ice-plane homography to a point
far beyond its real position and looks too large for that spot; such
measurements (out of the gate, or oversized) are not used, and the record stays
``measured: false`` on the prediction instead of a wrongly projected point.
Touches: when a gated measurement shows an abrupt velocity change (Δv above
``touch_dv_mps``), the nearest player within stick reach is reported as
``touch`` on that frame. A puck held against a stick blade merges with the blade and no
classical candidate holds it: while none does, the dark spots beside the players are
judged by a learned carry model (``FrameTracker._carried_candidates``,
``models/carry_verifier.md``) and those it accepts are candidates too. A track held on one still
spot (``STILL_TRACK_FRAMES``) is challenged: the carry model then looks beside every player, and a
carried puck seen moving with its carrier elsewhere takes the track; the still spot's frames are
handed back as not the puck (``FrameObservation.puck_retractions``).

Players (``PlayerTracker``): a compact tracker in rink metres — a
constant-velocity Kalman filter per track, Hungarian assignment
(``scipy.optimize.linear_sum_assignment``) on ground distance with a gate and a
penalty for a jersey-colour mismatch, ByteTrack's two-stage idea (confident
detections first, then weak ones for the tracks left over), tentative tracks
confirmed after a few hits, coasting through short occlusions, and ids given back after longer
ones (a lost track of the same team alone on the new detection's path: ``_revive``). Players are
detected on keyframes (``PLAYER_DETECT_HZ`` a second; the puck every frame) and
their tracks predicted in between. Association
in rink metres rather than image IoU makes it indifferent to camera pans and
zooms. A track is reported once confirmed, unless it looks like a fixed object: neither a jersey
colour nor movement (paint on the ice), or born at the boards and never moved (an advert on
them); its tentative frames before are handed back then (``FrameObservation.player_backfill``)
for a writer that still holds them. (No PyPI ByteTrack fits: ``bytetracker`` 0.3.2 dates from 2023, pins
old numpy/lap/cython_bbox builds and works in image IoU; ``boxmot`` pulls torch.)

Blades: the detector gives the ground point under the player's body (the
bottom of the blob within its tallest columns — the blades sit under the seat,
whatever way the sledge points, while the blob's lowest pixel is often a stick
or the sledge's front). The blade centre is ``vision.players.SEAT_BEYOND_CONTACT_M`` beyond it
along the view direction, and the two blade points are placed
±``BLADE_HALF_GAP_M`` (0.125 m: blades ~0.25 m apart) across the heading from
the track velocity (across the view when the player stands still). Standing players (the
sponge profile: ``vision.players.STANDING``) have their feet there instead, from the standing
body's own offsets and no legs along the ice. A sledge
heading towards the camera, near enough for its legs to survive the detector's
opening, has its contact at the feet: the seat is then moved back by the legs'
reach (``legs_reach_towards_camera_m``). Seen from above (``vision.players.steep_view``:
an overhead camera, a goal camera over the crease) the contact is the ground under the body's mass,
which lies ahead of a sledge's blades (its legs stretch forward along the frame): the blades sit
``BLADES_BEHIND_BODY_CENTRE_M`` behind it along the heading (where the track knows it) and
±``BLADE_HALF_GAP_M`` across. Expected error: ~14 cm (1σ) along the
view direction — a pixel of the seat's bottom edge spans many centimetres of
depth for a low camera — and ~8 cm across it; the rules get a per-view
covariance (``blade_covariance_rink``); see ``docs/vision.md`` for measured figures.

Vision never knows rules: nothing here decides zones, offside or goals.
"""

from __future__ import annotations

import functools
import warnings
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import shapely
from scipy.optimize import linear_sum_assignment
from shapely.geometry import LineString

from vision.blade_crops import crop_to_image, crop_window, cut_crop
from vision.detections import Detections
from vision.geometry import PlaneCamera, apply_homography
from vision.frame_scene import FrameScene, SceneBuilder
from vision.ice import IceConfig, puck_ice_rink_m, puck_walls_rink_m
from vision.players import (OPENING_PX, PLAYER_BODIES, SEATED, TORSO_HALF_WIDTH_M, PlayerBody, PlayerDetector,
                             steep_view)
from vision.learned import DEFAULT_CLASS_NAMES
from vision.net_rest import NetWatch
from vision.puck import PuckDetector, PuckDetectorConfig, StreakDetector
from vision.puck_flight import FlightFit, drop_onto, fit_flight, is_airborne, slide_rms, sliding_limit_m
from vision.puck_motion import MotionPuckDetector
from vision.puck_verifier import (
    CARRY_REACH_M, MaxOfVerifiers, behind_bodies, dark_peaks, near_players, reach_windows_px,
)
from vision.teams import TEAMS, TeamClassifier, TeamVote

# A seated player's legs, from the seat to the feet at the sledge's front (IPC 300 g: the frame
# is at least 0.8 m long; 303: the feet rest on its foot guard), their width with pads, and the
# seat's half width (IPC 300 b: the frame is no wider than the seat), metres.
LEGS_LENGTH_M = 0.8
LEGS_WIDTH_M = 0.2
SEAT_HALF_WIDTH_M = 0.19
# Seen from above, the body's mass (the blob's centroid, ``vision.players._under_body``) is not
# over the blades: they sit under the seat at the rear of the frame (IPC 300 b, 305, 306 a) while
# the legs lie along the frame in front of it (303), so the centroid lies ahead of the blades along
# the sledge. Measured on the tuning renders' steep views (eval tracks, true homographies; blade
# midpoint error along the true heading of moving sledges): median 0.23 m (overhead, seeds 401-438)
# and 0.26 m (goal camera, 42 views). Applied only where the track's heading is known.
BLADES_BEHIND_BODY_CENTRE_M = 0.23
# From the side the contact is taken under the body's tallest columns: the torso and helmet,
# which a seated player carries ahead of the seat (he leans forward over the frame to push
# with his sticks; the blades are under the seat, IPC 305). Across the view that lean shows as
# an offset of the contact along the sledge; along the view it only raises the silhouette. So
# the blades are moved back by this much times the part of the heading across the view.
# Measured on the tuning renders' side views (eval tracks, true homographies and lens): the blade
# midpoint of moving sledges heading across the view lay a median 2.9 cm (mean 4.7 cm) ahead along
# the heading on broadcast views, but -3.6 cm (mean 0.0) on blue-line views (not understood).
# Pooled blade errors are lowest at this value (0.03 m and 0 m were tried; docs/vision.md).
TORSO_AHEAD_OF_SEAT_M = 0.045
# A track born this close to the boards that has not moved STILL_AT_BOARDS_M is an advert or a
# door on them (seen from above it lies at the ice's edge, dark as a jersey), not a player, who
# sits with his body's centre at least a seat's half width from them and never keeps that still
# (tuning renders, seeds 401-467: 21 such tracks, all false, 0.2-0.8 m from the boards and still
# to 0.3 m; no true player track within 1.5 m of them).
AT_BOARDS_M = 1.0
STILL_AT_BOARDS_M = 0.3
# 1-sigma of a reported blade point, metres, for the rules (``Observations.blade_sigma_m``): the
# ±0.14 m above along the view, and more where the view runs along the rink: on the 720p suite
# (docs/end-to-end.md) the median 2-D blade error is 14 cm on blue-line and broadcast cameras and
# 29 cm on goal cameras, i.e. about 0.25 m per axis there (median ≈ 1.18 σ).
BLADE_SIGMA_M = 0.25
# Blade error model per view (``blade_covariance_rink``): a pixel part — the silhouette's edges
# are found to a few pixels (the bottom edge better than the sides), so its ground error grows
# with the ground distance one pixel spans there — plus a metric part along the view (the seat's
# depth from its silhouette: legs, shadow, lean) and across it. Fitted on the tuning clips
# (seeds 101–118, 18 clips, docs/vision.md "Blade error model") so that no more blade errors
# exceed 3σ in x or y than under the isotropic 0.25 m (with the legs term below: x 0.06–0.16 %
# on side cameras, 0 overhead and on goal cameras).
BLADE_PX_SIGMA_U = 5.0
BLADE_PX_SIGMA_V = 3.0
BLADE_ALONG_SIGMA_M = 0.30
BLADE_ACROSS_SIGMA_M = 0.15
# Where the camera looks down steeply (``vision.players.steep_view``) the contact is not an edge of
# the silhouette but the ground point under its centroid, which many pixels average: its pixel
# part is this (px, either image axis) instead of the edges' (BLADE_PX_SIGMA_U, _V). Chosen on the
# tuning renders' overhead views (seeds 408-471, `benchmarks/eval_blade_error.py --by-motion`, end
# to end): 5 px made the overhead model twice too wide (|x error| at most 1.68 σx); at 2 px σx
# 39.9 → 30.5 cm and σy 24.8 → 21.2 cm (medians) with the largest error 2.5 σ in x and y.
STEEP_PX_SIGMA = 2.0
# Where a sledge's legs are resolvable (``legs_resolvable``), the seat's depth along the view is
# also unsure by the legs' reach towards the camera (0.61 m head-on), whose heading a standing
# sledge does not tell: half of it, as a further 1-sigma along the view. On the tuning clips
# it takes goal-camera x errors beyond 3σ from 5.5 % to 0 % (side cameras' σx +1–2 cm).
BLADE_LEGS_SIGMA_M = 0.30
# A blade point this near the picture's border (or beyond it) belongs to a silhouette the border
# may cut (a sledge cut at the bottom edge was placed 0.8-1 m off, tuning 484 frames 111-117): its
# sigma is doubled. On the 50 tuning renders end to end (stop 36's outputs, broadcast) 1.0 % of the
# x errors there lay beyond the model's 3 sigma (at most 4.5 sigma; 5.8 beyond the border) against
# 0.13 % at 100 px or more inside (`benchmarks/eval_blade_error.py`, docs/vision.md stop 37).
BLADE_EDGE_MARGIN_PX = 20.0
BLADE_EDGE_SIGMA_FACTOR = 2.0
# The model above scaled by the player's kit (``blade_sigma_factor_by_team``). A white or silver
# kit reads as plain ice (``vision.teams.is_ice_like_kit``): its player's contact comes from his
# torso and trousers, not from a silhouette's bottom edge, and lies far further off. On the six
# tuning render sets (seeds 1270-1569, stop 51's code, `/tmp/s52/tails.py`: 44,000 white-kit and
# 326,000 coloured-kit blade points) white-kit |x error| / σx had p99.73 4.57 and p99.9 4.88
# (6.7 % beyond 3σ on broadcast views), coloured kits' 2.34 and 2.66 (0.02-0.08 % beyond 3σ per
# camera kind, against a Gaussian's 0.27 %). Each factor brings its kit's p99.9 to about 3σ.
BLADE_SIGMA_FACTOR_COLOURED_KIT = 0.85
BLADE_SIGMA_FACTOR_ICE_LIKE_KIT = 1.6
GATE_CHI2 = 13.8  # χ² with 2 degrees of freedom at 99.9 %
# A puck candidate inside a player's torso band is on his body (``_inside_torsos``): the band's
# box is the model's, from his contact, and sits off his real torso by up to a quarter of its width
# (tuning render 1526: a 36 px box 12 px left of the torso): it is widened by TORSO_WIDEN of its
# width each side, and its top and bottom taken in by TORSO_INSET of its height, so that a puck on
# the ice below the band (at his stick, at his blades) never falls in it.
TORSO_WIDEN = 0.25
TORSO_INSET = 0.15
# A player track lost longer than its coast is kept this long for its id (``PlayerTracker._revive``),
# and the circle where it may come back grows this fast around its constant-velocity path.
REVIVE_MAX_S = 4.0
REVIVE_SPREAD_MPS = 1.0
# A kick (rebound) is looked for this many frames after the last measurement at most: a puck
# hidden by a post, a pad or a player for a few frames as it changes direction.
KICK_HIDDEN_MAX_FRAMES = 6
# A moving chain elsewhere takes the track only from a track that holds something: measured on one
# of this many frames before. A coasting track is lost, and a new one needs the strong candidates
# of re-acquisition: on the 50 tuning renders (true camera) the six takeovers from a track coasting
# 3-8 frames were all wrong (sticks and blades moving while the carried puck was hidden: 88 wrong
# frames, none right), the five from a track measured the frame before right or mostly right.
TAKEOVER_HELD_WITHIN_FRAMES = 2
# A coast whose prediction lies this much further off the ice (rink m) than its last measured
# position ended at the boards, even where its path never crossed their line: a puck measured a
# few cm past the boards (calibration, blur) and coasting on outwards never crosses it (render
# 872: a 22 m/s shot into the end boards measured 6 cm past them, its coast ran on 5.7 m beyond).
# A measurement off the ice by its error does not end a coast along the boards.
COAST_OFF_ICE_M = 0.1
# A track coasting at this speed or faster (a shot, a pass) is not re-acquired elsewhere during its
# coast (``max_coast_s``): such a puck's path is predictable for those frames, where a blurred
# puck goes unseen. Re-acquisitions during a coast on the 80 tuning renders (true camera,
# docs/vision.md stop 48): the 6 from tracks at 2.2-4.6 m/s were right, the 3 from tracks at
# 16-23 m/s wrong (render 912: a shot's track jumped 14-46 m to marks elsewhere, five false zone
# entries).
REACQUIRE_FAST_COAST_MPS = 10.0
# ... only where that speed was measured: at least this many measurements since the filter's
# velocity was last set from one jump (a start, a kick). A kick across a track's hidden frames
# from a false position to the puck gives a shot's speed to a slow puck (the held-out suite's
# `s06`: 12 m/s from a 6-frame jump, the puck at 1.3 m/s: two coasted frames instead of the puck).
FAST_COAST_MIN_MEASURED = 3
# Two candidates this close (rink m) are one object found by two detectors (a pixel or two apart).
SAME_CANDIDATE_M = 0.05
# A coasting track is taken up again by a candidate that may not start a track (a still one the
# verifier doubts) only this near its prediction, m. On 80 fresh renders (seeds 850-929, true
# camera, `/tmp/s44/resumes.py`, with a puck-tint change tried at stop 44 and dropped) 42 of the 51
# such resumes within 0.3 m were the puck (a carried puck the verifier is unsure of), 1 of the 13
# beyond: sticks and blades in the grown gate, one of which ended a coast 0.9 m into the goal and
# made a goal of a puck stopped on the line (render 898, docs/vision.md stop 44).
COAST_RESUME_DOUBTED_M = 0.3
# A still candidate (not moved, not a carried puck the carry model saw) starts a track only where
# the learned verifier gives it at least this probability (it vetoes under ``FrameTracker.
# verifier_veto_p``, 0.2, everywhere). Without motion, a stick blade lying on the ice passes the
# classical tests; the verifier is unsure of those (0.21-0.30 at the starts of the three still
# tracks that were all wrong on the 50 tuning renders, true camera: 48 wrong frames, none right)
# and sure of the pucks (0.33 on the first frame of one right start, 0.53-0.98 on all others).
START_STILL_MIN_VERIFIER_P = 0.35
# A puck lying still (a start whose chain moves under RESTING_MPS) needs more: the verifier at
# least START_RESTING_MIN_VERIFIER_P. Seen from above, a sledge goalkeeper's stick tips lie still
# in front of his crease from a clip's first frames, the verifier unsure (0.36 and 0.44 on
# fresh renders 872 and 886: tracks held on them for whole clips). Of the 7 tracks started lying
# still on those 80 renders (true camera, `/tmp/s45/starts.py`, docs/vision.md stop 45) these
# two alone had less than 0.5; the three on the puck had 0.98 (two more, wrong, 0.75 and 0.90).
RESTING_MPS = 0.5
START_RESTING_MIN_VERIFIER_P = 0.5
# Every player's stick blade lies at his stick's reach from his seat (1.1 m seated) and moves with
# him: a puck-sized dark spot that passes the classical tests and, seen from above, the verifier
# too. A chain of candidates the motion detector did not see (nor the carry model) that lies this
# near a tracked seat (reach and 0.2 m) and moves with that player (within STICK_CO_MOVING_MPS of
# his seat's velocity over STICK_VELOCITY_FRAMES) starts a track only where the verifier is all
# but sure: a carried puck there is the carry model's to find; a puck sliding past him moves on
# its own. On 84 fresh renders (seeds 1270-1311, 1370-1411, true camera,
# `benchmarks/eval_puck_starts.py`) the 8 still starts this near a seat held 135 right frames and
# 290 wrong: the 6 wrong ones (sticks, all from above) had verifier 0.40-0.85, the 2 right 0.91
# and 0.99. Without the co-moving test the rule also stopped a puck sliding at 3 m/s past a
# goalkeeper towards the goal line (drawn-kit render 1457: the goal mouth's frames lost). The
# tolerance is wide because both velocities are short-based (a chain's spans two frame intervals:
# a pixel at the overhead views' 18 px/m is 0.8 m/s); at 1 m/s, from one frame's seats, half the
# stick starts above still passed.
STILL_START_SEAT_M = 1.3
STILL_AT_STICK_MIN_VERIFIER_P = 0.9
STICK_CO_MOVING_MPS = 2.0
STICK_VELOCITY_FRAMES = 6
# A flight is tested on 10–14 measurements of one trajectory: with ~1 cm noise fewer cannot
# tell a lifted puck from a sliding one (docs/vision.md, tests/vision/test_puck_flight.py).
FLIGHT_MIN_MEASUREMENTS = 10
FLIGHT_MAX_MEASUREMENTS = 14
# A fitted flight lower than this above the ice is reported as its ice projection (is_airborne's
# own floor: lower "flights" are noise, a bouncing or a landing puck).
FLIGHT_MIN_HEIGHT_M = 0.08
# A fit revises the frames before it was recognised only when it explains the rays to within
# this share of their stated noise (``is_airborne`` allows 2.5 σ + 1 cm for the frame at hand):
# reaching back, a loose fit (a goal camera's shot along its view, a puck jumping between
# objects) would move many frames metres off instead of one.
FLIGHT_REVISE_MAX_RMS_SIGMA = 0.5
# A fit that explains the rays less well than their stated noise still says the puck is in the
# air (``is_airborne``), but not where: the frame is reported unknown rather than at the fit.
FLIGHT_REPORT_MAX_RMS_SIGMA = 1.0
# A puck lost within a player's reach may have been stopped, received or redirected by him: a
# constant-velocity coast is reported for at most this many frames there (then unknown, the
# filter still predicting for re-acquisition). On the tuning clips (seeds 121-134) coasts past
# 3 frames within reach put the puck within 0.5 m of the truth 31 % of the time (77 % in free ice).
NEAR_PLAYER_COAST_FRAMES = 3
# A track whose last STILL_TRACK_FRAMES measurements lie within STILL_TRACK_M of each other holds a
# still spot: a puck at rest, or a dark mark (a goalkeeper's pad, a still player's blade) taken for
# one. A carried puck moving with its carrier elsewhere then challenges it (the carry model looks
# beside every player, not only within a pass of the still spot): a chain of carried spots more
# than CHALLENGE_AWAY_M away, on CHALLENGE_FRAMES consecutive frames (each within
# CHALLENGE_STEP_M of the last: a sledge's top speed), that has moved at CHALLENGE_MIN_MPS or more
# from its first spot to its last takes the track. The speed is the chain's whole span, not a
# frame's step: a still player's blade jitters by centimetres a frame, a metre a second at 30
# frames/s (tuning render goal_goalcam_1735: a blade at a defender moving 0.4 m/s took a puck
# lying in the net from a three-frame chain).
STILL_TRACK_FRAMES = 15
STILL_TRACK_M = 0.3
CHALLENGE_FRAMES = 6
CHALLENGE_STEP_M = 0.4
CHALLENGE_MIN_MPS = 1.5
CHALLENGE_AWAY_M = 1.0
#: A spot new in a goal net (``vision.net_rest``) within this of the track is the track's own, m;
#: one farther takes over a track re-acquired since the puck went there that moves no faster
#: than a sledge can (a puck faster than any player is no player's dark part), m/s.
NET_REST_SAME_M = 0.3
NET_REST_TAKEOVER_MAX_MPS = 7.0
#: Players are detected this many times a second of video (``FrameTracker``'s keyframes), 1/s.
PLAYER_DETECT_HZ = 15.0

#: The carry model (``FrameTracker._carried_candidates``): where it ships, the least probability
#: that makes a dark spot beside a player a candidate, the score such a candidate gets (above
#: ``PuckTracker.acquire_score``, below ``confident_score``: three consistent frames start a
#: track), the most spots judged per frame (darkest first) and proposed per player window.
CARRY_MODEL_PATH = Path(__file__).resolve().parent.parent / "models" / "carry_verifier.onnx"
#: The carry model beside standing players (the sponge profile): trained on their clips and the
#: sledges' (``models/carry_verifier.md``); the sledges keep theirs, which lost fewer carries.
CARRY_STANDING_MODEL_PATH = CARRY_MODEL_PATH.with_name("carry_verifier_standing.onnx")
#: Beside sledges the carry model is a pair (``vision.puck_verifier.MaxOfVerifiers``): the model
#: above and one also trained on pucks a quarter visible, the larger of their probabilities counting.
#: End to end on three tuning and three held-out render sets it measured more of the puck than the
#: first model alone, at a precision as high or higher, as many decisive calls and none wrong; the
#: partial one alone lost carries the first had been sure of (models/carry_verifier.md,
#: docs/vision.md, stop 55).
CARRY_PARTIAL_MODEL_PATH = CARRY_MODEL_PATH.with_name("carry_verifier_partial.onnx")
CARRY_ACCEPT_P = 0.8
CARRY_SCORE = 0.5
CARRY_MAX_PATCHES = 24
CARRY_PEAKS_PER_WINDOW = 12
#: The blade-keypoint model (``FrameTracker._refine_blades``): where it ships, the least player
#: score whose blades replace the geometric ones, and the farthest they may move them (m).
BLADE_MODEL_PATH = CARRY_MODEL_PATH.with_name("blade_keypoints.onnx")
BLADE_MODEL_MIN_SCORE = 0.5
BLADE_MODEL_MAX_SHIFT_M = 1.25
#: How often a second the blade model runs (every other player keyframe at 30 frames/s). On the
#: held-out suite every keyframe (15 a second) gave blades of 8.25 cm median and cost analyze
#: 13 ms of CPU a frame (66 → 79 ms); 7.5 a second 8.62 cm for ~2 ms (76 → 78 ms); 5 a second
#: 8.93 cm (docs/benchmarks.md and docs/vision.md, stop 53).
BLADE_MODEL_HZ = 7.5
#: Standing players (the sponge profile): a window's spots are chosen from this many times
#: ``CARRY_PEAKS_PER_WINDOW`` of its darkest (``FrameTracker._standing_spots``).
STANDING_PEAKS_FACTOR = 4
#: The most spots judged per frame beside standing players (their windows give up to twice as many).
CARRY_MAX_PATCHES_STANDING = 2 * CARRY_MAX_PATCHES
#: A standing body as the carry search sees it: an upright cylinder over the feet's centre, from
#: above the shoes to the helmet (``PlayerBody.height_m``); its radius is the feet's half gap
#: (0.15 m) and half a leg, m.
STANDING_BODY_RADIUS_M = 0.2
STANDING_BODY_LOW_M = 0.1
#: The fastest a puck travels between two sightings when the second is at a carrier's stick
#: (a hard pass; a shot is not received on a stick), m/s.
CARRY_MAX_PUCK_SPEED_MPS = 30.0
#: The carry model was trained on 1280×720 renders only; on 640×360 frames (a broadcast puck ~1.3 px
#: across, its patch padded to the 12 px floor) it accepted bare blades for 90 % of its spots
#: (tests/vision/test_sim_clip.py), so smaller frames are not shown to it, px.
CARRY_MIN_FRAME_HEIGHT_PX = 600
#: While there is no puck track the carry model looks at every this many frames (every frame for
#: two frames after it accepts a spot): the search costs ~4 ms a frame.
CARRY_IDLE_EVERY = 3
#: How far behind a tracked sledge (away from the camera) a hidden carrier is looked for, m.
CARRY_HIDDEN_BEHIND_M = 2.5
#: While a strong compact candidate lies in the tracked puck's gate, the moving-puck search looks
#: only in the gate's region, and over the whole ice on every this many frames (a pass the track
#: missed, a track held by a blade) and on every frame after one that saw a strong moving
#: candidate outside the gate (until such a frame sees none): the whole-ice search costs ~9 ms.
MOTION_FULL_EVERY = 3


# ---------------------------------------------------------------------- filter
class KalmanCV:
    """Constant-velocity Kalman filter in the plane: state (x, y, vx, vy), metres and m/s.

    Args:
        xy: (2,) initial position, m.
        pos_sigma_m: initial position standard deviation.
        vel_sigma_mps: initial velocity standard deviation.
        accel_sigma_mps2: process noise (white acceleration) standard deviation.
    """

    def __init__(self, xy: np.ndarray, pos_sigma_m: float, vel_sigma_mps: float, accel_sigma_mps2: float,
                 v0: np.ndarray | None = None) -> None:
        self.x = np.array([xy[0], xy[1], 0.0, 0.0], dtype=np.float64)
        if v0 is not None:
            self.x[2:] = v0
        self.P = np.diag([pos_sigma_m**2, pos_sigma_m**2, vel_sigma_mps**2, vel_sigma_mps**2])
        self.q = accel_sigma_mps2**2

    def predict(self, dt: float) -> None:
        F = np.eye(4)
        F[0, 2] = F[1, 3] = dt
        G = np.array([[dt * dt / 2, 0], [0, dt * dt / 2], [dt, 0], [0, dt]])
        self.x = F @ self.x
        self.P = F @ self.P @ F.T + G @ G.T * self.q

    def innovation(self, z: np.ndarray, r_sigma_m: float) -> tuple[np.ndarray, np.ndarray]:
        """(innovation (2,), its covariance (2, 2)) for a position measurement."""
        S = self.P[:2, :2] + np.eye(2) * r_sigma_m**2
        return np.asarray(z, dtype=np.float64) - self.x[:2], S

    def mahalanobis2(self, z: np.ndarray, r_sigma_m: float) -> float:
        y, S = self.innovation(z, r_sigma_m)
        return float(y @ np.linalg.solve(S, y))

    def update(self, z: np.ndarray, r_sigma_m: float) -> None:
        y, S = self.innovation(z, r_sigma_m)
        K = self.P[:, :2] @ np.linalg.inv(S)
        self.x = self.x + K @ y
        self.P = (np.eye(4) - K[:, :2] @ np.eye(2, 4)) @ self.P

    @property
    def xy(self) -> np.ndarray:
        return self.x[:2].copy()

    @property
    def v(self) -> np.ndarray:
        return self.x[2:].copy()


# ---------------------------------------------------------------------- players
@dataclass
class PlayerTrack:
    """One player's track (rink metres)."""

    id: int
    kf: KalmanCV
    hits: int = 1
    age: int = 1
    misses: int = 0
    confirmed: bool = False
    votes: TeamVote = field(default_factory=TeamVote)
    heading: np.ndarray | None = None  # (2,) unit ground direction of travel
    near_goal: dict = field(default_factory=lambda: {+1: 0, -1: 0})
    last_contact: np.ndarray | None = None
    role: str = "skater"
    goal_end: int | None = None  # the goal a goalkeeper stands in front of
    role_frames: int = 0
    gk_looks: int = 0  # learned-detector checks that found a goalkeeper on this track
    gk_misses: int = 0  # ... and that found none while the track was in front of a goal
    birth_xy: np.ndarray | None = None
    max_disp_m: float = 0.0  # farthest distance from the birth position, m
    birth_boards_m: float = float("inf")  # distance from the birth position to the boards, m
    cut_top_hits: int = 0  # detections that ran out of the picture's top edge (a body, not paint)
    # A team verdict from a jersey's colour came (not only ``TeamAssignment.by_absence`` ones: a
    # white kit read where no jersey shows, which paint on white ice also gets).
    colour_seen: bool = False
    model_looks: int = 0  # learned-detector checks that found a sledge on this track (of no team, or still)
    model_checks: int = 0  # ... of all checks of it (where the model sees the moving players)
    # (frame, (2, 2) blades rink m) of the frames it was tentative on: its record there once it is
    # first reported (``FrameObservation.player_backfill``).
    tentative: list = field(default_factory=list)


def _player_filter(xy_rink_m: np.ndarray) -> KalmanCV:
    """A new player track's filter at (2,) ``xy_rink_m``: 0.2 m, 2 m/s, 4 m/s² (a sledge's push)."""
    return KalmanCV(np.asarray(xy_rink_m, dtype=np.float64), 0.2, 2.0, 4.0)


class PlayerTracker:
    """Compact multi-player tracker in rink metres (see module doc).

    Args:
        fps: frame rate, for the motion model.
        gate_m: largest distance between a prediction and a detection to associate.
        team_penalty_m: added to the cost when the detection's colour says the other team.
        high_conf: detections at or above this confidence are matched first.
        confirm_hits: hits that confirm a tentative track.
        max_coast_s: a track unmatched for longer is deleted (a confirmed one is kept in ``lost``
            for ``REVIVE_MAX_S`` more, for its id).
        output_coast_s: a confirmed track unmatched for at most this long is still reported.
        min_move_m: a track without a jersey colour is reported once it has moved this far (or
            once ``confirm_hits`` of its detections ran out of the picture's top edge).
        update_every: ``update`` is called every this many frames (``predict`` every frame).
        boards_xy_m: (K, 2) the inner face of the boards (``RinkModel.boards_outline_xy``), m, or
            None: a track born within ``AT_BOARDS_M`` of them is reported only once it has moved
            ``STILL_AT_BOARDS_M``.
    """

    def __init__(self, fps: float, gate_m: float = 1.2, team_penalty_m: float = 0.8, high_conf: float = 0.45,
                 confirm_hits: int = 3, max_coast_s: float = 1.5, output_coast_s: float = 0.3,
                 min_move_m: float = 1.0, update_every: int = 1, boards_xy_m: np.ndarray | None = None) -> None:
        self.dt = 1.0 / float(fps)
        # Detections come every ``update_every`` frames (``predict`` runs every frame): the
        # coasting limits count updates, so they keep their length in seconds.
        self.update_every = max(1, int(update_every))
        self.gate_m = gate_m
        self.team_penalty_m = team_penalty_m
        self.high_conf = high_conf
        self.confirm_hits = confirm_hits
        updates_per_s = float(fps) / self.update_every
        self.max_coast = max(1, int(round(max_coast_s * updates_per_s)))
        self.output_coast = max(0, int(round(output_coast_s * updates_per_s)))
        self.min_move_m = min_move_m
        self._boards = None if boards_xy_m is None else shapely.LinearRing(np.asarray(boards_xy_m, dtype=np.float64))
        self.tracks: list[PlayerTrack] = []
        # Confirmed tracks lost for longer than ``max_coast_s`` (hidden behind another player),
        # still predicted but not reported, for ``REVIVE_MAX_S``: see ``_revive``.
        self.lost: list[PlayerTrack] = []
        self.revive_max = self.max_coast + max(1, int(round(REVIVE_MAX_S * updates_per_s)))
        self._next_id = 1

    def predict(self, n_frames: int = 1) -> None:
        for tr in self.tracks + self.lost:
            tr.kf.predict(self.dt * n_frames)

    def update(self, xy_rink_m: np.ndarray, confidence: np.ndarray, teams: list[str | None],
               team_conf: list[float], cut_top: np.ndarray | None = None,
               by_absence: list[bool] | None = None) -> list[int]:
        """Associate this frame's detections (after ``predict``).

        Args:
            xy_rink_m: (N, 2) detection contact points, m.
            confidence: (N,) detection confidences.
            teams: per detection, the colour verdict ("home" | "away" | None).
            team_conf: per detection, the colour verdict's confidence.
            cut_top: (N,) bool, the detection runs out of the picture's top edge (None: none).
            by_absence: per detection, the verdict rests on no jersey showing
                (``TeamAssignment.by_absence``; None: none does).

        Returns:
            (N,) track id per detection (-1 for detections that started no track).
        """
        absent = [False] * len(teams) if by_absence is None else [bool(a) for a in by_absence]
        xy = np.asarray(xy_rink_m, dtype=np.float64).reshape(-1, 2)
        conf = np.asarray(confidence, dtype=np.float64).reshape(-1)
        cut = np.zeros(len(xy), bool) if cut_top is None else np.asarray(cut_top, bool).reshape(-1)
        assigned = np.full(len(xy), -1, dtype=np.int64)
        free_tracks = list(range(len(self.tracks)))
        order = [np.nonzero(conf >= self.high_conf)[0], np.nonzero(conf < self.high_conf)[0]]
        for stage, det_idx in enumerate(order):
            if len(det_idx) == 0 or not free_tracks:
                continue
            cost = np.full((len(free_tracks), len(det_idx)), 1e6)
            for a, ti in enumerate(free_tracks):
                tr = self.tracks[ti]
                d = np.linalg.norm(xy[det_idx] - tr.kf.xy, axis=1)
                # Grows while coasting: 2 m/s × one frame interval per frame coasted (at most 10).
                gate = self.gate_m + 0.5 * min(tr.misses * self.update_every, 10) * self.dt * 4.0
                tt = tr.votes.team
                pen = np.array([self.team_penalty_m if (tt and teams[j] and teams[j] != tt) else 0.0
                                for j in det_idx])
                c = d + pen
                c[d > gate] = 1e6
                cost[a] = c
            rows, cols = linear_sum_assignment(cost)
            used = set()
            for r, c in zip(rows, cols):
                if cost[r, c] >= 1e6:
                    continue
                ti, j = free_tracks[r], det_idx[c]
                self._hit(self.tracks[ti], xy[j], teams[j], team_conf[j], absent[j])
                self.tracks[ti].cut_top_hits += int(cut[j])
                assigned[j] = self.tracks[ti].id
                used.add(ti)
            free_tracks = [ti for ti in free_tracks if ti not in used]
        for ti in free_tracks:
            tr = self.tracks[ti]
            tr.misses += 1
            tr.age += 1
            if not tr.confirmed and tr.age >= 2 * self.confirm_hits:
                tr.misses = self.max_coast + 1  # tentative track that did not take
        # New tracks from confident unmatched detections not too close to an existing track.
        for j in np.nonzero((assigned < 0) & (conf >= self.high_conf))[0]:
            if any(np.linalg.norm(tr.kf.xy - xy[j]) < 0.5 for tr in self.tracks if tr.misses == 0):
                continue
            tr = self._revive(xy[j], teams[j])
            if tr is not None:
                self._hit(tr, xy[j], teams[j], team_conf[j], absent[j])
                self.tracks.append(tr)
                assigned[j] = tr.id
                continue
            tr = PlayerTrack(self._next_id, _player_filter(xy[j]), cut_top_hits=int(cut[j]))
            self._vote(tr, teams[j], team_conf[j], absent[j])
            tr.last_contact = xy[j].copy()
            tr.birth_xy = xy[j].copy()
            if self._boards is not None:
                tr.birth_boards_m = float(self._boards.distance(shapely.Point(xy[j])))
            self._next_id += 1
            self.tracks.append(tr)
            assigned[j] = tr.id
        for tr in self.lost:
            tr.misses += 1
        self.lost = [tr for tr in self.lost if tr.misses <= self.revive_max] + \
            [tr for tr in self.tracks if tr.misses > self.max_coast and tr.confirmed]
        self.tracks = [tr for tr in self.tracks if tr.misses <= self.max_coast]
        return assigned.tolist()

    def _revive(self, xy_rink_m: np.ndarray, team: str | None) -> PlayerTrack | None:
        """The lost track a new detection continues, taken out of ``lost``, or None.

        A sledge hidden behind another for a few seconds glides on: the one lost track of the
        detection's team (both colours known) whose constant-velocity prediction lies within
        ``gate_m`` plus ``REVIVE_SPREAD_MPS`` per second lost of it. Two such tracks: None (a
        wrong id is no better than a new one).

        Args:
            xy_rink_m: (2,) the detection's contact point, m.
            team: its colour verdict ("home" | "away" | None).

        Returns:
            The track, its filter restarted at the detection, or None.
        """
        if team is None:
            return None
        near = []
        for tr in self.lost:
            lost_s = (tr.misses - self.max_coast) * self.update_every * self.dt
            if tr.votes.team == team and \
                    np.linalg.norm(tr.kf.xy - xy_rink_m) <= self.gate_m + REVIVE_SPREAD_MPS * lost_s:
                near.append(tr)
        if len(near) != 1:
            return None
        tr = near[0]
        self.lost.remove(tr)
        tr.kf = _player_filter(xy_rink_m)
        return tr

    def _hit(self, tr: PlayerTrack, xy: np.ndarray, team: str | None, team_conf: float,
             by_absence: bool = False) -> None:
        tr.kf.update(xy, 0.12)
        tr.hits += 1
        tr.age += 1
        tr.misses = 0
        tr.last_contact = xy.copy()
        if tr.birth_xy is not None:  # filtered position: a flickering blob does not "move"
            tr.max_disp_m = max(tr.max_disp_m, float(np.linalg.norm(tr.kf.xy - tr.birth_xy)))
        if tr.hits >= self.confirm_hits:
            tr.confirmed = True
        v = tr.kf.v
        sp = float(np.linalg.norm(v))
        if sp > 0.6:
            tr.heading = v / sp
        self._vote(tr, team, team_conf, by_absence)

    @staticmethod
    def _vote(tr: PlayerTrack, team: str | None, conf: float, by_absence: bool = False) -> None:
        from vision.teams import TeamAssignment

        tr.votes.add(TeamAssignment(team, conf, None))
        tr.colour_seen = tr.colour_seen or (team is not None and not by_absence)

    def reported(self) -> list[PlayerTrack]:
        """Confirmed tracks matched within the last ``output_coast`` frames.

        A track that has neither a jersey colour nor ever moved (``min_move_m``) is not
        reported: it is paint on the ice (a logo, an advert) or a fixed object, not a player —
        a team read only where no jersey shows (a white kit, ``PlayerTrack.colour_seen``) is no
        jersey colour here, unless the learned detector saw a sledge or a goalkeeper there: paint
        on white ice reads so too (drawn-kit render 1489: three still centre-ice marks reported as
        white attackers made a crease "clear" whose attacker sat in it) —
        unless it stood up out of the picture's top edge (``confirm_hits`` times): a player whose
        jersey is above the picture, of unknown team. Nor is a track of no team that the learned
        detector has checked and never seen as a sledge (``FrameTracker._check_shapes``: a
        shadow, a stick). Nor is a track born at the boards (``AT_BOARDS_M``) that has not moved
        ``STILL_AT_BOARDS_M``, whatever its colour: an advert or a door on the boards, seen from
        above as a dark blob at the ice's edge.
        """
        return [tr for tr in self.tracks if tr.confirmed and tr.misses <= self.output_coast
                and ((tr.votes.team is not None and (tr.colour_seen or tr.model_looks > 0 or tr.gk_looks > 0))
                     or ((tr.max_disp_m >= self.min_move_m or tr.cut_top_hits >= self.confirm_hits)
                         and (tr.model_checks == 0 or tr.model_looks > 0)))
                and (tr.birth_boards_m >= AT_BOARDS_M or tr.max_disp_m >= STILL_AT_BOARDS_M)]


def legs_reach_towards_camera_m(away_dir: np.ndarray, heading: np.ndarray | None) -> float:
    """How much nearer the camera than the seat's near edge a sledge's legs end, within the
    body's image columns (where ``vision.players`` takes the contact), m.

    The legs lie along the frame to the front (IPC 300 g, 303: frame ≥ 0.8 m, feet on the
    foot guard at its front; the blades under the seat at its rear, 305–306). A sledge
    heading at angle θ from the camera keeps them within the body's columns (half width
    ``TORSO_HALF_WIDTH_M``) for ``min(LEGS_LENGTH_M, TORSO_HALF_WIDTH_M / sin θ)`` of their
    length, which reaches that times cos θ towards the camera, less the seat's own half width.

    Args:
        away_dir: (2,) unit ground direction from the camera through the player.
        heading: (2,) unit direction the sledge points (of travel), or None.

    Returns:
        metres ≥ 0 (0 for a sledge side-on, pointing away, or of unknown heading).
    """
    if heading is None:
        return 0.0
    cos = -float(np.dot(np.asarray(heading, dtype=np.float64), np.asarray(away_dir, dtype=np.float64)))
    if cos <= 0.0:
        return 0.0
    sin = float(np.sqrt(max(1.0 - cos * cos, 0.0)))
    along = LEGS_LENGTH_M if sin < 1e-9 else min(LEGS_LENGTH_M, TORSO_HALF_WIDTH_M / sin)
    return max(0.0, along * cos - SEAT_HALF_WIDTH_M)


def blades_from_contact(contact_xy_rink_m: np.ndarray, away_dir: np.ndarray,
                        heading: np.ndarray | None, legs_seen: bool = False,
                        under_body: bool = False, body: PlayerBody = SEATED) -> np.ndarray:
    """Blade points from a sledge's ground contact under the body (see module doc).

    Args:
        contact_xy_rink_m: (2,) ground point below the player's body on the seat's near
            edge (``vision.players``), m.
        away_dir: (2,) unit ground direction from the camera through that point.
        heading: (2,) unit direction of travel, or None.
        legs_seen: the legs are wide enough in the detector's mask to survive its opening;
            then a sledge heading towards the camera has its contact at the feet, not the
            seat (``legs_reach_towards_camera_m``).
        under_body: the contact is the ground point under the body (a camera looking down
            steeply, ``vision.players.steep_view``): the blades are
            ``BLADES_BEHIND_BODY_CENTRE_M`` behind it along a sledge's heading (where it is
            known), under a standing player's body. Otherwise (from the side) a sledge's blades
            are ``TORSO_AHEAD_OF_SEAT_M`` behind the contact times the part of its heading
            across the view (the forward lean of the body whose columns give the contact).
        body: the player's body (``vision.players.PlayerBody``): where the blades (feet) sit
            from the contact and how far apart; a standing player has no legs along the ice.

    Returns:
        (2, 2) blade contact points (left, right of the heading; of the view when the
        heading is unknown), m.
    """
    d = np.asarray(away_dir, dtype=np.float64)
    seat = np.asarray(contact_xy_rink_m, dtype=np.float64)
    if under_body:
        if heading is not None and body.legs_forward:
            seat = seat - np.asarray(heading, dtype=np.float64) * BLADES_BEHIND_BODY_CENTRE_M
    else:
        legs = legs_seen and body.legs_forward
        seat = seat + d * (body.centre_beyond_contact_m + (legs_reach_towards_camera_m(d, heading) if legs else 0.0))
        if heading is not None and body.legs_forward:
            h = np.asarray(heading, dtype=np.float64)
            seat = seat - TORSO_AHEAD_OF_SEAT_M * (h - float(h @ d) * d)  # the lean seen across the view
    if heading is None:
        left = np.array([-d[1], d[0]])
    else:
        h = np.asarray(heading, dtype=np.float64)
        left = np.array([-h[1], h[0]])
    gap = body.contact_half_gap_m
    return np.stack([seat + gap * left, seat - gap * left])


def goalkeeper_heading(goal_end: int | None) -> np.ndarray | None:
    """(2,) unit rink direction a goalkeeper's sledge points: up the ice from the goal at
    ``goal_end`` (+1: the goal at +x, -1: at -x), facing the play; None where his goal is not
    known. Seen from above his blades then lie behind his body's mass as a skater's do
    (``blades_from_contact``): without it, goalkeepers' blade midpoints lay 42 cm up the ice
    from the truth's (median, overhead views of 40 tuning renders end to end) and 25 cm (goal
    cameras); with it 19 and 2 cm (docs/vision.md, stop 49)."""
    if goal_end is None:
        return None
    return np.array([-float(np.sign(goal_end)), 0.0])


def legs_resolvable(cam: PlaneCamera, xy_rink_m: np.ndarray, work_scale: float = IceConfig.scale) -> np.ndarray:
    """(N,) whether a sledge's legs (``LEGS_WIDTH_M`` wide) at these ground points survive the
    player detector's opening (``OPENING_PX``) in its work mask at ``work_scale`` of the frame."""
    xy = np.asarray(xy_rink_m, dtype=np.float64).reshape(-1, 2)
    return LEGS_WIDTH_M * cam.ground_scale_px_per_m(xy) * work_scale >= OPENING_PX


def blade_sigma_factor_by_team(game: Any) -> dict[str | None, float]:
    """{team: factor} scaling ``blade_covariance_rink``'s sigmas for that team's players by his
    kit (``BLADE_SIGMA_FACTOR_*``); key None (a player of unknown team): the larger factor.

    Args:
        game: ``GameDescriptor`` (or a GAME.json dict).
    """
    from vision.teams import bgr_to_lab, is_ice_like_kit

    out: dict[str | None, float] = {
        t: BLADE_SIGMA_FACTOR_ICE_LIKE_KIT if is_ice_like_kit(bgr_to_lab(c)) else BLADE_SIGMA_FACTOR_COLOURED_KIT
        for t, c in _team_colors(game).items()}
    out[None] = max(out.values())
    return out


def blade_sigma_factors(factor_by_team: dict[str | None, float] | None, teams) -> np.ndarray:
    """(N,) kit factor of each of N players from his team (``blade_sigma_factor_by_team``; a team
    not in it, e.g. "" or None for an unknown one, takes the None entry); 1 each without factors."""
    teams = list(teams)
    if factor_by_team is None:
        return np.ones(len(teams))
    return np.array([factor_by_team.get(t, factor_by_team[None]) for t in teams], dtype=np.float64)


def blade_covariance_rink(cam: PlaneCamera, xy_rink_m: np.ndarray,
                          work_scale: float = IceConfig.scale, sigma_factor: float | np.ndarray = 1.0) -> np.ndarray:
    """Error covariance of blade points that this module reports, for the rules.

    ``Σ = J diag(σ_u², σ_v²) Jᵀ + σ_along² · a aᵀ
    + BLADE_ACROSS_SIGMA_M² · c cᵀ`` with J = d(rink m)/d(image px) of the ice plane at the
    point, a the unit ground direction away from the camera, c ⟂ a, (σ_u, σ_v) =
    (BLADE_PX_SIGMA_U, BLADE_PX_SIGMA_V) px for a silhouette's edge and STEEP_PX_SIGMA on both
    axes where the camera looks down steeply (the contact under the body's centroid), and
    σ_along = BLADE_ALONG_SIGMA_M, with BLADE_LEGS_SIGMA_M added in quadrature where the legs are
    resolvable. A side camera thus knows a blade's x (across its view) better than its y; a
    goal camera the reverse. Within ``BLADE_EDGE_MARGIN_PX`` of the picture's border (or beyond
    it) Σ is multiplied by ``BLADE_EDGE_SIGMA_FACTOR``²: the silhouette may be cut there.

    Args:
        cam: the frame's camera (``PlaneCamera.from_homography``).
        xy_rink_m: (N, 2) blade points, m.
        work_scale: the player detector's work resolution relative to the frame.
        sigma_factor: scalar or (N,) factor on the sigmas: the player's kit
            (``blade_sigma_factor_by_team``); 1 is the model as fitted on all kits.

    Returns:
        (N, 2, 2) covariance, m²; NaN rows where the plane's Jacobian is singular there.
    """
    xy = np.asarray(xy_rink_m, dtype=np.float64).reshape(-1, 2)
    J_image_from_rink = cam.jacobian_image_from_rink(xy)
    out = np.full((len(xy), 2, 2), np.nan)
    ok = np.abs(np.linalg.det(J_image_from_rink)) > 1e-12
    if not ok.any():
        return out
    J = np.linalg.inv(J_image_from_rink[ok])  # rink m per image px
    a = cam.away_direction_rink(xy[ok])
    c = np.stack([-a[:, 1], a[:, 0]], axis=1)
    steep = steep_view(cam, xy[ok])
    px = np.where(steep[:, None, None], np.diag([STEEP_PX_SIGMA ** 2, STEEP_PX_SIGMA ** 2])[None],
                  np.diag([BLADE_PX_SIGMA_U ** 2, BLADE_PX_SIGMA_V ** 2])[None])
    legs = legs_resolvable(cam, xy[ok], work_scale)
    along2 = BLADE_ALONG_SIGMA_M ** 2 + np.where(legs, BLADE_LEGS_SIGMA_M ** 2, 0.0)
    out[ok] = (J @ px @ np.swapaxes(J, 1, 2)
               + along2[:, None, None] * a[:, :, None] * a[:, None, :]
               + BLADE_ACROSS_SIGMA_M ** 2 * c[:, :, None] * c[:, None, :])
    out[ok] *= np.where(_at_picture_edge(cam, xy[ok]), BLADE_EDGE_SIGMA_FACTOR ** 2, 1.0)[:, None, None]
    factor = np.broadcast_to(np.asarray(sigma_factor, dtype=np.float64), (len(xy),))
    out[ok] *= (factor[ok] ** 2)[:, None, None]
    return out


def _at_picture_edge(cam: PlaneCamera, xy_rink_m: np.ndarray) -> np.ndarray:
    """(N,) bool: the (N, 2) rink points project within ``BLADE_EDGE_MARGIN_PX`` of the picture's
    border, or outside it (or behind the camera)."""
    uv, w = apply_homography(cam.H_image_from_rink, xy_rink_m)
    d = np.minimum.reduce([uv[:, 0], uv[:, 1], cam.width - 1 - uv[:, 0], cam.height - 1 - uv[:, 1]])
    return (w <= 0) | ~(d >= BLADE_EDGE_MARGIN_PX)


def blade_covariances_from_homography(H_rink_from_image: np.ndarray, width: int, height: int,
                                      xy_rink_m: np.ndarray, sigma_factor: float | np.ndarray = 1.0) -> np.ndarray:
    """``blade_covariance_rink`` at blade points of a frame known by its homography.

    Args:
        H_rink_from_image: (3, 3) the frame's homography, image px → rink m.
        width, height: image size, px.
        xy_rink_m: (N, 2) blade points, m (NaN rows: no blades).
        sigma_factor: scalar or (N,) kit factor on the sigmas (``blade_covariance_rink``).

    Returns:
        (N, 2, 2) covariance, m²; NaN rows where the point is missing or the homography
        gives no camera.
    """
    xy = np.asarray(xy_rink_m, dtype=np.float64).reshape(-1, 2)
    out = np.full((len(xy), 2, 2), np.nan)
    ok = np.isfinite(xy).all(axis=1)
    if not ok.any():
        return out
    try:
        cam = PlaneCamera.from_homography(np.asarray(H_rink_from_image, dtype=np.float64), width, height)
    except (np.linalg.LinAlgError, ValueError):  # a degenerate homography: no camera
        return out
    factor = np.broadcast_to(np.asarray(sigma_factor, dtype=np.float64), (len(xy),))
    out[ok] = blade_covariance_rink(cam, xy[ok], sigma_factor=factor[ok])
    return out


def player_blade_covariances(H_rink_from_image: np.ndarray, width: int, height: int,
                             players: list[dict],
                             factor_by_team: dict[str | None, float] | None = None) -> list[np.ndarray | None]:
    """``blade_covariance_rink`` at each player's blade midpoint, for ``tracks.jsonl`` players.

    Args:
        H_rink_from_image: (3, 3) the frame's homography, image px → rink m.
        width, height: image size, px.
        players: the record's players (``blades`` (2, 2), m; ``team``).
        factor_by_team: ``blade_sigma_factor_by_team`` of the game; None: 1 for every player.

    Returns:
        one (2, 2) covariance (m²) per player, None where his blades are missing or the
        homography gives no camera.
    """
    mids = np.array([np.mean(np.asarray(p.get("blades") or [[np.nan, np.nan]], float).reshape(-1, 2), axis=0)
                     for p in players]).reshape(-1, 2)
    factor = blade_sigma_factors(factor_by_team, [p.get("team") for p in players])
    covs = blade_covariances_from_homography(H_rink_from_image, width, height, mids, factor)
    return [None if np.isnan(S).any() else S for S in covs]


# ---------------------------------------------------------------------- puck
class PuckTracker:
    """Puck track in rink metres (see module doc).

    Args:
        fps: frame rate.
        max_coast_s: coast at most this long without a measurement, then unknown.
        accel_sigma_mps2: process noise (passes and shots change velocity abruptly).
        touch_dv_mps: velocity change that counts as a touch.
        reach_m: a touching player's seat is at most this far from the puck (arm + stick).
        airborne_area_ratio: a blob this many times larger than a puck on the ice there is
            taken as airborne (too near the camera for its projected spot).
        acquire_score: candidates at least this strong may start or restart a track.
        kick_dv_mps: largest velocity change (pass, shot, deflection) accepted outside the χ²
            gate; the filter then restarts with the new velocity.
        confident_score: a candidate this strong (re)starts a track after two consistent
            frames instead of three.
        puck_z_m: height of the plane the candidates are measured on (the puck's centre), m.
        walls_rink_m: what the sliding puck's centre cannot pass through (``vision.ice.
            puck_walls_rink_m``: boards, goal frames), or None. A coast whose predicted path
            crosses it ends: the puck stopped or bounced there, and where it went is unknown.
        ice_rink_m: where the sliding puck's centre can be (``vision.ice.puck_ice_rink_m``),
            or None. A coast whose prediction leaves it by
            ``COAST_OFF_ICE_M`` more than its last measured position did ends as at the walls.
    """

    def __init__(self, fps: float, max_coast_s: float = 0.3, accel_sigma_mps2: float = 40.0,
                 touch_dv_mps: float = 3.0, reach_m: float = 1.8, airborne_area_ratio: float = 3.0,
                 acquire_score: float = 0.4, kick_dv_mps: float = 25.0, confident_score: float = 0.6,
                 puck_z_m: float = 0.0127, walls_rink_m: Any = None, ice_rink_m: Any = None) -> None:
        self.fps = float(fps)
        self.dt = 1.0 / self.fps
        self.max_coast = max(1, int(round(max_coast_s * fps)))
        self.accel = accel_sigma_mps2
        self.touch_dv = touch_dv_mps
        self.reach_m = reach_m
        self.airborne_area_ratio = airborne_area_ratio
        self.acquire_score = acquire_score
        self.kick_dv = kick_dv_mps
        self.confident_score = confident_score
        self.walls_rink_m = walls_rink_m
        self.ice_rink_m = ice_rink_m
        self._walls_prepared = False
        self._last_xy: np.ndarray | None = None  # the last record's position, m
        self._measured_xy: np.ndarray | None = None  # the last measured record's position, m
        self._coast_cut = False  # a coast ended next to a player: unknown until measured again
        self.kf: KalmanCV | None = None
        self.misses = 0
        self.hits = 0
        self._velocity_hits = 0  # measurements since the velocity was last set from one jump
        self._pending: list[tuple[int, np.ndarray, float]] = []  # (frame, strong candidates (K, 2), _) for re-acquisition
        self._last_meas: tuple[int, np.ndarray] | None = None
        self._last_touch: tuple[int, int] | None = None  # (frame, player id)
        # The players' seats on the last frame seen ({id: (frame, (2,) m)}) and, for this frame's
        # candidates, the velocity (N, 2) m/s of the player at whose stick each doubted still one
        # lies (nan elsewhere): ``STILL_START_SEAT_M``.
        self._seats_before: dict[Any, deque] = {}
        self._stick_v = np.zeros((0, 2))
        self._last_frame: int | None = None
        # Moved candidates (from the motion detector) of the last frames, and the last frame
        # whose measurement was one: a puck seen moving three frames in a row outranks a
        # track held only by static dark marks.
        self._pending_moved: list[tuple[int, np.ndarray]] = []
        self._carried_chains: list[list[tuple[int, np.ndarray]]] = []  # chains of carried spots away from a still track
        self._meas_hist: deque[tuple[int, np.ndarray]] = deque(maxlen=STILL_TRACK_FRAMES)
        # (first frame, position (2,) m) of the run of measurements the track has held within
        # STILL_TRACK_M of one spot; and this frame's retractions (``FrameObservation.puck_retractions``).
        self._still_anchor: tuple[int, np.ndarray] | None = None
        self.retractions: list[dict] = []
        self._last_moved_meas = -(10**9)
        self._track_start = -(10**9)  # the frame the current track was started on
        # Measurements of the current trajectory (t s, xy (2,) on the puck's plane, camera
        # centre (3,)) and the ballistic fit while they say the puck flies.
        self.puck_z_m = puck_z_m
        self._flight_hist: deque[tuple[float, np.ndarray, np.ndarray]] = deque(maxlen=FLIGHT_MAX_MEASUREMENTS)
        self.flight: FlightFit | None = None
        self._flight_sigma_m = 0.01  # the measurement noise the current flight was tested with, m
        # The track's recent measurements across trajectory restarts (a landing restarts it):
        # (frame, t s, xy (2,), camera centre (3,), sigma m), for ``_drop_step``.
        self._recent: deque[tuple[int, float, np.ndarray, np.ndarray, float]] = deque(maxlen=FLIGHT_MAX_MEASUREMENTS + 1)
        self._drop_revisions: list[dict] = []
        self._dropped_until = -1  # the last frame a recognised drop revised
        # Puck records of earlier frames that this frame's new track confirms (``_start``).
        self.backfill: list[dict] = []

    @property
    def active(self) -> bool:
        return self.kf is not None

    @property
    def track_start(self) -> int | None:
        """The frame the current track was started on (None: no track)."""
        return None if self.kf is None else self._track_start

    def predict(self, frame_index: int) -> None:
        if self.kf is None:
            self._last_frame = frame_index
            return
        n = 1 if self._last_frame is None else max(1, frame_index - self._last_frame)
        self.kf.predict(n * self.dt)
        self._last_frame = frame_index

    @property
    def still(self) -> bool:
        """Whether the track holds a still spot (``STILL_TRACK_FRAMES``, ``STILL_TRACK_M``)."""
        if self.kf is None or len(self._meas_hist) < STILL_TRACK_FRAMES or self._last_frame is None:
            return False
        if self._last_frame - self._meas_hist[0][0] > STILL_TRACK_FRAMES + 5:
            return False
        pts = np.array([p for _, p in self._meas_hist])
        return float(np.ptp(pts, axis=0).max()) <= STILL_TRACK_M

    def _challenger(self, frame_index: int, xy: np.ndarray, carried: np.ndarray) -> tuple | None:
        """(position (2,), velocity (2,) m/s, [(frame, position (2,))] of its earlier spots) of a
        chain of carried spots away from a still track (``STILL_TRACK_FRAMES``, ``CHALLENGE_*``),
        or None; extends the chains with this frame's spots, where ``carried`` (N,) of the
        candidates ``xy`` (N, 2) rink m."""
        if not self.still:
            self._carried_chains = []
            return None
        away = carried & (np.hypot(*(xy - self.kf.xy).T) > CHALLENGE_AWAY_M) if len(xy) else carried
        chains = []
        for p in xy[away].reshape(-1, 2):
            prev = [c for c in self._carried_chains
                    if c[-1][0] == frame_index - 1 and np.hypot(*(p - c[-1][1])) <= CHALLENGE_STEP_M]
            base = max(prev, key=len) if prev else []
            chains.append((base + [(frame_index, p.copy())])[-CHALLENGE_FRAMES:])
        self._carried_chains = chains
        for c in sorted(chains, key=len, reverse=True):
            span_s = (c[-1][0] - c[0][0]) * self.dt
            if len(c) == CHALLENGE_FRAMES and np.hypot(*(c[-1][1] - c[0][1])) >= CHALLENGE_MIN_MPS * span_s:
                v = (c[-1][1] - c[0][1]) / span_s
                return c[-1][1], v, [(f, q) for f, q in c[:-1]]
        return None

    def gate_radius_m(self) -> float:
        """Radius of the search window around the prediction, m."""
        if self.kf is None:
            return np.inf
        sig = float(np.sqrt(max(self.kf.P[0, 0], self.kf.P[1, 1])))
        return float(np.clip(3.7 * sig + 0.3, 0.5, 6.0))

    def update(self, frame_index: int, cands: Detections, meas_sigma_m: np.ndarray,
               players: list[tuple[int, str | None, np.ndarray]],
               camera_xyz_m: np.ndarray | None = None) -> dict | None:
        """Consume this frame's candidates (after ``predict``) and return the puck record.

        Args:
            frame_index: this frame.
            cands: puck candidates with ``xy_rink_m``, ``area_px``, ``expected_area_px``.
            meas_sigma_m: (N,) per-candidate position noise, m (≈ 0.7 px at the local scale).
            players: (id, team, seat_xy_rink_m (2,)) of the players reported this frame.
            camera_xyz_m: (3,) the camera centre this frame, rink m (None: unknown; no flight test).

        Returns:
            ``{"x", "y", "measured"[, "touch"]}`` or None (unknown). While the measurements
            follow a ballistic flight (``vision.puck_flight``) the record is the fitted
            flight's position with its height ``z`` and ``measured: false`` (one camera
            cannot place a flying puck to centimetres; the projected spot would be metres off).
        """
        kf_before = self.kf
        self.backfill = []
        self.retractions = []
        self._drop_revisions = []
        rec = self._update(frame_index, cands, meas_sigma_m, players)
        if rec is None:
            self._flight_hist.clear()
            self._recent.clear()
            self.flight = None
            return None
        if rec["measured"]:
            if self.kf is not kf_before:
                self._flight_hist.clear()  # a new trajectory (shot, pass, deflection, new track)
            sigma = float(np.median(meas_sigma_m)) if len(meas_sigma_m) else 0.01
            self._flight_step(frame_index, self._last_meas[1], sigma, camera_xyz_m)
            self._drop_step(frame_index, self._last_meas[1], sigma, camera_xyz_m)
        if self.flight is not None:
            pos = self.flight.position(frame_index * self.dt)
            if pos[2] < self.puck_z_m:
                self.flight = None  # the parabola has reached the ice: the flight is over
            elif self.flight.rms_m > FLIGHT_REPORT_MAX_RMS_SIGMA * self._flight_sigma_m:
                return None  # in the air, but a loose fit cannot say where along the rays
            else:
                rec.update(x=round(float(pos[0]), 4), y=round(float(pos[1]), 4), z=round(float(pos[2]), 4),
                           measured=False)
        return rec

    def _drop_step(self, frame_index: int, xy: np.ndarray, sigma_m: float, camera_xyz_m: np.ndarray | None) -> None:
        """Look for a puck that fell straight down (a face-off drop) and has just landed.

        The landing is a measurement L followed by one that does not go on towards the camera
        (the fall has stopped); the measurements before L, not yet revised, are tested as rays
        of a puck falling onto L (``vision.puck_flight.drop_onto``). When they pass, their frames
        get L with the fall's heights (``flight_revisions``; the measured spots were up to metres
        nearer the camera), and a flight fitted meanwhile is dropped: the puck is on the ice.
        """
        if camera_xyz_m is None:
            self._recent.clear()
            return
        self._recent.append((frame_index, frame_index * self.dt, np.asarray(xy, np.float64).copy(),
                             np.asarray(camera_xyz_m, np.float64).copy(), float(sigma_m)))
        pts = list(self._recent)
        for j in range(len(pts) - 2, max(len(pts) - 5, 3), -1):
            fall = [q for q in pts[:j] if q[0] > self._dropped_until]
            L, after = pts[j], pts[j + 1]
            if len(fall) < 4 or np.linalg.norm(fall[0][2] - L[2]) < 0.3 or L[0] - fall[-1][0] > 2:
                continue  # too few rays, too little fall, or not falling right up to the landing
            noise = max(max(q[4] for q in fall), 0.005)
            toward = L[2] - L[3][:2]
            if np.dot(after[2] - L[2], toward / max(np.linalg.norm(toward), 1e-9)) < -(3.0 * noise + 0.02):
                continue  # still closing in on the camera: L was not the landing
            z = drop_onto(np.array([q[1] for q in fall]), np.stack([q[2] for q in fall]),
                          np.stack([q[3] for q in fall]), L[2], L[1], self.puck_z_m, noise)
            if z is None:
                continue
            self._drop_revisions = [
                {"frame": int(q[0]), "x": round(float(L[2][0]), 4), "y": round(float(L[2][1]), 4),
                 "z": round(float(zk), 4), "measured": False}
                for q, zk in zip(fall, z) if zk - self.puck_z_m >= FLIGHT_MIN_HEIGHT_M]
            self._dropped_until = int(fall[-1][0])
            self.flight = None
            return

    def flight_revisions(self, frame_index: int) -> list[dict]:
        """Puck records for this trajectory's earlier measured frames, from the current flight.

        A flight is recognised only after ``FLIGHT_MIN_MEASUREMENTS`` rays, and the frames before
        that were reported where their rays meet the ice (metres off for a dropped or lifted
        puck). Once the fit holds, those frames are where the fit puts the puck, unmeasured, with
        its height — those the fit has at least ``FLIGHT_MIN_HEIGHT_M`` up (lower, the ice
        projection is as good). None from the flight when there is none, off a measured frame,
        or when the fit explains the rays no better than ``FLIGHT_REVISE_MAX_RMS_SIGMA`` of their
        noise. A drop recognised on this frame (``_drop_step``) adds its fall's frames last.

        Returns:
            ``[{"frame", "x", "y", "z", "measured": False}]``, oldest first.
        """
        if self.flight is None or not self._flight_hist or \
                int(round(self._flight_hist[-1][0] / self.dt)) != frame_index or \
                self.flight.rms_m > FLIGHT_REVISE_MAX_RMS_SIGMA * self._flight_sigma_m:
            return list(self._drop_revisions)
        out = []
        for t, _, _ in list(self._flight_hist)[:-1]:
            pos = self.flight.position(t)
            if pos[2] - self.puck_z_m >= FLIGHT_MIN_HEIGHT_M:
                out.append({"frame": int(round(t / self.dt)), "x": round(float(pos[0]), 4),
                            "y": round(float(pos[1]), 4), "z": round(float(pos[2]), 4), "measured": False})
        return out + self._drop_revisions

    def _flight_step(self, frame_index: int, xy: np.ndarray, sigma_m: float, camera_xyz_m: np.ndarray | None) -> None:
        """Add a measurement to the current trajectory and test it for a flight."""
        if camera_xyz_m is None:
            self._flight_hist.clear()
            self.flight = None
            return
        self._flight_hist.append((frame_index * self.dt, np.asarray(xy, np.float64).copy(),
                                  np.asarray(camera_xyz_m, np.float64).copy()))
        self._flight_sigma_m = float(sigma_m)
        self.flight = None
        if len(self._flight_hist) < FLIGHT_MIN_MEASUREMENTS:
            return
        t = np.array([h[0] for h in self._flight_hist])
        p = np.stack([h[1] for h in self._flight_hist])
        if slide_rms(t, p) < sliding_limit_m(sigma_m):
            return  # a straight, steady path on the ice: no need for the 3D fit
        fit = fit_flight(t, p, np.stack([h[2] for h in self._flight_hist]), self.puck_z_m)
        if is_airborne(fit, sigma_m, self.puck_z_m):
            self.flight = fit

    def _update(self, frame_index: int, cands: Detections, meas_sigma_m: np.ndarray,
                players: list[tuple[int, str | None, np.ndarray]]) -> dict | None:
        xy = cands.data.get("xy_rink_m", np.zeros((0, 2)))
        score = cands.confidence
        oversize = np.zeros(len(cands), bool)
        if len(cands):
            oversize = cands.data["area_px"] > self.airborne_area_ratio * np.maximum(cands.data["expected_area_px"], 2.0) + 2
        moved = np.asarray(cands.data.get("moved", np.zeros(len(cands))), dtype=bool) & ~oversize
        # A puck the carry model sees at a stick moves with its carrier: not a static mark that a
        # moving chain elsewhere should take the track from.
        held = moved | (np.asarray(cands.data.get("carry_p", np.zeros(len(cands))), dtype=np.float64) > 0)
        # Candidates that may not start a track: the oversized, and still ones the verifier doubts
        # (no verifier: none doubted).
        vp = np.asarray(cands.data.get("verifier_p", np.full(len(cands), np.nan)), dtype=np.float64)
        no_start = oversize | (~held & (vp < START_STILL_MIN_VERIFIER_P))
        self._stick_v = self._at_stick_velocity(frame_index, xy, ~held & (vp < STILL_AT_STICK_MIN_VERIFIER_P), players)
        # ... nor, lying still, those it is unsure of (``START_RESTING_MIN_VERIFIER_P``).
        no_rest = no_start | (~held & (vp < START_RESTING_MIN_VERIFIER_P))
        # A spot new in a goal net since the puck came to it (``vision.net_rest``): the puck lying
        # there, whatever its look says.
        net_rest = np.asarray(cands.data.get("net_rest", np.zeros(len(cands))), dtype=np.float64) > 0
        no_start &= ~net_rest
        no_rest &= ~net_rest
        if self.kf is not None and net_rest.any() and float(np.hypot(*self.kf.v)) <= NET_REST_TAKEOVER_MAX_MPS:
            # A track started after the puck was last seen in front of that goal, no faster than a
            # sledge, is a re-acquisition once it was lost there (a player's dark parts: tuning
            # render 1714); the spot new in the net since is the puck lying where it went.
            since = np.asarray(cands.data["net_since"], dtype=np.float64)
            take = np.flatnonzero(net_rest & (since < self._track_start)
                                  & (np.hypot(*(xy - self.kf.xy).T) > NET_REST_SAME_M))
            if len(take):
                self._start(frame_index, xy[take[0]], np.zeros(2))
                return self._record(True)
        carried = np.asarray(cands.data.get("carry_p", np.zeros(len(cands))), dtype=np.float64) > 0
        challenge = self._challenger(frame_index, xy, carried)
        if challenge is not None:
            # A still spot held against a carried puck moving elsewhere: the carried one. The
            # spot has not moved since the track came to it, so it never was the puck: its
            # frames are taken back (the puck was where the carry model now sees it).
            if self._still_anchor is not None:
                f0, spot = self._still_anchor
                self.retractions = [{"from_frame": int(f0), "to_frame": int(frame_index - 1),
                                     "x": round(float(spot[0]), 4), "y": round(float(spot[1]), 4),
                                     "radius_m": STILL_TRACK_M}]
            self._start(frame_index, *challenge)
            return self._record(True)
        chain = self._moved_chain(frame_index, xy[moved])
        holding = self._last_meas is not None and frame_index - self._last_meas[0] <= TAKEOVER_HELD_WITHIN_FRAMES
        if (chain is not None and self.kf is not None and holding and frame_index - self._last_moved_meas > 3
                and self.kf.mahalanobis2(chain[0], float(np.min(meas_sigma_m[moved]))) > GATE_CHI2):
            # The track holds on static marks while a puck moves consistently elsewhere: follow it.
            self._start(frame_index, *chain)
            self._last_moved_meas = frame_index
            return self._record(True)
        if self.kf is not None:
            best, best_cost = -1, np.inf
            for j in range(len(cands)):
                if oversize[j] or (self.misses and no_start[j]
                                   and np.hypot(*(xy[j] - self.kf.xy)) > COAST_RESUME_DOUBTED_M):
                    # A coast's gate has grown with each frame unseen: what lies in it away from
                    # the prediction is no surer the puck than a new track's start, and must pass
                    # the same test.
                    continue
                d2 = self.kf.mahalanobis2(xy[j], meas_sigma_m[j])
                if d2 > GATE_CHI2:
                    continue
                cost = d2 - 4.0 * np.log(max(score[j], 1e-3))
                if cost < best_cost:
                    best, best_cost = j, cost
            if best >= 0:
                # The compact and the motion detector often find the same puck: the still copy
                # may score higher, but the puck taken moved all the same (else a chain moving
                # elsewhere takes the track from it three frames on: fresh render 893 with the
                # puck-tint change tried at stop 44, docs/vision.md).
                if held[best] or np.any(held & (np.hypot(*(xy - xy[best]).T) <= SAME_CANDIDATE_M)):
                    self._last_moved_meas = frame_index
                v_prior = self.kf.v
                self.kf.update(xy[best], meas_sigma_m[best])
                self.misses = 0
                self.hits += 1
                self._velocity_hits += 1
                self._pending.clear()
                rec = self._record(True)
                touch = self._touch(frame_index, xy[best], v_prior, players)
                self._last_meas = (frame_index, xy[best].copy())
                if touch is not None:
                    rec["touch"] = touch
                return rec
            kicked = self._try_kick(frame_index, xy, score, oversize, moved)
            if kicked is not None:
                j, v_prior = kicked
                if held[j]:
                    self._last_moved_meas = frame_index
                rec = self._record(True)
                touch = self._touch(frame_index, xy[j], v_prior, players)
                self._last_meas = (frame_index, xy[j].copy())
                if touch is not None:
                    rec["touch"] = touch
                return rec
            self.misses += 1
            if self._try_reacquire(frame_index, xy, score, no_start, no_rest):
                return self._record(True)
            if self.misses > self.max_coast:
                self.kf = None
                return None
            if self._coast_cut or (self.misses > NEAR_PLAYER_COAST_FRAMES and self._within_reach(players)):
                # He may have stopped, received or redirected it: unknown from here until the
                # puck is measured again, also where the prediction drifts out of his reach.
                self._coast_cut = True
                return None
            if self._coast_hits_wall():
                self.kf = None
                return None
            return self._record(False)
        # Lost: acquire from consistent strong candidates.
        if self._try_reacquire(frame_index, xy, score, no_start, no_rest):
            return self._record(True)
        return None

    def _try_kick(self, frame_index: int, xy: np.ndarray, score: np.ndarray,
                  oversize: np.ndarray, moved: np.ndarray | None = None) -> tuple[int, np.ndarray] | None:
        """A pass, shot or deflection: a strong candidate outside the χ² gate but within what a
        velocity change of at most ``kick_dv_mps`` since the last measurement allows. The
        filter restarts there with the new velocity; returns (candidate, velocity before).

        Up to 3 frames after the last measurement any strong candidate may be the kicked
        puck; up to ``KICK_HIDDEN_MAX_FRAMES`` (a rebound hidden behind a post, a pad or a
        player) only a confident one that arrived there (``moved``).
        """
        if self._last_meas is None or not len(score):
            return None
        f0, xy0 = self._last_meas
        gap = (frame_index - f0) * self.dt
        if gap <= 0 or frame_index - f0 > KICK_HIDDEN_MAX_FRAMES:
            return None
        hidden = frame_index - f0 > 3
        pred = self.kf.xy
        radius = 0.1 + self.kick_dv * gap
        best, best_s = -1, self.confident_score if hidden else self.acquire_score
        for j in range(len(score)):
            if oversize[j] or score[j] < best_s or (hidden and (moved is None or not moved[j])):
                continue
            if np.linalg.norm(xy[j] - pred) <= radius and np.linalg.norm(xy[j] - xy0) <= 45.0 * gap + 0.1:
                best, best_s = j, score[j]
        if best < 0:
            return None
        v_prior = self.kf.v
        v_new = (xy[best] - xy0) / gap
        self.kf = KalmanCV(xy[best], 0.03, 3.0, self.accel, v0=v_new)
        self.misses = 0
        self.hits += 1
        self._velocity_hits = 1
        self._pending.clear()
        return best, v_prior

    def coast(self, frame_index: int) -> dict | None:
        """No measurement possible this frame (no calibration): coast or report unknown."""
        if self.kf is None:
            return None
        self.misses += 1
        if self.misses > self.max_coast or self._coast_hits_wall():
            self.kf = None
            return None
        if self._coast_cut:
            return None
        return self._record(False)

    def _try_reacquire(self, frame_index: int, xy: np.ndarray, score: np.ndarray, no_start: np.ndarray,
                       no_rest: np.ndarray) -> bool:
        """Start a track from a strong candidate seen in three consecutive frames with consistent
        motion (two for a very strong one); candidates where ``no_start`` (N,) is True are not
        strong whatever their score, and those where ``no_rest`` (N,) is True start none lying
        still (a chain under ``RESTING_MPS``).

        While the current track coasts, this needs ``misses >= 2`` (a one-frame miss is
        not a reason to jump elsewhere), and none starts while it coasts at
        ``REACQUIRE_FAST_COAST_MPS`` or faster, measured (``FAST_COAST_MIN_MEASURED``), unless
        the coast was cut next to a player.
        """
        strong = np.array([j for j in range(len(score)) if score[j] >= self.acquire_score and not no_start[j]],
                          dtype=np.int64)
        self._pending = [p for p in self._pending if frame_index - p[0] <= 2]
        fast_coast = (self.kf is not None and not self._coast_cut
                      and self._velocity_hits >= FAST_COAST_MIN_MEASURED
                      and float(np.hypot(*self.kf.v)) >= REACQUIRE_FAST_COAST_MPS)
        if self.kf is not None and (self.misses < 2 or fast_coast):
            self._pending.append((frame_index, xy[strong].copy() if len(strong) else np.zeros((0, 2)), 0.0))
            return False
        if len(strong) == 0:
            self._pending.append((frame_index, np.zeros((0, 2)), 0.0))
            return False
        chain = _consistent_chain(frame_index, xy[strong], score[strong], self._pending, self.dt, self.confident_score)
        if chain is not None and len(self._stick_v) == len(xy):
            head = strong[int(np.argmin(np.hypot(*(xy[strong] - chain[0]).T)))]
            v_player = self._stick_v[head]
            if np.isfinite(v_player).all() and float(np.hypot(*(chain[1] - v_player))) < STICK_CO_MOVING_MPS:
                # A doubted spot at a player's stick moving with him: his stick blade, unless the
                # verifier is all but sure. Another chain, of spots at no stick, may still start.
                rest = strong[~np.isfinite(self._stick_v[strong]).all(axis=1)]
                chain = (_consistent_chain(frame_index, xy[rest], score[rest], self._pending, self.dt,
                                           self.confident_score) if len(rest) else None)
        if chain is not None and float(np.hypot(*chain[1])) < RESTING_MPS:
            if no_rest[strong[int(np.argmin(np.hypot(*(xy[strong] - chain[0]).T)))]]:
                # Lying still where the verifier is unsure: only a firmer candidate starts a track.
                firm = strong[~no_rest[strong]]
                chain = (_consistent_chain(frame_index, xy[firm], score[firm], self._pending, self.dt,
                                           self.confident_score) if len(firm) else None)
        if chain is not None:
            self._start(frame_index, *chain)
            return True
        self._pending.append((frame_index, xy[strong].copy(), 0.0))
        return False

    def _at_stick_velocity(self, frame_index: int, xy: np.ndarray, doubted: np.ndarray,
                           players: list[tuple[int, str | None, np.ndarray]]) -> np.ndarray:
        """(N, 2) velocity, m/s, of the player within ``STILL_START_SEAT_M`` of each ``doubted``
        candidate (N,) at ``xy`` (N, 2) rink m, from his seat up to ``STICK_VELOCITY_FRAMES``
        frames before and on this one; nan where there is none (or he was not there before).
        Remembers the seats."""
        out = np.full((len(xy), 2), np.nan)
        now = {pid: np.asarray(seat, dtype=np.float64) for pid, _, seat in players}
        for pid, seat in now.items():
            hist = self._seats_before.setdefault(pid, deque(maxlen=STICK_VELOCITY_FRAMES + 1))
            if hist and frame_index - hist[-1][0] != 1:
                hist.clear()  # a gap: his old seats say nothing of his motion now
            hist.append((frame_index, seat))
        self._seats_before = {pid: h for pid, h in self._seats_before.items() if pid in now}
        if len(now) and len(xy) and np.any(doubted):
            ids = list(now)
            seats = np.array([now[i] for i in ids]).reshape(-1, 2)
            d = np.linalg.norm(xy[:, None] - seats[None], axis=2)
            for j in np.flatnonzero(doubted):
                k = int(np.argmin(d[j]))
                hist = self._seats_before[ids[k]]
                if d[j, k] <= STILL_START_SEAT_M and len(hist) >= 2:
                    (f0, s0), (f1, s1) = hist[0], hist[-1]
                    out[j] = (s1 - s0) / ((f1 - f0) * self.dt)
        return out

    def _moved_chain(self, frame_index: int, xy_moved: np.ndarray) -> tuple[np.ndarray, np.ndarray, list] | None:
        """(position (2,), velocity (2,), earlier candidates) of a moved candidate that continues
        moved ones of the two previous frames with consistent motion (``_consistent_chain``), or
        None; remembers this frame's."""
        self._pending_moved = [p for p in self._pending_moved if frame_index - p[0] <= 2]
        chain = None
        if len(xy_moved):
            pend = [(f, pts, 0.0) for f, pts in self._pending_moved]
            chain = _consistent_chain(frame_index, xy_moved, np.zeros(len(xy_moved)), pend, self.dt, np.inf)
        self._pending_moved.append((frame_index, np.asarray(xy_moved, dtype=np.float64).reshape(-1, 2).copy()))
        return chain

    def _start(self, frame_index: int, xy: np.ndarray, v0: np.ndarray, earlier: list = ()) -> None:
        self.kf = KalmanCV(xy, 0.05, 2.0, self.accel, v0=v0)
        self._track_start = frame_index
        self._meas_hist.clear()
        self._carried_chains = []
        self._still_anchor = None
        # The candidates of the frames before that the start confirms (they were the puck).
        self.backfill = [{"frame": int(f), "x": round(float(p[0]), 4), "y": round(float(p[1]), 4), "measured": True}
                         for f, p in earlier]
        self.misses = 0
        self.hits = 1
        self._velocity_hits = 1
        self._pending.clear()
        self._last_meas = (frame_index, np.asarray(xy, dtype=np.float64).copy())

    def _within_reach(self, players: list[tuple[int, str | None, np.ndarray]]) -> bool:
        """Whether a player's seat is within ``reach_m`` of the predicted puck."""
        xy = self.kf.xy
        return any(float(np.linalg.norm(np.asarray(seat) - xy)) <= self.reach_m for _, _, seat in players)

    def _record(self, measured: bool) -> dict:
        x, y = self.kf.xy
        self._last_xy = np.array([x, y], dtype=np.float64)
        if measured:
            self._meas_hist.append((self._last_frame, self._last_xy))
            if self._still_anchor is None or np.hypot(*(self._last_xy - self._still_anchor[1])) > STILL_TRACK_M:
                self._still_anchor = (self._last_frame, self._last_xy)
            self._coast_cut = False
            self._measured_xy = self._last_xy
        return {"x": round(float(x), 4), "y": round(float(y), 4), "measured": bool(measured)}

    def _coast_hits_wall(self) -> bool:
        """Whether the coasted prediction's path from the last record went through the boards or
        a goal frame, or the prediction left the ice (``COAST_OFF_ICE_M``); a flying puck passes
        over them: not tested while a flight is fitted."""
        if self.walls_rink_m is None or self._last_xy is None or self.flight is not None:
            return False
        if not self._walls_prepared:
            shapely.prepare(self.walls_rink_m)
            self._walls_prepared = True
        xy = np.asarray(self.kf.xy, dtype=np.float64)
        if not np.all(np.isfinite(xy)):
            return True
        if self.ice_rink_m is None or self._measured_xy is None:
            return bool(self.walls_rink_m.intersects(LineString([self._last_xy, xy])))
        # Off the ice, m (0 on it). From a record past the boards (its error) a path back in
        # crosses their line: only the path from one on the ice is tested.
        if (self.ice_rink_m.distance(shapely.Point(self._last_xy)) == 0.0
                and self.walls_rink_m.intersects(LineString([self._last_xy, xy]))):
            return True
        off_m = self.ice_rink_m.distance(shapely.Point(xy))
        return bool(off_m > self.ice_rink_m.distance(shapely.Point(self._measured_xy)) + COAST_OFF_ICE_M)

    def _touch(self, frame_index: int, xy_meas: np.ndarray, v_prior: np.ndarray,
               players: list[tuple[int, str | None, np.ndarray]]) -> dict | None:
        if self._last_meas is None or not players:
            return None
        f0, xy0 = self._last_meas
        gap = (frame_index - f0) * self.dt
        if gap <= 0 or frame_index - f0 > 2:
            return None
        v_meas = (xy_meas - xy0) / gap
        if np.linalg.norm(v_meas - v_prior) < max(self.touch_dv, 0.4 * float(np.linalg.norm(v_prior))):
            return None
        dists = [float(np.linalg.norm(seat - xy_meas)) for _, _, seat in players]
        k = int(np.argmin(dists))
        if dists[k] > self.reach_m:
            return None
        pid, team, _ = players[k]
        if self._last_touch is not None and self._last_touch[1] == pid and frame_index - self._last_touch[0] < 5:
            return None
        self._last_touch = (frame_index, pid)
        return {"player": int(pid), "team": team}


def _consistent_chain(frame_index: int, xy: np.ndarray, score: np.ndarray,
                      pending: list[tuple[int, np.ndarray, float]], dt: float,
                      confident_score: float) -> tuple[np.ndarray, np.ndarray, list] | None:
    """A candidate continuing candidates of the two previous frames with consistent motion.

    Args:
        frame_index: this frame.
        xy: (N, 2) this frame's candidates, rink m.
        score: (N,) their scores; one at least ``confident_score`` needs the previous frame only.
        pending: (frame, (K, 2) candidates, _) of earlier frames.
        dt: frame interval, s.

    Returns:
        (position (2,), velocity (2,) m/s, [(frame, position (2,))] of the earlier candidates
        it continues, oldest first) of the best such candidate, or None.
    """
    prev = {f: pts for f, pts, _ in pending}
    empty = np.zeros((0, 2))
    for j in np.argsort(-np.asarray(score), kind="stable"):
        p2 = xy[j]
        for p1 in prev.get(frame_index - 1, empty):
            v_a = (p2 - p1) / dt
            if np.linalg.norm(v_a) > 45.0:  # faster than a hard shot: not the same puck
                continue
            if score[j] >= confident_score:  # a very clear puck needs two frames only
                return p2, v_a, [(frame_index - 1, p1)]
            for p0 in prev.get(frame_index - 2, empty):
                v_b = (p1 - p0) / dt
                if np.linalg.norm(v_a - v_b) <= 4.0 + 0.3 * np.linalg.norm(v_b):
                    return p2, v_a, [(frame_index - 2, p0), (frame_index - 1, p1)]
    return None


# ---------------------------------------------------------------------- frame tracker
@dataclass
class FrameObservation:
    """One frame's observation, exactly one ``tracks.jsonl`` record (see ``to_record``).

    Attributes:
        frame: frame index.
        t: video time, s.
        puck: ``{"x", "y", "measured"[, "touch"]}`` in rink metres, or None (unknown).
        players: ``[{"id", "team", "role", "blades": [[x, y], [x, y]]}]`` in rink metres;
            ``team`` is "home" | "away" | None (colour ambiguous so far).
        puck_candidates: the puck detector's output (image px), for debugging and overlays.
        player_detections: the player detector's output (image px, ``tracker_id`` filled).
        puck_peaks: the dark-peak proposals of the frame (image px) when the tracker makes them.
        puck_backfill: ``[{"frame", "x", "y", "measured": True}]``: a puck track that starts
            on this frame was confirmed by its candidates on those earlier frames (reported
            unknown then): they were the puck. A writer that still holds those frames'
            records may fill them in (``vision.revisions.RecordReviser``).
        puck_revisions: ``[{"frame", "x", "y", "z", "measured": False}]``: a flight recognised on
            this frame puts the puck of those earlier frames, reported measured on the ice, in
            the air (``PuckTracker.flight_revisions``); a writer that still holds those records
            may replace their puck (``vision.revisions.RecordReviser``); a face-off drop seen to
            land puts those of its fall over the landing spot (``PuckTracker._drop_step``).
        player_retractions: ids of tracks found on this frame to be paint in the ice (a logo
            in a team's colour, ``FrameTracker._check_shapes``), reported until now: a writer
            that still holds their earlier records may take them out (``RecordReviser``).
        puck_retractions: ``[{"from_frame", "to_frame", "x", "y", "radius_m"}]``: the still spot a
            track held on those frames, reported as the puck, was not it (a carried puck moving
            elsewhere took the track from it, ``STILL_TRACK_FRAMES``); a writer that still holds
            those records may report their puck unknown where it lies within ``radius_m`` of
            (x, y) (``RecordReviser``).
        player_backfill: ``[{"frame", "player": {"id", "team", "role", "blades"}}]``: a track
            reported for the first time on this frame was tentative on those earlier frames
            (not reported until confirmed): it was this player there. A writer that still holds
            those frames' records may add him (``RecordReviser``).
    """

    frame: int
    t: float
    puck: dict | None
    players: list[dict]
    puck_candidates: Detections | None = None
    player_detections: Detections | None = None
    puck_peaks: Detections | None = None
    puck_backfill: list[dict] = field(default_factory=list)
    puck_revisions: list[dict] = field(default_factory=list)
    player_retractions: list[int] = field(default_factory=list)
    player_backfill: list[dict] = field(default_factory=list)
    puck_retractions: list[dict] = field(default_factory=list)

    def to_record(self) -> dict:
        return {"frame": int(self.frame), "t": float(self.t), "puck": self.puck, "players": self.players}


def _inside_torsos(xy_image_px: np.ndarray, torso_xyxy_px: np.ndarray) -> np.ndarray:
    """(N,) bool: the (N, 2) image points lie inside one of the (M, 4) torso boxes (widened by
    ``TORSO_WIDEN``, their height inset by ``TORSO_INSET``). The ice seen there lies behind that
    player's body, hidden by it: a dark spot there is on him (a number on a light jersey: tuning
    render 1526, a yellow player's "3" near the camera tracked as the puck for 13 frames)."""
    xy = np.asarray(xy_image_px, dtype=np.float64).reshape(-1, 2)
    b = np.asarray(torso_xyxy_px, dtype=np.float64).reshape(-1, 4)
    if not len(xy) or not len(b):
        return np.zeros(len(xy), bool)
    w, h = (b[:, 2] - b[:, 0])[None], (b[:, 3] - b[:, 1])[None]
    u, v = xy[:, 0:1], xy[:, 1:2]
    inside = ((u > b[None, :, 0] - TORSO_WIDEN * w) & (u < b[None, :, 2] + TORSO_WIDEN * w)
              & (v > b[None, :, 1] + TORSO_INSET * h) & (v < b[None, :, 3] - TORSO_INSET * h))
    return inside.any(axis=1)


def _team_colors(game: Any) -> dict[str, tuple[int, int, int]]:
    """Team colours (B, G, R) from a GameDescriptor (or a GAME.json dict)."""
    if hasattr(game, "team_color_bgr"):
        return {t: tuple(int(c) for c in game.team_color_bgr(t)) for t in TEAMS}
    out = {}
    for t in TEAMS:
        h = str(game["teams"][t]["color"]).lstrip("#")
        r, g, b = int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)
        out[t] = (b, g, r)
    return out


def _player_body(game: Any) -> PlayerBody:
    """The players' body a game is played in: its profile's ``player_kind`` (a GameDescriptor);
    seated for anything else (a plain GAME.json dict names a profile, not a body)."""
    try:
        kind = game.profile.team_composition.player_kind
    except AttributeError:
        return SEATED
    return PLAYER_BODIES.get(kind, SEATED)


def _defending_team(game: Any, end: int) -> str | None:
    """The team whose goal is at ``end`` (+1/-1), from GAME.json's attack directions, or None."""
    try:
        for t in TEAMS:
            if hasattr(game, "defending_end"):
                if int(game.defending_end(t)) == end:
                    return t
            else:
                # A dict: a team defends the end opposite to the one it attacks; one team's
                # direction gives the other's (GAME.json may state only one).
                att = game["teams"][t].get("attacks")
                other = game["teams"][TEAMS[1] if t == TEAMS[0] else TEAMS[0]].get("attacks")
                if att is None and other is not None:
                    att = "-x" if other == "+x" else "+x"
                if att is not None and (-1 if att == "+x" else 1) == end:
                    return t
    except (KeyError, TypeError, AttributeError):
        return None
    return None


class FrameTracker:
    """The vision stage used by ``analyze``: frame + calibration → one tracks record.

    Args:
        rink: ``calibration.rink.RinkModel``.
        game: ``rulesfromvideo.game.GameDescriptor`` (team colours, attack directions) or a GAME.json dict.
        fps: frame rate of the video.
        goalkeeper_detector: callable image → ``Detections`` with a "goalkeeper" class (the
            learned pose model); ``"default"`` loads ``models/sledge_pose.onnx`` at the first
            check, None keeps goalkeepers by position only.
        goalkeeper_every_s: at most one goalkeeper check per this many seconds.
        puck_verifier: the learned puck verifier; ``"default"`` loads ``models/puck_verifier.onnx``,
            None keeps the classical scores.
        player_detect_hz: how often players are detected (keyframes), per second of video;
            None: every frame. The puck is searched every frame.
        body: the players' body (``vision.players.PlayerBody``); None: the game's (a
            ``GameDescriptor``'s profile names its ``player_kind``), seated for a plain dict.
    """

    def __init__(self, rink: Any, game: Any, fps: float, ice_config: IceConfig | None = None,
                 goalkeeper_detector: Any = "default", goalkeeper_every_s: float = 0.33,
                 puck_verifier: Any = "default", player_detect_hz: float | None = PLAYER_DETECT_HZ,
                 body: PlayerBody | None = None, carry_verifier: Any = "default",
                 blade_model: Any = "default") -> None:
        self.rink = rink
        self.game = game
        self.fps = float(fps) if fps and fps > 0 else 30.0
        self.scenes = SceneBuilder(rink, ice_config)
        self.ice_config = self.scenes.config
        spec = rink.spec
        self.team_classifier = TeamClassifier(_team_colors(game))
        self.puck_detector = PuckDetector(getattr(spec, "puck_diameter_m", 0.0762),
                                          getattr(spec, "puck_thickness_m", 0.0254),
                                          PuckDetectorConfig(white_kits=self.team_classifier.ice_like_team is not None))
        self.streak_detector = StreakDetector(self.puck_detector)
        self.body = body if body is not None else _player_body(game)
        self.player_detector = PlayerDetector(self.team_classifier, body=self.body)
        # Players are detected on keyframes, ``player_detect_hz`` times a second (every frame when
        # None); their tracks are predicted in between (a sledge moves ≤ 0.5 m in 1/15 s, along
        # a smooth path the constant-velocity filter follows).
        self.player_every = 1 if not player_detect_hz else max(1, int(round(self.fps / player_detect_hz)))
        # Two detections confirm a track at keyframes (the same 0.1 s as three at 30 frames/s).
        self.players = PlayerTracker(self.fps, update_every=self.player_every,
                                     confirm_hits=2 if self.player_every > 1 else 3,
                                     boards_xy_m=rink.boards_outline_xy())
        self._since_players = self.player_every  # frames since the last keyframe (the first frame is one)
        puck_r = self.puck_detector.diameter_m / 2.0
        self.puck = PuckTracker(self.fps, puck_z_m=self.puck_detector.thickness_m / 2.0,
                                walls_rink_m=puck_walls_rink_m(rink, puck_r), ice_rink_m=puck_ice_rink_m(rink, puck_r))
        self.goal_x_m = float(spec.goal_line_x_m)
        # A puck shot into a net and lying there: new dark spots in the net (``vision.net_rest``).
        self.net_watch = NetWatch(self.goal_x_m, float(spec.goal_post_gap_m) / 2.0, float(spec.goal_depth_m),
                                  self.puck_detector.diameter_m, self.puck_detector.thickness_m / 2.0, self.fps)
        self._goal_team = {end: _defending_team(game, end) for end in (+1, -1)}
        self.motion_detector = MotionPuckDetector(self.puck_detector)
        # The last two calibrated frames, newest first: (V = max(B, G, R) (H, W) uint8, camera).
        self._earlier: deque[tuple[np.ndarray, PlaneCamera]] = deque(maxlen=2)
        self._last_frame: int | None = None
        self._cam: PlaneCamera | None = None  # the latest camera built (``FrameScene.last_cam``)
        # Goalkeepers by appearance (the learned pose model's goalkeeper class), checked a few
        # times a second while a track is in front of a goal: position alone cannot tell the
        # goalkeeper from an attacker parked on his crease, and his gear need not show the
        # jersey colour the team votes rest on.
        # "default": the shipped model, loaded at the first check (most clips never need it).
        self.goalkeeper_detector = goalkeeper_detector
        self._gk_every = max(1, int(round(goalkeeper_every_s * self.fps)))
        self._gk_last = -(10**9)
        self._gk_blind_runs = 0  # consecutive checks that found no goalkeeper anywhere
        self._learned_run: tuple[int, Any] | None = None  # (frame, the model's output on it)
        # The same model tells a still track in a team's colour from a logo in the ice, and a
        # track of no team from a shadow (``_check_shapes``); only for sledges, the one body it
        # was trained on.
        self._shapes_last = -(10**9)
        self.paint = PaintMap()
        # The learned puck verifier (``vision.puck_verifier``) vetoes candidates (``_verify``):
        # "default" = the shipped model (None when it is missing), None = classical scores only.
        self.puck_verifier = _default_puck_verifier() if puck_verifier == "default" else puck_verifier
        self.verifier_veto_p = 0.2
        # Dark-peak proposals (``vision.puck_verifier.dark_peaks``), reported in ``obs.puck_peaks``
        # only, not tracked: the verifier cannot yet tell a puck held at a blade from a bare blade
        # (see ``_verify``). The training recipes turn them on to cut their patches: True = around
        # the puck's prediction (the verifier's), "carry" = beside the players (``_carry_spots``,
        # the carry model's).
        self.propose_peaks: bool | str = False
        # The learned carry model (``models/carry_verifier.onnx``; beside standing players
        # ``carry_verifier_standing.onnx``) looks at the dark spots within a carrier's reach of
        # the players while no classical candidate holds the puck: a puck held against a stick
        # blade (``_carried_candidates``). "default" = the shipped model for the body.
        self.carry_verifier = (_default_carry_verifier(self.body.kind) if carry_verifier == "default"
                               else carry_verifier)
        self.carry_accept_p = CARRY_ACCEPT_P
        # The learned blade-keypoint model (``vision.blade_keypoints``) places each reported
        # player's blades from a crop around the geometric estimate (``_refine_blades``);
        # "default" = the shipped model (None when it is missing), None = the geometric blades.
        self.blade_model = _default_blade_model() if blade_model == "default" else blade_model
        self._blade_shift: dict[int, np.ndarray] = {}  # player id → (2, 2) m: the model's last blades - his geometric ones
        # It runs on a keyframe at most BLADE_MODEL_HZ times a second (its cost, docs/benchmarks.md).
        self._blade_model_every = max(1, int(round(self.fps / BLADE_MODEL_HZ)))
        self._blade_model_frame = -(10**9)
        self.motion_full_every = MOTION_FULL_EVERY  # 1: the moving-puck search sees the whole ice every frame
        self._motion_elsewhere = False  # the last whole-ice search saw a strong moving candidate off the track
        self._carry_awake_until = -1  # the last frame the carry model looks at whatever the frame's index
        self._confirmed_any = False  # a player track has been confirmed (the clip's first frames are over)
        self._last_puck_seen: tuple[int, np.ndarray] | None = None  # (frame, (2,) rink m) of the last measured record
        self._retracted: set[int] = set()  # tracks found to be paint after they were reported
        self._retract_now: list[int] = []  # ... on this frame (``FrameObservation.player_retractions``)
        self._player_backfill: list[dict] = []  # this frame's ``FrameObservation.player_backfill``

    def update(self, frame_bgr: np.ndarray, frame_index: int, t: float, calib: Any,
               prepared: FrameScene | None = None) -> FrameObservation:
        """Process one frame.

        Args:
            frame_bgr: (H, W, 3) uint8 frame.
            frame_index: its index in the video.
            t: its time, s.
            calib: ``CalibrationResult`` (``rink_from_image`` (3, 3) or None), a bare (3, 3)
                array, or None.
            prepared: this frame's scene, built elsewhere from the same frame and calibration
                by a `SceneBuilder` that saw every earlier frame (the calibration process);
                None: built here.

        Returns:
            The frame's observation; without calibration the tracks coast (then become unknown).
        """
        n_step = 1 if self._last_frame is None else max(1, frame_index - self._last_frame)
        self._last_frame = frame_index
        self._retract_now = []
        self.players.predict(n_step)
        self.puck.predict(frame_index)
        fs = prepared if prepared is not None else self.scenes.build(frame_bgr, calib)
        scene, cam, self._cam = fs.scene, fs.cam, fs.last_cam
        if scene is None:
            if self._keyframe():  # a keyframe with nothing seen
                self.players.update(np.zeros((0, 2)), np.zeros(0), [], [])
            puck = self.puck.coast(frame_index)
            self._earlier.clear()
            players = self._player_records(None, frame_index)
            return FrameObservation(frame_index, float(t), puck, players, player_retractions=list(self._retract_now),
                                    player_backfill=self._player_backfill)

        v_full = fs.v_full
        lens_map = _lens_mapper(calib)
        dets = None
        if self._keyframe():  # detect (else the tracks are predicted only)
            dets, team_votes = self.player_detector.detect(scene)
            if lens_map is not None and len(dets):
                dets.data["contact_rink_m"] = lens_map(dets.data["contact_xy_px"], cam, 0.0)
            ids = self.players.update(
                dets.data["contact_rink_m"], dets.confidence, [a.team for a in team_votes],
                [a.confidence for a in team_votes], dets.data.get("cut_top"),
                [a.by_absence for a in team_votes],
            )
            dets.tracker_id = np.asarray(ids, dtype=np.int64)
            self._check_goalkeepers(frame_bgr, frame_index, dets)
            self._check_shapes(frame_bgr, frame_index, dets)
        players = self._player_records(cam, frame_index)

        prev_v, prev_cam = self._earlier[0] if self._earlier else (None, None)
        roi = self._puck_roi(cam, frame_bgr.shape)
        cands = self.puck_detector.detect(frame_bgr, scene, roi, prev_v, prev_cam, v_full)
        cands = self._to_rink(cands, cam, lens_map)
        if roi is not None and not _has_gated(self.puck, cands):
            # Nothing compact in the gate: a fast puck is a faint streak along its motion.
            cands = self._to_rink(
                self.puck_detector.detect(frame_bgr, scene, None, prev_v, prev_cam, v_full), cam, lens_map)
            u = self._predicted_px_motion(cam)
            # Only a puck predicted to move a few px per frame can blur into a streak.
            if not _has_gated(self.puck, cands) and float(np.hypot(*u)) >= 3.0:
                streaks = self._to_rink(self.streak_detector.detect(frame_bgr, scene, roi, u, v_full), cam, lens_map)
                if _has_gated(self.puck, streaks):
                    cands = streaks
        # What moved on the ice since the last two frames: a pass or shot, also where the
        # compact detector sees nothing (a faint streak) or the prediction does not reach.
        # Around a confidently tracked puck only the gate's region, but the whole ice now and then,
        # and while something else moves like a puck (the track may hold a blade; a moving chain
        # needs consecutive frames to take over).
        motion_roi = roi if (roi is not None and frame_index % self.motion_full_every and not self._motion_elsewhere
                             and _has_gated(self.puck, cands[cands.confidence >= self.puck.acquire_score])) else None
        moving = self._to_rink(self.motion_detector.detect(frame_bgr, v_full, scene, list(self._earlier), self.fps,
                                                           motion_roi), cam, lens_map)
        if motion_roi is None:
            strong = moving[moving.confidence >= self.puck.acquire_score]
            self._motion_elsewhere = not _in_gate(self.puck, strong).all()  # (False when none is strong)
        moving.data["moved"] = np.ones(len(moving))
        cands = _with_streak_keys(Detections.merge([_with_streak_keys(cands), moving]))
        # The players' seats (blade midpoints, (P, 2) rink m): where a carried puck is looked for
        # and who may have touched it.
        seat_xy = np.array([np.mean(np.asarray(p["blades"], dtype=np.float64), axis=0)
                            for p in players]).reshape(-1, 2)
        peaks = None
        if self.propose_peaks == "carry":  # the spots the carry model judges (its recipe's patches)
            peaks = self._carry_spots(v_full, scene, cam, lens_map, cands, seat_xy)
        elif self.propose_peaks:
            peaks = self._peaks(v_full, scene, cam, lens_map, cands, roi if self.puck.active else None)
        if self.puck_verifier is not None:
            self._verify(frame_bgr, cands)
            cands = cands[cands.confidence >= self.puck_detector.config.min_score]
        # Before any track is confirmed (a clip's first frames) the carrier is a tentative track:
        # his carried puck is looked for beside those. Not later, when no player is reported
        # mid-clip: a track still tentative then has not been seen three times in a row (paint,
        # a stick, a flicker); no render measured has such a frame.
        self._confirmed_any = self._confirmed_any or any(tr.confirmed for tr in self.players.tracks)
        # Goalkeepers carry no puck up the ice, and their pads, glove and stick are dark spots the
        # carry model takes for one (overhead tuning render 855, once its goalkeepers were found:
        # a puck "carried" in a crease for six frames, 45 m from the true one).
        carrier = np.array([p.get("role") != "goalkeeper" for p in players], bool)
        if players or self._confirmed_any:
            carry_seats = seat_xy[carrier & ~self._keeper_like(players, seat_xy)]
        else:
            carry_seats = self._tentative_seats(cam)
            carry_seats = carry_seats[~self._keeper_like(None, carry_seats)]
        if self.carry_verifier is not None and len(carry_seats):
            cands = self._carried_candidates(frame_bgr, frame_index, v_full, scene, cam, lens_map, cands, carry_seats)
        if dets is not None and len(dets) and len(cands):
            cands = cands[~_inside_torsos(cands.data["centre_xy_px"], dets.data["torso_xyxy_px"])]
        rest = self.net_watch.spots(frame_index, v_full, cam, lens_map, seat_xy)
        if len(rest):
            if dets is not None and len(dets):
                rest = rest[~_inside_torsos(rest.data["centre_xy_px"], dets.data["torso_xyxy_px"])]
            cands = _with_net_rest(cands, rest)
        sigma = self._meas_sigma(cam, cands)
        seats = [(p["id"], p["team"], seat_xy[k]) for k, p in enumerate(players)]
        puck = self.puck.update(frame_index, cands, sigma, seats, cam.position_xyz_m)
        self.net_watch.note(frame_index, puck, v_full, cam, self.puck.track_start)
        if puck is not None and puck.get("measured"):
            self._last_puck_seen = (frame_index, np.array([puck["x"], puck["y"]], dtype=np.float64))
        self._earlier.appendleft((v_full, cam))
        # Last: the puck's search and touches keep the geometric seats their models were cut for.
        if self.blade_model is not None:
            due = dets is not None and frame_index - self._blade_model_frame >= self._blade_model_every
            if due:
                self._blade_model_frame = frame_index
            self._refine_blades(frame_bgr, cam, lens_map, players, run_model=due)
        return FrameObservation(frame_index, float(t), puck, players, cands, dets, peaks, list(self.puck.backfill),
                                self.puck.flight_revisions(frame_index), list(self._retract_now),
                                self._player_backfill, list(self.puck.retractions))

    # ----------------------------------------------------------------- helpers
    def _keyframe(self) -> bool:
        """Count this frame; True on every ``player_every``-th (players are detected there)."""
        self._since_players += 1
        if self._since_players < self.player_every:
            return False
        self._since_players = 0
        return True

    def _peaks(self, v_full: np.ndarray, scene: Any, cam: PlaneCamera, lens_map, cands: Detections,
               roi: tuple[int, int, int, int] | None, max_peaks: int = 32) -> Detections:
        """Dark-peak proposals not already among ``cands`` (farther than 0.6 puck widths + 1.5 px)."""
        peaks = self._to_rink(dark_peaks(v_full, scene, self.puck_detector, roi, max_peaks=max_peaks), cam, lens_map)
        if len(peaks) and len(cands):
            d = np.linalg.norm(peaks.data["centre_xy_px"][:, None] - cands.data["centre_xy_px"][None], axis=2)
            ext = np.sqrt(np.maximum(peaks.data["expected_area_px"], 1.0))
            peaks = peaks[np.all(d > 0.6 * ext[:, None] + 1.5, axis=1)]
        return peaks

    def _carried_candidates(self, frame_bgr: np.ndarray, frame_index: int, v_full: np.ndarray, scene: Any,
                            cam: PlaneCamera, lens_map, cands: Detections, seats_xy_rink_m: np.ndarray) -> Detections:
        """``cands`` and, while none of them is a strong one in the puck's gate, the dark spots
        beside the players (seats (P, 2) rink m) that the carry model sees a puck in (score
        ``CARRY_SCORE``, ``carry_p``).

        A carried puck merges with the stick blade it is held against: the classical detectors
        judge that dark object as a whole and refuse it (too long, joined to a shaft). Dark peaks
        (``dark_peaks``) within a carrier's reach of a player's seat are cut as patches and judged
        by a classifier trained on such spots (``models/carry_verifier.md``). A spot farther from
        the last measured puck than a pass could have taken it since (``CARRY_MAX_PUCK_SPEED_MPS``)
        is a bare blade or a sledge's nose, whatever the model says.
        """
        if frame_bgr.shape[0] < CARRY_MIN_FRAME_HEIGHT_PX:
            return cands  # frames smaller than the model ever saw (it takes blades for pucks there)
        strong = cands[np.asarray(cands.confidence) >= self.puck.acquire_score] if len(cands) else cands
        # A track held on a still spot is challenged: the carry model looks beside every player
        # (``STILL_TRACK_FRAMES``), every few frames until a spot is accepted.
        challenge = self.puck.still
        if len(strong) and (self.puck.kf is None or _has_gated(self.puck, strong)) and not challenge:
            return cands
        if (self.puck.kf is None or challenge) and frame_index > self._carry_awake_until \
                and frame_index % CARRY_IDLE_EVERY:
            return cands  # no track: looked at every few frames until a spot is accepted
        reach = np.inf
        if self._last_puck_seen is not None and not challenge:
            f0, xy0 = self._last_puck_seen
            reach = CARRY_MAX_PUCK_SPEED_MPS * max(frame_index - f0, 1) / self.fps + CARRY_REACH_M
            # Only players whose reach a pass from there could have got to are searched.
            seats_xy_rink_m = seats_xy_rink_m[np.linalg.norm(seats_xy_rink_m - xy0, axis=1) <= reach + CARRY_REACH_M]
        peaks = (self._carry_spots(v_full, scene, cam, lens_map, cands, seats_xy_rink_m) if len(seats_xy_rink_m)
                 else Detections.empty())
        if len(peaks) and self._last_puck_seen is not None and not challenge:
            peaks = peaks[np.linalg.norm(peaks.data["xy_rink_m"] - self._last_puck_seen[1], axis=1) <= reach]
        if not len(peaks):
            return cands
        try:
            p = np.asarray(self.carry_verifier(frame_bgr, peaks.data["centre_xy_px"], peaks.data["expected_area_px"]),
                           dtype=np.float64).reshape(len(peaks))
        except Exception as exc:  # a failing model must not cost the frame
            warnings.warn(f"carry model failed ({exc!r}); no carried-puck candidates from now on")
            self.carry_verifier = None
            return cands
        ok = p >= self.carry_accept_p
        got = peaks[ok]
        if not len(got):
            return cands
        self._carry_awake_until = frame_index + 2  # every frame now: a track needs three in a row
        got.confidence = np.full(len(got), CARRY_SCORE)
        got.data["carry_p"] = p[ok]
        return _merge_zero_filled(_with_streak_keys(cands), _with_streak_keys(got))

    def _carry_spots(self, v_full: np.ndarray, scene: Any, cam: PlaneCamera, lens_map, cands: Detections,
                     seats_xy_rink_m: np.ndarray) -> Detections:
        """The dark spots within a carrier's reach of the players' seats ((P, 2) rink m; not already
        among ``cands``), at most ``CARRY_MAX_PATCHES`` (``CARRY_MAX_PATCHES_STANDING`` beside
        standing players, ``_standing_spots``), the darkest first: what the carry model judges.
        Beside sledges also within reach of a point ``CARRY_HIDDEN_BEHIND_M`` behind each seat
        (away from the camera), where a carrier hidden by that sledge would sit."""
        if len(seats_xy_rink_m) and self.body.kind == "sledge":
            # A carrier hidden behind another sledge (a low camera sees the two as one blob: one
            # track) holds his puck beyond that sledge's reach: also searched as if a player sat
            # CARRY_HIDDEN_BEHIND_M farther from the camera.
            seats_xy_rink_m = np.concatenate(
                [seats_xy_rink_m, seats_xy_rink_m + cam.away_direction_rink(seats_xy_rink_m) * CARRY_HIDDEN_BEHIND_M])
        # Searched player by player (the dark spots of a window around each carrier's reach), so
        # the darkest sledges elsewhere do not crowd out the spots beside any one of them.
        h, w = v_full.shape[:2]
        standing = self.body.kind == "standing"
        parts = [self._peaks(v_full, scene, cam, lens_map, cands, box,
                             max_peaks=CARRY_PEAKS_PER_WINDOW * (STANDING_PEAKS_FACTOR if standing else 1))
                 for box in reach_windows_px(cam, seats_xy_rink_m, w, h)]
        if standing:
            parts = [self._standing_spots(part, cam, seats_xy_rink_m) for part in parts]
        # Every non-empty part has dark_peaks' keys; the keys are added for when all are empty.
        peaks = near_players(_with_streak_keys(Detections.merge(parts)), seats_xy_rink_m)
        n_max = CARRY_MAX_PATCHES_STANDING if standing else CARRY_MAX_PATCHES
        return peaks[np.argsort(-np.asarray(peaks.data["contrast"]), kind="stable")[:n_max]]

    def _standing_spots(self, peaks: Detections, cam: PlaneCamera, seats_xy_rink_m: np.ndarray) -> Detections:
        """A window's spots (``peaks``, darkest first) beside standing players (seats (P, 2) rink m):
        its ``CARRY_PEAKS_PER_WINDOW`` darkest, and as many more of the darkest not seen through
        a body.

        A standing player's dark trousers are puck-wide dark strips: their spots would crowd
        out the puck at his stick. They are not dropped outright: a puck behind him can show
        between his legs, and the body's cylinder (``behind_bodies``) covers that gap.
        """
        if not len(peaks):
            return peaks
        xyz = np.column_stack([peaks.data["xy_rink_m"], np.full(len(peaks), self._puck_z)])
        hidden = behind_bodies(xyz, cam.position_xyz_m, seats_xy_rink_m, STANDING_BODY_RADIUS_M,
                               (STANDING_BODY_LOW_M, self.body.height_m))
        keep = np.zeros(len(peaks), bool)
        keep[:CARRY_PEAKS_PER_WINDOW] = True
        keep[np.flatnonzero(~hidden)[:CARRY_PEAKS_PER_WINDOW]] = True
        return peaks[keep]

    def _verify(self, frame_bgr: np.ndarray, cands: Detections) -> None:
        """Veto candidates the learned verifier does not see a puck in (in place).

        A candidate whose verifier probability is under ``verifier_veto_p`` keeps at most that
        probability as its score; the others keep their classical score. The verifier only
        vetoes: raising weak candidates (or dark peaks) to its probability found more pucks on
        the tuning clips (recall 46 -> 56 %) but also followed bare stick blades it takes for a
        carried puck, and precision fell (docs/vision.md, "Learned puck verifier").
        """
        if self.puck_verifier is None or not len(cands):
            return
        try:
            p = np.asarray(self.puck_verifier(frame_bgr, cands.data["centre_xy_px"], cands.data["expected_area_px"]),
                           dtype=np.float64).reshape(len(cands))
        except Exception as exc:  # a failing model must not cost the frame: classical scores from now on
            warnings.warn(f"puck verifier failed ({exc!r}); classical puck scores only from now on")
            self.puck_verifier = None
            return
        c = np.asarray(cands.confidence, dtype=np.float64)
        cands.data["classical_score"] = c
        cands.data["verifier_p"] = p
        cands.confidence = np.where(p < self.verifier_veto_p, np.minimum(c, p), c)

    def _puck_roi(self, cam: PlaneCamera, shape) -> tuple[int, int, int, int] | None:
        if not self.puck.active:
            return None
        r = self.puck.gate_radius_m()
        c = self.puck.kf.xy
        ang = np.linspace(0, 2 * np.pi, 12, endpoint=False)
        pts = c + r * np.stack([np.cos(ang), np.sin(ang)], axis=1)
        uv, w = apply_homography(cam.H_image_from_rink, np.vstack([pts, c]))
        if np.any(w <= 0):
            return None
        x0, y0 = np.floor(uv.min(axis=0)) - 8
        x1, y1 = np.ceil(uv.max(axis=0)) + 8
        Hh, Ww = shape[:2]
        if x1 < 0 or y1 < 0 or x0 >= Ww or y0 >= Hh:
            return None
        return int(x0), int(y0), int(x1), int(y1)

    def _to_rink(self, cands: Detections, cam: PlaneCamera, lens_map) -> Detections:
        """Re-map puck candidates' centres through the lens model when the calibration has one."""
        if lens_map is not None and len(cands):
            cands.data["xy_rink_m"] = lens_map(cands.data["centre_xy_px"], cam, self._puck_z)
        return cands

    @property
    def _puck_z(self) -> float:
        return self.puck_detector.thickness_m / 2.0

    def _predicted_px_motion(self, cam: PlaneCamera) -> np.ndarray:
        """(2,) image motion of the predicted puck over one frame interval, px."""
        c = self.puck.kf.xy
        uv, _ = apply_homography(cam.H_image_from_rink, np.vstack([c, c + self.puck.kf.v / self.fps]))
        return uv[1] - uv[0]

    @staticmethod
    def _meas_sigma(cam: PlaneCamera, cands: Detections) -> np.ndarray:
        if len(cands) == 0:
            return np.zeros(0)
        scale = cam.ground_scale_px_per_m(cands.data["xy_rink_m"])
        # A streak's centroid is less sure along its axis (uneven ink, clipped ends).
        px = 0.7 + 0.1 * cands.data.get("streak_length_px", np.zeros(len(cands)))
        return np.clip(px / np.maximum(scale, 1e-3), 0.01, 0.5)

    def _retract_if_paint(self, tr: PlayerTrack, xy_rink_m: np.ndarray | None) -> bool:
        """Whether a still track at ``xy_rink_m`` (2,) m lies on paint in the ice (a logo,
        ``_check_shapes``); the first time, its id goes into this frame's ``player_retractions``
        (its held records go too)."""
        if tr.max_disp_m >= PAINT_STILL_M or xy_rink_m is None or tr.model_looks > 0 \
                or not self.paint.is_paint(xy_rink_m):
            return False  # a track the model saw as a sledge is one, whatever its spot became
        if tr.id not in self._retracted:
            self._retracted.add(tr.id)
            self._retract_now.append(tr.id)
        return True

    def _tentative_seats(self, cam: PlaneCamera) -> np.ndarray:
        """(P, 2) rink m: the seats of the tracks not yet confirmed that their last keyframe saw."""
        seats = []
        for tr in self.players.tracks:
            if tr.confirmed or tr.misses:
                continue
            seats.append(self._blades_at(tr.kf.xy, cam, None).mean(axis=0))
        return np.array(seats, dtype=np.float64).reshape(-1, 2)

    def _keeper_like(self, players: list[dict] | None, seat_xy: np.ndarray) -> np.ndarray:
        """(P,) bool: which seats (P, 2) rink m are in front of a goal (``_in_front_of_goal``) on a
        player not yet seen to move (``PlayerTracker.min_move_m`` from where his track began; with
        ``players`` None, the seats of ``_tentative_seats``, every one such is).

        A goalkeeper is one only once his track is confirmed and the learned model has voted, and
        his pads, glove and stick are dark spots the carry model takes for a puck: on the tuning
        renders ``goal_crease_occupied_overhead_1539`` and ``goal_goalcam_1534`` (`/tmp/tune33`) a
        puck "carried" in the crease from the first frames held the track for 0.8 and 1.2 s, 41 and
        7 m from the true one. A skater there is searched beside once he has moved."""
        at_goal = np.array([self._in_front_of_a_goal(x, y) for x, y in np.asarray(seat_xy).reshape(-1, 2)], bool)
        if players is None:
            return at_goal
        moved = {tr.id: tr.max_disp_m >= self.players.min_move_m for tr in self.players.tracks}
        return at_goal & np.array([not moved.get(p["id"], False) for p in players], bool)

    def _blades_at(self, contact: np.ndarray, view: PlaneCamera | None, heading: np.ndarray | None) -> np.ndarray:
        """(2, 2) rink m: the blades (feet) of a player whose ground contact is ``contact`` (2,) rink m,
        seen by ``view`` (None: a side camera on the −y side), heading ``heading`` (or unknown)."""
        away = view.away_direction_rink(contact[None])[0] if view is not None else np.array([0.0, 1.0])
        legs = view is not None and bool(legs_resolvable(view, contact, self.ice_config.scale)[0])
        under_body = view is not None and bool(steep_view(view, contact)[0])
        return blades_from_contact(contact, away, heading, legs, under_body, self.body)

    def _player_records(self, cam: PlaneCamera | None, frame_index: int) -> list[dict]:
        """The frame's players (``FrameObservation.players``); fills ``self._player_backfill``
        with the earlier frames of the tracks first reported now."""
        out = []
        self._player_backfill = []
        for tr in self.players.lost:  # a logo's earlier tracks, lost before its spot was found out
            self._retract_if_paint(tr, tr.last_contact)
        view = cam if cam is not None else self._cam
        for tr in self.players.tracks:
            if not tr.confirmed:
                # A new track is reported once confirmed (``confirm_hits`` detections): the frames
                # before were his too, kept for his first report (a clip's first frames).
                tr.tentative.append((frame_index, self._blades_at(tr.kf.xy, view, tr.heading)))
        for tr in self.players.reported():
            if self._retract_if_paint(tr, tr.kf.xy):
                continue  # a logo in the ice (``_check_shapes``)
            # A goalkeeper shuffles across his crease, sideways to where his sledge points: his
            # direction of travel says nothing of where his blades lie from his body. He faces
            # the play: his sledge points up the ice from his goal line.
            heading = tr.heading if tr.role != "goalkeeper" else goalkeeper_heading(tr.goal_end)
            blades = self._blades_at(tr.kf.xy, cam if cam is not None else self._cam, heading)
            self._update_role(tr, blades.mean(axis=0))
            team = tr.votes.team
            if tr.role == "goalkeeper" and (team is None or _looks_like_goalkeeper(tr)):
                team = self._goal_team.get(tr.goal_end)
            out.append({
                "id": int(tr.id),
                "team": team,
                "role": tr.role,
                "blades": _blades_record(blades),
            })
            if tr.tentative:
                self._player_backfill += [{"frame": int(f), "player": {**out[-1], "blades": _blades_record(bl)}}
                                          for f, bl in tr.tentative]
                tr.tentative = []
        return out

    def _refine_blades(self, frame_bgr: np.ndarray, cam: PlaneCamera, lens_map, players: list[dict],
                       run_model: bool = True) -> None:
        """Each player's blades where the blade model finds them in a crop around his geometric
        blades (``vision.blade_crops``), in place; kept where it finds none, finds a player of too
        low a score, or places him more than ``BLADE_MODEL_MAX_SHIFT_M`` away (another player).

        The model runs on some keyframes (``run_model``: ``BLADE_MODEL_HZ`` a second); in between,
        each player's blades keep the shift from his geometric blades that the model last found
        (his filtered contact moves them; the shift is his body's, which changes slowly).
        """
        geo = [np.asarray(p["blades"], np.float64).reshape(2, 2) for p in players]
        if not run_model:
            for p, g in zip(players, geo):
                shift = self._blade_shift.get(p["id"])
                if shift is not None:
                    p["blades"] = _blades_record(g + shift)
            return
        self._blade_shift = {}
        windows, crops, idx = [], [], []
        for k, bl in enumerate(geo):
            w = crop_window(lambda xyz: cam.image_from_rink(xyz)[0], bl.mean(axis=0))
            if w is None or w[2] > 2.0 * max(frame_bgr.shape[:2]):
                continue
            windows.append(w)
            crops.append(cut_crop(frame_bgr, w))
            idx.append(k)
        if not crops:
            return
        kp, score = self.blade_model.blades_crop_px(np.stack(crops))
        for j, k in enumerate(idx):
            if not score[j] >= BLADE_MODEL_MIN_SCORE or not np.all(np.isfinite(kp[j])):
                continue
            px = crop_to_image(windows[j], kp[j])
            xy = lens_map(px, cam, 0.0) if lens_map is not None else cam.rink_from_image(px)[0]
            if not np.all(np.isfinite(xy)) or np.hypot(*(xy.mean(axis=0) - geo[k].mean(axis=0))) > BLADE_MODEL_MAX_SHIFT_M:
                continue
            # Keep the geometric pairing (left, right of the heading).
            if np.linalg.norm(xy - geo[k], axis=1).sum() > np.linalg.norm(xy[::-1] - geo[k], axis=1).sum():
                xy = xy[::-1]
            players[k]["blades"] = _blades_record(xy)
            self._blade_shift[players[k]["id"]] = xy - geo[k]

    def _update_role(self, tr: PlayerTrack, seat: np.ndarray) -> None:
        """Goalkeeper: a track that the learned detector saw as one (``_looks_like_goalkeeper``)
        while in front of a goal; else a track that stays in front of a goal (≥ 80 % of ≥ 20
        frames) unless the detector never saw a goalkeeper on it in four checks or more. The
        team of a goalkeeper seen as one is the team defending that goal (``_player_records``)."""
        x, y = float(seat[0]), float(seat[1])
        tr.role_frames += 1
        at = None
        for end in (+1, -1):
            if self._in_front_of_goal(end, x, y):
                tr.near_goal[end] += 1
                at = end
        if _looks_like_goalkeeper(tr) and at is not None:
            tr.role, tr.goal_end = "goalkeeper", at
            return
        for end in (+1, -1):
            if tr.role_frames >= 20 and tr.near_goal[end] >= 0.8 * tr.role_frames and not _never_a_goalkeeper(tr):
                tr.role, tr.goal_end = "goalkeeper", end
                return
        tr.role, tr.goal_end = "skater", None

    def _in_front_of_goal(self, end: int, x: float, y: float) -> bool:
        """In front of the goal line at ``end`` by at most 3 m (or just behind it), near the goal axis."""
        return -0.6 <= end * (end * self.goal_x_m - x) <= 3.0 and abs(y) <= 2.5

    def _in_front_of_a_goal(self, x: float, y: float) -> bool:
        """``_in_front_of_goal`` at either end."""
        return any(self._in_front_of_goal(end, float(x), float(y)) for end in (+1, -1))

    def _model_class_ids(self, *names: str) -> list[int]:
        """The learned model's class ids of ``names``, by its ``class_names`` (else
        ``vision.learned.DEFAULT_CLASS_NAMES``' order, as the ONNX export numbers them)."""
        known = list(getattr(self.goalkeeper_detector, "class_names", ()))
        return [known.index(n) for n in names if n in known] or \
            [DEFAULT_CLASS_NAMES.index(n) for n in names if n in DEFAULT_CLASS_NAMES]

    def _check_goalkeepers(self, frame_bgr: np.ndarray, frame_index: int, dets: Detections) -> None:
        """Run the learned detector a few times a second while a player is in front of a goal;
        vote goalkeeper / not on the tracks of the detections there, on the checks where it
        found a goalkeeper somewhere in the picture."""
        if self.goalkeeper_detector is None or frame_index - self._gk_last < self._gk_every or not len(dets):
            return
        xy = dets.data["contact_rink_m"]
        near = [j for j in range(len(dets)) if dets.tracker_id[j] >= 0 and self._in_front_of_a_goal(*xy[j])]
        if not near:
            return
        # Once every track there has its verdict (GK_SETTLED_CHECKS votes), or the model has not
        # seen a goalkeeper in this view for that many checks (it sees none from high above),
        # checks come GK_SETTLED_SLOWDOWN times less often: the model is a tenth of the frame's
        # time at the full rate, and a goalkeeper stays in front of his goal all game.
        tracks = {tr.id: tr for tr in self.players.tracks}

        def checks(j: int) -> int:
            tr = tracks.get(int(dets.tracker_id[j]))
            return GK_SETTLED_CHECKS if tr is None else tr.gk_looks + tr.gk_misses

        settled = self._gk_blind_runs >= GK_SETTLED_CHECKS or all(checks(j) >= GK_SETTLED_CHECKS for j in near)
        if settled and frame_index - self._gk_last < GK_SETTLED_SLOWDOWN * self._gk_every:
            return
        self._gk_last = frame_index
        found = self._learned(frame_bgr, frame_index)
        if found is None:
            return
        boxes = found.xyxy[np.isin(found.class_id, self._model_class_ids("goalkeeper"))] if len(found) \
            else np.zeros((0, 4))
        if not len(boxes):
            # No goalkeeper anywhere in the picture: the model cannot see them in this view
            # (from 45 m above it found none of 70 visible ones, benchmarks/eval_goalkeepers.py),
            # so it has no say about the players in front of the goal either.
            self._gk_blind_runs += 1
            return
        self._gk_blind_runs = 0
        for j in near:
            tr = tracks.get(int(dets.tracker_id[j]))
            if tr is None:
                continue
            if _contact_in_box(dets.data["contact_xy_px"][j], boxes):
                tr.gk_looks += 1
            else:
                tr.gk_misses += 1

    def _learned(self, frame_bgr: np.ndarray, frame_index: int, faint: bool = False) -> Any:
        """The learned detector's ``Detections`` on this frame at ``LEARNED_CONF`` (``faint``:
        down to ``PAINT_CLEAR_SCORE``, as far as the detector reports), run at most once a frame
        (the goalkeeper and shape checks share it); None when there is no model or it failed."""
        if self._learned_run is None or self._learned_run[0] != frame_index:
            self._learned_run = (frame_index, self._run_learned(frame_bgr))
        found = self._learned_run[1]
        if found is None or faint:
            return found
        return found[found.confidence >= LEARNED_CONF]

    def _run_learned(self, frame_bgr: np.ndarray) -> Any:
        """The learned detector on the frame (loaded at the first call); None without one."""
        if isinstance(self.goalkeeper_detector, str):  # "default", not loaded yet
            self.goalkeeper_detector = _default_goalkeeper_detector()
        if self.goalkeeper_detector is None:
            return None
        try:
            return self.goalkeeper_detector(frame_bgr)
        except Exception as exc:  # a failing model must not cost the frame: positional rule only
            warnings.warn(f"learned player model failed ({exc!r}); goalkeepers by position only and "
                          "no shape checks from now on")
            self.goalkeeper_detector = None
            return None

    def _check_shapes(self, frame_bgr: np.ndarray, frame_index: int, dets: Detections) -> None:
        """Ask the learned detector whether doubtful tracks are sledges: still tracks in a
        team's colour (paint? ``PaintMap``) and tracks of no team (a shadow, a stick?).

        A logo in the ice in a team's colour takes the team vote and never moves, as a player
        waiting for a face-off does; only the shape tells them apart, and the classical
        detector does not know it. Still tracks (never ``PAINT_STILL_M`` from where they began: a
        logo's blob jitters) in a team's colour away from the goals are checked while their spot
        is undecided; a track of no team until the model sees a sledge on it, at most
        ``NO_TEAM_CHECKS`` times, and once checked it is reported only if it did
        (``PlayerTracker.reported``). Checks come
        at most every ``_gk_every`` frames and count only where the model found at least
        ``PAINT_MIN_REFERENCE`` of the moving players of a team there (this view is one it sees
        sledges in). Sledges only: the model has not seen a standing player.
        """
        if self.goalkeeper_detector is None or not len(dets) or self.body.kind != "sledge":
            return
        tracks = {tr.id: tr for tr in self.players.tracks}
        xy = dets.data["contact_rink_m"]
        suspects, moving, unknown = [], [], []
        for j in range(len(dets)):
            tr = tracks.get(int(dets.tracker_id[j]))
            if tr is None or not tr.confirmed:
                continue
            at_goal = tr.role == "goalkeeper" or self._in_front_of_a_goal(*xy[j])
            if tr.votes.team is None or not tr.colour_seen:
                if not at_goal and tr.model_looks == 0 and tr.model_checks < NO_TEAM_CHECKS:
                    unknown.append(j)
            else:
                if tr.max_disp_m >= self.players.min_move_m:
                    moving.append(j)  # the players the model should see here
                if tr.max_disp_m < PAINT_STILL_M and not at_goal and tr.model_looks == 0 \
                        and self.paint.undecided(xy[j]):
                    suspects.append(j)  # still, or jittering as a logo's blob does; not yet seen
        if not (suspects or unknown) or len(moving) < 2:
            return
        shared = self._learned_run is not None and self._learned_run[0] == frame_index
        if not shared and frame_index - self._shapes_last < self._gk_every:
            return
        self._shapes_last = frame_index
        faint = self._learned(frame_bgr, frame_index, faint=True)
        if faint is None or not len(faint):
            return
        bodies = np.isin(faint.class_id, self._model_class_ids("sledge", "goalkeeper"))
        boxes = faint.xyxy[bodies & (faint.confidence >= LEARNED_CONF)]
        uv = dets.data["contact_xy_px"]
        seen = {j: _contact_in_box(uv[j], boxes) for j in moving}

        def sees_most(players: list[int]) -> bool:
            """The model saw PAINT_MIN_REFERENCE of these players: a view it sees sledges in."""
            return bool(players) and sum(seen[j] for j in players) >= PAINT_MIN_REFERENCE * len(players)

        if not sees_most(moving):
            unknown = []  # it misses the players it should see here: no say about the doubtful ones
        # For the paint votes a jittering suspect the model does not see is no reference: it may
        # be the logo in question.
        if not sees_most([j for j in moving if seen[j] or j not in suspects]):
            suspects = []
        for j in suspects:
            if j in seen:  # jittering: its look may be a player passing by, its clear miss counts
                looked = seen[j]
            else:  # still: a look clears the spot while the sledge stays, and this track for good
                looked = _contact_in_box(uv[j], boxes)
                if looked:
                    self.paint.vote(xy[j], True)
                    tracks[int(dets.tracker_id[j])].model_looks += 1
            if not looked and not _contact_in_box(uv[j], faint.xyxy[bodies]):
                self.paint.vote(xy[j], False)  # a clear miss: not even a faint sledge there
        for j in unknown:
            tr = tracks[int(dets.tracker_id[j])]
            tr.model_checks += 1
            tr.model_looks += int(_contact_in_box(uv[j], boxes))


def _contact_in_box(contact_xy_px: np.ndarray, boxes_xyxy_px: np.ndarray) -> bool:
    """Whether a player's ground contact (2,) px lies in one of the learned detector's (N, 4)
    boxes: the contact (the seat's ground edge) lies in the lower part of the box, and a few
    pixels of slack cover the box's and the contact's errors."""
    u, v = contact_xy_px
    return any(b[0] - 8 <= u <= b[2] + 8 and b[1] <= v <= b[3] + 12 for b in boxes_xyxy_px)


# Goalkeeper checks on a track that make its verdict, and how much rarer checks are after that.
GK_SETTLED_CHECKS = 6
GK_SETTLED_SLOWDOWN = 4


class PaintMap:
    """What the learned detector saw at still tracks, per square of the ice (``PAINT_CELL_M``).

    Paint in the ice stays where it is, so the checks of every still track born on it add up,
    however often its track breaks and restarts; players move on and leave their looks behind.
    A spot (a square and its eight neighbours) is paint once ``PAINT_CHECKS`` checks there found
    no sledge since the last one that found one. A look clears a spot only until the sledge seen
    there has gone: a player waiting on a centre-ice logo for a face-off made it a player's spot for
    the rest of a 60 s free play before stop 42, and the logo's letters in the away team's blue
    stayed away players beside him (fresh render 782).
    """

    def __init__(self) -> None:
        self._cells: dict[tuple[int, int], list] = {}  # (ix, iy) -> [last look's number, [misses' numbers]]
        self._n = 0  # checks voted so far: their order

    @staticmethod
    def _cell(xy_rink_m: np.ndarray) -> tuple[int, int]:
        return int(np.floor(xy_rink_m[0] / PAINT_CELL_M)), int(np.floor(xy_rink_m[1] / PAINT_CELL_M))

    def vote(self, xy_rink_m: np.ndarray, sledge_seen: bool) -> None:
        self._n += 1
        c = self._cells.setdefault(self._cell(xy_rink_m), [0, []])
        if sledge_seen:
            c[0] = self._n
        else:
            # Only the latest PAINT_CHECKS misses of a square can decide (a spot is paint once
            # that many came after its last look): the older ones are dropped, so a logo's
            # squares do not grow with the length of the game.
            c[1] = (c[1] + [self._n])[-PAINT_CHECKS:]

    def _misses_since_look(self, xy_rink_m: np.ndarray) -> int:
        """Checks of the spot around ``xy_rink_m`` that found no sledge since the last that found one."""
        ix, iy = self._cell(xy_rink_m)
        cells = [c for c in (self._cells.get((ix + dx, iy + dy)) for dx in (-1, 0, 1) for dy in (-1, 0, 1))
                 if c is not None]
        last_look = max((c[0] for c in cells), default=0)
        return sum(1 for c in cells for n in c[1] if n > last_look)

    def is_paint(self, xy_rink_m: np.ndarray) -> bool:
        return self._misses_since_look(xy_rink_m) >= PAINT_CHECKS

    def undecided(self, xy_rink_m: np.ndarray) -> bool:
        """Not (yet, or no longer) paint: its still tracks are worth a check."""
        return not self.is_paint(xy_rink_m)


# Paint checks (``FrameTracker._check_shapes``, ``PaintMap``). On the tuning renders (seeds
# 401-467, a check every 10 frames) logo tracks were never seen as sledges (0 of 3-11 checks),
# but a real player on the far side was missed 4 times running before 4 looks (goal_broadcast
# 404), and from above or behind a goal whole face-offs were missed: hence 8 checks until stop
# 36, and checks only where the model sees most moving players. Since stop 37 a miss counts only
# when the model reports no sledge there at all down to PAINT_CLEAR_SCORE: of 21 misses on real
# still players (29 broadcast and blue-line tuning renders; docs/vision.md, stop 37) 18 had a box
# scoring 0.15-0.40 there, of 81 on logos 72 had none and 7 under 0.09. Counted so, no real
# player's spot came near paint, and logos are paint after 5 checks (1.7 s) instead of 8 (2.7 s:
# longer than a review clip, where they stayed players).
PAINT_CELL_M = 1.0
# A logo's track jitters as its blob changes with the view (1.3-2.3 m on the suite's broadcast
# clips, where such tracks counted as moving and were never checked); a track that never got
# farther than this from where it began is checked, and retracted on paint.
PAINT_STILL_M = 2.5
PAINT_CHECKS = 5
PAINT_MIN_REFERENCE = 0.75
PAINT_CLEAR_SCORE = 0.1
# What the learned detector must score for its box to count as seen (goalkeepers, sledges).
LEARNED_CONF = 0.4
# A track of no team is checked at most this many times until the model sees a sledge on it.
# Tuning renders (analyze outputs, a check every 10 frames): of 13 tracks reported without a team,
# the 11 false ones (shadows, sticks, a board's edge) were seen 0 of 0-10 times (but 1 of 1 and
# 1 of 10 for two beside real players), the 2 real ones 2 of 2 and 0 of 1.
NO_TEAM_CHECKS = 4


def _looks_like_goalkeeper(tr: PlayerTrack) -> bool:
    """The learned detector saw a goalkeeper on this track at least twice, and in at least a
    quarter of its checks (its goalkeeper recall is about one half, its precision 0.97:
    models/sledge_pose.md)."""
    return tr.gk_looks >= 2 and tr.gk_looks >= 0.25 * (tr.gk_looks + tr.gk_misses)


def _never_a_goalkeeper(tr: PlayerTrack) -> bool:
    """Checked at least four times in front of a goal and never seen as a goalkeeper."""
    return tr.gk_looks == 0 and tr.gk_misses >= 4


@functools.lru_cache(maxsize=1)
def _default_goalkeeper_detector():
    """The shipped learned pose model, or None (no model file or no ONNX Runtime)."""
    try:
        from vision.learned import DEFAULT_MODEL_PATH, OnnxPoseDetector

        if not DEFAULT_MODEL_PATH.is_file():
            return None
        # One thread: in `analyze` it runs beside the calibration process, which has the other core.
        return OnnxPoseDetector(conf=PAINT_CLEAR_SCORE, intra_op_threads=1)
    except Exception:
        return None


def _load_patch_classifier(path: Path, what: str, without: str):
    """``PuckVerifier(path)``, or None when the file is missing or ONNX Runtime cannot load it
    (said as "``what`` PATH not loaded (...); ``without``")."""
    from vision.puck_verifier import PuckVerifier

    if not path.is_file():
        return None
    try:
        return PuckVerifier(path)
    except Exception as exc:  # a damaged model must not stop the analysis
        warnings.warn(f"{what} {path} not loaded ({exc!r}); {without}")
        return None


@functools.lru_cache(maxsize=1)
def _default_puck_verifier():
    """The shipped puck verifier, or None (no model file, or one ONNX Runtime cannot load: said once)."""
    from vision.puck_verifier import DEFAULT_MODEL_PATH

    return _load_patch_classifier(DEFAULT_MODEL_PATH, "puck verifier", "classical puck scores only")


@functools.lru_cache(maxsize=2)
def _default_carry_verifier(body_kind: str = "sledge"):
    """The shipped carry model for players of ``body_kind`` ("sledge" | "standing"), or None (no
    model file, or one ONNX Runtime cannot load: said once)."""
    if body_kind == "standing":
        return _load_patch_classifier(CARRY_STANDING_MODEL_PATH, "carry model", "no carried-puck candidates")
    first = _load_patch_classifier(CARRY_MODEL_PATH, "carry model", "no carried-puck candidates")
    partial = _load_patch_classifier(CARRY_PARTIAL_MODEL_PATH, "carry model",
                                     "carried pucks mostly hidden by their stick are missed more")
    if first is None or partial is None:
        return first or partial
    return MaxOfVerifiers([first, partial])


def _in_gate(puck: PuckTracker, cands: Detections) -> np.ndarray:
    """(N,) bool: the candidates in the puck track's gate (none without a track)."""
    if puck.kf is None or not len(cands):
        return np.zeros(len(cands), dtype=bool)
    return np.array([puck.kf.mahalanobis2(xy, 0.05) <= GATE_CHI2 for xy in cands.data["xy_rink_m"]], dtype=bool)


def _has_gated(puck: PuckTracker, cands: Detections) -> bool:
    return bool(_in_gate(puck, cands).any())


def _default_blade_model() -> Any:
    """The shipped blade-keypoint model (``models/blade_keypoints.onnx``), or None without it."""
    if not BLADE_MODEL_PATH.is_file():
        return None
    from vision.blade_keypoints import BladeKeypointModel

    return BladeKeypointModel(BLADE_MODEL_PATH, intra_op_threads=1)


def _lens_mapper(calib: Any):
    """Raw px → rink m through the calibration's lens model, or None when it has none.

    Returns ``f(xy_px (N, 2), cam, z_m) → (N, 2)``: ``calib.image_to_rink`` gives the ice-plane
    point under the pixel's ray; a point ``z_m`` above the ice on the same ray lies nearer the
    camera centre C by the factor ``1 − z/C_z`` (similar triangles), with C from ``cam``.
    """
    if getattr(calib, "lens", None) is None or getattr(calib, "rink_from_undistorted", None) is None:
        return None
    if not callable(getattr(calib, "image_to_rink", None)):
        return None

    def f(xy_px: np.ndarray, cam: PlaneCamera, z_m: float) -> np.ndarray:
        g = np.asarray(calib.image_to_rink(np.asarray(xy_px, np.float64).reshape(-1, 2)), np.float64)
        g = g[0] if isinstance(g, tuple) else g
        g = np.asarray(g, np.float64).reshape(-1, 2)
        C = cam.position_xyz_m
        if z_m and C is not None and C[2] > z_m:
            g = C[:2] + (g - C[:2]) * (1.0 - z_m / C[2])
        return g

    return f


def _with_net_rest(cands: Detections, rest: Detections) -> Detections:
    """``cands`` and a net's rest spots (``NetWatch.spots``) as one set: the spots get the data
    keys only the candidates have (0; the verifier's ``verifier_p`` nan: not judged), the
    candidates those only the spots have (0: ``net_rest`` false)."""
    for x, y in ((rest, cands), (cands, rest)):
        for k, v in y.data.items():
            if k not in x.data:
                fill = np.nan if (k == "verifier_p" and x is rest) else 0.0
                x.data[k] = np.full((len(x),) + np.asarray(v).shape[1:], fill)
    return Detections.merge([cands, rest])


def _merge_zero_filled(a: Detections, b: Detections) -> Detections:
    """``Detections.merge([a, b])`` after giving each the data keys only the other has, as zeros."""
    for x, y in ((a, b), (b, a)):
        for k, v in y.data.items():
            if k not in x.data:
                x.data[k] = np.zeros((len(x),) + np.asarray(v).shape[1:])
    return Detections.merge([a, b])


def _blades_record(blades: np.ndarray) -> list[list[float]]:
    """(2, 2) blade points, rink m, as a ``tracks.jsonl`` record writes them (to 0.1 mm)."""
    return [[round(float(b[0]), 4), round(float(b[1]), 4)] for b in blades]


def _with_streak_keys(d: Detections) -> Detections:
    """Compact candidates get ``streak_length_px`` 0, ``streak_dir`` (0, 0) and ``moved`` 0 so they merge with streaks."""
    if len(d) == 0 and "xy_rink_m" not in d.data:
        d.data.update({"centre_xy_px": np.zeros((0, 2)), "xy_rink_m": np.zeros((0, 2)), "area_px": np.zeros(0),
                       "expected_area_px": np.zeros(0), "contrast": np.zeros(0), "isolation": np.zeros(0),
                       "motion": np.zeros(0)})
    d.data.setdefault("streak_length_px", np.zeros(len(d)))
    d.data.setdefault("streak_dir", np.zeros((len(d), 2)))
    d.data.setdefault("moved", np.zeros(len(d)))  # 1 for the motion detector's candidates
    return d

