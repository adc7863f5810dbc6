"""The plugin loading rule lm-eval merged after 0.4.13, applied to lm-eval 0.4.13's registry.

Run as ``python -m tests.support.lm_eval_plugin_rule SITE`` where SITE holds an unpacked
scorekit wheel (first on ``sys.path``). Prints JSON: what lm-eval's getters return for each
discovered metric and aggregation, and which tasks the discovered task folders hold.

The rule, as lm-eval's main branch has it (PR #4013 models, #4014 filters/metrics/aggregations;
PR #4015 tasks):

- ``load_plugins(group, registry)``, once per group: every entry point of the group whose name is
  not yet in the registry is registered under its name with the EntryPoint itself as a lazy
  placeholder (nothing is imported).
- Registering an object where a placeholder stands replaces the placeholder when the object's
  ``module:__name__`` equals the placeholder's value (a plugin both advertised by an entry point
  and decorated with ``@register_*``); any other object under a taken name raises ValueError.
- ``get_metric`` imports the built-ins when the registry is empty, then loads the
  ``lm_eval.metrics`` plugins; ``get_aggregation`` the ``lm_eval.aggregations`` ones;
  ``get_metric_aggregation`` and ``is_higher_better`` first load the metric plugins and
  materialize the named metric, so its decorator's side effects have run.
- Tasks: each ``lm_eval.tasks`` entry point's value (``module`` or ``module:attr``) is resolved
  with ``importlib.util.find_spec`` to the package's folder (a plain module: its file's folder),
  which ``TaskManager`` scans like an ``--include_path``.

Only the entry points of the distribution under test are read (the machine's own scorekit, an
editable install of another checkout, has other ones).
"""

from __future__ import annotations

import importlib.metadata as md
import importlib.util
import json
import sys
from pathlib import Path


def main(site: str) -> dict:
    sys.path.insert(0, site)
    (dist,) = [d for d in md.distributions(path=[site]) if d.metadata["Name"] == "scorekit"]
    eps = dist.entry_points

    import lm_eval.api.registry as r

    original = r.Registry.register

    def register(self, *aliases, target=None):
        def upgrade_or(obj):
            path = f"{getattr(obj, '__module__', '')}:{getattr(obj, '__name__', '')}"
            for alias in aliases or (getattr(obj, "__name__", ""),):
                current = self._objs.get(alias)
                if isinstance(current, (str, md.EntryPoint)) and (
                        current if isinstance(current, str) else current.value) == path:
                    self._objs[alias] = obj
                else:
                    original(self, alias)(obj)
            return obj

        if target is not None:
            if isinstance(target, md.EntryPoint) or isinstance(target, str):
                return original(self, *aliases, target=target)
            upgrade_or(target) if len(aliases) == 1 else original(self, *aliases, target=target)
            return lambda x: x
        return upgrade_or

    r.Registry.register = register
    loaded: set[str] = set()

    def load_plugins(group: str, registry) -> None:
        if group in loaded:
            return
        loaded.add(group)
        for ep in eps.select(group=group):
            if ep.name not in registry:
                registry.register(ep.name, target=ep)

    def get_metric(name):
        if len(r.metric_registry) == 0:
            import lm_eval.api.metrics  # noqa: F401
        load_plugins("lm_eval.metrics", r.metric_registry)
        return r.metric_registry.get(name)

    def get_aggregation(name):
        if len(r.aggregation_registry) == 0:
            import lm_eval.api.metrics  # noqa: F401
        load_plugins("lm_eval.aggregations", r.aggregation_registry)
        return r.aggregation_registry.get(name)

    def side_effects(name):
        load_plugins("lm_eval.metrics", r.metric_registry)
        if name in r.metric_registry:
            r.metric_registry.get(name)

    out: dict = {"metrics": {}, "aggregations": {}, "tasks": [], "imported_before": "scorekit" in sys.modules}
    for ep in eps.select(group="lm_eval.aggregations"):
        fn = get_aggregation(ep.name)
        out["aggregations"][ep.name] = f"{fn.__module__}:{fn.__name__}"
    for ep in eps.select(group="lm_eval.metrics"):
        fn = get_metric(ep.name)
        side_effects(ep.name)
        agg = r.metric_agg_registry.get(ep.name, None)
        out["metrics"][ep.name] = {
            "object": f"{fn.__module__}:{fn.__name__}",
            "file": sys.modules[fn.__module__].__file__,
            "aggregation": None if agg is None else f"{agg.__module__}:{agg.__name__}",
            "higher_is_better": r.higher_is_better_registry.get(ep.name, None),
        }
    folders = []
    for ep in eps.select(group="lm_eval.tasks"):
        spec = importlib.util.find_spec(ep.value.split(":", 1)[0].strip())
        locations = list(spec.submodule_search_locations or []) if spec else []
        folder = Path(locations[0]) if locations else (Path(spec.origin).parent if spec and spec.origin else None)
        folders.append(str(folder))
    out["task_folders"] = folders
    if folders and all(f != "None" for f in folders):
        from lm_eval.tasks import TaskManager

        out["tasks"] = sorted(TaskManager(include_path=folders, include_defaults=False).all_tasks)
    return out


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1])))
