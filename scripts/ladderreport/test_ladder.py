"""The ladder report: each rung's predicted and measured factor, and why a miss is a miss."""
import json
import re

import pytest

import report
from ladderreport.ladder import cells, ladder_rows
from ladderreport.testing import GPU_PARTS, LADDER, RESULT, ladder_machine, run


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
        measured_at = re.search(r"from n = (\d+)", cells[3]).group(1) if "extrapolated" in cells[3] else cells[3]
        if (cells[0], f"n:{measured_at}") in errors:
            assert cells[-1] == f"{errors[(cells[0], f'n:{measured_at}')]:.1e}", line
            shown += 1
    assert shown > 0
    if "rung/autovec" in doc["context"]:  # results written since rungs carry their mechanism
        autovec = next(line for line in text.splitlines() if line.startswith("| autovec |"))
        assert "SIMD width" in autovec and "/ scalar-fma" in autovec and ", one core)" in autovec


def test_every_prediction_comes_from_this_runs_probes_and_names_them():
    machines, _ = report.load_machines([RESULT])
    machine = machines[0]
    ctx = machine.context
    rows = {r["rung"]: r for r in report.ladder_rows(machine)}
    for r in rows.values():
        if r["predicted"]:
            assert r["predicted_from"], r["rung"]
    scalar = float(ctx["peak_probe/scalar-fma/f32/threads:1"])
    vector = max(float(v) for k, v in ctx.items() if k.startswith("peak_probe/") and k.endswith("/f32/threads:1")
                 and "scalar" not in k)
    if "autovec" in rows and rows["autovec"]["predicted"]:
        assert rows["autovec"]["predicted"] == pytest.approx(vector / scalar)
    if "parallel" in rows and rows["parallel"]["predicted"]:
        cores = float(ctx["peak_f32_flops"]) / float(ctx["peak_f32_flops_one_core"])
        assert rows["parallel"]["predicted"] == pytest.approx(cores)


def test_a_prediction_follows_the_machines_probes_not_a_constant():
    # A double-pumped AVX-512 unit (Zen 4): its probe no faster than AVX2's, so SIMD predicts 8x, not 16.
    probes = {"peak_probe/scalar-fma/f32/threads:1": "14.7e9", "peak_probe/avx2-fma/f32/threads:1": "117.4e9",
              "peak_probe/avx512-fma/f32/threads:1": "117.5e9", "cache_line_bytes": "64",
              "peak_f32_flops_one_core": "117.5e9", "peak_f32_flops": "176e9"}
    mechanisms = {"rung/interchange": "loop order and cache lines: i-k-j", "rung/autovec": "SIMD width: auto-vectorised",
                  "rung/tiled": "cache tiling: blocked", "rung/parallel": "cores: OpenMP"}
    cases = [("interchange", 1024, 1.0, {}), ("autovec", 1024, 0.2, {}), ("tiled", 1024, 0.05, {}),
             ("parallel", 1024, 0.03, {})]
    rows = {r["rung"]: r for r in report.ladder_rows(ladder_machine(cases, {**probes, **mechanisms}))}
    assert rows["autovec"]["predicted"] == pytest.approx(117.5 / 14.7)
    assert rows["autovec"]["predicted_from"] == "avx512-fma 117.5 GFLOP/s / scalar-fma 14.7 GFLOP/s, one core"
    assert rows["parallel"]["predicted"] == pytest.approx(176 / 117.5)  # the cores' measured scaling, not 2 threads
    assert rows["interchange"]["predicted"] is None  # the rung below it did not run: nothing to set it against
    # Another machine's probes, another prediction: a 128-byte line and a full-width AVX-512 unit.
    rows = {r["rung"]: r for r in report.ladder_rows(ladder_machine(
        [("naive", 1024, 4.0, {})] + cases, {**probes, **mechanisms, "cache_line_bytes": "128",
                                             "peak_probe/avx512-fma/f32/threads:1": "235e9",
                                             "rung/naive": "interpretation and boxing: i-j-k"}))}
    assert rows["interchange"]["predicted"] == 32.0 and "128-byte cache line" in rows["interchange"]["predicted_from"]
    assert rows["autovec"]["predicted"] == pytest.approx(235 / 14.7)


