"""scripts/report.py against the committed reference results and hand-made bad inputs."""
import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import report  # noqa: E402
from ladderreport.layers import layer_rows  # noqa: E402

# A measured machine's whole run (not one of the parts a GPU check writes, one file per group of suites).
RESULT = sorted(p for p in (ROOT / "results").glob("*/*.json") if p.parent.name != "specs" and "-gpu-" not in p.name)[-1]
GPU_PARTS = sorted((ROOT / "results").glob("*/*-gpu-*.json"))


def run(args, capsys):
    code = report.main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_tables_put_measured_and_predicted_side_by_side(tmp_path, capsys):
    code, out, err = run(["tables", str(RESULT.parent), str(ROOT / "results" / "specs"), "--out", str(tmp_path),
                          "--plots", str(tmp_path / "plots")], capsys)
    assert code == 0, err
    md = (tmp_path / "tables.md").read_text()
    assert "## gemm" in md and "## stream" in md
    assert "openblas (f32)" in md and "≈" in md  # a measured rung and a predicted cell
    assert "NVIDIA H200" in md and "(spec)" in md
    if any(b["run_name"].startswith("model/") for b in json.loads(RESULT.read_text())["benchmarks"]):
        assert "## model: time a forward pass" in md and "ms a pass" in md and "f32 roofline bound" in md
    rows = (tmp_path / "tables.csv").read_text().splitlines()
    assert rows[0] == "workload,rung,machine,value,kind,text"
    assert any(",measured," in r for r in rows) and any(",predicted," in r for r in rows)
    page = (tmp_path / "index.html").read_text()
    assert "class='predicted'" in page and "class='measured'" in page
    assert "data:image/png;base64," in page  # self-contained: figures inline


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


def test_two_machines_of_one_cpu_name_get_columns_of_their_own(tmp_path, capsys):
    doc = json.loads(RESULT.read_text())
    for ident in ("amd-epyc-zen3-2c", "amd-epyc-zen4-2c"):
        doc["context"].update(machine_id=ident, cpu_model="AMD EPYC")
        (tmp_path / f"{ident}.json").write_text(json.dumps(doc))
    code, out, err = run(["tables", str(tmp_path), "--out", str(tmp_path / "out"), "--no-plots"], capsys)
    assert code == 0, err
    assert "2 measured machine(s)" in out
    header = next(line for line in (tmp_path / "out" / "tables.md").read_text().splitlines() if line.startswith("| rung |"))
    # The GEMM tables name each device with its host; the others the host by its id.
    assert "AMD EPYC (CPU), host amd-epyc-zen3-2c" in header and "AMD EPYC (CPU), host amd-epyc-zen4-2c" in header
    headers = [line for line in (tmp_path / "out" / "tables.md").read_text().splitlines() if line.startswith("| rung |")]
    assert any("AMD EPYC (amd-epyc-zen3-2c)" in h and "AMD EPYC (amd-epyc-zen4-2c)" in h for h in headers)


def test_strings_from_result_files_are_escaped(tmp_path, capsys):
    doc = json.loads(RESULT.read_text())
    doc["context"]["cpu_model"] = "<script>alert('model')</script>"
    gemm = next(b for b in doc["benchmarks"] if b["name"].startswith("gemm/"))
    gemm["label"] = "<img src=x onerror=alert(1)>; compute-bound"
    (tmp_path / "evil.json").write_text(json.dumps(doc))
    code, _, err = run(["tables", str(tmp_path), "--out", str(tmp_path / "out"), "--no-plots"], capsys)
    assert code == 0, err
    page = (tmp_path / "out" / "index.html").read_text()
    assert "<script>alert" not in page and "&lt;script&gt;alert" in page


def test_explain_t4_against_a100_in_f32(capsys):
    code, out, _ = run(["explain", "nvidia-t4", "nvidia-a100-40gb", "--m", "4096", "--k", "256", "--gap", "170"], capsys)
    assert code == 0
    assert "compute ratio   f32:    2.41x" in out
    assert "n/a (nvidia-t4 has no tf32)" in out
    assert "bandwidth ratio    :    4.86x" in out
    assert "could give 19.3x" in out  # TF32 on the A100's tensor cores
    assert "leaves 8.83x that the hardware cannot explain" in out


