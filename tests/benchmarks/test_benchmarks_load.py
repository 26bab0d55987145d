"""Every benchmark script still loads: its imports name functions that exist.

The benchmarks are run by hand (they print figures, docs/benchmarks.md), so a renamed
function would otherwise surface only when someone next measures (bench_vision.py imported
a helper that ``vision.evaluation`` had dropped). Loading runs each script's top level, not
its ``main``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
SCRIPTS = sorted(p for p in BENCHMARKS.glob("*.py"))


def test_benchmarks_folder_has_scripts():
    assert len(SCRIPTS) >= 10


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_benchmark_script_loads(script, monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))  # some import their neighbours (sample_frames)
    spec = importlib.util.spec_from_file_location(f"_bench_{script.stem}", script)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)
    assert callable(getattr(module, "main", None)), f"{script.name} has no main()"
