"""Reading result files into machines: parts merged, old files read, bad values skipped with one line."""
import json
import shutil

import pytest

import report
from ladderreport.testing import GPU_PARTS, HOSTILE_EDITS, RESULT, hostile_copy, run


def test_unreadable_and_foreign_files_are_named_and_skipped(tmp_path, capsys):
    (tmp_path / "garbage.json").write_text("{not json")
    (tmp_path / "foreign.json").write_text(json.dumps({"context": {"date": "x"}, "benchmarks": []}))
    (tmp_path / "list.json").write_text("[1, 2]")
    shutil.copy(RESULT, tmp_path / "real.json")
    code, out, err = run(["tables", str(tmp_path), "--out", str(tmp_path / "out"), "--no-plots"], capsys)
    assert code == 0
    assert "garbage.json: cannot be read as JSON" in err
    assert "foreign.json: a Google Benchmark file, but not from ladderbench" in err
    assert "list.json: not a Google Benchmark result file" in err
    assert "Traceback" not in err
    assert "1 measured machine(s)" in out


def test_main_memory_roof_is_the_programs_own_or_the_best_an_older_file_measured():
    m = report.Machine("m", "m", "cpu", True)
    m.context = {"bandwidth_DRAM_all_cores_bytes_per_second": "20e9", "bandwidth_stream_triad_bytes_per_second": "24e9"}
    assert m.bandwidth() == 24e9  # an older file: the best of its read plateau and triad
    m.context["bandwidth_main_memory_roof_bytes_per_second"] = "32e9"  # triad with streaming stores
    assert m.bandwidth() == 32e9


def test_the_parts_of_one_gpu_check_make_one_machine_and_a_repeated_run_replaces_it(tmp_path, capsys):
    assert len(GPU_PARTS) >= 3
    for p in GPU_PARTS:
        shutil.copy(p, tmp_path / p.name)
    machines, _ = report.load_machines([tmp_path])
    assert len(machines) == 1
    suites = {c["suite"] for c in machines[0].cases.values()}
    assert {"gemm", "stream", "pcie", "roofline", "overhead", "model", "model-sweep"} <= suites
    assert machines[0].gemm_at("cublas-tf32") is not None and machines[0].gemm_at("amx") is not None
    # A later run at the same commit that repeats a part's cases is a run of its own: it replaces.
    doc = json.loads(GPU_PARTS[0].read_text())
    doc["context"]["date"] = "2099-01-01T00:00:00+00:00"
    (tmp_path / "later.json").write_text(json.dumps(doc))
    machines, _ = report.load_machines([tmp_path])
    assert {c["suite"] for c in machines[0].cases.values()} == {b["run_name"].split("/")[0] for b in doc["benchmarks"]}



@pytest.mark.parametrize("name", sorted(HOSTILE_EDITS))
def test_a_bad_value_is_skipped_with_one_line_and_every_command_still_works(tmp_path, capsys, name):
    path = hostile_copy(tmp_path, name, HOSTILE_EDITS[name])
    out = tmp_path / "out"
    commands = [["tables", str(path), "--out", str(out), "--no-plots"], ["ladder", str(path), "--out", str(out / "ladder.md")]]
    if name in ("nan-counter", "string-peak", "inf-counter"):  # the figures read the same values (slow: a few only)
        commands.append(["plot", str(path), "--out", str(out / "plots")])
    for args in commands:
        code, _, err = run(args, capsys)
        assert code == 0, (args, err)
    # The tables never pick a non-finite figure as a machine's best.
    cells = "\n".join(line for line in (out / "tables.md").read_text().lower().splitlines() if line.startswith("|"))
    assert "nan" not in cells and "inf " not in cells


