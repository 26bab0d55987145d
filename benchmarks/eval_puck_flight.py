"""How many rays a single camera needs to tell a lifted puck from a sliding one, and how well it places it.

A lifted shot (13.8, 2.1, 3.5) m/s from (20.2, −0.3) seen from a broadcast camera 9 m up on
the −y side (the geometry of ``tests/vision/test_puck_flight.py``), rays met with the puck's
plane, Gaussian noise per measurement; per number of measurements: the share of seeded
trials that ``is_airborne`` calls a flight, the median and p90 3D position error of the fit
at the last measurement, and the median stated 1-sigma.

    .venv/bin/python benchmarks/eval_puck_flight.py [--noise-m 0.01] [--trials 20]
"""

from __future__ import annotations

import argparse

import numpy as np

from vision.puck_flight import GRAVITY_MPS2, fit_flight, is_airborne

Z_PLANE, CAMERA, FPS = 0.0127, np.array([0.0, -23.0, 9.0]), 30.0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--noise-m", type=float, default=0.01)
    ap.add_argument("--trials", type=int, default=20)
    args = ap.parse_args(argv)
    v0, x0 = np.array([13.8, 2.1, 3.5]), np.array([20.2, -0.3, Z_PLANE])
    print(f"noise {100 * args.noise_m:.1f} cm, {args.trials} trials per row")
    print(f"{'rays':>4s} {'airborne':>9s} {'err med m':>9s} {'err p90 m':>9s} {'sigma med m':>11s} {'projected err m':>15s}")
    for n in (6, 8, 10, 12, 14):
        t = np.arange(1, n + 1) / FPS
        X = x0 + np.outer(t, v0) - np.outer(0.5 * GRAVITY_MPS2 * t * t, [0, 0, 1])
        k = (CAMERA[2] - Z_PLANE) / (CAMERA[2] - X[:, 2])
        rays = CAMERA[:2] + (X[:, :2] - CAMERA[:2]) * k[:, None]
        hits, errs, sig = 0, [], []
        for seed in range(args.trials):
            p = rays + np.random.default_rng(seed).normal(0, args.noise_m, rays.shape)
            fit = fit_flight(t, p, CAMERA, Z_PLANE)
            hits += is_airborne(fit, args.noise_m, Z_PLANE)
            errs.append(np.linalg.norm(fit.position(t[-1]) - X[-1]))
            sig.append(fit.position_sigma_m(args.noise_m))
        print(f"{n:4d} {hits:4d}/{args.trials:<4d} {np.median(errs):9.2f} {np.percentile(errs, 90):9.2f} "
              f"{np.median(sig):11.2f} {np.linalg.norm(rays[-1] - X[-1, :2]):15.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
