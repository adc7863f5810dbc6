"""The package's shape, read from its own imports: no circles between its parts nor between
its modules, no import running back up the layers.

Every ``import`` and ``from ... import`` of ``plugin/scorekit`` is read with :mod:`ast`, at
module level and inside functions alike (a lazy import is still a dependency). A *part* is a
top-level subpackage (``scorekit.robustness``) or a top-level module (``scorekit.errors``).
:data:`LAYERS` lists the parts from the bottom up; a part may import its own layer's parts
only where :data:`SIDEWAYS` says so, and every layer below it.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import scorekit

PACKAGE = Path(scorekit.__file__).parent

# Bottom up. A part imports only from the layers below it (and its own modules).
LAYERS: list[set[str]] = [
    {"scorekit", "errors"},  # the root (its version) and the error type
    {"files", "io", "yaml_config", "tables", "metrics", "checks"},  # file helpers, tables, option checks and the formulas: metrics imports nothing
    {"resources", "metric_specs", "harness_outputs", "inspect_logs"},  # the formats' wing (inspect_logs: a shim)
    {"robustness"},  # the SCORE core: reads harness files through the wing
    {"leaderboards", "aggregate", "compare"},  # leaderboard/scorecard/rank (aggregate: a shim) and paired comparison
    {"export"},  # every_eval_ever documents from compared runs
    {"lm_eval", "lighteval", "demo"},  # harness adapters and the demo
    {"commands", "cli_options"},  # the commands, and the option spellings cli.py applies to all of them
    {"cli", "__main__"},
]
# Imports allowed inside one layer (from -> to).
SIDEWAYS: set[tuple[str, str]] = {
    ("metric_specs", "metrics"),  # the specs sit beside the formulas
    ("harness_outputs", "metrics"),  # pass@k of Inspect epochs
    ("inspect_logs", "harness_outputs"),  # the shim re-exports the wing's Inspect module
    ("lighteval", "lm_eval"),  # the lighteval adapter reuses lm-eval's SCORE templates
    ("demo", "lm_eval"),
    ("__main__", "cli"),
    ("io", "files"),  # the old name's shim
    ("aggregate", "leaderboards"),  # the old name's shim
    ("yaml_config", "files"),  # the YAML reader reads through the file helpers
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports() -> dict[str, set[str]]:
    """Module -> the scorekit modules it imports (``from scorekit import metrics`` counts as
    ``scorekit.metrics``)."""
    out: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = _module_name(path)
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                deps.update(a.name for a in node.names if a.name.split(".")[0] == "scorekit")
            elif isinstance(node, ast.ImportFrom):
                module = node.module or ""
                if node.level:
                    base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                    module = ".".join(base[: len(base) - node.level + 1] + ([module] if module else []))
                if module.split(".")[0] != "scorekit":
                    continue
                for alias in node.names:
                    sub = f"{module}.{alias.name}"
                    known = (PACKAGE.parent / Path(*sub.split("."))).with_suffix(".py").exists() or (
                        PACKAGE.parent / Path(*sub.split(".")) / "__init__.py").exists()
                    deps.add(sub if known else module)
        out[name] = deps
    return out


def part(module: str) -> str:
    pieces = module.split(".")
    return pieces[1] if len(pieces) > 1 else "scorekit"


def _layer(p: str) -> int:
    for i, layer in enumerate(LAYERS):
        if p in layer:
            return i
    raise AssertionError(f"scorekit.{p} is in no layer of tests/test_structure.py: place it")


def part_graph() -> dict[str, dict[str, set[str]]]:
    """part -> part it imports -> the importing modules."""
    graph: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for module, deps in imports().items():
        for dep in deps:
            a, b = part(module), part(dep)
            if a != b:
                graph[a][b].add(module)
    return graph


def back_arrows() -> set[tuple[str, str, str]]:
    """(from part, to part, importing module) for every import that is not down the layers."""
    out = set()
    for a, targets in part_graph().items():
        for b, modules in targets.items():
            la, lb = _layer(a), _layer(b)
            if lb > la or (lb == la and (a, b) not in SIDEWAYS):
                out.update((a, b, m) for m in modules)
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_every_part_has_a_layer():
    for module in imports():
        _layer(part(module))


def test_metrics_import_nothing_of_scorekit():
    outside = {(m, d) for m, deps in imports().items() if part(m) == "metrics" for d in deps if part(d) != "metrics"}
    assert not outside, outside


def module_graph() -> dict[str, set[str]]:
    """Module -> the scorekit modules it imports. A module importing a package it sits in (the
    package's ``__init__`` re-exporting its modules) is not a circle through them."""
    found = imports()
    return {m: {d for d in deps if d in found and d != m and not m.startswith(d + ".")} for m, deps in found.items()}


def test_no_circles_between_parts():
    graph = {a: set(targets) for a, targets in part_graph().items()}
    assert cycles(graph) == []


def test_no_circles_between_modules():
    """Inside a part as well: a lazy import inside a function closes a circle all the same
    (``robustness.report`` -> ``html_report`` -> ``plots`` -> ``report`` was one)."""
    assert cycles(module_graph()) == []


def test_the_circle_finder_sees_a_lazy_circle():
    graph = module_graph()
    graph["scorekit.tables"] = graph["scorekit.tables"] | {"scorekit.robustness.report"}
    assert any("scorekit.tables" in c for c in cycles(graph))


def test_no_import_runs_back_up():
    assert back_arrows() == set()


def test_old_paths_still_import():
    """Renamed modules keep their old import paths for one release (the same module objects)."""
    import importlib

    for old, new in (("scorekit.io", "scorekit.files"), ("scorekit.inspect_logs", "scorekit.harness_outputs.inspect_logs"),
                     ("scorekit.aggregate", "scorekit.leaderboards"),
                     ("scorekit.aggregate.score_results", "scorekit.leaderboards.scorecard"),
                     ("scorekit.aggregate.scoring_config", "scorekit.leaderboards.scorecard_config"),
                     ("scorekit.aggregate.yaml_config", "scorekit.yaml_config"),
                     ("scorekit.robustness.score_variants", "scorekit.robustness.score_documents"),
                     ("scorekit.aggregate.leaderboard_run", "scorekit.leaderboards.leaderboard_options"),
                     ("scorekit.aggregate.scorecard_run", "scorekit.leaderboards.scorecard_options"),
                     *((f"scorekit.aggregate.{m}", f"scorekit.leaderboards.{m}") for m in (
                         "leaderboard", "leaderboard_render", "old_layout", "plots", "prompt_intervals", "rank",
                         "results_files", "scorecard", "scorecard_config", "scorecard_render", "threshold"))):
        assert importlib.import_module(old) is importlib.import_module(new), old
    import scorekit.aggregate.threshold as threshold
    from scorekit.aggregate import leaderboard, score_results as score_results_module
    from scorekit.aggregate.score_results import score_results
    from scorekit.aggregate.scoring_config import ScoringConfig, load_scoring_config
    from scorekit.leaderboards import leaderboard as new_leaderboard, scorecard, threshold as new_threshold
    from scorekit.leaderboards.scorecard import scorecard_results
    from scorekit.leaderboards.scorecard_config import ScorecardConfig, load_scorecard_config
    from scorekit.leaderboards.threshold import score_models, scorecard_values
    from scorekit.inspect_logs import is_inspect_log, read_inspect_log  # noqa: F401

    assert (threshold, leaderboard, score_results_module) == (new_threshold, new_leaderboard, scorecard)
    assert (score_results, ScoringConfig, load_scoring_config, score_models) == (
        scorecard_results, ScorecardConfig, load_scorecard_config, scorecard_values)
    # the robustness report's data, tables and renderers moved beside its build
    from scorekit.robustness import report_data, report_render, report_tables
    from scorekit.robustness.report import FamilyReport, notes_lines, render_report, report_to_json, summary_table

    assert (FamilyReport, report_to_json, notes_lines, summary_table, render_report) == (
        report_data.FamilyReport, report_data.report_to_json, report_tables.notes_lines, report_tables.summary_table,
        report_render.render_report)


def test_the_package_imports_no_old_path():
    """The old-path shims (a module that replaces itself in sys.modules) are for users' imports;
    the package itself imports the new paths, so that the shims can go after one release."""
    shims = {_module_name(p) for p in PACKAGE.rglob("*.py") if "sys.modules[__name__] =" in p.read_text(encoding="utf-8")}
    assert {"scorekit.io", "scorekit.aggregate"} <= shims
    found = sorted((module, dep) for module, deps in imports().items() if module not in shims for dep in deps & shims)
    assert found == []


def test_every_command_has_one_shape():
    """A command module gives ``HELP``, ``DESCRIPTION``, ``add_arguments`` and ``main`` (*run* is
    one harness output folder) in at most 50 lines: parse and emit, the build lives in its package."""
    import importlib

    from scorekit.cli import COMMAND_MODULES

    for name in COMMAND_MODULES:
        module = importlib.import_module(name)
        if hasattr(module, "add_parser"):
            continue
        assert all(hasattr(module, a) for a in ("HELP", "DESCRIPTION", "add_arguments", "main")), name
        assert not hasattr(module, "run"), name
        assert len(Path(module.__file__).read_text(encoding="utf-8").splitlines()) <= 50, name
