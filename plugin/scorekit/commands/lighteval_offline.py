"""``scorekit lighteval-offline``: show or fix why the plain ``lighteval`` command needs network."""

from __future__ import annotations

import argparse


HELP = "let the plain `lighteval` command run offline (status, --install, --remove)"
DESCRIPTION = (
    "lighteval 0.13 downloads tinyBenchmarks.pkl into its own site-packages folder while "
    "building its task registry, so every `lighteval` command fails offline. "
    "`python -m scorekit.lighteval <args>` runs lighteval without that download and "
    "writes nothing. Alternatively --install writes a small placeholder file where "
    "lighteval looks for it (this modifies the lighteval installation; --remove undoes it). "
    "Without options: print the file's path and status."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    group = p.add_mutually_exclusive_group()
    group.add_argument("--install", action="store_true", help="write the placeholder file (or copy --from)")
    group.add_argument("--remove", action="store_true", help="delete scorekit's placeholder file")
    p.add_argument("--from", dest="source", metavar="FILE", help="with --install: copy this real tinyBenchmarks.pkl")


def main(args: argparse.Namespace) -> int:
    from scorekit.errors import ScorekitError
    from scorekit.lighteval import offline

    if args.source and not args.install:
        raise ScorekitError("--from needs --install")
    path = offline.tiny_benchmarks_pkl_path()
    if args.install:
        offline.install_placeholder(path, source=args.source)
        what = f"copied {args.source}" if args.source else "wrote placeholder"
        print(f"{what}: {path}\nthe `lighteval` command can now build its task registry offline")
        return 0
    if args.remove:
        removed = offline.remove_placeholder(path)
        print(f"removed {path}" if removed else f"nothing to remove: {path} does not exist")
        return 0
    status = offline.placeholder_status(path)
    meaning = {
        "missing": "missing: the plain `lighteval` command needs network; use "
        "`python -m scorekit.lighteval <args>` or `scorekit lighteval-offline --install`",
        "placeholder": "scorekit's placeholder: `lighteval` runs offline (`--remove` undoes it)",
        "present": "present (not scorekit's placeholder): `lighteval` runs offline",
    }[status]
    print(f"{path}\n{meaning}")
    return 0
