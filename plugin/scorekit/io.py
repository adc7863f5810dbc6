"""Old path of :mod:`scorekit.files` (renamed: ``io`` shadows the standard library's module).
Kept for one release: ``scorekit.io`` is the same module object as :mod:`scorekit.files`."""

import sys

from scorekit import files as _files

sys.modules[__name__] = _files
