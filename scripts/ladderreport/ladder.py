"""The ladder report of one machine, as "Table 1" of Leiserson et al. (Science, 2020) has it and more:
each rung's running time at one common size, GFLOP/s, speedup over the bottom rung and over the rung
above, the fraction of the peak of the unit it runs on, its regime, the factor its mechanism predicts
and, where the measured factor misses the prediction by more than 2x, the measured reason."""
import csv
import html
import io
import pathlib

from .layers import layers_html, layers_markdown
from .sweep import sweep_html, sweep_markdown
from .machines import COMMON_SIZE, GPU_COMPUTE_BOUND_SIZE, RESULTS, load_spec, on_gpu, rung_parents, throttled
from .why import (
    MISS_FACTOR,
    SPREAD_CVS,
    extrapolation_text,
    model_scaling,
    gpu_unit,
    mechanism_on,
    predicted_factor,
    traffic_text,
    unit_of,
    why_missed,
    within_noise,
)


def gpu_datasheet(machine, specs_folder=None):
    """The spec sheet (results/specs/) of the machine's GPU: the one whose device_names hold the name
    CUDA reported (gpu_name), or None."""
    name = machine.context.get("gpu_name")
    if not name:
        return None
    for path in sorted((specs_folder or RESULTS / "specs").glob("*.json")):
        spec = load_spec(path)
        if spec and name in spec.spec.get("device_names", []):
            return spec.spec
    return None


def datasheet_peak(datasheet, machine, rung, mechanism):
    """The datasheet's peak for the unit and format a GPU rung computes in, and its words."""
    if not datasheet:
        return None, ""
    tensor, fmt = gpu_unit(machine, rung, mechanism)
    peak = (datasheet.get("peak_flops", {}).get("matrix" if tensor else "vector", {}) or {}).get(fmt)
    what = f"{fmt} tensor cores" if tensor else f"{fmt} CUDA cores"
    return (float(peak), what) if peak else (None, "")


def gemm_rungs(machine):
    rungs = []
    for key in machine.order:
        c = machine.cases[key]
        if c["suite"] == "gemm" and c["rung"] not in rungs:
            rungs.append(c["rung"])
    return rungs


# --- why a prediction missed: from the run's own ceilings and counters ---------------------------


# --- the rows -------------------------------------------------------------------------------------


def ladder_rows(machine, size=COMMON_SIZE, gpu_only=False):
    """One row per GEMM rung at `size` (every rung, or the GPU's alone): its case, time at `size`
    (measured, or extrapolated from the size it ran at: by its traffic model where the run gave its
    curve, else by n^3), speedups, unit, regime, factors."""
    rows, previous, bottom = [], None, None
    datasheet = gpu_datasheet(machine)
    for rung in gemm_rungs(machine):
        if gpu_only and not on_gpu(machine, rung):
            continue
        c = machine.gemm_at(rung, size) or {}
        description = machine.context.get(f"rung/{rung}", "")
        mechanism, _, summary = description.partition(": ")
        rate = c.get("flops") if c and not c.get("error") else None
        seconds = c.get("seconds") if rate else None
        n = c.get("size")
        row = {"rung": rung, "n": n, "size": size, "extrapolated": bool(n and n != size), "rate": rate,
               "seconds": seconds, "seconds_at_size": seconds * (size / n) ** 3 if seconds and n else None,
               "mechanism": mechanism_on(machine, rung, mechanism), "summary": summary, "unit": unit_of(machine, rung),
               "gpu": on_gpu(machine, rung), "peak_fraction": c.get("peak_fraction") if rate else None,
               "regime": c.get("regime") if rate else None, "rel_error": c.get("rel_error") if rate else None,
               "predicted": None, "predicted_from": "", "measured": None, "absolute": None, "why": "", "case": c,
               "unit_peak": float(machine.context.get(f"rung_unit_peak_flops/{rung}", 0) or 0) or None}
        # A rung with a traffic model is extrapolated by it: the time at `size` is the measured one
        # scaled by the FLOPs and by the model's rate at the two sizes (its share of the model held),
        # so that a rung whose working set leaves a cache on the way is not flattered by n^3.
        if row["extrapolated"] and seconds and (scaling := model_scaling(machine, rung, n, size)):
            row["model_rates"] = scaling
            row["seconds_at_size"] = seconds * (size / n) ** 3 * scaling[0] / scaling[1]
        row["traffic"] = traffic_text(machine, row) if rate else ""
        if row["gpu"] and rate:
            peak, what = datasheet_peak(datasheet, machine, rung, row["mechanism"])
            row["datasheet"] = {"fraction": rate / peak, "peak": peak, "what": what,
                                "sheet": datasheet.get("name", "")} if peak else None
        if not row["unit_peak"] and rate and row["peak_fraction"]:  # files written before rung_unit_peak_flops
            row["unit_peak"] = rate / row["peak_fraction"]
        # Over the rung it refines (or the baseline a library is set against) where the chain names
        # one that ran; a lone file from before the chain: the rung above.
        parents = rung_parents(machine, rung)
        by_name = {r["rung"]: r for r in rows if r["rate"]}
        above = next((by_name[p] for p in parents if p in by_name), None) if parents else (
            previous if parents is None else None)
        row["parent"] = above["rung"] if above and parents else None
        if parents and not above:
            row["parent_missing"] = parents[0]
        if rate and above:
            prediction = predicted_factor(machine, rung, row["mechanism"], above)
            row["predicted"] = prediction["factor"] if prediction else None
            row["predicted_from"] = prediction["from"] if prediction else ""
            row["measured"] = above["seconds_at_size"] / row["seconds_at_size"] if row["seconds_at_size"] else None
            row["parent"] = above["rung"]  # older files: the rung above, named too
            row["within_noise"] = within_noise(row, above)
            if row["predicted"] and row["measured"] and not (
                    1 / MISS_FACTOR <= row["measured"] / row["predicted"] <= MISS_FACTOR):
                row["why"] = why_missed(machine, row, above)
        if rate and row["seconds_at_size"]:
            bottom = bottom or row
            row["absolute"] = bottom["seconds_at_size"] / row["seconds_at_size"]
        rows.append(row)
        if rate:
            previous = row
    return rows


