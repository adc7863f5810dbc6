"""The command blocks of the docs (README.md, docs/*.md) and the markers that say how to check
them: the rules of docs/command-blocks.md, read and run here for tests/test_docs_commands.py.

A *command block* is a fenced block tagged ``bash``, ``sh``, ``shell`` or ``console``, or an
untagged (``text``) block whose first line starts with ``$ `` or with a command scorekit's docs
use (``scorekit``, ``lm_eval``, ``lighteval``, ``python``, ``pip``, ``inspect``, ``accelerate``).
Markers are HTML comments right above a block (blank lines between are allowed)::

    <!-- docs-check: network: downloads the model from the hub -->      not run, with the reason
    <!-- docs-check: gpu: ... -->  <!-- docs-check: illustrative: ... -->  <!-- docs-check: slow: ... -->
    <!-- docs-check: exit 2 -->                                           the block exits 2
    <!-- docs-check: setup
    cp "$(scorekit configs-dir)/ranking_sample.txt" ranks_general.txt
    -->                                                                   run first, unseen by readers
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

SKIP_KINDS = ("gpu", "network", "illustrative", "slow")
SHELL_LANGS = {"bash", "sh", "shell", "console", "shell-session", "zsh"}
COMMAND_START = re.compile(r"^(\$ )?(scorekit|lm_eval|lm-eval|lighteval|python3?|pip3?|inspect|accelerate)(\s|$)")
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")
MARKER_START = "<!-- docs-check:"
BORDER = set("-+=|:━─│┃┏┓┗┛┡┩└┘├┤┬┴┼╇╈═╸╺ ")


class DocError(ValueError):
    """A marker or block the check cannot read: names the file and line."""


@dataclass
class Block:
    doc: Path
    line: int  # 1-based line of the opening fence
    lang: str
    body: str
    skip: tuple[str, str] | None = None  # (kind, reason)
    exit: int = 0
    setup: str = ""
    markers: list[str] = field(default_factory=list)

    @property
    def where(self) -> str:
        return f"{self.doc.name}:{self.line}"

    @property
    def is_console(self) -> bool:
        first = next((ln for ln in self.body.splitlines() if ln.strip()), "")
        return self.lang in ("console", "shell-session") or first.startswith("$ ")

    def steps(self) -> list[tuple[str, list[str] | None]]:
        """``[(script, expected output lines or None)]``: a console block is one step per ``$``
        command with the lines after it as its output; any other block is one script."""
        if not self.is_console:
            return [(self.body, None)]
        steps: list[tuple[str, list[str] | None]] = []
        command: list[str] | None = None
        output: list[str] = []
        for ln in self.body.splitlines():
            if command is not None and command[-1].endswith("\\"):
                command.append(ln)
            elif ln.startswith("$ "):
                if command is not None:
                    steps.append(("\n".join(command), output or None))
                command, output = [ln[2:]], []
            elif command is not None:
                output.append(ln)
            elif ln.strip():
                raise DocError(f"{self.where}: console block: output before the first '$ ' command")
        if command is not None:
            steps.append(("\n".join(command), output or None))
        return steps

    def command_text(self) -> str:
        """The commands only (console prompts removed, output left out)."""
        return "\n".join(script for script, _ in self.steps())


def is_command_block(lang: str, body: str) -> bool:
    if lang in SHELL_LANGS:
        return True
    if lang not in ("", "text"):
        return False
    first = next((ln for ln in body.splitlines() if ln.strip()), "")
    return bool(COMMAND_START.match(first))


def _marker(text: str, where: str, block: Block) -> None:
    """Apply one marker's text (between ``docs-check:`` and ``-->``) to ``block``."""
    head, _, rest = text.strip().partition("\n")
    word, _, arg = head.strip().partition(" ")
    word = word.rstrip(":")
    if word in SKIP_KINDS:
        reason = arg.strip(" :-—")
        if not reason or rest.strip():
            raise DocError(f"{where}: docs-check: {word} needs a reason on the same line ({word}: why it cannot run here)")
        if block.skip:
            raise DocError(f"{where}: docs-check: two reasons not to run one block")
        block.skip = (word, reason)
    elif word == "exit":
        if not re.fullmatch(r"\d{1,3}", arg.strip()) or rest.strip():
            raise DocError(f"{where}: docs-check: exit needs the exit status, e.g. 'exit 2'")
        block.exit = int(arg.strip())
    elif word == "setup":
        script = textwrap.dedent((arg + "\n" + rest) if arg.strip() else rest).strip()
        if not script:
            raise DocError(f"{where}: docs-check: setup needs commands on the lines after it")
        block.setup += script + "\n"
    else:
        raise DocError(f"{where}: unknown docs-check marker {word!r} (known: {', '.join(SKIP_KINDS)}, exit N, setup)")
    block.markers.append(text.strip())


