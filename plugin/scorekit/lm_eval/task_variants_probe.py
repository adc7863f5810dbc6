"""``scorekit variants``' check of a task's documents before anything is written: the variant
task is built as lm-eval will build it (:func:`probe`); documents that cannot be read are
either written from the task's config or refused (:func:`decide_unchecked`)."""

from __future__ import annotations

import logging
import os
import warnings
from pathlib import Path

from scorekit.errors import ScorekitError

NOT_AT_HAND = "its data is on the Hugging Face hub, not in the cache, and offline mode is on"


def decide_unchecked(name: str, cfg: dict, spec, output_type: str, why: str) -> str:
    """The task's documents could not be read (``why``): write it only when its config alone
    shows that it is a real test, else refuse in one line saying that it could not be checked.
    Returns the note that says so, printed once everything is written (a refusal stays one line)."""
    from scorekit.lm_eval.task_variants_yaml import likely_cloze, scored_on_labels, template_shows

    where = f"task {name}"
    if spec.family == "prompt":
        labels = scored_on_labels(cfg)
        for t, template in enumerate(spec.templates if labels else ()):
            if template_shows(cfg, template) is None:
                raise ScorekitError(f"it is scored on the labels {', '.join(labels)}, but template {t} ({template[:60]!r}) "
                                    "does not show the options they name; write templates that list the options after "
                                    "their labels", where=where)
    elif output_type == "multiple_choice" and template_shows(cfg) is None:
        if likely_cloze(cfg) and not spec.show_options:
            hint = ("; its template does not show the choices and reads other fields than theirs, so it is likely a "
                    "cloze task (each option scored as a continuation): --show-options asks it as lettered options")
        else:
            hint = "; its template alone does not show the options (process_docs, Python or the data write them)"
        raise ScorekitError(f"could not check {'offline ' if _offline() else ''}whether its prompt shows its options: "
                            f"{why or NOT_AT_HAND}{hint}; run scorekit variants where the data can be read (online, in the "
                            "Hugging Face cache, or local data files under --include-path)", where=where)
    shows = " (its template shows the options)" if spec.family == "option_order" else ""
    return (f"task {name}: could not check its documents{' offline' if _offline() else ''}: {why or NOT_AT_HAND}; "
            f"written from its config{shows}; each document is checked when lm-eval runs the task")


def _offline() -> bool:
    return any(os.environ.get(k, "") in ("1", "true", "TRUE", "True") for k in ("HF_DATASETS_OFFLINE", "HF_HUB_OFFLINE"))


def _documents_at_hand(cfg: dict) -> bool:
    """Whether scorekit variants can read the task's documents to check them: online (lm-eval
    would fetch them too), local data files or a local folder, or, offline, hub data that is in
    the Hugging Face cache."""
    if not _offline():
        return True
    files = (cfg.get("dataset_kwargs") or {}).get("data_files")
    if files:
        values = files.values() if isinstance(files, dict) else [files]
        paths = [p for v in values for p in (v if isinstance(v, list) else [v])]
        return all(Path(str(p)).is_file() for p in paths)
    path = str(cfg.get("dataset_path") or "")
    if not path:
        return False
    if Path(path).exists():
        return True
    import datasets.config
    from huggingface_hub import constants

    return (Path(constants.HF_HUB_CACHE) / f"datasets--{path.replace('/', '--')}").is_dir() or \
        (Path(datasets.config.HF_DATASETS_CACHE) / path.replace("/", "___")).is_dir()


class _Unloadable(Exception):
    """The wrapped task's data could not be loaded (the original exception is its cause)."""


def probe(spec, cfg: dict) -> str | None:
    """Build the variant task as lm-eval will, so that every document is checked now
    (:class:`scorekit.lm_eval.task_variants.RobustTask` expands them all): a document whose
    options cannot be moved, or a task lm-eval cannot build from its documents, is refused
    here, nothing written. None when every document was checked, else why they could not be
    read ("" when they are not at hand: offline and not in the cache). lm-eval's, datasets'
    and the hub's log messages and warnings are silenced meanwhile, so an answer stays one line."""
    if not _documents_at_hand(cfg):
        return ""
    from scorekit.lm_eval.task_variants import RobustStop, RobustTask
    from scorekit.lm_eval.task_variants_yaml import task_name

    import datasets

    class Probe(RobustTask):
        def download(self, *args, **kwargs):
            try:
                return super().download(*args, **kwargs)
            except Exception as exc:  # noqa: BLE001 - any loading failure: lm-eval will try again at run time
                raise _Unloadable(f"{type(exc).__name__}") from exc

    config = {"task": task_name(spec.family, spec.task), "metadata": {"version": 1.0, "robust": spec.params()}}
    loggers = [logging.getLogger(n) for n in ("lm_eval", "lm-eval", "datasets", "huggingface_hub", "fsspec", "urllib3")]
    levels = [lg.level for lg in loggers]
    RobustStop.quiet = True
    bars_on = datasets.is_progress_bar_enabled()
    datasets.disable_progress_bars()  # the data is read to check it; a one-line answer stays one line
    try:
        for lg in loggers:
            lg.setLevel(logging.CRITICAL)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            Probe(config=config)
        return None
    except RobustStop as stop:
        raise ScorekitError(stop.message) from None
    except _Unloadable as exc:
        return f"they could not be loaded ({exc})"
    except Exception as exc:  # noqa: BLE001 - the wrapped task itself fails on its documents: lm-eval would too
        from scorekit.errors import shown

        raise ScorekitError(f"lm-eval cannot build it: {type(exc).__name__}: {shown(str(exc), 200)}",
                            where=f"task {spec.task}") from None
    finally:
        for lg, level in zip(loggers, levels):
            lg.setLevel(level)
        RobustStop.quiet = False
        if bars_on:
            datasets.enable_progress_bars()