def test_a_bf16_rung_without_matrix_units_is_not_called_one():
    m = ladder_machine([("tiled", 1024, 1.0, {}), ("onednn-bf16", 1024, 0.1, {})],
                       {"rung/tiled": "cache tiling: blocked", "rung/onednn-bf16": "matrix units: oneDNN bf16",
                        "rung_unit/onednn-bf16": "CPU AVX512-BF16 dot products", "peak_bf16_flops": "400e9",
                        "peak_bf16_source": "avx512-bf16 x2 threads", "peak_f32_source": "avx512-fma x2 threads"})
    row = report.ladder_rows(m)[1]
    assert row["mechanism"] == "bf16 dot products"
    assert row["predicted"] == pytest.approx(2.0) and "avx512-bf16 x2 threads" in row["predicted_from"]


def test_the_ladder_keeps_the_registrys_order_whatever_the_files_order(tmp_path, capsys):
    doc = json.loads(RESULT.read_text())
    if "ladder_order" not in doc["context"]:
        pytest.skip("the newest result file predates the ladder_order entry in its context")
    doc["benchmarks"].reverse()  # as a random interleaving might leave them
    (tmp_path / "shuffled.json").write_text(json.dumps(doc))
    out = tmp_path / "ladder.md"
    assert report.main(["ladder", str(tmp_path / "shuffled.json"), "--out", str(out)]) == 0
    first_table = out.read_text().split("\n| rung |", 1)[1].split("\n\n", 1)[0]
    rows = ["rung"] + [line.split("|")[1].strip() for line in first_table.splitlines() if line.startswith("| ")]
    registry = doc["context"]["ladder_order"].split(",")
    ran = [r for r in registry if r in rows]
    assert rows[1:] == ran  # rows[0] is the header


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



def test_a_hand_written_tensor_core_rung_is_predicted_from_the_peak_of_its_own_input_type():
    gpu = {"gpu_peak_f32_fma_flops": "50e12", "gpu_peak_cublas_flops": "49e12", "gpu_peak_cublas-tf32_flops": "400e12",
           "gpu_peak_cublas-f16_flops": "750e12", "gpu_peak_cublas-bf16_flops": "780e12"}
    rungs = [("cuda-regtile", "hand-written kernel", "f32", 2.0), ("cuda-warptile", "hand-written kernel", "f32", 1.0),
             ("cublas-tf32", "matrix units", "tf32", 0.2), ("cuda-mma-f16", "matrix units", "f16", 0.15),
             ("cuda-mma-bf16", "matrix units", "bf16", 0.15)]
    description = {f"rung/{r}": f"{mechanism}: a kernel" for r, mechanism, _, _ in rungs}
    cases = [(r, 4096, seconds, {"dtype": dtype}) for r, _, dtype, seconds in rungs]
    rows = {r["rung"]: r for r in report.ladder_rows(ladder_machine(cases, {**gpu, **description}), 4096)}
    # Files without rung_unit_peak_flops: the f32 FMA probe for f32, cuBLAS in the rung's type otherwise.
    assert rows["cuda-warptile"]["predicted"] == pytest.approx(50e12 / rows["cuda-regtile"]["rate"])
    assert rows["cuda-mma-f16"]["predicted"] == pytest.approx(750 / 400)  # f16 tensor cores over tf32's
    assert rows["cuda-mma-bf16"]["predicted"] == pytest.approx(780 / 750)
    # Where the file names the unit's peak, that is the roof.
    unit = {"rung_unit_peak_flops/cuda-mma-f16": "900e12", "rung_unit_peak_flops/cuda-warptile": "52e12"}
    rows = {r["rung"]: r for r in report.ladder_rows(ladder_machine(cases, {**gpu, **description, **unit}), 4096)}
    assert rows["cuda-mma-f16"]["predicted"] == pytest.approx(900 / 400)
    assert rows["cuda-warptile"]["predicted"] == pytest.approx(52e12 / rows["cuda-regtile"]["rate"])


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
    assert "| 4096 (extrapolated from n = 128 by n³) |" in text and "| 3277 |" in text  # 0.1 s x 32^3


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
    assert "reaches" not in row["why"] and "unexplained" not in row["why"]  # a mechanism was found
    # A prediction met within 2x says nothing.
    met = ladder_machine([("naive", 1024, 1.0, {}), ("interchange", 1024, 1 / 12, {})],
                         {"rung/naive": "x: y", "rung/interchange": "loop order and cache lines: z"})
    assert report.ladder_rows(met)[1]["why"] == ""


