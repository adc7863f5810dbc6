"""Old path of :mod:`scorekit.robustness.score_documents` (it builds SCORE's documents; *variants* are
what ``scorekit variants`` makes of any task). Kept for one release: the same module object."""

import sys

from scorekit.robustness import score_documents as _new

sys.modules[__name__] = _new
