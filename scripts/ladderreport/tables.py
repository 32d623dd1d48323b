"""The comparison tables (measured beside predicted) as Markdown, CSV and one HTML page."""
import base64
import csv
import html
from .ladder import ladder_rows
from .machines import ROOT, on_gpu, rung_parents, throttled
from .predict import gemm_bound, overhead_floor, predict_case, spec_peak, predict_stream


# --- tables ---------------------------------------------------------------------------------------


def fmt_rate(value, unit):
    if value is None:
        return ""
    for scale, prefix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= scale:
            return f"{value / scale:.3g} {prefix}{unit}"
    return f"{value:.3g} {unit}"


def device_columns(machines):
    """[(machine, device, title)]: each measured host is its CPU and, where its GPU rungs ran, its GPU,
    two devices with a column each; a spec sheet is one column."""
    columns = []
    for m in machines:
        if not m.measured:
            columns.append((m, None, f"{m.name} (spec)"))
            continue
        columns.append((m, "CPU", f"{m.context.get('cpu_model', m.id)} (CPU), host {m.id}"))
        if any(c["suite"] == "gemm" and on_gpu(m, c["rung"]) for c in m.cases.values()):
            columns.append((m, "GPU", f"{m.context.get('gpu_name', 'GPU')} (GPU), host {m.id}"))
    return columns


def on_device(m, device, rung):
    return device is None or on_gpu(m, rung) == (device == "GPU")


def best_gemm(m, device, dtypes):
    cases = [c for c in m.cases.values() if c["suite"] == "gemm" and c["dtype"] in dtypes and c.get("flops")
             and not c.get("error") and on_device(m, device, c["rung"])]
    return max(cases, key=lambda c: c["flops"], default=None)


