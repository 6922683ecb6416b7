from paperbrief.cli import main

main()