def read_blocks(doc: Path) -> list[Block]:
    """Every fenced block of ``doc`` that is a command block, with its markers applied; a marker
    that belongs to no command block is a :class:`DocError`."""
    lines = doc.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    pending: list[tuple[int, str]] = []  # (line, marker text) waiting for their block
    i = 0
    while i < len(lines):
        ln = lines[i]
        m = FENCE.match(ln)
        if ln.lstrip().startswith(MARKER_START):
            start, chunk = i, [ln.lstrip()[len(MARKER_START):]]
            while "-->" not in chunk[-1]:
                i += 1
                if i == len(lines):
                    raise DocError(f"{doc.name}:{start + 1}: docs-check marker without its closing -->")
                chunk.append(lines[i])
            text = "\n".join(chunk)
            if not text.rstrip().endswith("-->") or text.count("-->") != 1:
                raise DocError(f"{doc.name}:{start + 1}: a docs-check marker must end its line with -->")
            pending.append((start + 1, text[: text.rindex("-->")]))
        elif m:
            indent, fence, info = m.group("indent"), m.group("fence"), m.group("info").strip()
            body: list[str] = []
            fence_line = i + 1
            i += 1
            while i < len(lines) and not re.match(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}\s*$", lines[i]):
                body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i].lstrip())
                i += 1
            if i == len(lines):
                raise DocError(f"{doc.name}:{fence_line}: fenced block never closed")
            lang = info.split()[0].lower() if info else ""
            text = "\n".join(body) + "\n"
            if is_command_block(lang, text):
                block = Block(doc=doc, line=fence_line, lang=lang, body=text)
                for line_no, marker in pending:
                    _marker(marker, f"{doc.name}:{line_no}", block)
                blocks.append(block)
            elif pending:
                raise DocError(f"{doc.name}:{pending[0][0]}: docs-check marker above a block that is not a command "
                               f"block ({lang or 'untagged'}, line {fence_line})")
            pending = []
        elif ln.strip() and pending:
            raise DocError(f"{doc.name}:{pending[0][0]}: docs-check marker not directly above a fenced block")
        i += 1
    if pending:
        raise DocError(f"{doc.name}:{pending[0][0]}: docs-check marker not directly above a fenced block")
    return blocks


def inline_commands(doc: Path) -> list[Block]:
    """Inline code in the prose that is a ``scorekit`` command (`` `scorekit rank --format csv` ``),
    one pseudo-block each, for the option check (never run)."""
    found, in_fence = [], None
    for no, ln in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
        m = FENCE.match(ln)
        if m and (in_fence is None or m.group("fence")[0] == in_fence):
            in_fence = None if in_fence else m.group("fence")[0]
            continue
        if in_fence is None:
            for span in re.findall(r"(?<!`)`([^`]+)`(?!`)", ln):
                if span.startswith("scorekit "):
                    found.append(Block(doc=doc, line=no, lang="inline", body=span + "\n", skip=("illustrative", "prose")))
    return found


# --- what a command line names -----------------------------------------------------------------

SEPARATORS = {"&&", "||", ";", "|", ">", ">>", "2>", "2>&1", "&"}


