# Task folders written by `scorekit robustify` (now `scorekit variants`) name this class path; they still load.
from scorekit.lm_eval.task_variants import RobustTask as RobustTask