def build_tables(measured, specs):
    """{workload: (rows, columns, cells)}; a cell: {"text", "predicted", "value"}."""
    tables = {}
    machines = measured + specs
    columns = [f"{m.name}" + ("" if m.measured else " (spec)") for m in machines]
    devices = device_columns(machines)

    # GEMM: the ladder, at the common size (or each rung's largest size below it).
    rungs = []
    for m in measured:
        for key in m.order:
            c = m.cases[key]
            if c["suite"] == "gemm" and c["rung"] not in [r for r, _ in rungs]:
                rungs.append((c["rung"], c["dtype"]))
    floors = {kind: overhead_floor(measured, kind) for kind in ("cpu", "gpu")}
    # A spec sheet predicts what tuned code reaches, so only the library and matrix- or dot-product-unit rungs.
    mechanisms = {}
    for m in measured:
        for key, value in m.context.items():
            if key.startswith("rung/"):
                mechanisms[key[5:]] = str(value).partition(": ")[0]
    predictable = {r for r, mech in mechanisms.items() if mech in ("tuned library", "matrix units", "bf16 dot products")}
    cells = []
    for rung, _ in rungs:
        # The problem a spec sheet's prediction is for: the rung's case a measured file holds.
        measured_case = next(((m, c) for m in measured if (c := m.gemm_at(rung)) and c.get("bytes")), None)
        row = []
        for m, device, _ in devices:
            if m.measured:
                c = m.gemm_at(rung) if on_device(m, device, rung) else None
                if not c or c.get("error") or "flops" not in c:
                    row.append({"text": "failed" if c and c.get("error") else "", "predicted": False, "value": None})
                    continue
                pct = f" · {percent(c['peak_fraction'])} of peak" if c.get("peak_fraction") else ""
                noisy = f" · noisy (CV {100 * c['cv']:.0f}%)" if c.get("noisy") else ""
                noisy += f" · {throttled(m, c)}" if throttled(m, c) else ""
                row.append({"text": f"{fmt_rate(c['flops'], 'FLOP/s')}{pct} (n={c['size']}){noisy}", "predicted": False,
                            "value": c["flops"]})
            else:
                value = (predict_case(m, measured_case[1], on_gpu(measured_case[0], rung), floors[m.kind])
                         if rung in predictable and measured_case else None)
                row.append({"text": f"≈ {fmt_rate(value, 'FLOP/s')} from the datasheet (n={measured_case[1]['size']})"
                            if value else "",
                            "predicted": True, "value": value})
        cells.append(row)
    # Speedup over the rung it refines (rung_parent: the first of its alternatives measured in this
    # column; files without it: the rung above), per machine column.
    names = [r for r, _ in rungs]
    for j, (m, _, _) in enumerate(devices):
        previous = None
        for i, rung in enumerate(names):
            value = cells[i][j]["value"]
            parents = rung_parents(m, rung) if m.measured else []
            parent = next(((p, cells[names.index(p)][j]["value"]) for p in parents or []
                           if p in names and cells[names.index(p)][j]["value"]), None)
            if value and not cells[i][j]["predicted"]:
                if parent:
                    cells[i][j]["text"] += f" · {value / parent[1]:.2f}x {parent[0]}"
                elif previous and parents is None:
                    cells[i][j]["text"] += f" · {value / previous:.2f}x the rung above"
            previous = value or previous
    tables["gemm"] = ([f"{r} ({d})" for r, d in rungs], [title for _, _, title in devices], cells)

    # CPU and GPU at their limits (the seed's comparison): the best GEMM per number format,
    # measured (any rung, any n) or predicted: a spec's peak, which a GEMM large enough to be
    # compute-bound reaches; and main memory's bandwidth; each measured host as two devices.
    formats, cells = ("f32", "tf32", "f16", "bf16"), []
    for dtype in formats:
        row = []
        for m, device, _ in devices:
            if m.measured:
                best = best_gemm(m, device, (dtype,))
                row.append({"text": f"{fmt_rate(best['flops'], 'FLOP/s')} ({best['rung']}, n={best['size']})" if best else "",
                            "predicted": False, "value": best["flops"] if best else None})
            else:
                value = spec_peak(m, dtype)
                row.append({"text": f"≈ {fmt_rate(value, 'FLOP/s')} (datasheet peak)" if value else "",
                            "predicted": True, "value": value})
        cells.append(row)
    row = []
    for m, device, _ in devices:
        if m.measured:
            value = (float(m.context.get("gpu_bandwidth_memory_roof_bytes_per_second", 0) or 0) or None
                     if device == "GPU" else m.bandwidth())
            row.append({"text": f"{fmt_rate(value, 'B/s')} (measured roof)" if value else "", "predicted": False,
                        "value": value})
        else:
            value = m.bandwidth()
            row.append({"text": f"≈ {fmt_rate(value, 'B/s')} (datasheet)" if value else "", "predicted": True,
                        "value": value})
    cells.append(row)
    # On a host with both: how far the GPU's limit is above the CPU's, measured side by side.
    row = []
    for m, device, _ in devices:
        text, value = "", None
        if m.measured and device == "GPU":
            ratios = []
            for label, dtypes in (("f32", ("f32",)), ("16-bit", ("f16", "bf16"))):
                gpu, cpu = best_gemm(m, "GPU", dtypes), best_gemm(m, "CPU", dtypes)
                if gpu and cpu:
                    ratios.append(f"{label} {gpu['flops'] / cpu['flops']:.3g}x")
                    value = value or gpu["flops"] / cpu["flops"]
            gpu_memory = float(m.context.get("gpu_bandwidth_memory_roof_bytes_per_second", 0) or 0)
            if gpu_memory and m.bandwidth():
                ratios.append(f"memory {gpu_memory / m.bandwidth():.3g}x")
            text = " · ".join(ratios)
        row.append({"text": text, "predicted": False, "value": value})
    cells.append(row)
    tables["CPU and GPU at their limits: the best GEMM per number format, and main memory"] = (
        list(formats) + ["memory bandwidth", "GPU over the CPU of its host"], [title for _, _, title in devices], cells)

    # STREAM: every kernel, f64 (device kernels in f32).
    kernels = []
    for m in measured:
        for key in m.order:
            c = m.cases[key]
            if (c["suite"] == "stream" and (c["rung"], c["dtype"]) not in kernels
                    and (c["dtype"] == "f64" or c["rung"].startswith("device-"))):
                kernels.append((c["rung"], c["dtype"]))
    cells = []
    for rung, dtype in kernels:
        row = []
        for m in machines:
            if m.measured:
                c = next((c for c in m.cases.values()
                          if c["suite"] == "stream" and c["rung"] == rung and c["dtype"] == dtype), None)
                value = c.get("bytes_per_second") if c and not c.get("error") else None
                noisy = f" · noisy (CV {100 * c['cv']:.0f}%)" if value and c.get("noisy") else ""
                row.append({"text": fmt_rate(value, "B/s") + noisy, "predicted": False, "value": value})
            else:
                value = predict_stream(m, rung)
                row.append({"text": f"≈ {fmt_rate(value, 'B/s')} (datasheet)" if value else "", "predicted": True,
                            "value": value})
        cells.append(row)
    tables["stream"] = ([f"{r} ({d})" for r, d in kernels], columns, cells)

    # The model: each backend's time a pass, per configuration; and on every machine the pass's
    # f32 lower bound through that machine's roofline (each operation's FLOPs and bytes, from the
    # result file that ran it).
    configs, rows, cells = {}, [], []
    for m in measured:
        for key in m.order:
            c = m.cases[key]
            if c["suite"] != "model" or "config" not in c:
                continue
            if c["ops"]:  # the lower bound needs each operation's FLOPs and bytes
                configs.setdefault(c["config"], c)
            if (c["rung"], c["dtype"], c["config"]) not in rows:
                rows.append((c["rung"], c["dtype"], c["config"]))
    for rung, _dtype, config in rows:
        row = []
        for m in machines:
            c = next((c for c in m.cases.values() if c["suite"] == "model" and c["rung"] == rung
                      and c.get("config") == config), None) if m.measured else None
            if c and not c.get("error"):
                seconds = c["pass_seconds"]
                row.append({"text": f"{seconds * 1e3:.3g} ms a pass · {fmt_rate(c.get('flops'), 'FLOP/s')}", "predicted": False,
                            "value": seconds})
            else:
                row.append({"text": "", "predicted": not m.measured, "value": None})
        cells.append(row)
    labels = [f"{r} ({d}), {cfg}" for r, d, cfg in rows]
    for config, c in configs.items():
        row = []
        for m in machines:
            peak, bandwidth = m.peak("f32", "vector") or m.peak("f32"), m.bandwidth()
            bound = sum(gemm_bound(o.get("flop_count", 0), o.get("byte_count", 0), peak, bandwidth, 0)
                        for o in c["ops"].values()) if peak and bandwidth else None
            row.append({"text": f"≈ {bound * 1e3:.3g} ms (f32 roofline bound, no per-call costs)" if bound else "",
                        "predicted": True, "value": bound})
        cells.append(row)
        labels.append(f"lower bound (f32), {config}")
    if rows:
        tables["model: time a forward pass"] = (labels, columns, cells)
    return tables