def test_a_memory_bound_rung_names_its_traffic_and_the_bandwidth_it_reached():
    # autovec at n = 4096 on the Zen 4 VM: B (67 MB) re-read for every row of C, from DRAM.
    n = 4096
    m = ladder_machine([("interchange", n, 100.0, {"regime": "compute"}),
                        ("autovec", n, 16.35, {"regime": "memory", "traffic_term": 1, "traffic_bytes": 4.0 * n ** 3,
                                               "traffic_working_set": 4.0 * n * n, "roof_fraction": 0.69})],
                       {"rung/interchange": "loop order and cache lines: i-k-j", "rung/autovec": "SIMD width: i-k-j",
                        "rung_traffic/autovec/1": "B streamed once per row of C",
                        "bandwidth_DRAM_one_core_bytes_per_second": "24.3e9"})
    row = report.ladder_rows(m)[1]
    assert row["traffic"] == ("B streamed once per row of C: 275 GB a call from DRAM (67.1 MB working set), "
                              "16.8 GB/s, 69% of DRAM's 24.3 GB/s")
    assert f"| memory ({row['traffic']}) |" in report.ladder_markdown(m)


def test_each_rung_is_set_against_the_rung_it_refines_not_the_row_above():
    # The chain as the registry names it: openblas against the best hand-written kernel that ran
    # (avx512, else avx2), numpy against the BLAS it calls, not against whatever row precedes them.
    cases = [("parallel", 4096, 1.0, {}), ("avx2", 4096, 0.8, {}), ("openblas", 4096, 0.5, {}),
             ("onednn", 4096, 0.4, {}), ("numpy", 4096, 0.55, {}), ("amx", 4096, 0.1, {})]
    context = {"rung/parallel": "cores: x", "rung/avx2": "hand-written kernel: x", "rung/openblas": "tuned library: x",
               "rung/onednn": "tuned library: x", "rung/numpy": "Python library call: x", "rung/amx": "matrix units: x",
               "rung_parent/avx2": "parallel", "rung_parent/openblas": "avx512|avx2", "rung_parent/onednn": "avx512|avx2",
               "rung_parent/numpy": "openblas", "rung_parent/amx": "avx512"}
    m = ladder_machine(cases, context)
    rows = {r["rung"]: r for r in report.ladder_rows(m)}
    assert rows["openblas"]["parent"] == "avx2" and rows["openblas"]["measured"] == pytest.approx(0.8 / 0.5)
    assert rows["onednn"]["parent"] == "avx2" and rows["onednn"]["measured"] == pytest.approx(0.8 / 0.4)
    assert rows["numpy"]["parent"] == "openblas" and rows["numpy"]["measured"] == pytest.approx(0.5 / 0.55)
    assert rows["amx"]["measured"] is None and rows["amx"]["parent_missing"] == "avx512"
    text = report.ladder_markdown(m)
    assert "| 0.909x over openblas |" in text and "| (avx512 did not run) |" in text