def test_a_machine_id_cannot_write_outside_results(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(report, "RESULTS", tmp_path / "results")
    for hostile in ("../../../escaped", str(tmp_path / "absolute"), "..", "a/../../b"):
        path = hostile_copy(tmp_path, f"id-{abs(hash(hostile))}", lambda d, h=hostile: d["context"].update(machine_id=h))
        code, _, err = run(["ladder", str(path)], capsys)
        if hostile == "..":  # nothing of it is usable: the file is skipped, with one line saying why
            assert code == 1 and "has nothing usable as a folder name" in err, err
            continue
        assert code == 0, err
        assert "not a safe folder name" in err
        written = [p for p in tmp_path.rglob("ladder.md")]
        assert written and all((tmp_path / "results") in p.parents for p in written), written
    assert not (tmp_path / "escaped").exists() and not (tmp_path / "absolute").exists()
    assert report.safe_slug("../../x") == "x" and report.safe_slug("..") == "" and "/" not in report.safe_slug("a/b")


def test_a_cases_regime_is_read_from_its_counter_and_from_the_label_only_in_older_files():
    names = report.regime_codes({"regime_codes": "0 compute, 1 memory, 2 overhead"})
    assert names == {0: "compute", 1: "memory", 2: "overhead"}
    assert report.regime_of({"regime": 1.0}, "compute-bound", names) == "memory"
    assert report.regime_of({}, "tiled kernel; compute-bound", names) == "compute"  # written before the counter
    assert report.regime_of({"regime": "x"}, "overhead-bound", {}) == "overhead"
    assert report.regime_of({}, "", names) is None


def test_a_ladder_run_completes_the_machines_newest_other_run(tmp_path):
    doc = json.loads(RESULT.read_text())
    (tmp_path / "full.json").write_text(json.dumps(doc))
    ladder = json.loads(RESULT.read_text())
    ladder["context"].update(profile="ladder", date="2099-01-01T00:00:00+00:00", git_sha="later")
    ladder["benchmarks"] = [b for b in ladder["benchmarks"] if b["run_name"].startswith("gemm/")]
    first = next(b for b in ladder["benchmarks"] if "flops" in b)
    for b in ladder["benchmarks"]:
        if b["run_name"] == first["run_name"]:
            b["flops"] = b["flops"] * 2
    (tmp_path / "ladder.json").write_text(json.dumps(ladder))
    machines, _ = report.load_machines([tmp_path])
    assert len(machines) == 1
    m = machines[0]
    suites = {c["suite"] for c in m.cases.values()}
    assert suites == {b["run_name"].split("/")[0] for b in doc["benchmarks"]}  # nothing of the full run hidden
    key = first["run_name"].rsplit("/", 1)[0]  # the case, without the time kind
    full = report.load_machines([tmp_path / "full.json"])[0][0]
    assert m.cases[key]["flops"] == pytest.approx(2 * full.cases[key]["flops"])  # the ladder run's figure where both ran
    assert m.context["profile"] == "ladder" and len(m.order) == len(set(m.order))


def test_a_model_cases_configuration_is_read_from_its_counters_and_from_the_label_only_in_older_files():
    from ladderreport.machines import model_config_name
    context = {"model_config/small": "16 16 64 2 4", "model_config/tiny": "4 5 12 2 2"}
    small = {"config_height": 16, "config_width": 16, "config_channels": 64, "config_layers": 2, "config_heads": 4}
    assert model_config_name(context, small, "config tiny (…") == "small"  # the counters win over the label
    assert model_config_name(context, {**small, "config_heads": 8}, "") == "custom"
    assert model_config_name({}, {}, "config medium (32x32, C=128, 4 layers, 8 heads); …") == "medium"


def test_an_interrupted_run_never_becomes_the_machines_run(tmp_path, capsys):
    shutil.copy(RESULT, tmp_path / "run.json")
    doc = json.loads(RESULT.read_text())
    doc["context"]["date"] = "2999-01-01T00:00:00+00:00"  # newer than the whole run
    doc["benchmarks"] = doc["benchmarks"][:2]
    (tmp_path / "run.interrupted.json").write_text(json.dumps(doc))
    machines, _ = report.load_machines([tmp_path])
    err = capsys.readouterr().err
    assert "run.interrupted.json: an interrupted run" in err
    assert [m.source for m in machines] == [str(tmp_path / "run.json")]


def test_one_machine_id_naming_two_cpus_is_two_columns_and_said(tmp_path, capsys):
    for folder, cpu in (("a", "Intel Xeon A"), ("b", "AMD EPYC B")):
        (tmp_path / folder).mkdir()
        hostile_copy(tmp_path / folder, "x", lambda d, cpu=cpu: d["context"].update(cpu_model=cpu))
    machines, _ = report.load_machines([tmp_path])
    assert len(machines) == 2
    assert len({m.id for m in machines}) == 2
    assert "names CPU" in capsys.readouterr().err


def test_a_fifo_named_like_a_result_is_not_read(tmp_path):
    import os
    shutil.copy(RESULT, tmp_path / "run.json")
    os.mkfifo(tmp_path / "pipe.json")
    machines, _ = report.load_machines([tmp_path])  # a read of the FIFO would never return
    assert len(machines) == 1


def test_deep_nesting_is_a_file_skipped_not_a_traceback(tmp_path, capsys):
    shutil.copy(RESULT, tmp_path / "run.json")
    (tmp_path / "deep.json").write_text("[" * 100000 + "]" * 100000)
    machines, _ = report.load_machines([tmp_path])
    assert len(machines) == 1
    assert "deep.json: cannot be read as JSON (RecursionError" in capsys.readouterr().err


def test_explain_refuses_sizes_and_gaps_that_are_no_numbers(capsys):
    for bad in (["--m", "0"], ["--k", "-5"], ["--gap", "nan"], ["--gap", "-1"]):
        with pytest.raises(SystemExit) as exit_:
            report.main(["explain", "nvidia-t4", "nvidia-a100-40gb", *bad])
        assert exit_.value.code == 2
        assert "Traceback" not in capsys.readouterr().err


def test_a_cases_axes_come_from_the_context_and_from_its_name_only_in_older_files(tmp_path):
    doc = json.loads(RESULT.read_text())
    case = next(b for b in doc["benchmarks"] if b["run_name"].startswith("gemm/") and "flops" in b)
    key = case["run_name"].rsplit("/", 1)[0]
    # The context's axes win over what the name would say: a case read by its axes, not its name.
    table = {key: {"suite": "gemm", "rung": "renamed", "dtype": "bf16", "size_axis": "n", "size": 77}}
    doc["context"]["case_axes"] = json.dumps(table)
    doc["context"]["noisy_cv"] = "0.5"
    (tmp_path / "new.json").write_text(json.dumps(doc))
    m = report.load_machines([tmp_path / "new.json"])[0][0]
    assert (m.cases[key]["rung"], m.cases[key]["dtype"], m.cases[key]["size"]) == ("renamed", "bf16", 77)
    from ladderreport.runs import case_axes, noisy_cv

    assert noisy_cv(doc["context"]) == 0.5
    assert noisy_cv({}) == 0.10  # an older file: the threshold ladderbench used then
    parts = key.split("/")
    assert case_axes({}, key) == {"suite": parts[0], "rung": parts[1], "dtype": parts[2], "size_axis": "n",
                                  "size": int(parts[3].split(":")[1])}  # an older file: from its name
    assert case_axes({}, "not a case name") is None
