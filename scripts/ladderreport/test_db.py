"""The SQLite database of every result, and tables made from it."""
import json
import sqlite3


import report
from ladderreport.testing import ROOT, shifted_pair


def test_tables_and_ladders_from_the_database_are_those_from_the_files(tmp_path, capsys):
    assert report.main(["db", "--out", str(tmp_path / "all.sqlite")]) == 0
    for source, folder in ((str(tmp_path / "all.sqlite"), "db"), (str(ROOT / "results"), "files")):
        args = ["tables", source, "--out", str(tmp_path / folder), "--no-plots"]
        if folder == "db":
            args.insert(2, str(ROOT / "results" / "specs"))
        assert report.main(args) == 0
        assert report.main(["ladder", source, "--out", str(tmp_path / folder / "ladder.md"), "--no-plots"]) == 0
    capsys.readouterr()
    for name in ["tables.md", "tables.csv"] + [p.name for p in (tmp_path / "files").glob("ladder-*.md")]:
        assert (tmp_path / "db" / name).read_text() == (tmp_path / "files" / name).read_text(), name
    # --out with several machines: one file each, as many as the files give
    files = sorted(p.name for p in (tmp_path / "files").glob("ladder-*.md"))
    assert len(files) > 1 and sorted(p.name for p in (tmp_path / "db").glob("ladder-*.md")) == files


def test_the_database_round_trip(tmp_path, capsys):
    a, b, _ = shifted_pair(tmp_path, cases=4, repetitions=3)
    out = tmp_path / "db.sqlite"
    assert report.main(["db", str(a), str(b), "--out", str(out)]) == 0
    db = sqlite3.connect(out)
    assert db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 2
    assert db.execute("SELECT COUNT(*) FROM cases").fetchone()[0] == 2 * 4 * 3
    doc = json.loads(a.read_text())
    first = doc["benchmarks"][0]
    seconds, flops = db.execute(
        "SELECT c.seconds, k.value FROM cases c JOIN runs r USING (run_id) JOIN counters k USING (case_id) "
        "WHERE r.file = ? AND c.name = ? AND c.repetition_index = 0 AND k.name = 'flops'",
        (str(a), first["run_name"].replace("/real_time", ""))).fetchone()
    assert abs(seconds - first["real_time"] / 1e3) < 1e-15 and flops == first["flops"]
    assert db.execute("SELECT value FROM context WHERE key = 'git_sha' LIMIT 1").fetchone()[0] == "abc"
    assert report.main(["db", "--schema"]) == 0 and "CREATE TABLE runs" in capsys.readouterr().out


def test_the_database_of_all_committed_results(tmp_path, capsys):
    out = tmp_path / "all.sqlite"
    assert report.main(["db", str(ROOT / "results"), "--out", str(out)]) == 0
    db = sqlite3.connect(out)
    assert db.execute("SELECT COUNT(DISTINCT machine_id) FROM runs").fetchone()[0] >= 3
