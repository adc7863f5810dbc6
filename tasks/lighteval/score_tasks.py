"""The SCORE tasks' file before it was renamed ``score_suite.py``: ``--custom-tasks
"$(scorekit tasks-dir)/lighteval/score_tasks.py"`` keeps loading the same tasks in this release,
with a note naming the new file."""

from scorekit.io import note
from scorekit.lighteval.score_suite import TASKS_TABLE

__all__ = ["TASKS_TABLE"]

note("--custom-tasks .../lighteval/score_tasks.py is now .../lighteval/score_suite.py; the old file loads the same "
     "tasks in this release and will go")