def invocations(block: Block, program: str) -> list[tuple[str, list[str]]]:
    """``[(logical line, words after program)]`` for each call of ``program`` at the start of a
    shell command of the block (continuation lines joined, comments dropped)."""
    text = re.sub(r"\\\n", " ", block.command_text())
    # a synopsis goes on over indented lines that start with an option or a bracket
    text = re.sub(r"\n[ \t]+(?=[-\[({|])", " ", text)
    found = []
    for line in text.splitlines():
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            words = line.split()
        start = True
        for k, w in enumerate(words):
            if start and w == program:
                rest = []
                for v in words[k + 1:]:
                    if v in SEPARATORS:
                        break
                    rest.append(v)
                found.append((line.strip(), rest))
            start = w in SEPARATORS or w.startswith("$(")
    return found


def option_words(words: list[str]) -> list[tuple[str, str | None]]:
    """``[(option, the word after it)]`` of a command line or a usage synopsis (brackets and
    parentheses of the synopsis stripped; ``--opt=value`` split)."""
    out = []
    for k, w in enumerate(words):
        w = w.lstrip("[(").rstrip("])")
        if not w.startswith("-") or w in ("-", "--") or re.fullmatch(r"-[\d.]+", w):
            continue
        if "=" in w:
            opt, value = w.split("=", 1)
            out.append((opt, value))
            continue
        nxt = words[k + 1].rstrip("])") if k + 1 < len(words) else None
        out.append((w, nxt))
    return out


def choice_list(value: str | None) -> set[str] | None:
    """The alternatives a synopsis lists for an option value (``a|b|c`` or ``{a,b,c}``), else None."""
    if not value:
        return None
    if re.fullmatch(r"\{[\w.-]+(,[\w.-]+)+\}", value):
        return set(value[1:-1].split(","))
    if re.fullmatch(r"[\w.-]+(\|[\w.-]+)+", value):
        return set(value.split("|"))
    return None


# --- running ---------------------------------------------------------------------------------

PLACEHOLDER = re.compile(r"<([A-Za-z][\w.-]*)>")


def runnable(script: str) -> str:
    """``script`` with each placeholder ``<name>`` (``pretrained=<model>``) as the bare word
    ``name``: the shell would read it as a redirection."""
    return PLACEHOLDER.sub(r"\1", script)


def normalized(lines: list[str]) -> list[str]:
    """Output lines as compared: whitespace runs collapsed, blank lines and table borders dropped."""
    out = []
    for ln in lines:
        ln = " ".join(ln.split())
        if ln and not set(ln) <= BORDER:
            out.append(ln)
    return out


def _line_matches(expected: str, actual: str) -> bool:
    if "..." not in expected:
        return expected == actual
    pattern = ".*".join(re.escape(part) for part in expected.split("..."))
    return re.fullmatch(pattern, actual) is not None


def output_matches(expected: list[str], actual: str) -> bool:
    """``expected`` (the doc's lines) against ``actual``: line by line after :func:`normalized`;
    a line ``...`` stands for any number of lines, ``...`` inside a line for any text."""
    want, got = normalized(expected), normalized(actual.splitlines())
    segments: list[list[str]] = [[]]
    for ln in want:
        if ln == "...":
            segments.append([])
        else:
            segments[-1].append(ln)
    open_start, open_end = bool(want) and want[0] == "...", bool(want) and want[-1] == "..."
    pos = 0
    for k, seg in enumerate(segments):
        if not seg:
            continue
        first, last = k == 0 and not open_start, k == len(segments) - 1 and not open_end
        starts = [pos] if first else range(pos, len(got) - len(seg) + 1)
        for s in starts:
            if s + len(seg) <= len(got) and all(_line_matches(e, a) for e, a in zip(seg, got[s:s + len(seg)])):
                if last and s + len(seg) != len(got):
                    continue
                pos = s + len(seg)
                break
        else:
            return False
    return True if open_end or not want else pos == len(got)


