"""Facts docs/lighteval.md and the README state about lighteval 0.13, checked on the installed
lighteval: where its sample cache goes, and that both documents give the same install line."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_cache_dir_moves_the_cache_except_for_a_model_folder(tmp_path):
    from lighteval.models.transformers.transformers_model import TransformersModelConfig
    from lighteval.utils.cache_management import SampleCache

    folder = tmp_path / "model"
    folder.mkdir()
    mine = tmp_path / "mine"
    a = SampleCache(TransformersModelConfig(model_name=str(folder), cache_dir=str(mine))).cache_dir
    b = SampleCache(TransformersModelConfig(model_name=str(folder), cache_dir=str(tmp_path / "other"))).cache_dir
    assert a.parent == b.parent == folder and a != b  # inside the model folder; the hash follows cache_dir
    assert re.fullmatch(r"[0-9a-f]{16}", a.name)
    hub = SampleCache(TransformersModelConfig(model_name="org/model", cache_dir=str(mine))).cache_dir
    assert hub.parent == mine / "org" / "model"
    assert not any(mine.glob("**/*.parquet")) and not (mine / str(folder).lstrip("/")).exists()


def _install_lines(text: str) -> set[str]:
    return {line.strip() for line in text.splitlines() if line.strip().startswith("pip install") and "lighteval" in line}


def test_readme_and_docs_give_the_same_install_line_and_first_run_settings():
    readme = (REPO / "README.md").read_text()
    section = readme[readme.index("\n## lighteval\n"):readme.index("\n## Post-processing\n")]
    docs = (REPO / "docs" / "lighteval.md").read_text()
    assert _install_lines(section) == _install_lines(docs) == {'pip install -c constraints.txt -e ".[lighteval]"'}
    for name in ("SCOREKIT_SCORE_DATA_DIR", "SCOREKIT_SCORE_GENERATION_SIZE", "--save-details", "lighteval eval"):
        assert name in section and name in docs, name
    # the README's data step uses files that exist, in the layout the tasks read
    assert (REPO / "plugin" / "scorekit" / "demo" / "data" / "mmlu_pro.jsonl").is_file()
    assert "cp plugin/scorekit/demo/data/mmlu_pro.jsonl data/mmlu_pro/test.jsonl" in section
