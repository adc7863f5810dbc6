"""One module per ``scorekit`` subcommand (see :mod:`scorekit.cli`)."""
