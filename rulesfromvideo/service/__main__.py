"""`python -m rulesfromvideo.service serve|live ...` (the same commands as `rulesfromvideo serve|live`)."""

import argparse
import sys

from rulesfromvideo.service.cli import add_live_parser, add_serve_parser


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rulesfromvideo.service")
    sub = parser.add_subparsers(dest="command", required=True)
    add_serve_parser(sub)
    add_live_parser(sub)
    args = parser.parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
