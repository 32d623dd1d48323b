"""report.py history: chosen cases of one machine against commit and date."""


import report
from ladderreport.testing import synthetic_run


def test_history_orders_runs_by_date_and_names_each(tmp_path, capsys):
    machine = tmp_path / "synthetic-2c"
    machine.mkdir()
    for day, sha in ((3, "ccc"), (1, "aaa"), (2, "bbb")):  # written out of order
        synthetic_run(machine / f"z{4 - day}.json", {"gemm/x/f32/n:1024": [day * 1e-3] * 3}, f"2026-12-0{day}T00:00:00", sha)
    assert report.main(["history", str(machine), "--out", str(tmp_path / "plots")]) == 0
    md = (tmp_path / "plots" / "history-synthetic-2c.md").read_text()
    rows = [line for line in md.splitlines() if line.startswith("| 2026")]
    assert [r.split(" git ")[1][:3] for r in rows] == ["aaa", "bbb", "ccc"]
    assert (tmp_path / "plots" / "history-synthetic-2c.png").stat().st_size > 0
    assert report.main(["history", str(machine), "--case", "nothing-matches"]) == 1
    assert report.main(["history", str(machine), "--case", "("]) == 2


def test_history_of_a_committed_machine(tmp_path, capsys):
    assert report.main(["history", "amd-epyc-zen3-2c", "--out", str(tmp_path)]) == 0
