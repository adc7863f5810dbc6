"""The SCORE tasks' module before it was renamed :mod:`scorekit.lighteval.score_suite`:
``--custom-tasks scorekit.lighteval.tasks`` keeps loading the same tasks in this release, with a
note naming the new module."""

from scorekit.io import note
from scorekit.lighteval.score_suite import TASKS_TABLE

__all__ = ["TASKS_TABLE"]

note("--custom-tasks scorekit.lighteval.tasks is now scorekit.lighteval.score_suite; the old name loads the same "
     "tasks in this release and will go")