def percent(fraction):
    """A share as a person reads it: whole percent, but two significant digits below 1% (an
    interpreter's 0.012% is not 0%)."""
    return f"{100 * fraction:.0f}%" if fraction >= 0.01 else f"{100 * fraction:.2g}%"


def write_markdown(tables, out, measured=()):
    lines = ["# ladderbench results", "",
             "Measured cells come from result files; cells marked ≈ come from a spec sheet (results/specs/): its datasheet "
             "peak, or for a GEMM the datasheet roofline min(peak, bandwidth × intensity), floored by the measured fixed "
             "cost of a call. A measured rung's speedup is over the rung it refines (its parent), at the sizes each ran.",
             ""]
    if measured:  # which run each column's figures come from (every run stays in results/: report.py history)
        lines += ["Runs:", ""] + [f"- {m.name}: `{str(m.source).replace(str(ROOT) + '/', '')}` "
                                  f"(git {m.context.get('git_sha', '?')}, {m.context.get('date', '?')})"
                                  for m in measured] + [""]
    for workload, (rows, columns, cells) in tables.items():
        lines += [f"## {workload}", "", "| rung | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
        for name, row in zip(rows, cells):
            lines.append(f"| {name} | " + " | ".join(c["text"] for c in row) + " |")
        lines.append("")
    out.write_text("\n".join(lines), encoding="utf-8")


def write_csv(tables, out):
    with open(out, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["workload", "rung", "machine", "value", "kind", "text"])
        for workload, (rows, columns, cells) in tables.items():
            for name, row in zip(rows, cells):
                for column, cell in zip(columns, row):
                    if cell["text"]:
                        # Ten significant digits, not the float's repr: its last digit differs between
                        # Python versions (3.12's sum() compensates), and publish must reproduce the file.
                        writer.writerow([workload, name, column, f"{cell['value']:.10g}" if cell["value"] is not None else "",
                                         "predicted" if cell["predicted"] else "measured", cell["text"]])

def write_html(tables, measured, figures, out):
    e = html.escape
    parts = ["<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>ladderbench results</title><style>",
             "body{font-family:sans-serif;margin:2em;max-width:90em}table{border-collapse:collapse;margin:1em 0}",
             "td,th{border:1px solid #ccc;padding:.3em .6em;font-size:90%;vertical-align:top}th{background:#eee}",
             "td.predicted{font-style:italic;color:#555;background:#f6f6ff}img{max-width:100%}</style></head><body>",
             "<h1>ladderbench results</h1><p>Measured cells are plain; <span style='font-style:italic;color:#555;"
             "background:#f6f6ff'>predicted cells</span> come from a spec sheet through the roofline.</p>"]
    for workload, (rows, columns, cells) in tables.items():
        parts.append(f"<h2>{e(workload)}</h2><table><tr><th>rung</th>" + "".join(f"<th>{e(c)}</th>" for c in columns) + "</tr>")
        for name, row in zip(rows, cells):
            parts.append(f"<tr><th>{e(name)}</th>" + "".join(
                f"<td class='{'predicted' if c['predicted'] else 'measured'}'>{e(c['text'])}</td>" for c in row) + "</tr>")
        parts.append("</table>")
    for m in measured:
        parts.append(f"<h2>The ladder on {e(m.name)}</h2><table><tr><th>rung</th><th>n</th><th>GFLOP/s</th><th>regime</th>"
                     "<th>mechanism</th><th>predicted</th><th>measured</th></tr>")
        for r in ladder_rows(m):
            parts.append("<tr>" + "".join(f"<td>{e(str(v))}</td>" for v in (
                r["rung"], r["n"] or "", f"{r['rate'] / 1e9:.4g}" if r["rate"] else "failed", r["regime"] or "",
                r["mechanism"], f"{r['predicted']:.3g}x" if r["predicted"] else "",
                f"{r['measured']:.3g}x" if r["measured"] else "")) + "</tr>")
        parts.append("</table>")
    for title, png in figures:
        parts.append(f"<h2>{e(title)}</h2><img alt='{e(title)}' src='data:image/png;base64,{base64.b64encode(png).decode()}'>")
    parts.append("</body></html>")
    out.write_text("\n".join(parts), encoding="utf-8")
