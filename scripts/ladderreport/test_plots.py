"""The figures."""
import json


from ladderreport.testing import RESULT, ROOT, run


def test_plot_writes_png_and_svg(tmp_path, capsys):
    code, _, err = run(["plot", str(RESULT.parent), str(ROOT / "results" / "specs"), "--out", str(tmp_path)], capsys)
    assert code == 0, err
    stems = [f"ladder-{RESULT.parent.name}", f"roofline-{RESULT.parent.name}", "machines"]
    names = [b["run_name"] for b in json.loads(RESULT.read_text())["benchmarks"]]
    if any(n.startswith("model/") for n in names):
        stems.append(f"model-{RESULT.parent.name}")
    if any(n.startswith("model-sweep/") for n in names):
        stems.append(f"model-sweep-{RESULT.parent.name}")
    for stem in stems:
        assert (tmp_path / f"{stem}.png").stat().st_size > 1000
        assert (tmp_path / f"{stem}.svg").read_text().startswith("<?xml")