@dataclass
class Session:
    """One doc's run: a working folder that looks like the repository (its top-level entries
    linked), the shell state (folder, exported variables) carried from block to block, and
    wrapper commands first on PATH."""

    root: Path  # the repository
    work: Path
    env: dict[str, str]
    state: Path

    def run(self, script: str, timeout: float = 900) -> tuple[int, str]:
        """Run ``script`` with bash in the carried state; (exit status, stdout and stderr merged)."""
        wrapped = (f'cd "$(cat {shlex.quote(str(self.state / "pwd"))})" || exit 97\n'
                   f". {shlex.quote(str(self.state / 'env'))}\n"
                   f"trap 'rc=$?; export -p > {shlex.quote(str(self.state / 'env'))}; "
                   f"pwd > {shlex.quote(str(self.state / 'pwd'))}; exit $rc' EXIT\n"
                   "set -eo pipefail\n" + script)
        proc = subprocess.run(["bash", "-c", wrapped], env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, timeout=timeout)
        return proc.returncode, proc.stdout


def new_session(root: Path, base: Path, env: dict[str, str]) -> Session:
    work, state = base / "work", base / "state"
    work.mkdir(parents=True)
    state.mkdir()
    for entry in root.iterdir():
        if entry.name not in (".git",):
            (work / entry.name).symlink_to(entry)
    (state / "pwd").write_text(str(work) + "\n")
    (state / "env").write_text("")
    return Session(root=root, work=work, env=dict(env), state=state)


LM_EVAL_WRAPPER = """\
import os
import sys

# The model options of an lm_eval command in the docs; the check runs the command with
# --model dummy instead (docs/command-blocks.md).
WITH_VALUE = {"--model", "--model_args", "--model-args", "--batch_size", "--batch-size", "--device",
              "--max_batch_size", "--max-batch-size"}
OPTIONAL_VALUE = {"--apply_chat_template", "--apply-chat-template"}
FLAGS = {"--fewshot_as_multiturn", "--fewshot-as-multiturn"}
args, kept, i = sys.argv[1:], [], 0
while i < len(args):
    name = args[i].split("=", 1)[0]
    if name in WITH_VALUE:
        i += 1 if "=" in args[i] else 2
    elif name in OPTIONAL_VALUE:
        i += 1 if "=" in args[i] or i + 1 == len(args) or args[i + 1].startswith("-") else 2
    elif name in FLAGS:
        i += 1
    else:
        kept.append(args[i])
        i += 1
head = [kept.pop(0)] if kept[:1] == ["run"] else []
os.execv(sys.executable, [sys.executable, "-m", "lm_eval", *head, "--model", "dummy", *kept])
"""


def environment(base: Path, python: str, package_parent: Path, data_dir: Path) -> dict[str, str]:
    """The environment every block runs in: offline, a private HF_HOME, the bundled SCORE sample
    as ``SCOREKIT_SCORE_DATA_DIR``, and wrappers first on PATH: ``scorekit``/``python`` run this
    interpreter with the scorekit under test, ``lm_eval`` runs lm-eval with ``--model dummy``
    (docs/command-blocks.md), ``pip`` refuses (it needs the network)."""
    bin_dir = base / "bin"
    bin_dir.mkdir(parents=True)
    wrappers = {
        "scorekit": f'#!/usr/bin/env bash\nexec {shlex.quote(python)} -m scorekit "$@"\n',
        "python": f'#!/usr/bin/env bash\nexec {shlex.quote(python)} "$@"\n',
        "lm_eval": f"#!{python}\n" + LM_EVAL_WRAPPER,
        "pip": '#!/usr/bin/env bash\necho "docs check: pip needs the network; mark the block '
               '<!-- docs-check: network: ... -->" >&2\nexit 96\n',
    }
    for name, body in wrappers.items():
        path = bin_dir / name
        path.write_text(body)
        path.chmod(0o755)
    for alias, name in (("python3", "python"), ("pip3", "pip"), ("lm-eval", "lm_eval")):
        (bin_dir / alias).symlink_to(bin_dir / name)
    env = dict(os.environ)
    env.update({
        "PATH": f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
        "PYTHONPATH": os.pathsep.join(p for p in (str(package_parent), env.get("PYTHONPATH", "")) if p),
        "HF_HOME": str(base / "hf"),
        "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
        "SCOREKIT_SCORE_DATA_DIR": str(data_dir),
        "NO_COLOR": "1", "TERM": "dumb", "COLUMNS": "200", "MPLBACKEND": "Agg",
    })
    return env
