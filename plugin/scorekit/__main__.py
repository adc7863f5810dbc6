import sys

try:
    from scorekit.cli import main
except KeyboardInterrupt:  # Ctrl-C while Python is still importing: the same one line as later
    sys.stderr.write("scorekit: interrupted\n")
    sys.exit(130)

sys.exit(main())
