"""``report.html``: one self-contained page (tables, embedded plots, notes) that renders in a
real browser."""

from __future__ import annotations

import re

import pytest

from scorekit.cli import main
from scorekit.robustness.readers import read_paths
from scorekit.robustness.report import build_report, summary_table
from tests.robustness.report_fixtures import build_logs
from tests.support import chromium
from tests.support.chromium import assert_screenshot_has_content, assert_self_contained

pytestmark = pytest.mark.slow

@pytest.fixture(scope="module")
def page(tmp_path_factory):
    logs = build_logs.scorekit_logs(tmp_path_factory)["scorekit"]
    target = tmp_path_factory.mktemp("html") / "report.html"
    assert main(["robustness", str(logs), "--format", "html", "--output", str(target)]) == 0
    return logs, target


def test_page_is_self_contained_with_tables_plots_and_notes(page):
    logs, target = page
    text = target.read_text(encoding="utf-8")
    pngs = assert_self_contained(text)
    # scorekit's fixture logs have prompt and option-order families and defined CRs: three plots
    assert len(pngs) == 3
    assert 'id="accuracy_per_prompt"' in text and 'id="consistency_rates"' in text
    assert "<caption>SCORE robustness</caption>" in text and "<h2>Notes</h2>" in text


def test_table_has_whatever_columns_the_report_has(page):
    logs, target = page
    columns, rows = summary_table(build_report(read_paths([logs])))
    text = target.read_text(encoding="utf-8")
    first = text[text.index("<table>"):text.index("</table>")]
    assert re.findall(r"<th>(.*?)</th>", first) == columns
    assert first.count("<tr>") == len(rows) + 1


def test_page_renders_in_headless_chromium(page, tmp_path):
    if chromium.chromium() is None:
        pytest.skip("chromium is not installed (.ci/run installs it)")
    _, target = page
    probe, shot = chromium.render(target, tmp_path / "browser")
    assert probe["title"] == "SCORE robustness"
    assert len(probe["imgs"]) == 3
    for img in probe["imgs"]:
        assert img["complete"] and img["width"] > 100 and img["height"] > 100, img
    captions = [t["caption"] for t in probe["tables"]]
    assert captions[0] == "SCORE robustness" and "Accuracy per prompt" in captions
    for table in probe["tables"]:
        assert table["rows"] >= 2 and table["width"] > 100 and table["height"] > 20, table
    assert_screenshot_has_content(shot)
