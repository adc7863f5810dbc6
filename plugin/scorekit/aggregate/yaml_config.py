"""Old path of :mod:`scorekit.yaml_config` (moved beside :mod:`scorekit.files`, the lowest layer,
so that every part may read YAML). Kept for one release: the same module object."""

import sys

from scorekit import yaml_config as _new

sys.modules[__name__] = _new