def gpu_large_rows(machine):
    """The GPU's rungs at the size where tensor cores are bound by their arithmetic, where it ran."""
    if not any(c["suite"] == "gemm" and c["size"] == GPU_COMPUTE_BOUND_SIZE and on_gpu(machine, c["rung"])
               for c in machine.cases.values()):
        return []
    return ladder_rows(machine, GPU_COMPUTE_BOUND_SIZE, gpu_only=True)


# --- the table as Markdown, CSV and HTML ---------------------------------------------------------

COLUMNS = ("rung", "what it is", "device · unit", "n", "time (s)", "GFLOP/s", "absolute speedup", "relative speedup",
           "% of unit peak", "regime", "mechanism", "predicted", "why it differs", "rel error")


def cells(row, machine=None):
    """The row's cells as text, in COLUMNS order (with the machine: a throttled GPU case says so)."""
    ok = row["rate"] is not None
    n = ((extrapolation_text(machine, row) if machine else f"{row['size']} (extrapolated from n = {row['n']})")
         if row["extrapolated"] else str(row["n"])) if row["n"] else ""
    seconds = row["seconds_at_size"]
    return (row["rung"], row["summary"], row["unit"], n,
            ((f"{seconds:.4g}" + (f" ± {100 * row['case']['cv']:.2g}%" if row["case"].get("cv") is not None else ""))
             if seconds else "") if ok else "failed",
            (f"{row['rate'] / 1e9:,.0f}" if row["rate"] >= 1e12 else f"{row['rate'] / 1e9:.4g}") if ok else "",
            f"{row['absolute']:,.0f}x" if row["absolute"] and row["absolute"] >= 10 else
            f"{row['absolute']:.3g}x" if row["absolute"] else "",
            (f"{row['measured']:.3g}x over {row['parent']}" + (" (within noise)" if row.get("within_noise") else "")
             if row["measured"] else
             f"({row['parent_missing']} did not run)" if row.get("parent_missing") else ""),
            (f"{100 * row['peak_fraction']:.3g}%" if row["peak_fraction"] else "")
            + (f" ({100 * row['datasheet']['fraction']:.3g}% of the datasheet's {row['datasheet']['what']}, "
               f"{row['datasheet']['peak'] / 1e12:,.1f} TFLOP/s)" if row.get("datasheet") else ""),
            (row["regime"] or "") + (f" ({row['traffic']})" if row.get("traffic") and row["regime"] == "memory" else "")
            + (f" ({throttled(machine, row['case'])})" if machine and row["case"] and
               throttled(machine, row["case"]) else ""), row["mechanism"],
            f"{row['predicted']:.3g}x ({row['predicted_from']})" if row["predicted"] else "",
            row["why"], f"{row['rel_error']:.1e}" if row["rel_error"] is not None else "")


