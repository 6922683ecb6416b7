"""`python -m paperbrief`: the same as the `paperbrief` command."""

from paperbrief.launch import main

main()
