"""Checks of ``report.html``: self-contained (:func:`assert_self_contained`), and what renders
when real headless Chromium (Debian's ``chromium``) opens it (:func:`render`).

Two runs of the browser on a copy of the page with a small probe script appended (the page
itself carries no script): ``--dump-dom`` returns the DOM after the load event, where the probe
has written every image's ``naturalWidth`` and every table's rendered size; ``--screenshot``
keeps a PNG of the page. Host names resolve to nothing, so a resource that is not inside the
file fails to load and shows up as an image of width 0.
"""

from __future__ import annotations

import base64
import html
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND", "--hide-scrollbars",
]

_PROBE = """<script>
window.addEventListener('load', () => {
  const imgs = [...document.images].map(i => ({complete: i.complete, width: i.naturalWidth, height: i.naturalHeight}));
  const tables = [...document.querySelectorAll('table')].map(t => {
    const r = t.getBoundingClientRect();
    return {width: Math.round(r.width), height: Math.round(r.height), rows: t.rows.length,
            caption: t.caption ? t.caption.textContent : null};
  });
  document.body.setAttribute('data-probe', JSON.stringify({imgs, tables, title: document.title}));
});
</script>
"""


def chromium() -> str | None:
    """Path of the Chromium binary, or None."""
    return shutil.which("chromium") or (os.path.exists("/usr/bin/chromium") and "/usr/bin/chromium") or None


def _run(binary: str, workdir: Path, name: str, *args: str) -> subprocess.CompletedProcess:
    profile = workdir / f"profile-{name}"  # a fresh profile per run
    return subprocess.run([binary, *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True, text=True,
                          timeout=120, check=True)


def render(page: Path, workdir: Path, *, window: tuple[int, int] = (1280, 2000)) -> tuple[dict, Path]:
    """Probe results (``imgs``, ``tables``, ``title``) and the screenshot path for ``page``."""
    binary = chromium()
    assert binary, "chromium is not installed"
    workdir.mkdir(parents=True, exist_ok=True)
    probed = workdir / "probed.html"
    text = page.read_text(encoding="utf-8")
    assert "</body>" in text
    probed.write_text(text.replace("</body>", _PROBE + "</body>"), encoding="utf-8")
    dom = _run(binary, workdir, "dom", "--virtual-time-budget=10000", "--dump-dom", probed.as_uri()).stdout
    m = re.search(r'data-probe="([^"]*)"', dom)
    assert m, f"the probe did not run; DOM starts: {dom[:300]!r}"
    probe = json.loads(html.unescape(m.group(1)))
    shot = workdir / "screenshot.png"
    _run(binary, workdir, "shot", f"--window-size={window[0]},{window[1]}", f"--screenshot={shot}", page.as_uri())
    return probe, shot


def assert_self_contained(text: str) -> list[bytes]:
    """No script, stylesheet link, frame or remote URL; every image a PNG data URL. Returns the PNGs."""
    lowered = text.lower()
    for tag in ("<script", "<link", "<iframe", "<object", "<embed", "@import", "url("):
        assert tag not in lowered, tag
    assert not re.search(r"""\b(?:src|href)\s*=\s*(?!["']?data:)""", lowered)
    images = re.findall(r'<img [^>]*src="data:image/png;base64,([A-Za-z0-9+/=]+)"', text)
    assert len(images) == lowered.count("<img ")
    pngs = [base64.b64decode(data, validate=True) for data in images]
    assert all(png.startswith(PNG_SIGNATURE) for png in pngs)
    return pngs


def assert_screenshot_has_content(shot: Path, *, bars: bool = True) -> None:
    """The screenshot (kept in the test's temp folder) is a PNG with text on it and, with
    ``bars``, coloured plot bars."""
    import matplotlib.image

    assert shot.read_bytes()[:8] == PNG_SIGNATURE
    pixels = matplotlib.image.imread(shot)[..., :3]
    dark = (pixels.mean(axis=2) < 0.5).mean()
    coloured = (pixels.max(axis=2) - pixels.min(axis=2) > 0.2).mean()
    assert dark > 0.005, dark  # text and table lines
    if bars:
        assert coloured > 0.005, coloured  # the bars of the plots
