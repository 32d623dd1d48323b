"""One static site for the fleet, from a results tree: an index of machines (CPU, GPU, date, the
ladder's fastest and slowest rungs), each machine's ladder page and ceilings page, and a
comparison page for every pair of machines with report.py compare's verdicts. Plain files: open
index.html, no server."""
import html
import itertools
import pathlib

from .compare import compare_runs, html_text
from .ladder import ladder_rows
from .runs import newest_run, safe_slug

STYLE = ("<style>body{font-family:sans-serif;max-width:75em;margin:1em auto} td,th{padding:2px 8px;text-align:left}"
         " table{border-collapse:collapse} tr:nth-child(even){background:#f4f4f4}</style>")


def page(title, body):
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>{STYLE}</head>"
            f"<body><h1>{html.escape(title)}</h1>{body}</body></html>")


def table(header, rows):
    e = html.escape
    return ("<table><tr>" + "".join(f"<th>{e(h)}</th>" for h in header) + "</tr>"
            + "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows) + "</table>")


def ceilings_page(m):
    """The machine's measured ceilings, as its newest run's context gives them."""
    ctx, e = m.context, html.escape

    def number(key, scale, unit):
        try:
            return f"{float(ctx[key]) / scale:,.4g} {unit}"
        except (KeyError, TypeError, ValueError):
            return ""

    rows = [[e(f"peak {dtype}"), number(f"peak_{dtype}_flops", 1e9, "GFLOP/s"),
             number(f"peak_{dtype}_flops_one_core", 1e9, "GFLOP/s")]
            for dtype in ("f32", "f64", "bf16") if ctx.get(f"peak_{dtype}_flops")]
    rows += [[e(f"{level} read"), number(f"bandwidth_{level}_all_cores_bytes_per_second", 1e9, "GB/s"),
              number(f"bandwidth_{level}_one_core_bytes_per_second", 1e9, "GB/s")]
             for level in ("L1", "L2", "L3", "DRAM") if ctx.get(f"bandwidth_{level}_all_cores_bytes_per_second")
             or ctx.get(f"bandwidth_{level}_one_core_bytes_per_second")]
    rows += [["STREAM triad", number("bandwidth_stream_triad_bytes_per_second", 1e9, "GB/s"), ""],
             ["main memory's roof", number("bandwidth_main_memory_roof_bytes_per_second", 1e9, "GB/s"), ""]]
    overheads = [[e(name), number(key, 1e-9, "ns"), ""] for name, key in
                 (("a call", "overhead_call_seconds"), ("an OpenMP fork and join", "overhead_omp_fork_join_seconds"),
                  ("a bytecode dispatch", "overhead_bytecode_dispatch_seconds"), ("a boxed add", "overhead_boxed_add_seconds"))
                 if ctx.get(key)]
    gpu = [[e(name), number(key, scale, unit), ""] for name, key, scale, unit in
           (("GPU f32 FMA peak", "gpu_peak_f32_fma_flops", 1e12, "TFLOP/s"),
            ("GPU memory's roof", "gpu_bandwidth_memory_roof_bytes_per_second", 1e12, "TB/s"),
            ("GPU L2 read", "gpu_bandwidth_l2_read_bytes_per_second", 1e12, "TB/s"),
            ("GPU launch", "gpu_overhead_launch_seconds", 1e-6, "µs")) if ctx.get(key)]
    body = (f"<p>{e(str(ctx.get('cpu_model', '')))}; from {e(str(m.source))}. <a href='ladder.html'>Its ladder</a>, "
            "<a href='../index.html'>all machines</a>.</p>"
            + table(["ceiling", "all cores", "one core"], rows + overheads + gpu))
    return page(f"The ceilings of {m.id}", body)


def rung_cell(row):
    return f"{html.escape(row['rung'])} ({row['rate'] / 1e9:,.4g} GFLOP/s)" if row else ""


def build_site(measured, results, out, write_ladder):
    """Every page under `out`; returns their paths."""
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written, index_rows, e = [], [], html.escape
    for m in measured:
        folder = out / safe_slug(m.id)
        written += write_ladder(m, folder / "ladder.md", folder)
        (folder / "ceilings.html").write_text(ceilings_page(m), encoding="utf-8")
        written.append(folder / "ceilings.html")
        rows = [r for r in ladder_rows(m) if r["rate"]]
        top = max(rows, key=lambda r: r["rate"], default=None)
        bottom = min(rows, key=lambda r: r["rate"], default=None)
        index_rows.append([e(m.id), e(str(m.context.get("cpu_model", ""))), e(str(m.context.get("gpu_name", ""))),
                           e(str(m.context.get("date", ""))[:10]), rung_cell(top), rung_cell(bottom),
                           f"<a href='{safe_slug(m.id)}/ladder.html'>ladder</a> · "
                           f"<a href='{safe_slug(m.id)}/ceilings.html'>ceilings</a>"])
    pairs = []
    # Each machine's newest run, read once: newest_run reads every run in its folder.
    newest = {m.id: newest_run(pathlib.Path(results) / m.id) for m in measured}
    for a, b in itertools.combinations(measured, 2):
        run_a, run_b = newest[a.id], newest[b.id]
        if not run_a or not run_b:
            continue
        rows, geomeans = compare_runs(run_a, run_b)
        name = f"compare/{safe_slug(a.id)}--{safe_slug(b.id)}.html"
        (out / "compare").mkdir(exist_ok=True)
        text = html_text(run_a, run_b, rows, geomeans) if rows else page(
            f"{b.id} against {a.id}", "<p>Their newest runs have no case in common.</p>"
            "<table><tr><th>case</th></tr><tr><td>none</td></tr></table>")
        (out / name).write_text(text + "<p><a href='../index.html'>all machines</a></p>", encoding="utf-8")
        written.append(out / name)
        slower = sum(r["verdict"] == "slower" for r in rows)
        faster = sum(r["verdict"] == "faster" for r in rows)
        pairs.append([f"<a href='{name}'>{e(b.id)} against {e(a.id)}</a>", str(len(rows)), str(faster), str(slower)])
    body = (table(["machine", "CPU", "GPU", "newest run", "fastest rung", "slowest rung", "pages"], index_rows)
            + "<h2>Machine against machine</h2>"
            + table(["comparison (B against A, newest runs)", "cases in common", "B faster", "B slower"], pairs))
    (out / "index.html").write_text(page("ladderbench: the fleet", body), encoding="utf-8")
    written.append(out / "index.html")
    return written
