"""Pydantic models of the output files in the design's contract, and safe I/O.

* ``events.json``: :class:`EventsFile` of :class:`Event`.
* ``tracks.jsonl``: one :class:`TrackFrame` per line.
* ``calibration.jsonl``: one :class:`CalibrationFrame` per line.

Events are a fixed contract that other tools read, so unknown keys are errors.
Per-frame records (tracks, calibration) come from other systems too, so unknown
keys are kept (``extra="allow"``) and written back unchanged.

Files are written atomically (a temporary file in the same folder, then
``os.replace``) so an interrupted run never leaves a torn file.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Literal, TypeVar

import orjson
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_serializer,
    model_validator,
)

from rulesfromvideo.profiles import format_validation_error

EventType = Literal["zone_entry", "icing", "goal", "crease"]
Team = Literal["home", "away"]

# Verdicts allowed per event type (design, "DIR receives").
ALLOWED_VERDICTS: dict[str, tuple[str, ...]] = {
    "zone_entry": ("onside", "offside", "inconclusive"),  # 903
    "icing": ("icing", "waved_off", "inconclusive"),  # 905
    "goal": ("goal", "no_goal", "inconclusive"),  # 906
    "crease": ("clear", "occupied", "inconclusive"),  # 907 a4
}


class SchemaError(ValueError):
    """An output file or record does not match the schema; names the line and field."""


class Event(BaseModel):
    """One rule call (an entry of ``events.json``).

    Attributes:
        type: ``zone_entry`` | ``icing`` | ``goal`` | ``crease``.
        t: video time of the deciding instant, s (sub-frame).
        frame: index of the frame nearest ``t``.
        team: entering / shooting / attacking team (per type, see the design).
        verdict: one of :data:`ALLOWED_VERDICTS` for the type.
        confidence: in [0, 1].
        margin_m: signed distance that decided the call, m; None only when the
            verdict is ``inconclusive`` and nothing could be measured.
        rule: clause applied, e.g. ``"903 b1"``.
        evidence: free-form details (deciding player, exception name, ...).
    """

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    type: EventType
    t: float = Field(ge=0)
    frame: int = Field(ge=0)
    team: Team
    verdict: str
    confidence: float = Field(ge=0, le=1)
    margin_m: float | None
    rule: str = Field(min_length=1)
    evidence: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _verdict_fits_type(self) -> Event:
        allowed = ALLOWED_VERDICTS[self.type]
        if self.verdict not in allowed:
            raise ValueError(
                f"verdict: {self.verdict!r} is not a {self.type} verdict "
                f"(allowed: {', '.join(allowed)})"
            )
        if self.margin_m is None and self.verdict != "inconclusive":
            raise ValueError(f"margin_m: required for verdict {self.verdict!r}")
        return self


class EventsFile(BaseModel):
    """``events.json``: ``{"events": [...]}``."""

    model_config = ConfigDict(extra="forbid")

    events: list[Event] = Field(default_factory=list)


class Touch(BaseModel):
    """The player who touched the puck on this frame."""

    model_config = ConfigDict(extra="allow")

    player: int | str
    # None: the touching player's team is not known (as for players, vision says so rather
    # than guess); the rules take the team from the player's track.
    team: Team | None = None


class Puck(BaseModel):
    """Puck position in rink metres; ``measured: false`` = inferred through occlusion."""

    model_config = ConfigDict(extra="allow", allow_inf_nan=False)

    x: float
    y: float
    measured: bool
    z: float | None = Field(default=None, description="height above the ice, m")
    touch: Touch | None = None

    @model_serializer(mode="wrap")
    def _omit_absent_optionals(self, handler):
        # z and touch are optional in the contract: leave them out rather than null.
        data = handler(self)
        for key in ("z", "touch"):
            if data.get(key) is None:
                data.pop(key, None)
        return data


class Player(BaseModel):
    """One player: blade (sledge) or foot (standing player) contact points, rink metres."""

    model_config = ConfigDict(extra="allow", allow_inf_nan=False)

    id: int | str
    # None: the tracker could not tell the team (vision says so rather than guess).
    team: Team | None = None
    role: Literal["skater", "goalkeeper"]
    blades: tuple[tuple[float, float], tuple[float, float]]

    @field_validator("role", mode="before")
    @classmethod
    def _role_aliases(cls, v: Any) -> Any:
        # Other trackers say "goalie" / "player"; normalise to the design's words.
        return {"goalie": "goalkeeper", "player": "skater"}.get(v, v)


class TrackFrame(BaseModel):
    """One line of ``tracks.jsonl``."""

    model_config = ConfigDict(extra="allow", allow_inf_nan=False)

    frame: int = Field(ge=0)
    t: float = Field(ge=0)
    puck: Puck | None
    players: list[Player] = Field(default_factory=list)


class CalibrationFrame(BaseModel):
    """One line of ``calibration.jsonl``: raw image pixels -> rink metres, or None."""

    model_config = ConfigDict(extra="allow", allow_inf_nan=False)

    frame: int = Field(ge=0)
    H_rink_from_image: (
        tuple[tuple[float, float, float], tuple[float, float, float], tuple[float, float, float]]
        | None
    )
    quality: float = Field(ge=0, le=1)


M = TypeVar("M", bound=BaseModel)


def _read_jsonl(path: str | Path, model: type[M]) -> Iterator[M]:
    # Open now so that a missing file fails at the call, not at the first next().
    path = Path(path)
    try:
        fh = path.open("r", encoding="utf-8")
    except OSError as exc:
        raise SchemaError(f"cannot read {path}: {exc.strerror or exc}") from None
    return _iter_jsonl(fh, path, model)


def _iter_jsonl(fh, path: Path, model: type[M]) -> Iterator[M]:
    with fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue  # blank lines (e.g. a trailing newline) carry nothing
            try:
                data = json.loads(line)
            except json.JSONDecodeError as exc:
                raise SchemaError(f"{path} line {lineno}: not valid JSON: {exc.msg}") from None
            try:
                yield model.model_validate(data)
            except ValidationError as exc:
                raise SchemaError(
                    f"{path} line {lineno}: {format_validation_error(exc)}"
                ) from None


def read_tracks_jsonl(path: str | Path) -> Iterator[TrackFrame]:
    """Iterate over ``tracks.jsonl`` records, validated, skipping blank lines.

    The file is read lazily, one line at a time; records before a bad line are
    delivered before the error.

    Raises:
        SchemaError: at the call when the file cannot be opened; during iteration on
            the first bad line, e.g. ``"tracks.jsonl line 7: players[0].team: ..."``.
    """
    return _read_jsonl(path, TrackFrame)


_ROLES = {"skater": "skater", "goalkeeper": "goalkeeper", "goalie": "goalkeeper", "player": "skater"}
_TEAMS = ("home", "away")


def _finite(v: Any) -> bool:
    return type(v) in (int, float) and math.isfinite(v)


def _plain_track(d: Any) -> dict | None:
    """The record as a plain dict when it is a well-formed TrackFrame, else None.

    A fast path for the common case (a 60-minute game is ~10^5 lines): it accepts
    only what `TrackFrame` accepts and normalises the same way (role aliases,
    absent optionals dropped); anything unusual goes through pydantic, which
    names the bad field.
    """
    if not isinstance(d, dict) or type(d.get("frame")) is not int or d["frame"] < 0:
        return None
    t = d.get("t")
    if not _finite(t) or t < 0 or "puck" not in d:
        return None
    puck = d["puck"]
    if puck is not None:
        if (not isinstance(puck, dict) or not _finite(puck.get("x")) or not _finite(puck.get("y"))
                or type(puck.get("measured")) is not bool):
            return None
        z, touch = puck.get("z"), puck.get("touch")
        if z is not None and not _finite(z):
            return None
        if touch is not None and (not isinstance(touch, dict)
                                  or (touch.get("team") is not None and touch.get("team") not in _TEAMS)
                                  or type(touch.get("player")) not in (int, str)):
            return None
        if z is None and "z" in puck or touch is None and "touch" in puck:
            puck = {k: v for k, v in puck.items() if not (k in ("z", "touch") and v is None)}
    players = d.get("players", [])
    if not isinstance(players, list):
        return None
    out_players = []
    for p in players:
        if not isinstance(p, dict) or type(p.get("id")) not in (int, str):
            return None
        role = _ROLES.get(p.get("role")) if isinstance(p.get("role"), str) else None
        team = p.get("team")
        b = p.get("blades")
        if role is None or (team is not None and team not in _TEAMS) or not isinstance(b, list) \
                or len(b) != 2 or any(not isinstance(q, list) or len(q) != 2 or not _finite(q[0])
                                      or not _finite(q[1]) for q in b):
            return None
        if role != p["role"] or "team" not in p:
            p = {**p, "role": role, "team": team}
        out_players.append(p)
    return {**d, "puck": puck, "players": out_players}


def iter_track_dicts(path: str | Path) -> Iterator[dict]:
    """Like :func:`read_tracks_jsonl` but yields validated plain dicts, fast.

    Well-formed lines skip pydantic (see `_plain_track`); any other line is
    validated by `TrackFrame`, so errors still name the line and the field.
    """
    path = Path(path)
    try:
        fh = path.open("r", encoding="utf-8")
    except OSError as exc:
        raise SchemaError(f"cannot read {path}: {exc.strerror or exc}") from None
    return _iter_track_dicts(fh, path)


def _iter_track_dicts(fh, path: Path) -> Iterator[dict]:
    with fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                # orjson is ~3x faster and, being strict JSON, never yields NaN/inf;
                # lines it refuses (e.g. a NaN token) go to json + pydantic for the message.
                data = orjson.loads(line)
            except orjson.JSONDecodeError:
                data = None
            if data is None:
                try:
                    data = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise SchemaError(f"{path} line {lineno}: not valid JSON: {exc.msg}") from None
            fast = _plain_track(data)
            if fast is not None:
                yield fast
                continue
            try:
                yield TrackFrame.model_validate(data).model_dump()
            except ValidationError as exc:
                raise SchemaError(f"{path} line {lineno}: {format_validation_error(exc)}") from None


def read_calibration_jsonl(path: str | Path) -> Iterator[CalibrationFrame]:
    """Iterate over ``calibration.jsonl`` records (errors name the line like tracks)."""
    return _read_jsonl(path, CalibrationFrame)


def _atomic_write_text(path: Path, write) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _validated(records: Iterable[Any], model: type[M], what: str) -> list[M]:
    out = []
    for i, rec in enumerate(records):
        try:
            out.append(rec if isinstance(rec, model) else model.model_validate(rec))
        except ValidationError as exc:
            raise SchemaError(f"{what}[{i}]: {format_validation_error(exc)}") from None
    return out


def write_events_json(path: str | Path, events: Iterable[Event | dict]) -> None:
    """Validate and write ``events.json`` atomically (``{"events": [...]}``).

    Args:
        path: destination file; its folder is created if missing.
        events: :class:`Event` objects or dicts in the same shape.

    Raises:
        SchemaError: an event is invalid (``events[i]: field: message``); the
            destination is then left untouched.
    """
    checked = _validated(events, Event, "events")
    doc = EventsFile(events=checked).model_dump(mode="json")
    _atomic_write_text(Path(path), lambda fh: json.dump(doc, fh, indent=1))


def read_events_json(path: str | Path) -> EventsFile:
    """Read and validate ``events.json``.

    Raises:
        SchemaError: unreadable, invalid JSON or a bad event (the field is named).
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SchemaError(f"cannot read {path}: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise SchemaError(f"{path}: not valid JSON: {exc.msg} (line {exc.lineno})") from None
    try:
        return EventsFile.model_validate(data)
    except ValidationError as exc:
        raise SchemaError(f"{path}: {format_validation_error(exc)}") from None


def write_jsonl(path: str | Path, records: Iterable[TrackFrame | CalibrationFrame | dict],
                model: type[BaseModel] | None = None) -> None:
    """Write one JSON object per line, atomically.

    Args:
        path: destination (``tracks.jsonl`` or ``calibration.jsonl``).
        records: models or dicts; dicts are validated against ``model`` when given.
        model: :class:`TrackFrame` or :class:`CalibrationFrame` to validate dicts.

    Raises:
        SchemaError: a record is invalid (``records[i]: ...``); nothing is written.
    """
    recs = list(records)
    if model is not None:
        recs = _validated(recs, model, "records")

    def write(fh) -> None:
        for rec in recs:
            obj = rec.model_dump(mode="json") if isinstance(rec, BaseModel) else rec
            fh.write(json.dumps(obj, separators=(",", ":")) + "\n")

    _atomic_write_text(Path(path), write)
