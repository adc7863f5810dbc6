"""Option spellings shared by every command: one rule, applied once to the whole parser.

- Files are written with ``--output FILE`` (``-o``), folders with ``--output-dir DIR``, formats
  chosen with ``--format`` (``-f``), in every command that has them.
- lm-eval's and lighteval's spellings work where the meaning is the same: ``--include_path``
  for ``--include-path``, ``--model_args`` for ``--model-args`` (any ``--a_b`` for ``--a-b``), and
  lm-eval's ``--output_path`` for the command's one output option.
- Old spellings keep working for one release, with a note naming the new one
  (:data:`RENAMED`).
- Any other unknown option is one line naming the command and, when there is one, the option
  meant (``did you mean --include-path?``), or the command that has it.
"""

from __future__ import annotations

import argparse
import difflib
from typing import Sequence

__all__ = ["RENAMED", "apply_spellings", "command_parsers", "renamed_notes", "unknown_arguments"]

# command -> {old spelling: new spelling}; the old one is a hidden alias until the next release
RENAMED: dict[str, dict[str, str]] = {
    "variants": {"--output": "--output-dir"},
    "demo": {"-o": "--output-dir"},
}
SHORT = {"--output": "-o", "--format": "-f"}
# lm-eval / lighteval options that no scorekit command has, with what to do instead
HARNESS_ONLY = {
    "--log-samples": "an lm_eval option: scorekit reads the samples files `lm_eval --log_samples` wrote, give their folder",
    "--save-details": "a lighteval option: scorekit reads the details `--save-details` wrote, give their folder",
    "--tasks": "an lm_eval option: scorekit reads the tasks from the files the harness wrote",
    "--model": "an lm_eval option: scorekit reads the model from the files the harness wrote",
    "--model-args": "an lm_eval option: scorekit reads the model from the files the harness wrote",
}


def command_parsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """``{command: its parser}`` of ``parser``'s subcommands."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _alias(p: argparse.ArgumentParser, alias: str, action: argparse.Action) -> None:
    """``alias`` parses as ``action`` (hidden from --help) unless ``p`` already has it."""
    p._option_string_actions.setdefault(alias, action)


def apply_spellings(parser: argparse.ArgumentParser) -> None:
    """Add the shared short options, the underscore, ``--output_path`` and old-name aliases to
    every subcommand of ``parser``."""
    for name, p in command_parsers(parser).items():
        actions = dict(p._option_string_actions)
        for long, short in SHORT.items():
            if long in actions and short not in actions and short not in RENAMED.get(name, {}):
                actions[long].option_strings.append(short)  # shown in --help beside the long form
                p._option_string_actions[short] = actions[long]
        for option, action in actions.items():
            if option.startswith("--") and "-" in option[2:]:
                _alias(p, "--" + option[2:].replace("-", "_"), action)
        outputs = [o for o in ("--output", "--output-dir") if o in actions and o not in RENAMED.get(name, {})]
        if len(outputs) == 1:  # lm-eval's --output_path: where the output goes
            _alias(p, "--output_path", actions[outputs[0]])
        for old, new in RENAMED.get(name, {}).items():
            _alias(p, old, actions[new])


def renamed_notes(command: str | None, argv: Sequence[str]) -> list[str]:
    """A note for each old spelling of :data:`RENAMED` used in ``argv``."""
    notes = []
    for old, new in RENAMED.get(command or "", {}).items():
        if any(a == old or a.startswith(old + "=") for a in argv):
            notes.append(f"scorekit {command} {old} is now {new}; {old} keeps working until the next release")
    return notes


def _normal(option: str) -> str:
    return "--" + option.lstrip("-").split("=", 1)[0].replace("_", "-") if option.startswith("--") else option


def unknown_arguments(parser: argparse.ArgumentParser, command: str | None, extras: Sequence[str]) -> str:
    """The one-line message for arguments ``command`` does not take: for the first unknown
    option the option meant (closest spelling, the command's one output for ``--output_path``),
    or the command that has it, or what to do instead of a harness's option."""
    prog = f"scorekit {command}" if command else "scorekit"
    options = [o for o in extras if o.startswith("-") and o != "-"]
    if not options:
        return f"unrecognized arguments for {prog}: {' '.join(extras)} (see {prog} --help)"
    given = options[0]
    wanted = _normal(given)
    parsers = command_parsers(parser)
    own = sorted(o for o in (parsers[command]._option_string_actions if command in parsers else {}) if o.startswith("--"))
    shown = sorted({o for o in own if "_" not in o} - {"--help"})
    if wanted in ("--output-path",):
        choices = [o for o in ("--output", "--output-dir") if o in own]
        if choices:
            return f"unknown option {given} for {prog} (did you mean {' or '.join(choices)}?)"
    close = difflib.get_close_matches(wanted, shown, n=1, cutoff=0.75)
    if close:
        return f"unknown option {given} for {prog} (did you mean {close[0]}?)"
    elsewhere = sorted(name for name, p in parsers.items() if name != command and wanted in p._option_string_actions)
    if wanted in HARNESS_ONLY:
        hint = HARNESS_ONLY[wanted]
    elif elsewhere:
        hint = f"{', '.join('scorekit ' + n for n in elsewhere)} {'has' if len(elsewhere) == 1 else 'have'} {wanted}"
    else:
        hint = f"its options: {', '.join(shown)}" if shown else f"see {prog} --help"
    return f"unknown option {given} for {prog} ({hint})"
