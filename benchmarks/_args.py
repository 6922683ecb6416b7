"""The command-line arguments the ranking benchmarks share, said once.

Every benchmark that evaluates a ranking against recorded picks reads the same inputs: the
folder of daily listings, the picks file, the reader's profile, the store that caches the
embeddings (and, for some, a judge replay). Each is added here with its one name, type,
default and help; a benchmark adds its own arguments after them.

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_ranking_inputs(parser)             # --listings --picks --profile --cache
    add_judge_replay(parser, required=True)

Benchmarks run as scripts (``python benchmarks/NAME.py``), so this module is imported as
``_args`` from the benchmarks folder.
"""

from __future__ import annotations

import argparse
from pathlib import Path

DEFAULT_PROFILE = Path("examples/profile.toml")  # from the repository's root, as documented
DEFAULT_CACHE = Path("/tmp/paperbrief-bench.db")  # one embedding cache for every benchmark


def add_ranking_inputs(parser: argparse.ArgumentParser, *, cache: bool = True) -> None:
    """--listings and --picks (required), --profile and, unless ``cache`` is False (the
    benchmark names its stores otherwise), --cache."""
    parser.add_argument(
        "--listings", type=Path, required=True, help="Folder of daily listings (JSONL[.gz])."
    )
    parser.add_argument(
        "--picks", type=Path, required=True, help="The recorded picks (e.g. picks-dev.json)."
    )
    parser.add_argument(
        "--profile", type=Path, default=DEFAULT_PROFILE, help=f"Default: {DEFAULT_PROFILE}."
    )
    if cache:
        parser.add_argument(
            "--cache",
            type=Path,
            default=DEFAULT_CACHE,
            help=f"Store caching the embeddings (default: {DEFAULT_CACHE}).",
        )


def add_judge_replay(
    parser: argparse.ArgumentParser, *, required: bool = False, help: str | None = None
) -> None:
    """--judge-replay: recorded judge answers (``rank.judge.load_replay``)."""
    parser.add_argument(
        "--judge-replay", type=Path, required=required, default=None,
        help=help or "Recorded judge answers (a --judge-replay file).",
    )  # fmt: skip