def peaks_line(machine, rows):
    """Each unit's peak that the rows are set against, once."""
    seen = {}
    for r in rows:
        if r["unit_peak"] and r["unit"] not in seen:
            seen[r["unit"]] = r["unit_peak"]
    return ", ".join(f"{unit} {peak / 1e9:,.0f} GFLOP/s" for unit, peak in seen.items())


def host_title(machine):
    """The host and its devices: "<cpu> (CPU)", and "<gpu> (GPU)" where its GPU rungs ran."""
    ctx = machine.context
    devices = f"{ctx.get('cpu_model', machine.id)} (CPU)"
    if any(on_gpu(machine, rung) for rung in gemm_rungs(machine)):
        devices += f" and {ctx.get('gpu_name', 'a GPU')} (GPU)"
    return f"host {machine.id}: {devices}"


def run_stamp(ctx):
    """"git …, date, profile …" of one run file, from its own context."""
    return f"git {ctx.get('git_sha', '?')}, {ctx.get('date', '?')}, profile {ctx.get('profile', '?')}"


def introduction(machine, rows):
    """The two paragraphs that open the report: where the figures come from, and what each column is."""
    # Every file the machine's figures come from (a ladder run completing an earlier run's other
    # suites), each with its own commit, date and profile.
    files = " + ".join(f"`{pathlib.Path(part).name}` ({run_stamp(machine.part_contexts.get(part, machine.context))})"
                       for part in str(machine.source).split(" + "))
    return [f"From {files}. C = A·B, n×n, every rung at n = {COMMON_SIZE}: "
             f"a rung measured at another n (slow rungs stop at their cap) has its time extrapolated from the size it "
             "ran at, marked \"extrapolated from n = …\": by its traffic model where the run gives the model's curve "
             "(its share of the rate the model allows held), else by n³, and where it ran at two sizes its time per FMA "
             "at both says whether that holds (constant, as an interpreter's is) or flatters it (growing, as a rung's "
             "whose working set moves to a slower level does); its GFLOP/s and % of peak are those it was measured at.",
             "Time: the median of the repetitions, ± their coefficient of variation (CV); a relative speedup whose "
             f"two times lie within ±{SPREAD_CVS:g} CV of each other reads \"within noise\". "
             "Absolute speedup: over the bottom rung; relative: over the rung it refines, named in the cell (a "
             "library or framework rung: over the baseline it is set against; both from the times at "
             f"n = {COMMON_SIZE}). % of unit peak: against the measured peak of the unit the rung runs on"
             + (f" ({peaks_line(machine, rows)})" if peaks_line(machine, rows) else "")
             + ("; a GPU row also gives its share of the datasheet's peak for its unit and format"
                + (f" ({next(r['datasheet']['sheet'] for r in rows if r.get('datasheet'))}, results/specs/)"
                   if any(r.get("datasheet") for r in rows) else "") if any(r["gpu"] for r in rows) else "") + ". "
             "Predicted: the factor the rung's mechanism allows over that rung, from this run's own probes, "
             "each named beside it (a vector FMA probe over the scalar one, the all-core peak over one core's, the bf16 "
             "peak over the f32 one, or the headroom to the measured peak; on a GPU, the headroom to the device's peak "
             "for the rung, and for tensor cores the ratio of the two rungs' measured cuBLAS peaks). "
             f"Where the measured factor is off by more than "
             f"{MISS_FACTOR:g}x, \"why it differs\" names what the run's own counters and ceilings show. rel error: the "
             "relative L2 error against a double-precision product, what the number format costs."
             + (f" This run predates the chain in its results (rung_parent): which rung refines which is the program's, "
                f"taken from `{machine.chain_source}`." if machine.chain_source else "")]


