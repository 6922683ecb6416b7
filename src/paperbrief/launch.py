"""The `paperbrief` command's entry point: ``--version`` answered before the CLI loads.

Loading the whole command line (every command, and through them numpy, the store, the
pipeline) takes most of a second; a version check in a script or a bug report should not.
Anything else goes to ``paperbrief.cli.main`` as it is.
"""

from __future__ import annotations

import sys

from paperbrief import __version__

VERSION_FLAGS = (["--version"], ["-V"])


def main() -> None:
    if sys.argv[1:] in VERSION_FLAGS:
        print(f"paperbrief, version {__version__}")  # click's version_option says the same
        return
    from paperbrief.cli import main as cli_main

    cli_main()