def test_every_time_carries_its_spread_and_a_speedup_inside_it_reads_within_noise():
    # torch 1.01x over openblas with 3% CVs: within noise; avx512 1.5x over parallel with 2%: not.
    cases = [("parallel", 4096, 0.45, {"cv": 0.02}), ("avx512", 4096, 0.30, {"cv": 0.02}),
             ("openblas", 4096, 0.50, {"cv": 0.03}), ("torch", 4096, 0.495, {"cv": 0.03}), ("numpy", 4096, 0.49, {})]
    context = {"rung/avx512": "hand-written kernel: x", "rung/openblas": "tuned library: x",
               "rung/torch": "Python library call: x", "rung/numpy": "Python library call: x",
               "rung_parent/avx512": "parallel", "rung_parent/openblas": "avx512",
               "rung_parent/torch": "openblas", "rung_parent/numpy": "openblas"}
    m = ladder_machine(cases, context)
    rows = {r["rung"]: r for r in report.ladder_rows(m)}
    assert rows["torch"]["within_noise"] is True and rows["avx512"]["within_noise"] is False
    assert rows["numpy"]["within_noise"] is None  # one repetition: no spread to judge by
    text = report.ladder_markdown(m)
    assert "| 1.01x over openblas (within noise) |" in text and "| 1.5x over parallel |" in text
    assert "| 0.495 ± 3% |" in text


def tiled_after_autovec(context=None):
    # tiled 3.5x over autovec where 10.8x was predicted, same size, same level, same regime.
    return ladder_machine([("autovec", 1024, 0.35, {"regime": "compute"}),
                           ("tiled", 1024, 0.1, {"regime": "compute", "roof_fraction": 0.33})],
                          {"rung/autovec": "SIMD width: x", "rung/tiled": "cache tiling: y", "peak_f32_flops_one_core": "2e11",
                           "rung_parent/tiled": "autovec", **(context or {})})


def test_a_miss_without_a_measured_mechanism_says_unexplained():
    row = report.ladder_rows(tiled_after_autovec())[1]
    assert row["predicted"] and row["measured"] * 2 < row["predicted"]
    # Its share of the compute roof is the % column's business: a file whose peak_fraction counted
    # all cores for a one-core rung (Zen 3's, before rung_unit) read "16.6%" beside "(33% of its
    # compute roof)" in one row.
    assert row["why"] == "unexplained"
    # A loop with a few stack accesses beside much arithmetic is not said to spill.
    few = {"rung_inner_loop_fields": "instructions,arithmetic,stack_loads,stack_stores", "rung_inner_loop/tiled": "119,16,2,1"}
    assert report.ladder_rows(tiled_after_autovec(few))[1]["why"] == "unexplained"


def test_register_spills_counted_in_the_compiled_loop_explain_a_miss():
    # Zen 3's tiled, compiled for AVX2 (16 registers, a 6x32 block's 24 accumulators): the loop
    # scripts/inner_loops.py reads from that object has 10 stack loads and 10 stores a pass.
    spills = {"rung_inner_loop_fields": "instructions,arithmetic,stack_loads,stack_stores",
              "rung_inner_loop/tiled": "54,24,10,10"}
    why = report.ladder_rows(tiled_after_autovec(spills))[1]["why"]
    assert why.startswith("its compiled inner loop spills registers: 10 loads from and 10 stores to the stack beside "
                          "24 arithmetic instructions a pass"), why
    assert "unexplained" not in why
    broken = {**spills, "rung_inner_loop/tiled": "54,24,x,10"}  # unreadable: no claim
    assert "unexplained" in report.ladder_rows(tiled_after_autovec(broken))[1]["why"]


