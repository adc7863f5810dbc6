"""Model identity: which model a results or details file belongs to (rules in
:mod:`scorekit.harness_outputs`)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scorekit.errors import ScorekitError
from scorekit.harness_outputs.kinds import DETAILS, LIGHTEVAL, RESULTS, Harness, results_harness

# Keys of model_args that name the model, in the order they are looked at.
MODEL_ARG_KEYS = ("peft", "delta", "pretrained", "model", "path", "engine", "base_model")
# lm-eval's own list (evaluation_tracker._get_model_name): when model_args has none of these,
# lm-eval >= 0.4.11 writes a random 8-character id as model_name.
_LM_EVAL_NAMING_KEYS = ("peft", "delta", "pretrained", "model", "path", "engine")
_RANDOM_ID = re.compile(r"^[a-z0-9]{8}$")


def is_random_id(name: str, model_args: Any) -> bool:
    """True when ``name`` is the random 8-character id lm-eval >= 0.4.11 writes as
    ``model_name`` because ``model_args`` names no model (``{}``, or only ``base_model``)."""
    if not _RANDOM_ID.match(name):
        return False
    return _arg(model_args, _LM_EVAL_NAMING_KEYS) is None


def model_from_args(model_args: Any) -> str | None:
    """The model named by lm-eval ``model_args`` (dict or ``key=value,...`` string), or None.

    >>> model_from_args("base_model=org/base,dtype=float32"), model_from_args({"pretrained": "org/m"})
    ('org/base', 'org/m')
    """
    return _arg(model_args, MODEL_ARG_KEYS)


def _arg(model_args: Any, keys: tuple[str, ...]) -> str | None:
    if isinstance(model_args, str):
        pairs: dict[str, str] = {}
        for item in model_args.split(","):
            k, sep, v = item.partition("=")
            if sep:
                pairs.setdefault(k.strip(), v.strip())
        model_args = pairs
    if isinstance(model_args, dict):
        for key in keys:
            value = model_args.get(key)
            if value not in (None, ""):
                return str(value)
    return None


def model_identity(data: dict, path: str | os.PathLike[str], harness: Harness) -> str:
    """The model a results file belongs to (rule in the module docstring). A wrongly typed
    ``model_name`` or ``config`` raises :class:`ScorekitError` naming the place."""
    if harness == LIGHTEVAL:
        general = data.get("config_general")
        if not isinstance(general, dict):
            raise ScorekitError(f"expected a mapping, got {type(general).__name__}", path=path, where='"config_general"')
        name = general.get("model_name")
        if name is not None and not isinstance(name, str):
            raise ScorekitError(f"expected a string, got {type(name).__name__}", path=path, where='config_general["model_name"]')
        if name:
            return name
        mc = general.get("model_config")
        if isinstance(mc, dict) and isinstance(mc.get("model_name"), str) and mc["model_name"]:
            return mc["model_name"]
        return _model_folders(Path(path), "results")
    name = data.get("model_name")
    if name is not None and not isinstance(name, str):
        raise ScorekitError(f"expected a string, got {type(name).__name__}", path=path, where='"model_name"')
    config = data.get("config")
    if config is not None and not isinstance(config, dict):
        raise ScorekitError(f"expected a mapping, got {type(config).__name__}", path=path, where='"config"')
    args = (config or {}).get("model_args")
    if name and not is_random_id(name, args):
        return name
    found = model_from_args(args)
    if found:
        return found
    if args is None and isinstance((config or {}).get("model"), str) and config["model"]:
        return config["model"]
    return name or os.path.basename(os.path.dirname(os.path.abspath(path)))


def _model_folders(path: Path, top: str) -> str:
    """lighteval's ``<top>/<model...>/`` folders of ``path`` joined by ``/``; more than two
    folders are an absolute local path with its leading ``/`` dropped (lighteval 0.13)."""
    parts = Path(os.path.abspath(path)).parts
    inner = 2 if top == DETAILS else 1  # details/<model...>/<time>/file
    for i in range(len(parts) - inner - 1, -1, -1):
        if parts[i] == top:
            folders = parts[i + 1 : len(parts) - inner]
            if folders:
                name = "/".join(folders)
                return "/" + name if len(folders) > 2 else name
            break
    return parts[-1 - inner] if len(parts) > inner else str(path)


def details_model(path: str | os.PathLike[str], load: Callable[[Path], Any] | None = None) -> str:
    """The model of a lighteval details file ``OUT/details/<model...>/<T>/details_*.parquet``:
    the model of the results file of the same run (``OUT/results/<model...>/results_<T>.json``)
    when it exists, else the folders (see :func:`model_identity`)."""
    path = Path(path)
    run = path.parent.name
    folders = _model_folders(path, DETAILS)
    parts = Path(os.path.abspath(path)).parts
    if DETAILS in parts:
        i = len(parts) - 1 - parts[::-1].index(DETAILS)
        results = Path(*parts[:i], RESULTS, *parts[i + 1 : -2], f"results_{run}.json")
        if results.is_file():
            if load is None:
                from scorekit.io import load_json as load
            try:
                data = load(results)
            except ScorekitError:
                data = None
            if results_harness(data) == LIGHTEVAL:
                return model_identity(data, results, LIGHTEVAL)
    return folders


_HUB_SNAPSHOT = re.compile(r"(?:^|[\\/])models--([^\\/]+?)--([^\\/]+)[\\/]snapshots[\\/][^\\/]+[\\/]?$")


def is_local_path(model: str) -> bool:
    """True when a model name is a local folder as the user typed it (lm-eval's
    ``pretrained=/models/m``, lighteval's absolute paths): absolute, ``~``, ``./`` or ``../``,
    a Windows drive (``C:\\m``) or share (``\\\\host\\m``). ``org/name`` (a Hub id),
    ``provider/org/name`` (an Inspect model) and a name that merely holds a backslash are
    names, not paths.

    >>> [is_local_path(m) for m in ("/srv/ckpt/final", "./out/m", "~/m", "C:\\\\m", "org/name", "mockllm/acme/m", "back\\\\slash")]
    [True, True, True, True, False, False, False]
    """
    return (model.startswith(("/", "~", "./", "../", ".\\", "..\\", "\\\\"))
            or re.match(r"^[A-Za-z]:[\\/]", model) is not None)


def display_names(models: list[str]) -> list[str]:
    """How tables name models (compare, export; the full names stay in JSON): a local path by
    its last folder, with as many parent folders as tell different paths apart; a Hugging Face
    cache snapshot (``.../models--org--name/snapshots/<hash>``) as ``org/name``; anything else
    unchanged. Equal names stay equal.

    >>> display_names(["/srv/a/ckpt-500", "/srv/b/ckpt-500", "/srv/final/", "org/m"])
    ['a/ckpt-500', 'b/ckpt-500', 'final', 'org/m']
    >>> display_names(["/root/.cache/huggingface/hub/models--org--name/snapshots/0a1b2c"])
    ['org/name']
    """
    def parts(model: str) -> list[str]:
        return [p for p in re.split(r"[\\/]+", model) if p not in ("", ".", "~")]

    short: dict[str, str] = {}
    paths = []
    for m in dict.fromkeys(models):
        hub = _HUB_SNAPSHOT.search(m)
        if hub and is_local_path(m):
            short[m] = f"{hub.group(1)}/{hub.group(2)}"
        elif is_local_path(m) and parts(m):
            paths.append(m)
        else:
            short[m] = m
    depth = 1
    while paths:
        names = {m: "/".join(parts(m)[-depth:]) for m in paths}
        taken = list(short.values()) + list(names.values())
        done = [m for m in paths if taken.count(names[m]) == 1 or depth >= len(parts(m))]
        short.update((m, names[m]) for m in done)
        paths = [m for m in paths if m not in done]
        depth += 1
    return [short[m] for m in models]