def test_explain_puts_each_model_operation_on_both_rooflines(capsys):
    doc = json.loads(RESULT.read_text())
    if not any(b["run_name"].startswith("model/") for b in doc["benchmarks"]):
        pytest.skip("the newest result file has no model cases")
    code, out, err = run(["explain", "nvidia-t4", "nvidia-a100-40gb", "--model", "medium", "--gap", "170"], capsys)
    assert code == 0, err
    for op in ("corr_gemm", "attn_softmax", "mlp_gemm", "whole pass"):
        assert op in out
    assert "TF32" in out and "that the hardware cannot explain" in out
    code, _, err = run(["explain", "nvidia-t4", "nvidia-a100-40gb", "--model", "enormous"], capsys)
    assert code == 2 and "no result file holds the model at configuration 'enormous'" in err


def test_explain_refuses_an_unknown_machine(capsys):
    code, _, err = run(["explain", "nvidia-t4", "cray-1"], capsys)
    assert code == 2 and "unknown machine 'cray-1'" in err


def test_ladder_report_has_every_rung_with_its_factors(tmp_path, capsys):
    out = tmp_path / "ladder.md"
    code, _, err = run(["ladder", str(RESULT), "--out", str(out)], capsys)
    assert code == 0, err
    text = out.read_text()
    # The same table as CSV and as a page with the figure inline, and the figure itself.
    assert (tmp_path / "ladder.csv").read_text().startswith("machine,rung,")
    assert "data:image/png;base64," in (tmp_path / "ladder.html").read_text()
    assert (tmp_path / f"ladder-{RESULT.parent.name}.png").stat().st_size > 1000
    doc = json.loads(RESULT.read_text())
    rungs = {b["run_name"].split("/")[1] for b in doc["benchmarks"] if b["run_name"].startswith("gemm/")}
    for rung in rungs:
        assert f"| {rung} |" in text
    # Each verified rung shows its error against the reference in the last column.
    errors = {(b["run_name"].split("/")[1], b["run_name"].split("/")[3]): b["rel_error"] for b in doc["benchmarks"]
              if b["run_name"].startswith("gemm/") and b.get("run_type") == "iteration" and "rel_error" in b}
    shown = 0
    for line in text.splitlines():
        cells = [c.strip() for c in line.split("|")[1:-1]]
        if len(cells) < 4 or not cells[3][:1].isdigit():
            continue
        # The n column: the size the row is at, and where it was measured elsewhere, that size.
        measured_at = cells[3].split("from n = ")[-1].rstrip(")") if "extrapolated" in cells[3] else cells[3]
        if (cells[0], f"n:{measured_at}") in errors:
            assert cells[-1] == f"{errors[(cells[0], f'n:{measured_at}')]:.1e}", line
            shown += 1
    assert shown > 0
    if "rung/autovec" in doc["context"]:  # results written since rungs carry their mechanism
        autovec = next(line for line in text.splitlines() if line.startswith("| autovec |"))
        lanes = "16x" if "avx512f" in doc["context"]["cpu_isa_flags"] else "8x"
        assert "SIMD width" in autovec and f"| {lanes} |" in autovec


def test_the_ladder_keeps_the_registrys_order_whatever_the_files_order(tmp_path, capsys):
    doc = json.loads(RESULT.read_text())
    if "ladder_order" not in doc["context"]:
        pytest.skip("the newest result file predates the ladder_order entry in its context")
    doc["benchmarks"].reverse()  # as a random interleaving might leave them
    (tmp_path / "shuffled.json").write_text(json.dumps(doc))
    out = tmp_path / "ladder.md"
    assert report.main(["ladder", str(tmp_path / "shuffled.json"), "--out", str(out)]) == 0
    rows = [line.split("|")[1].strip() for line in out.read_text().splitlines() if line.startswith("| ") and "---" not in line]
    registry = doc["context"]["ladder_order"].split(",")
    ran = [r for r in registry if r in rows]
    assert rows[1:] == ran  # rows[0] is the header


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