def test_each_gpu_row_gives_its_share_of_the_datasheet_peak_of_its_unit_and_format():
    rungs = [("avx512", "hand-written kernel", "f32", 1.0), ("cuda-regtile", "hand-written kernel", "f32", 0.02),
             ("cublas-tf32", "matrix units", "f32", 0.0005), ("cuda-mma-bf16", "matrix units", "bf16", 0.0003)]
    context = {f"rung/{r}": f"{mechanism}: a kernel" for r, mechanism, _, _ in rungs}
    cases = [(r, 4096, seconds, {"dtype": dtype}) for r, _, dtype, seconds in rungs]
    machine = ladder_machine(cases, {**context, "gpu_name": "NVIDIA H200"})
    rows = {r["rung"]: r for r in report.ladder_rows(machine, 4096)}
    # results/specs/nvidia-h200.json: 67 TFLOP/s f32 on CUDA cores, 494.7 TF32 and 989.4 bf16 on tensor cores.
    assert rows["cuda-regtile"]["datasheet"]["fraction"] == pytest.approx(rows["cuda-regtile"]["rate"] / 67e12)
    assert rows["cublas-tf32"]["datasheet"]["fraction"] == pytest.approx(rows["cublas-tf32"]["rate"] / 494.7e12)
    assert rows["cuda-mma-bf16"]["datasheet"]["fraction"] == pytest.approx(rows["cuda-mma-bf16"]["rate"] / 989.4e12)
    assert "of the datasheet's tf32 tensor cores, 494.7 TFLOP/s" in cells(rows["cublas-tf32"])[8]
    assert not rows["avx512"].get("datasheet"), "a CPU row has no GPU datasheet"
    # A file without rung_unit: the unit from the device, mechanism and format, so that tensor-core
    # rungs are set against their own peaks, not the CUDA cores'.
    assert [rows[r]["unit"] for r in ("avx512", "cuda-regtile", "cublas-tf32", "cuda-mma-bf16")] == [
        "CPU FMA units", "GPU CUDA cores", "GPU tensor cores (tf32)", "GPU tensor cores (bf16)"]
    assert "NVIDIA H200 SXM 141GB" in report.ladder_markdown(machine)
    # A GPU no sheet names: no share, never another GPU's.
    rows = {r["rung"]: r for r in report.ladder_rows(ladder_machine(cases, {**context, "gpu_name": "NVIDIA B300"}), 4096)}
    assert not rows["cublas-tf32"].get("datasheet")


