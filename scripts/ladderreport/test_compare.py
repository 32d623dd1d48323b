"""report.py compare on synthetic runs with known shifts and noise, and on the committed results."""


import report
from ladderreport import compare, runs
from ladderreport.testing import ROOT, shifted_pair, synthetic_run, verdicts


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


def test_a_file_without_time_units_is_not_read_as_nanoseconds(tmp_path, capsys):
    import json
    a = synthetic_run(tmp_path / "a.json", {"gemm/x/f32/n:8": [1e-3] * 3}, "2026-01-01")
    b = synthetic_run(tmp_path / "b.json", {"gemm/x/f32/n:8": [1e-3] * 3}, "2026-01-02")
    doc = json.loads(b.read_text())
    for bench in doc["benchmarks"]:
        del bench["time_unit"]
    b.write_text(json.dumps(doc))
    assert runs.load_run(b).seconds["gemm/x/f32/n:8"] == []
    assert "is not a time; ignored" in capsys.readouterr().err
    assert runs.load_run(a).seconds["gemm/x/f32/n:8"] == [1e-3] * 3


def test_an_interrupted_run_says_its_noise_was_never_judged(tmp_path):
    a = synthetic_run(tmp_path / "a.json", {"gemm/x/f32/n:8": [1e-3] * 3}, "2026-01-01")
    b = synthetic_run(tmp_path / "b.interrupted.json", {"gemm/x/f32/n:8": [1e-3] * 3}, "2026-01-02")
    assert "B not judged (an interrupted run" in compare.markdown(runs.load_run(a), runs.load_run(b), [], {}, 0.05)


def test_an_interrupted_run_judged_as_far_as_it_went_says_so(tmp_path):
    import json
    a = synthetic_run(tmp_path / "a.json", {"gemm/x/f32/n:8": [1e-3] * 3}, "2026-01-01")
    b = synthetic_run(tmp_path / "b.interrupted.json", {"gemm/x/f32/n:8": [1e-3] * 3}, "2026-01-02")
    doc = json.loads(b.read_text())
    doc["context"].update(noise_verdict="noisy", noise_reasons="the cgroup's CPU quota throttled 1 case(s): x",
                          noise_scope="judged over the 3 timed run(s) measured before the run was interrupted")
    b.write_text(json.dumps(doc))
    text = compare.markdown(runs.load_run(a), runs.load_run(b), [], {}, 0.05)
    assert ("B noisy (the cgroup's CPU quota throttled 1 case(s): x), judged over the 3 timed run(s) measured before "
            "the run was interrupted") in text
