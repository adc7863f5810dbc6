"""Every command block of README.md and docs/*.md runs as the text says, or is marked as needing a
GPU or the network, as illustrative or as slow (docs/command-blocks.md has the rules).

- A block runs in a working folder that looks like the repository (its entries linked), in a
  doc's order, so a block uses what the ones before it wrote; offline, on the bundled SCORE
  sample, lm-eval with ``--model dummy``. It must exit as its marker says (0 by default); a
  ``$`` command's output shown in the doc must match the output in its essentials.
- Every ``scorekit`` call in any command block (run or not) names a command and options that
  exist under their current spelling, and a list of choices (``--format table|csv``) is the
  command's full list; every ``lm_eval`` option exists.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

import scorekit
from tests.support.doc_blocks import (
    DocError,
    choice_list,
    environment,
    inline_commands,
    invocations,
    new_session,
    option_words,
    output_matches,
    read_blocks,
    runnable,
)

REPO = Path(__file__).resolve().parents[1]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
DEMO_DATA = REPO / "plugin" / "scorekit" / "demo" / "data"


def _ids(doc: Path) -> str:
    return str(doc.relative_to(REPO))


@pytest.fixture(scope="module")
def scorekit_parsers():
    from scorekit.cli import build_parser
    from scorekit.cli_options import command_parsers

    return command_parsers(build_parser())


@pytest.fixture(scope="module")
def lm_eval_options() -> set[str]:
    """The options of ``lm_eval`` (its ``run`` command; lm-eval 0.4.13's HarnessCLI, 0.5's CLI)."""
    from lm_eval._cli import HarnessCLI

    run = HarnessCLI()._subparsers.choices["run"]
    return set(run._option_string_actions)


def _scorekit_problems(block, parsers) -> list[str]:
    problems = []
    for line, words in invocations(block, "scorekit"):
        if not words or words[0].startswith("-"):
            continue
        command = words[0]
        if command not in parsers:
            if block.lang == "inline":  # prose may name a command's old name ("was `scorekit robustify`")
                continue
            problems.append(f"{block.where}: no command 'scorekit {command}' ({line})")
            continue
        p = parsers[command]
        visible = {s: a for a in p._actions for s in a.option_strings}
        for option, value in option_words(words[1:]):
            action = visible.get(option)
            if action is None:
                hidden = p._option_string_actions.get(option)
                now = f" (an old or lm-eval spelling: write {hidden.option_strings[0]})" if hidden else ""
                problems.append(f"{block.where}: scorekit {command} has no option {option}{now}: {line}")
                continue
            listed = choice_list(value)
            if listed is not None and action.choices is not None and listed != set(action.choices):
                problems.append(f"{block.where}: scorekit {command} {option} lists {'|'.join(sorted(listed))}, "
                                f"the command takes {'|'.join(sorted(action.choices))}: {line}")
    return problems


@pytest.mark.parametrize("doc", DOCS, ids=_ids)
def test_command_lines_name_the_tools_commands_and_options(doc, scorekit_parsers, lm_eval_options):
    try:
        blocks = read_blocks(doc)
    except DocError as exc:
        pytest.fail(str(exc))
    problems = []
    for block in inline_commands(doc):
        problems += _scorekit_problems(block, scorekit_parsers)
    for block in blocks:
        problems += _scorekit_problems(block, scorekit_parsers)
        for line, words in invocations(block, "lm_eval"):
            for option, _ in option_words(words):
                if option.startswith("--") and option.split("=")[0] not in lm_eval_options:
                    problems.append(f"{block.where}: lm_eval has no option {option}: {line}")
    assert not problems, "\n".join(problems)


def test_marker_rules_catch_mistakes(tmp_path):
    """A marker must say why, must sit on a command block, and a command block unknown to the
    check is still found (untagged, starting with a command)."""
    doc = tmp_path / "d.md"
    cases = {
        "<!-- docs-check: network -->\n```bash\nlm_eval --tasks x\n```\n": "needs a reason",
        "<!-- docs-check: illustrative: shape -->\n```json\n{}\n```\n": "not a command block",
        "<!-- docs-check: exit two -->\n```bash\nscorekit rank\n```\n": "exit needs the exit status",
        "<!-- docs-check: network: hub -->\n\nSome text.\n```bash\nscorekit rank\n```\n": "not directly above",
        "<!-- docs-check: skip: why -->\n```bash\nscorekit rank\n```\n": "unknown docs-check marker",
    }
    for text, needle in cases.items():
        doc.write_text(text)
        with pytest.raises(DocError, match=needle):
            read_blocks(doc)
    doc.write_text("```\nscorekit rank --format csv\n```\n\n```\nscorekit: error: not a command\n```\n")
    (block,) = read_blocks(doc)
    assert block.line == 1 and block.skip is None and block.exit == 0
    doc.write_text("<!-- docs-check: exit 2 -->\n<!-- docs-check: setup\ntouch x\n-->\n\n```console\n$ a \\\n  b\nout 1\n"
                   "$ c\n```\n")
    (block,) = read_blocks(doc)
    assert block.exit == 2 and block.setup == "touch x\n" and block.steps() == [("a \\\n  b", ["out 1"]), ("c", None)]


def test_output_matching_rules():
    table = "+-----+\n| a   | 1.00 |\n| b | 2.00 |\n+---+\n"
    assert output_matches(["| a | 1.00 |", "| b | 2.00 |"], table)
    assert not output_matches(["| a | 1.00 |"], table)  # no "..." line: nothing more may follow
    assert output_matches(["| a | 1.00 |", "..."], table) and output_matches(["...", "| b | 2.00 |"], table)
    assert output_matches(["| a | ... |", "..."], table) and not output_matches(["| a | 1.01 |", "..."], table)
    assert not output_matches(["| b | 2.00 |", "| a | 1.00 |"], table)


@pytest.fixture(scope="module")
def score_data(tmp_path_factory) -> Path:
    """The bundled SCORE sample in the layout of SCOREKIT_SCORE_DATA_DIR."""
    root = tmp_path_factory.mktemp("score_data")
    for f in sorted(DEMO_DATA.glob("*.jsonl")):
        (root / f.stem).mkdir()
        shutil.copyfile(f, root / f.stem / "test.jsonl")
    return root


@pytest.mark.slow
@pytest.mark.parametrize("doc", DOCS, ids=_ids)
def test_commands_run_as_the_doc_says(doc, tmp_path, score_data):
    blocks = [b for b in read_blocks(doc) if b.skip is None]
    if not blocks:
        return  # every command block of this doc is marked (checked above); nothing to run
    env = environment(tmp_path / "env", sys.executable, Path(scorekit.__file__).resolve().parents[1], score_data)
    session = new_session(REPO, tmp_path / "session", env)
    failures = []
    for block in blocks:
        if block.setup:
            code, out = session.run(block.setup)
            if code != 0:
                failures.append(f"{block.where}: the setup marker's commands exited {code}:\n{out[-2000:]}")
                continue
        steps = block.steps()
        for k, (script, expected) in enumerate(steps):
            want = block.exit if k == len(steps) - 1 else 0
            code, out = session.run(runnable(script))
            if code != want:
                failures.append(f"{block.where}: exited {code}, the doc says {want}:\n$ {script}\n{out[-3000:]}")
                break
            if expected is not None and not output_matches(expected, out):
                failures.append(f"{block.where}: output differs from the doc's\n$ {script}\n--- doc\n"
                                + "\n".join(expected) + f"\n--- command\n{out[-3000:]}")
    assert not failures, "\n\n".join(failures)
