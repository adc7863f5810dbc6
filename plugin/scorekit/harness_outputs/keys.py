"""Task keys: how a wanted task key matches the keys of results files (rules in
:mod:`scorekit.harness_outputs`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection
from typing import Any

from scorekit.errors import ScorekitError


def ungrouped(task: str) -> str:
    """``task`` without lm-eval 0.5's group qualifier (a task run inside a group is written
    ``<group>::<task>``); other names as they are.

    >>> ungrouped("leaderboard_gpqa::leaderboard_gpqa_main"), ungrouped("gpqa")
    ('leaderboard_gpqa_main', 'gpqa')
    """
    return task.rpartition("::")[2]


def split_task_key(key: str) -> tuple[str | None, str, int | None]:
    """``(suite, task, fewshots)`` of a task key; missing parts are None.

    >>> split_task_key("leaderboard|gpqa|0"), split_task_key("gpqa|0"), split_task_key("lighteval|gpqa")
    (('leaderboard', 'gpqa', 0), (None, 'gpqa', 0), ('lighteval', 'gpqa', None))
    >>> split_task_key("leaderboard_gpqa::leaderboard_gpqa_main")
    (None, 'leaderboard_gpqa_main', None)
    """
    parts = key.split("|")
    n: int | None = None
    if len(parts) > 1 and parts[-1].isdigit():
        n = int(parts.pop())
    suite = parts[0] if len(parts) > 1 else None
    task = parts[-1] if len(parts) <= 2 else "|".join(parts[1:])
    return suite, ungrouped(task), n


def key_matches(wanted: str, actual: str) -> bool:
    """Does a config's key ``wanted`` name the results key ``actual``? (module docstring)

    >>> [key_matches(w, "lighteval|ifeval|0") for w in ("ifeval", "lighteval|ifeval", "lighteval|ifeval|0", "ifeval|5")]
    [True, True, True, False]
    >>> key_matches("lighteval|ifeval|0", "ifeval|0"), key_matches("other|ifeval", "lighteval|ifeval|0")
    (True, False)
    """
    if wanted == actual:
        return True
    ws, wt, wn = split_task_key(wanted)
    s, t, n = split_task_key(actual)
    return wt == t and (ws is None or s is None or ws == s) and (wn is None or wn == n)


def find_task_key(keys: Collection[str], wanted: str, newest: Callable[[str], Any]) -> tuple[str, list[str]] | None:
    """The results key ``wanted`` names among ``keys`` and the other keys it also matched.

    An exact key wins; otherwise the matching key with the largest ``newest(key)`` (the
    commands pass ``(run time, file)``) is taken. None when nothing matches. Matching keys
    that tie for newest (two few-shot settings of one run, ``gsm8k|0`` and ``gsm8k|5``) have no
    newest: :class:`ScorekitError` naming the file (the second item of ``newest``) and the keys.
    """
    if wanted in keys:
        return wanted, []
    matching = [k for k in keys if key_matches(wanted, k)]
    if not matching:
        return None
    best = max(matching, key=lambda k: (newest(k), k))
    tied = sorted(k for k in matching if newest(k) == newest(best))
    if len(tied) > 1:
        where = newest(best)
        raise ScorekitError(
            f"config key {wanted!r} matches several results keys of one run ({', '.join(tied)}); "
            "write the few-shot count in the config key (suite|task|n)",
            path=where[1] if isinstance(where, tuple) and len(where) == 2 else None,
        )
    return best, [k for k in matching if k != best]


def unqualified(by_task: dict[str, Any]) -> dict[str, Any]:
    """lm-eval 0.5 names a task run inside a group ``<group>::<task>`` (``"leaderboard_gpqa::
    leaderboard_gpqa_main"``); keys are given without the group part, except where two keys
    would then be the same task (both kept qualified, so nothing is lost).

    >>> unqualified({"leaderboard::leaderboard_ifeval": 1, "leaderboard_bbh": 2, "a::t": 3, "b::t": 4})
    {'leaderboard_ifeval': 1, 'leaderboard_bbh': 2, 'a::t': 3, 'b::t': 4}
    """
    if not any("::" in key for key in by_task):  # lm-eval 0.4 and lighteval: nothing to do
        return by_task
    plain = [ungrouped(key) for key in by_task]
    counts = Counter(plain)
    return {(p if counts[p] == 1 else key): v for p, (key, v) in zip(plain, by_task.items())}
