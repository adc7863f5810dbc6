# Modules written by `scorekit robustify --harness lighteval` (now `scorekit variants`) import this; they still load.
from scorekit.lighteval.task_variants import robust_tasks as robust_tasks
