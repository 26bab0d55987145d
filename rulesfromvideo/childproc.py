"""What our worker processes share (``calibration_worker`` for ``analyze``,
``service.vision_worker`` for the live feed): both are ``python -m`` children that talk
pickles over a pipe.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import BinaryIO

_ROOT = str(Path(__file__).resolve().parents[1])


def checkout_env() -> dict[str, str]:
    """This process's environment with this very checkout first on ``PYTHONPATH``, so a
    ``python -m`` child imports the same code also when it is not the installed one."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([_ROOT, *filter(None, [env.get("PYTHONPATH")])])
    return env


def result_stream() -> BinaryIO:
    """In a child: its original standard output as a binary stream for results, with
    ``sys.stdout`` sent to standard error from now on, so that stray prints (ours or a
    library's) never corrupt the pickles the parent reads."""
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    return out