def test_publish_makes_every_artefact_from_one_run_per_machine_and_a_pointer_pins_it(tmp_path, capsys):
    results = tmp_path / "results"
    folder = results / "m"
    folder.mkdir(parents=True)
    doc = json.loads(RESULT.read_text())
    for name, date in (("old.json", "2026-01-01T00:00:00+00:00"), ("new.json", "2026-02-01T00:00:00+00:00")):
        doc["context"]["date"] = date
        (folder / name).write_text(json.dumps(doc))
    out = tmp_path / "site"
    code, printed, err = run(["publish", "--results", str(results), "--out", str(out)], capsys)
    assert code == 0, err
    machine = next(p.name for p in (out / "results").iterdir() if p.name != "tables")
    ladder = (out / "results" / machine / "ladder.md").read_text()
    assert "From `new.json`" in ladder  # by default the newest run
    assert "new.json" in (out / "results" / "tables" / "tables.md").read_text()  # the tables from the same run
    assert (out / "plots" / f"ladder-{machine}.png").exists() and (out / "plots" / f"ladder-{machine}.svg").exists()
    (folder / "PUBLISHED").write_text("# pinned\nold.json\n")
    assert run(["publish", "--results", str(results), "--out", str(out)], capsys)[0] == 0
    assert "From `old.json`" in (out / "results" / machine / "ladder.md").read_text()
    assert "old.json" in (out / "results" / "tables" / "tables.md").read_text()
    # Twice from the same runs: byte for byte the same, figures included.
    first = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    run(["publish", "--results", str(results), "--out", str(out)], capsys)
    assert first == {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    (folder / "PUBLISHED").write_text("gone.json\n")
    with pytest.raises(SystemExit, match="names gone.json"):
        report.main(["publish", "--results", str(results), "--out", str(out)])


def test_an_extrapolated_rung_shows_whether_its_time_per_fma_held_constant():
    cases = [("python", 64, 64 ** 3 * 10e-9, {}), ("python", 128, 128 ** 3 * 10.3e-9, {}),
             ("naive", 512, 512 ** 3 * 1e-9, {}), ("naive", 1024, 1024 ** 3 * 1.5e-9, {}),
             ("interchange", 4096, 20.0, {}), ("boxed", 128, 1.0, {})]
    machine = ladder_machine(cases)
    rows = {r["rung"]: r for r in report.ladder_rows(machine, 4096)}
    python, naive = cells(rows["python"], machine)[3], cells(rows["naive"], machine)[3]
    assert "4096 (extrapolated from n = 128 by n³; time per FMA 10 ns at n = 64, 10.3 ns at 128: constant" in python
    assert "1 ns at n = 512, 1.5 ns at 1024: grew 50%, so the time at 4096 is at least this" in naive
    assert cells(rows["interchange"], machine)[3] == "4096"  # measured there
    assert cells(rows["boxed"], machine)[3] == "4096 (extrapolated from n = 128 by n³)"  # one size: nothing to show


def test_a_rung_with_a_model_curve_is_extrapolated_by_its_model_not_by_n_cubed():
    # naive ran at n = 1024 only; its model allows 4 GFLOP/s there and 2 at 4096 (B's walk leaves L3).
    m = ladder_machine([("naive", 1024, 1.0, {"regime": "memory"})],
                       {"rung_model_rate/naive": "1024:4e9,4096:2e9", "rung/naive": "interpretation and boxing: x"})
    row = next(r for r in ladder_rows(m) if r["rung"] == "naive")
    assert row["extrapolated"] and row["model_rates"] == (4e9, 2e9)
    assert row["seconds_at_size"] == pytest.approx(64 * 2.0)  # n^3 would say 64 s: the model, twice that
    assert "by its traffic model" in cells(row, m)[3]
    # Without the curve (an older file), by n^3 as before.
    del m.context["rung_model_rate/naive"]
    row = next(r for r in ladder_rows(m) if r["rung"] == "naive")
    assert row["seconds_at_size"] == pytest.approx(64.0) and "model_rates" not in row


def ladder_violations(machine):
    """What the ladder issue's table must never show, row by row: a measured rung with no parent (but
    the chain's start), a prediction that names no probe or peak, a CPU rung with a traffic model whose
    regime did not come from it, a miss over 2x with no reason (a mechanism or "unexplained")."""
    problems = []
    for r in report.ladder_rows(machine):
        if not r["rate"]:
            continue
        if not r["parent"] and r["rung"] != "python":
            problems.append(f"{r['rung']}: no parent")
        if r["predicted"] and not r["predicted_from"]:
            problems.append(f"{r['rung']}: a prediction from nothing named")
        if machine.context.get(f"rung_traffic/{r['rung']}/1") and r["case"].get("traffic_term") is None:
            problems.append(f"{r['rung']}: a traffic model, and a regime not from it")
        if r["predicted"] and r["measured"] and not 0.5 <= r["measured"] / r["predicted"] <= 2 and not r["why"]:
            problems.append(f"{r['rung']}: a miss over 2x with no reason")
    return problems


def test_the_newest_committed_ladder_run_reads_as_the_ladder_issue_asks():
    assert LADDER, "no committed ladder-profile run"
    machines, _ = report.load_machines([LADDER])
    machine = machines[0]
    assert any(k.startswith("rung_model_rate/") for k in machine.context), f"{LADDER.name} has no model curves"
    assert ladder_violations(machine) == []
    rows = {r["rung"]: r for r in report.ladder_rows(machine)}
    # The predictions come from this run's probes, never a datasheet or an ISA's lane count.
    assert all("datasheet" not in r["predicted_from"] for r in rows.values() if not r["gpu"])
    # And the check can fail: each defect, made on purpose, is found.
    autovec = next(k for k, c in machine.cases.items() if c["rung"] == "autovec" and c.get("traffic_term") is not None)
    del machine.cases[autovec]["traffic_term"]  # its traffic model removed from the case
    machine.context["rung_parent/tiled"] = "no-such-rung"  # a parent that is no rung of the run
    found = "\n".join(ladder_violations(machine))
    assert "autovec: a traffic model, and a regime not from it" in found
    assert "tiled: no parent" in found


def test_the_teaching_guide_has_a_card_for_every_rung_of_the_chain_it_shows():
    """docs/ladder.md: a generated card for every rung the committed ladder run measured, each
    with its source's opening and its evidence; a block naming an unknown rung or machine is one
    line, never a silent gap."""
    import pathlib

    from ladderreport.guide import BLOCK, GuideError, fill
    guide = (pathlib.Path(report.ROOT) / "docs" / "ladder.md").read_text()
    machines, _ = report.load_machines([LADDER])
    machine = machines[0]
    carded = {found.group(3).split()[0] for found in BLOCK.finditer(guide) if found.group(2) == "rung"}
    measured = {r["rung"] for r in report.ladder_rows(machine) if r["rate"]}
    assert measured <= carded, measured - carded
    published, _ = report.load_machines(report.published_paths(report.RESULTS))
    filled = fill(guide, published)
    assert "**Evidence.** On `" in filled and "(the opening of [`backends/cpu/02_interchange.cpp`]" in filled
    with pytest.raises(GuideError, match="no source file found for rung no-such-rung"):
        fill(f"<!-- generated: rung no-such-rung {machine.id} -->\n<!-- end generated -->", [machine])
    with pytest.raises(GuideError, match="names machine elsewhere"):
        fill("<!-- generated: chain elsewhere -->\n<!-- end generated -->", [machine])


def test_each_run_a_published_ladder_report_comes_from_is_named_with_its_own_commit_and_profile():
    import pathlib
    for report_md in sorted((pathlib.Path(report.ROOT) / "results").glob("*/ladder.md")):
        opening = next(line for line in report_md.read_text().splitlines() if line.startswith("From "))
        files = opening.split(". C = A·B")[0].count(".json`")
        assert files and opening.count("(git ") == files, (report_md, opening[:300])


@pytest.mark.skipif(LADDER is None, reason="no committed ladder run")
def test_a_run_from_before_the_chain_borrows_the_oldest_chained_runs_chain_never_the_row_above(tmp_path):
    from ladderreport.machines import load_machines
    doc = json.loads(LADDER.read_text())
    chain = {k.partition("/")[2]: v for k, v in doc["context"].items() if k.startswith("rung_parent/")}
    old = json.loads(LADDER.read_text())
    old["context"] = {k: v for k, v in old["context"].items() if not k.startswith("rung_parent/")}
    old["context"].update(machine_id="before-the-chain-2c", date="2026-12-01T00:00:00Z")
    old_path, new_path = tmp_path / "old.json", tmp_path / "new.json"
    old_path.write_text(json.dumps(old))
    new_path.write_text(json.dumps(doc))

    def parents(machines):
        m = next(m for m in machines if m.id == "before-the-chain-2c")
        return m, {r["rung"]: r["parent"] for r in ladder_rows(m) if r["rate"]}

    alone, by_row = parents(load_machines([old_path])[0])
    assert alone.chain is None  # nothing to borrow: the rung above stands in, as before
    borrowed, by_chain = parents(load_machines([old_path, new_path])[0])
    assert borrowed.chain_source == "new.json" and "taken from `new.json`" in report.ladder_markdown(borrowed)
    for rung, parent in by_chain.items():
        assert parent is None or parent in chain[rung].split("|"), rung
    # The ladder's libraries sit below the hand rungs in registry order: the row above is not their parent.
    assert any(by_row[r] != by_chain[r] for r in by_chain), "the chain changed no parent: the test shows nothing"