def test_every_subcommand_has_help():
    for command in ("tables", "plot", "explain", "ladder"):
        result = subprocess.run([sys.executable, str(ROOT / "scripts" / "report.py"), command, "--help"],
                                capture_output=True, text=True)
        assert result.returncode == 0 and "usage:" in result.stdout


def test_the_page_opens_in_headless_chromium(tmp_path, capsys):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        pytest.skip("chromium is not installed (scripts/setup.sh installs it)")
    run(["tables", str(RESULT.parent), str(ROOT / "results" / "specs"), "--out", str(tmp_path), "--plots", str(tmp_path)], capsys)
    shot = tmp_path / "page.png"
    result = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                             "--window-size=1400,2200", f"--screenshot={shot}", (tmp_path / "index.html").as_uri()],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert shot.stat().st_size > 20000  # a page with tables and figures, not a blank one
    assert "Uncaught" not in result.stderr  # no script errors on the page


def test_google_benchmarks_compare_py_accepts_two_of_our_files():
    compare = pathlib.Path("/usr/share/benchmark/compare.py")  # Debian's libbenchmark-tools
    if not compare.exists():
        pytest.skip("compare.py is not installed (scripts/setup.sh installs libbenchmark-tools)")
    files = sorted(p for p in (ROOT / "results").glob("*/*.json") if p.parent.name != "specs")
    first, second = (files[0], files[1]) if len(files) > 1 else (files[0], files[0])
    result = subprocess.run([sys.executable, str(compare), "-a", "benchmarks", str(first), str(second)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    names = [{b["run_name"] for b in json.loads(f.read_text())["benchmarks"]} for f in (first, second)]
    common = sorted(n for n in names[0] & names[1] if n.startswith("gemm/"))
    assert common and all(n in result.stdout for n in common)  # every GEMM case the two files share


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


def test_gpu_rungs_are_predicted_from_the_devices_own_peaks(tmp_path):
    machines, _ = report.load_machines(GPU_PARTS)
    rows = {r["rung"]: r for r in report.ladder_rows(machines[0])}
    ctx = machines[0].context
    tf32, f32 = float(ctx["gpu_peak_cublas-tf32_flops"]), float(ctx["gpu_peak_cublas_flops"])
    assert rows["cublas-tf32"]["predicted"] == pytest.approx(tf32 / f32)  # tensor cores over FMA units
    # A CUDA kernel may gain at most its headroom to the device's f32 peak over the rung above it.
    assert rows["cuda-tiled"]["predicted"] == pytest.approx(float(ctx["gpu_peak_f32_fma_flops"]) / rows["cuda-naive"]["rate"])
    for rung, r in rows.items():  # on the GPU these are roofs (a library's "as fast as a kernel" is a guess)
        if report.GPU_RUNG.match(rung) and r["mechanism"] != "tuned library" and r["predicted"] and r["measured"]:
            assert r["measured"] <= r["predicted"] * 1.05, r


# --- hostile and careless inputs: one line naming file and key, never a traceback ---------------


def hostile_copy(tmp_path, name, edit):
    """The committed result file, with one value made bad by `edit(doc)`, in a folder of its own."""
    doc = json.loads(RESULT.read_text())
    edit(doc)
    folder = tmp_path / name
    folder.mkdir()
    path = folder / RESULT.name
    path.write_text(json.dumps(doc, allow_nan=True))
    return path


def first_gemm(doc):
    return next(b for b in doc["benchmarks"] if b["run_name"].startswith("gemm/") and "flops" in b)


HOSTILE_EDITS = {
    "string-peak": lambda d: d["context"].update(peak_f32_flops="fast"),
    "nan-peak": lambda d: d["context"].update(peak_f32_flops="nan"),
    "numeric-date": lambda d: d["context"].update(date=20261204),
    "list-value": lambda d: d["context"].update(threads=[1, 2]),
    "nan-counter": lambda d: first_gemm(d).update(flops=float("nan"), peak_fraction=float("nan")),
    "inf-counter": lambda d: first_gemm(d).update(flops=float("inf")),
    "string-counter": lambda d: first_gemm(d).update(flops="1e9"),
    "null-counter": lambda d: first_gemm(d).update(rel_error=None),
    "bool-counter": lambda d: first_gemm(d).update(roof_fraction=True),
    "bad-op-counter": lambda d: d["benchmarks"].append({**first_gemm(d), "op/corr_gemm/seconds": "x"}),
    "slash-machine-id": lambda d: d["context"].update(machine_id="a/b"),
    "numeric-machine-id": lambda d: d["context"].update(machine_id=42),
    "null-benchmark": lambda d: d["benchmarks"].append(None),
    "numeric-run-name": lambda d: d["benchmarks"].append({"run_name": 7, "name": 7}),
    "nan-cv": lambda d: d["benchmarks"].append({**first_gemm(d), "run_type": "aggregate", "aggregate_name": "cv",
                                                "real_time": float("nan")}),
}


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


def test_a_nan_counter_is_named_and_never_the_best(tmp_path, capsys):
    path = hostile_copy(tmp_path, "nan", HOSTILE_EDITS["nan-counter"])
    code, _, err = run(["tables", str(path), "--out", str(tmp_path / "t"), "--no-plots"], capsys)
    assert code == 0
    assert f"{path}: gemm/" in err and "flops is nan, not a finite number; ignored" in err


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


def test_an_unwritable_output_folder_is_one_line(tmp_path, capsys):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        code, _, err = run(["tables", str(RESULT), "--out", str(locked / "t"), "--no-plots"], capsys)
        if os.geteuid() == 0:  # root writes anywhere; a file in the way fails for root too
            blocker = tmp_path / "file"
            blocker.write_text("x")
            code, _, err = run(["tables", str(RESULT), "--out", str(blocker / "t"), "--no-plots"], capsys)
        assert code == 1
        assert err.startswith("report: cannot write") and err.count("\n") == 1, err
    finally:
        locked.chmod(0o700)


def test_a_case_with_noisy_repetitions_is_marked(tmp_path, capsys):
    def noisy(doc):
        # Every aggregate cv made quiet, then one case of the ladder's size made noisy.
        for b in doc["benchmarks"]:
            if b.get("aggregate_name") == "cv":
                b["real_time"] = 0.01
        naive = [b for b in doc["benchmarks"] if b["run_name"].startswith("gemm/naive/f32/n:") and "flops" in b]
        shown = max(int(b["run_name"].split(":")[1].split("/")[0]) for b in naive)  # the table's row: its largest n
        b = next(b for b in naive if b["run_name"].startswith(f"gemm/naive/f32/n:{shown}/"))
        doc["benchmarks"].append({**b, "run_type": "aggregate", "aggregate_name": "cv", "real_time": 0.25})
    path = hostile_copy(tmp_path, "noisy", noisy)
    code, _, err = run(["tables", str(path), "--out", str(tmp_path / "t"), "--no-plots"], capsys)
    assert code == 0, err
    md = (tmp_path / "t" / "tables.md").read_text()
    assert md.count("noisy (CV") == 1 and "noisy (CV 25%)" in md, md


def test_a_cases_regime_is_read_from_its_counter_and_from_the_label_only_in_older_files():
    names = report.regime_codes({"regime_codes": "0 compute, 1 memory, 2 overhead"})
    assert names == {0: "compute", 1: "memory", 2: "overhead"}
    assert report.regime_of({"regime": 1.0}, "compute-bound", names) == "memory"
    assert report.regime_of({}, "tiled kernel; compute-bound", names) == "compute"  # written before the counter
    assert report.regime_of({"regime": "x"}, "overhead-bound", {}) == "overhead"
    assert report.regime_of({}, "", names) is None


# --- the whole ladder at one size (Table 1) -------------------------------------------------------


def ladder_machine(cases, context=None):
    """A made-up machine: cases as (rung, n, seconds, extra counters), every rung f32 on one core
    unless its context says otherwise."""
    m = report.Machine("host", "host", "cpu", True)
    m.context = {"threads": "2", "peak_f32_flops_one_core": "100e9", "peak_f32_flops": "200e9",
                 "cache_l1_data": "32768 bytes, shared by 1 cpus", "cache_l2_unified": "1048576 bytes, shared by 1 cpus",
                 "cache_l3_unified": "33554432 bytes, shared by 2 cpus",
                 "bandwidth_L2_one_core_bytes_per_second": "100e9", "bandwidth_L3_one_core_bytes_per_second": "80e9",
                 "bandwidth_DRAM_one_core_bytes_per_second": "20e9", **(context or {})}
    for rung, n, seconds, extra in cases:
        key = f"gemm/{rung}/f32/n:{n}"
        m.cases[key] = {"suite": "gemm", "rung": rung, "dtype": "f32", "size": n, "error": None, "label": "",
                        "seconds": seconds, "flops": 2.0 * n ** 3 / seconds, "bytes": 12.0 * n * n, "threads": 1,
                        **extra}
        m.order.append(key)
    return m


def test_a_rung_capped_below_the_common_size_has_its_time_extrapolated_by_n_cubed_and_says_so():
    m = ladder_machine([("boxed", 128, 0.1, {}), ("tiled", 4096, 2.0, {})],
                       {"rung/boxed": "reference: an interpreter", "rung/tiled": "cache tiling: blocked"})
    rows = {r["rung"]: r for r in report.ladder_rows(m)}
    assert rows["boxed"]["extrapolated"] and rows["boxed"]["n"] == 128
    assert rows["boxed"]["seconds_at_size"] == pytest.approx(0.1 * 32 ** 3)
    assert not rows["tiled"]["extrapolated"] and rows["tiled"]["seconds_at_size"] == 2.0
    # Speedups from the times at one size: over the bottom rung, and over the rung above.
    assert rows["tiled"]["absolute"] == pytest.approx(0.1 * 32 ** 3 / 2.0)
    assert rows["tiled"]["measured"] == pytest.approx(rows["tiled"]["absolute"])
    text = report.ladder_markdown(m)
    assert "| 4096 (extrapolated from n = 128) |" in text and "| 3277 |" in text  # 0.1 s x 32^3


def test_a_missed_prediction_names_what_the_counters_show():
    # interchange predicted 16x over naive; measured about 2x, with naive in L2 at n = 128 and
    # interchange in DRAM at n = 2048, and a regime that changed.
    m = ladder_machine([("naive", 128, 0.004, {"regime": "compute"}),
                        ("interchange", 2048, 8.0, {"regime": "memory", "roof_fraction": 0.4})],
                       {"rung/naive": "interpretation and boxing: i-j-k",
                        "rung/interchange": "loop order and cache lines: i-k-j"})
    row = report.ladder_rows(m)[1]
    assert row["predicted"] == 16.0 and row["measured"] == pytest.approx(0.004 * 16 ** 3 / 8.0)
    assert "the regime changed: naive is compute-bound, interchange memory-bound" in row["why"]
    assert "moved from L2 (197 kB at n = 128) to DRAM (50.3 MB at n = 2048)" in row["why"]
    assert "DRAM reads at 20 GB/s, L2 at 100 GB/s" in row["why"]
    assert "interchange reaches 40% of its memory roof" in row["why"]
    # A prediction met within 2x says nothing.
    met = ladder_machine([("naive", 1024, 1.0, {}), ("interchange", 1024, 1 / 12, {})],
                         {"rung/naive": "x: y", "rung/interchange": "loop order and cache lines: z"})
    assert report.ladder_rows(met)[1]["why"] == ""


def test_the_cpu_and_gpu_of_one_host_are_two_devices_in_the_tables_and_figures(tmp_path, capsys):
    machines, specs = report.load_machines(GPU_PARTS + sorted((ROOT / "results" / "specs").glob("*.json")))
    tables = report.build_tables(machines, specs)
    _, columns, cells = tables["gemm"]
    cpu = next(i for i, c in enumerate(columns) if c.endswith("(CPU), host intel-xeon-emerald-rapids-16c"))
    gpu = next(i for i, c in enumerate(columns) if c == "NVIDIA H200 (GPU), host intel-xeon-emerald-rapids-16c")
    rows, _, _ = tables["gemm"]
    cublas = rows.index("cublas (f32)")
    avx512 = rows.index("avx512 (f32)")
    assert cells[cublas][gpu]["value"] and not cells[cublas][cpu]["value"]
    assert cells[avx512][cpu]["value"] and not cells[avx512][gpu]["value"]
    limits = next(v for k, v in tables.items() if k.startswith("CPU and GPU at their limits"))
    assert limits[0][-1] == "GPU over the CPU of its host"
    ratio = limits[2][-1][gpu]["text"]
    assert ratio.startswith("f32 ") and "16-bit" in ratio and "memory" in ratio
    assert any(c.startswith("AMD EPYC 9965") for c in limits[1]) and any(c.startswith("NVIDIA T4") for c in limits[1])


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


def test_a_gpu_case_that_ran_throttled_is_marked(tmp_path, capsys):
    parts = []
    for p in GPU_PARTS:
        doc = json.loads(p.read_text())
        doc["context"]["gpu_clock_event_reason_bits"] = "1 idle, 2 applications clocks setting, 4 power cap"
        for b in doc["benchmarks"]:
            if b["run_name"].startswith("gemm/cublas/f32/"):
                b["gpu_slowdown_reasons"] = 4
        (tmp_path / p.name).write_text(json.dumps(doc))
        parts.append(tmp_path / p.name)
    machines, _ = report.load_machines(parts)
    assert "compute (throttled: power cap)" in report.ladder_markdown(machines[0])
    tables = report.build_tables(machines, [])
    rows, _, cells = tables["gemm"]
    assert any("throttled: power cap" in c["text"] for c in cells[rows.index("cublas (f32)")])
    assert not any("throttled" in c["text"] for c in cells[rows.index("cublas-f16 (f16)")])


def test_a_model_cases_configuration_is_read_from_its_counters_and_from_the_label_only_in_older_files():
    from ladderreport.machines import model_config_name
    context = {"model_config/small": "16 16 64 2 4", "model_config/tiny": "4 5 12 2 2"}
    small = {"config_height": 16, "config_width": 16, "config_channels": 64, "config_layers": 2, "config_heads": 4}
    assert model_config_name(context, small, "config tiny (…") == "small"  # the counters win over the label
    assert model_config_name(context, {**small, "config_heads": 8}, "") == "custom"
    assert model_config_name({}, {}, "config medium (32x32, C=128, 4 layers, 8 heads); …") == "medium"


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
    assert len(list((tmp_path / "db").glob("ladder-*.md"))) == 3  # --out with several machines: one file each


def test_a_call_from_python_is_split_into_interpreter_dispatch_and_kernel():
    m = ladder_machine([("openblas", 1, 0.02e-6, {}), ("numpy", 1, 0.9e-6, {}), ("numpy", 64, 5.6e-6, {}),
                        ("openblas", 64, 4.6e-6, {}), ("torch", 1, 0.7e-6, {})],
                       {"rung/openblas": "tuned library: cblas_sgemm", "rung/numpy": "Python library call: numpy.matmul",
                        "rung/torch": "Python library call: torch.matmul"})
    for key in ("gemm/numpy/f32/n:1", "gemm/numpy/f32/n:64"):
        m.cases[key]["label"] = "NumPy 1.24.2, BLAS libopenblasp-r0.3.21.so"
    m.cases["gemm/torch/f32/n:1"]["label"] = "PyTorch 2.4 CPU, its own BLAS"  # names no C library rung here
    m.cases["overhead/python-call/-/ops:100000"] = {"suite": "overhead", "rung": "python-call", "dtype": "-",
                                                     "size": 100000, "error": None, "label": "", "seconds_per_op": 0.05e-6}
    rows = {(r["rung"], r["n"]): r for r in layer_rows(m)}
    assert set(rows) == {("numpy", 1), ("numpy", 64)}  # torch: no kernel of its own measured from C
    assert rows[("numpy", 1)]["dispatch"] == pytest.approx(0.9e-6 - 0.05e-6 - 0.02e-6)
    assert rows[("numpy", 64)]["kernel_rung"] == "openblas"
    text = report.ladder_markdown(m)
    assert "## A call from Python, by layer" in text and "| numpy | 1 | 0.900 | 0.050 | 0.830 | 0.020 (openblas) |" in text
    del m.cases["overhead/python-call/-/ops:100000"]  # without the interpreter's own cost, no section
    assert "by layer" not in report.ladder_markdown(m)
