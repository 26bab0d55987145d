"""Plain JSON-lines reading: one JSON object per line, blank lines ignored.

The pipeline appends one line per frame, so an interrupted run can leave a
cut-off last line; that line is skipped with a warning (the run keeps what it
wrote), while a bad line anywhere else raises ``ValueError`` naming the line.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Iterator


def iter_jsonl(path: str | Path) -> Iterator[dict]:
    """Stream the records of a JSONL file.

    Args:
        path: the file.

    Yields:
        One dict per non-blank line, in file order.

    Raises:
        ValueError: a line other than the last is not valid JSON (message names the line).
    """
    path = Path(path)
    with open(path, encoding="utf-8") as fh:
        pending: tuple[int, str] | None = None
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            if pending is not None:
                yield _parse(path, *pending)
            pending = (lineno, line)
        if pending is not None:
            try:
                yield _parse(path, *pending)
            except ValueError as exc:
                warnings.warn(f"{exc} (truncated last line of an interrupted run?) - skipped", stacklevel=2)


def _parse(path: Path, lineno: int, line: str) -> dict:
    try:
        return json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} line {lineno}: not valid JSON: {exc.msg}") from None


def read_jsonl(path: str | Path) -> list[dict]:
    """All records of a JSONL file as a list (see :func:`iter_jsonl`)."""
    return list(iter_jsonl(path))
