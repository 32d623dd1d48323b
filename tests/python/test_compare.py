"""report.py compare, history and db on synthetic runs with known shifts and noise, and on the
committed results."""
import json
import pathlib
import sqlite3
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import report  # noqa: E402
from ladderreport import compare, runs  # noqa: E402


def synthetic_run(path, seconds_by_case, date, sha="abc", machine="synthetic-2c"):
    """A ladderbench-shaped Google Benchmark file: every case's repetitions, in ms."""
    benchmarks = []
    for name, times in seconds_by_case.items():
        for i, t in enumerate(times):
            benchmarks.append({"name": name + "/real_time", "run_name": name + "/real_time", "run_type": "iteration",
                               "repetitions": len(times), "repetition_index": i, "iterations": 10,
                               "real_time": t * 1e3, "cpu_time": t * 1e3, "time_unit": "ms", "flops": 1e9 / t})
    doc = {"context": {"machine_id": machine, "date": date, "git_sha": sha, "profile": "full"}, "benchmarks": benchmarks}
    path.write_text(json.dumps(doc))
    return path


def shifted_pair(tmp_path, shift=0.10, noise=0.03, cases=20, repetitions=15, seed=7):
    rng = np.random.default_rng(seed)
    base = {f"gemm/rung{i}/f32/n:{64 * (i + 1)}": 1e-3 * (i + 1) for i in range(cases)}
    a, b, shifted = {}, {}, set()
    for i, (name, t) in enumerate(base.items()):
        factor = 1 + shift if i % 2 == 0 else 1.0
        if factor != 1:
            shifted.add(name)
        a[name] = list(t * (1 + noise * rng.standard_normal(repetitions)))
        b[name] = list(t * factor * (1 + noise * rng.standard_normal(repetitions)))
    return (synthetic_run(tmp_path / "a.json", a, "2026-12-01T00:00:00"),
            synthetic_run(tmp_path / "b.json", b, "2026-12-02T00:00:00"), shifted)


def verdicts(path_a, path_b):
    rows, _ = compare.compare_runs(runs.load_run(path_a), runs.load_run(path_b))
    return {r["case"]: r for r in rows}


def test_a_ten_percent_shift_in_three_percent_noise_is_slower_and_the_rest_same(tmp_path):
    a, b, shifted = shifted_pair(tmp_path)
    for name, row in verdicts(a, b).items():
        assert row["verdict"] == ("slower" if name in shifted else "same"), (name, row)
        assert row["low"] <= row["ratio"] <= row["high"]


def test_the_other_way_round_is_faster(tmp_path):
    a, b, shifted = shifted_pair(tmp_path)
    for name, row in verdicts(b, a).items():
        assert row["verdict"] == ("faster" if name in shifted else "same"), (name, row)


def test_wide_noise_is_called_noisy_not_a_verdict(tmp_path):
    a, b, _ = shifted_pair(tmp_path, shift=0.0, noise=0.30, repetitions=5)
    assert {r["verdict"] for r in verdicts(a, b).values()} <= {"noisy", "same"}
    assert "noisy" in {r["verdict"] for r in verdicts(a, b).values()}


def test_exit_status_says_whether_anything_got_slower(tmp_path, capsys):
    a, b, _ = shifted_pair(tmp_path)
    assert report.main(["compare", str(a), str(b), "--out", str(tmp_path / "out")]) == 1
    out = capsys.readouterr().out
    assert "slower" in out and "95% interval" in out and "geometric mean" in out
    assert (tmp_path / "out" / "compare.csv").read_text().startswith("case,a_seconds")
    assert "<table>" in (tmp_path / "out" / "compare.html").read_text()
    assert report.main(["compare", str(b), str(a)]) == 0  # faster and same: nothing slower
    assert report.main(["compare", str(a), str(tmp_path / "missing.json")]) == 2


def test_the_geometric_mean_per_suite(tmp_path):
    a = synthetic_run(tmp_path / "a.json", {"gemm/x/f32/n:1": [1.0] * 5, "gemm/y/f32/n:1": [1.0] * 5}, "d1")
    b = synthetic_run(tmp_path / "b.json", {"gemm/x/f32/n:1": [2.0] * 5, "gemm/y/f32/n:1": [0.5] * 5}, "d2")
    _, geomeans = compare.compare_runs(runs.load_run(a), runs.load_run(b))
    assert abs(geomeans["gemm"] - 1.0) < 1e-12


def test_two_committed_runs_of_one_machine_get_verdicts_with_intervals(capsys):
    files = sorted((ROOT / "results" / "amd-epyc-zen3-2c").glob("*.json"))[-2:]
    code = report.main(["compare", str(files[0]), str(files[1])])
    out = capsys.readouterr().out
    assert code in (0, 1)
    assert " – " in out and any(w in out for w in ("| same", "| noisy", "| slower", "| faster"))


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
