"""Benchmark scripts are files, not a package: tests load one as a module by its path."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture()
def load_benchmark(monkeypatch):
    """``load_benchmark("eval_blade_error")`` → the script ``benchmarks/eval_blade_error.py`` as a
    module (its top level run, not its ``main``); removed from ``sys.modules`` after the test."""

    def load(name: str):
        spec = importlib.util.spec_from_file_location(f"_bench_{name}_t", BENCHMARKS / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        monkeypatch.setitem(sys.modules, spec.name, module)
        spec.loader.exec_module(module)
        return module

    return load