def ladder_markdown(machine):
    rows, large = ladder_rows(machine), gpu_large_rows(machine)
    first, second = introduction(machine, rows + large)
    lines = [f"# The ladder on {host_title(machine)}", "", first, "", second, ""]
    lines += table_markdown(rows, machine)
    if large:
        lines += ["", f"## The GPU's rungs at n = {GPU_COMPUTE_BOUND_SIZE}", "",
                  "Where a tensor-core GEMM runs long enough to be bound by its arithmetic rather than its launch; "
                  "absolute speedup over the GPU's bottom rung at this size.", ""]
        lines += table_markdown(large, machine)
    lines += sweep_markdown(machine)
    lines += layers_markdown(machine)
    return "\n".join(lines) + "\n"


def table_markdown(rows, machine=None):
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for r in rows:
        lines.append("| " + " | ".join(str(v).replace("|", "/") for v in cells(r, machine)) + " |")
    return lines


def ladder_csv(machine):
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(("machine", "rung", "what it is", "device · unit", "n measured", "n", "extrapolated", "seconds at n",
                     "flops per second", "absolute speedup", "relative speedup", "over", "peak fraction", "unit peak flops",
                     "regime", "mechanism", "predicted factor", "predicted from", "why it differs", "rel error",
                     "time cv", "within noise", "datasheet fraction", "datasheet peak flops", "datasheet unit"))
    for r in ladder_rows(machine) + gpu_large_rows(machine):
        writer.writerow((machine.id, r["rung"], r["summary"], r["unit"], r["n"] or "", r["size"], int(r["extrapolated"]),
                         *("" if v is None else f"{v:.6g}" for v in (r["seconds_at_size"], r["rate"], r["absolute"],
                                                                      r["measured"])),
                         r.get("parent") or "",
                         *("" if v is None else f"{v:.6g}" for v in (r["peak_fraction"], r["unit_peak"])),
                         r["regime"] or "", r["mechanism"], "" if r["predicted"] is None else f"{r['predicted']:.6g}",
                         r["predicted_from"], r["why"], "" if r["rel_error"] is None else f"{r['rel_error']:.3g}",
                         "" if r["case"].get("cv") is None else f"{r['case']['cv']:.3g}",
                         "" if r.get("within_noise") is None else int(r["within_noise"]),
                         *((f"{r['datasheet']['fraction']:.6g}", f"{r['datasheet']['peak']:.6g}", r["datasheet"]["what"])
                           if r.get("datasheet") else ("", "", ""))))
    return out.getvalue()


def ladder_html(machine, figure_png=None):
    """One self-contained page: the tables and, where given, the figure (PNG bytes)."""
    import base64
    e = html.escape
    rows, large = ladder_rows(machine), gpu_large_rows(machine)
    parts = ["<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
             f"<title>The ladder on {e(host_title(machine))}</title><style>",
             "body{font-family:sans-serif;margin:2em;max-width:110em}table{border-collapse:collapse;margin:1em 0}",
             "td,th{border:1px solid #ccc;padding:.3em .5em;font-size:85%;vertical-align:top}th{background:#eee}",
             "td.num{text-align:right;white-space:nowrap}img{max-width:100%}</style></head><body>",
             f"<h1>The ladder on {e(host_title(machine))}</h1>"]
    parts += [f"<p>{e(p)}</p>" for p in introduction(machine, rows + large)]
    if figure_png:
        parts.append(f"<img alt='the ladder on {e(machine.id)}' src='data:image/png;base64,"
                     f"{base64.b64encode(figure_png).decode()}'>")
    numeric = {"n", "time (s)", "GFLOP/s", "absolute speedup", "relative speedup", "% of unit peak", "predicted", "rel error"}
    for title, table in ((f"Every rung at n = {COMMON_SIZE}", rows), (f"The GPU's rungs at n = {GPU_COMPUTE_BOUND_SIZE}", large)):
        if not table:
            continue
        parts.append(f"<h2>{e(title)}</h2><table><tr>" + "".join(f"<th>{e(c)}</th>" for c in COLUMNS) + "</tr>")
        for r in table:
            parts.append("<tr>" + "".join(f"<td class='{'num' if col in numeric else 'text'}'>{e(str(v))}</td>"
                                          for col, v in zip(COLUMNS, cells(r, machine))) + "</tr>")
        parts.append("</table>")
    parts += sweep_html(machine)
    parts += layers_html(machine)
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
