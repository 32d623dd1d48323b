"""The fleet's static site: every machine, its ladder and ceilings, every pair compared; each page
as a browser shows it."""
import shutil

import pytest

from ladderreport.testing import ROOT, browser_view, run


def test_the_site_of_the_committed_results_has_every_machine_and_pair_and_opens_whole(tmp_path, capsys):
    site = tmp_path / "site"
    code, out, err = run(["site", str(site)], capsys)
    assert code == 0, err
    machines = sorted(p.name for p in (ROOT / "results").iterdir() if p.is_dir() and p.name not in ("tables", "specs"))
    index = (site / "index.html").read_text()
    for machine in machines:
        assert f"{machine}/ladder.html" in index and f"{machine}/ceilings.html" in index
        assert "<table" in (site / machine / "ceilings.html").read_text()
    pairs = sorted(site.glob("compare/*.html"))
    assert len(pairs) == len(machines) * (len(machines) - 1) // 2
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        pytest.skip("chromium is not installed (scripts/setup.sh --for-tests installs it where the distribution has one)")
    for page in sorted(site.rglob("*.html")):
        view = browser_view(chromium, page, tmp_path)
        assert view["tables"] and all(rows >= 1 for rows in view["tables"]), page
        assert all(loaded for _, loaded in view["images"]), (page, view["images"])
        for link in view["links"]:
            assert (page.parent / link.split("#")[0]).resolve().is_file(), (page, link)
