"""The tables (Markdown, CSV, HTML): measured and predicted cells, columns per device, marks."""
import json
import shutil

import pytest

import report
from ladderreport.testing import GPU_PARTS, HOSTILE_EDITS, RESULT, ROOT, browser_view, hostile_copy, run


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


def test_a_spec_sheets_prediction_is_for_the_problem_a_file_measured(tmp_path):
    """A spec's cell in the GEMM ladder is the roofline of the measured case's own FLOPs and bytes
    (its counters), not of a problem the report defines: a case said to do 1 FLOP a byte is
    predicted at the spec's bandwidth, whatever its n."""
    doc = json.loads(RESULT.read_text())
    for b in doc["benchmarks"]:
        if b["run_name"].startswith("gemm/openblas/"):
            b["intensity"] = 1.0
    (tmp_path / "run.json").write_text(json.dumps(doc))
    measured, specs = report.load_machines([tmp_path / "run.json", ROOT / "results" / "specs"])
    spec = next(s for s in specs if s.kind == "cpu" and s.bandwidth())
    tables = report.build_tables(measured, [spec])
    rows, columns, cells = tables["gemm"]
    cell = cells[rows.index("openblas (f32)")][-1]
    assert cell["predicted"] and cell["value"] == pytest.approx(spec.bandwidth() * 1.0, rel=1e-9), cell
    assert f"(n={measured[0].gemm_at('openblas')['size']})" in cell["text"], cell
    # A rung that no file says is a tuned library or matrix units gets no prediction.
    assert all(not c["value"] for r, row in zip(rows, cells) if r.startswith("naive") for c in row[-1:])


def test_a_nan_counter_is_named_and_never_the_best(tmp_path, capsys):
    path = hostile_copy(tmp_path, "nan", HOSTILE_EDITS["nan-counter"])
    code, _, err = run(["tables", str(path), "--out", str(tmp_path / "t"), "--no-plots"], capsys)
    assert code == 0
    assert f"{path}: gemm/" in err and "flops is nan, not a finite number; ignored" in err


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


def test_every_published_page_opens_in_headless_chromium_whole(tmp_path, capsys):
    """The committed pages (the tables' index and each machine's ladder page) and a freshly made
    index, as a reader's browser shows them: every table of the source with its rows, every image
    decoded, every local link to a file that exists."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        pytest.skip("chromium is not installed (scripts/setup.sh installs it where the distribution has one)")
    run(["tables", str(RESULT.parent), str(ROOT / "results" / "specs"), "--out", str(tmp_path), "--plots", str(tmp_path)],
        capsys)
    pages = [tmp_path / "index.html", ROOT / "results" / "tables" / "index.html",
             *sorted((ROOT / "results").glob("*/ladder.html"))]
    for page in pages:
        view = browser_view(chromium, page, tmp_path)
        source = page.read_text()
        assert len(view["tables"]) == source.count("<table") > 0, page
        assert all(rows > 1 for rows in view["tables"]), (page, view["tables"])  # a header and rows
        assert len(view["images"]) == source.count("<img") > 0, page
        assert all(loaded for _, loaded in view["images"]), (page, [alt for alt, ok in view["images"] if not ok])
        for link in view["links"]:
            if not link.startswith(("http:", "https:", "#", "mailto:", "data:")):
                assert (page.parent / link.split("#")[0]).exists(), (page, link)


def test_the_page_check_finds_a_broken_image(tmp_path):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        pytest.skip("chromium is not installed (scripts/setup.sh installs it where the distribution has one)")
    page = tmp_path / "broken.html"
    page.write_text("<html><body><table><tr><td>a</td></tr></table>"
                    "<img alt='broken' src='data:image/png;base64,AAAA'><img alt='missing' src='nowhere.png'></body></html>")
    view = browser_view(chromium, page, tmp_path)
    assert view["tables"] == [1]
    assert view["images"] == [["broken", False], ["missing", False]]


def test_a_compiled_model_pass_not_split_by_operation_still_has_its_row(tmp_path, capsys):
    """torch.compile's pass carries no op/* counters (its kernels span several operations): its
    time a pass is still a row, and the lower bound still comes from a case that has them."""
    with_model = [p for p in sorted((ROOT / "results").glob("*/*.json"))
                  if p.parent.name != "specs" and '"run_name": "model/' in p.read_text()]
    if not with_model:
        pytest.skip("no stored result has a model case")
    doc = json.loads(with_model[-1].read_text())
    model = next(b for b in doc["benchmarks"] if b["run_name"].startswith("model/") and "op/gelu/seconds" in b)
    compiled = {k: v for k, v in model.items() if not k.startswith("op/")}
    compiled.update(name=model["name"].replace(model["name"].split("/")[1], "torch-compile", 1),
                    run_name=model["run_name"].replace(model["run_name"].split("/")[1], "torch-compile", 1),
                    real_time=model["real_time"] * 0.5, library_kernel_seconds=1e-3, generated_kernel_seconds=2e-3)
    doc["benchmarks"].insert(0, compiled)  # first, so a case without operations is met first
    (tmp_path / "compiled.json").write_text(json.dumps(doc))
    code, _, err = run(["tables", str(tmp_path), "--out", str(tmp_path / "out"), "--no-plots"], capsys)
    assert code == 0, err
    md = (tmp_path / "out" / "tables.md").read_text()
    row = next(line for line in md.splitlines() if line.startswith("| torch-compile (f32), "))
    assert "ms a pass" in row
    assert "f32 roofline bound" in md


def test_a_gemm_cell_gives_its_speedup_over_its_parent_and_a_small_share_of_peak_in_digits():
    from ladderreport.testing import ladder_machine
    cases = [("python", 128, 1.0, {"peak_fraction": 0.00012}), ("boxed", 128, 1.1, {"peak_fraction": 0.00011}),
             ("naive", 1024, 4.0, {"peak_fraction": 0.027}), ("openblas", 4096, 0.5, {"peak_fraction": 0.45}),
             ("avx512", 4096, 0.25, {"peak_fraction": 0.9})]
    context = {"rung_parent/boxed": "python", "rung_parent/naive": "boxed", "rung_parent/avx512": "avx2|naive",
               "rung_parent/openblas": "avx512|avx2"}
    tables = report.build_tables([ladder_machine(cases, context)], [])
    rows, _, cells = tables["gemm"]
    text = {rung.split(" ")[0]: row[0]["text"] for rung, row in zip(rows, cells)}
    assert "0.012% of peak" in text["python"]  # not "0%"
    assert "0.91x python" in text["boxed"]
    assert "x boxed" in text["naive"]
    assert "0.50x avx512" in text["openblas"]  # its baseline, not the row above it (naive)
    assert "x naive" in text["avx512"]  # avx2 did not run: the next alternative
    assert "the rung above" not in " ".join(text.values())
