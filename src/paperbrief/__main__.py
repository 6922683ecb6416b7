"""`python -m paperbrief`: the same as the `paperbrief` command."""

from paperbrief.cli import main

main()
