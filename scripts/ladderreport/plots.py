"""The figures: the ladder, the rooflines, the model by operation and against resolution, machines."""
import io
import re
from .ladder import COMMON_SIZE, host_title, ladder_rows
from .sweep import sweep_figure
from .predict import spec_peak
from .tables import best_gemm, device_columns


# --- plots ----------------------------------------------------------------------------------------

REGIME_COLOURS = {"compute": "#1f77b4", "memory": "#ff7f0e", "overhead": "#d62728", None: "#999999"}


def make_figures(measured, specs):
    """[(title, file stem, matplotlib figure)]."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figures = []
    for m in measured:
        fig = ladder_figure(m, plt)
        if fig:
            figures.append((f"The ladder on {m.id}", f"ladder-{m.id}", fig))
    for m in measured:
        fig = sweep_figure(m, plt)
        if fig:
            figures.append((f"Rate against n on {m.id}", f"rate-vs-n-{m.id}", fig))
    for m in measured:
        # The roofline: measured compute roofs and bandwidth per level, every GEMM and sweep point.
        fig, ax = plt.subplots(figsize=(8, 6))
        x = [2 ** (i / 4) for i in range(-24, 41)]
        for dtype, style in (("f32", "-"), ("f64", ":"), ("bf16", "--")):
            peak = m.peak(dtype)
            if not peak:
                continue
            for level in ("L1", "L2", "L3", "DRAM"):
                bw = m.context.get(f"bandwidth_{level}_all_cores_bytes_per_second")
                if bw and dtype == "f32":
                    ax.plot(x, [min(peak, float(bw) * i) / 1e9 for i in x], "-", linewidth=0.8,
                            label=f"{level} {float(bw) / 1e9:.0f} GB/s")
            ax.axhline(peak / 1e9, linestyle=style, color="k", linewidth=0.8)
            ax.text(x[0], peak / 1e9 * 1.08, f"peak {dtype} {peak / 1e9:.0f} GFLOP/s", fontsize=8)
        # The GPU's own roofs where its rungs ran: device memory, the f32 FMA probe (and the theoretical
        # figure it is a fraction of), cuBLAS per mode.
        gpu_memory = float(m.context.get("gpu_bandwidth_memory_roof_bytes_per_second",
                                         m.context.get("gpu_bandwidth_copy_bytes_per_second", 0)) or 0)
        gpu_f32 = float(m.context.get("gpu_peak_f32_fma_flops", 0) or 0)
        if gpu_memory and gpu_f32:
            ax.plot(x, [min(gpu_f32, gpu_memory * i) / 1e9 for i in x], "-", color="purple", linewidth=1.2,
                    label=f"GPU memory {gpu_memory / 1e9:.0f} GB/s")
            for mode in ("cublas-tf32", "cublas-f16", "cublas-bf16"):
                if (rate := float(m.context.get(f"gpu_peak_{mode}_flops", 0) or 0)):
                    ax.axhline(rate / 1e9, linestyle="--", color="purple", linewidth=0.6)
                    ax.text(x[-1], rate / 1e9 * 1.08, f"GPU {mode} {rate / 1e12:.0f} TFLOP/s", fontsize=7, ha="right")
            ax.text(x[-1], gpu_f32 / 1e9 * 1.08, f"GPU f32 FMA {gpu_f32 / 1e12:.0f} TFLOP/s", fontsize=7, ha="right")
            # The hardware's limit at the clock the probe ran at: how far the probe is from it shows.
            if (theory := float(m.context.get("gpu_theoretical_peak_f32_flops", 0) or 0)):
                ax.axhline(theory / 1e9, linestyle=":", color="purple", linewidth=0.8)
                ax.text(x[0], theory / 1e9 * 1.08, f"GPU f32 theoretical {theory / 1e12:.0f} TFLOP/s", fontsize=7)
        for c in m.cases.values():
            if c.get("intensity") and c.get("flops") and c["suite"] in ("gemm", "roofline"):
                ax.plot(c["intensity"], c["flops"] / 1e9, "o" if c["suite"] == "gemm" else "s", markersize=3,
                        color=REGIME_COLOURS[c.get("regime")], alpha=0.7)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("arithmetic intensity (FLOP/byte)")
        ax.set_ylabel("GFLOP/s")
        ax.set_title(f"Roofline of {m.id}: measured ceilings, every GEMM (o) and sweep (s) case")
        ax.legend(fontsize=7, loc="lower right")
        fig.tight_layout()
        figures.append((f"The roofline of {m.id}", f"roofline-{m.id}", fig))

    # The model's time by operation, per backend, at the largest configuration each ran.
    for m in measured:
        runs = {}
        for c in m.cases.values():
            if c["suite"] == "model" and c.get("ops") and c["size"] >= runs.get(c["rung"], {"size": 0})["size"]:
                runs[c["rung"]] = c
        if not runs:
            continue
        fig, ax = plt.subplots(figsize=(10, 2.4 + 0.45 * len(runs)))
        ops = sorted({op for c in runs.values() for op in c["ops"]})
        colours = plt.cm.tab20.colors
        for row, (_rung, c) in enumerate(sorted(runs.items())):
            # Shares from the (median) seconds: medians of the shares themselves need not add up to 100%.
            total = c["pass_seconds"] or 1
            left = 0.0
            for i, op in enumerate(ops):
                share = c["ops"].get(op, {}).get("seconds", 0) / total * 100
                ax.barh(row, share, left=left, color=colours[i % len(colours)], label=op if row == 0 else None)
                left += share
        ax.set_yticks(range(len(runs)), [f"{r} (tokens {c['size']})" for r, c in sorted(runs.items())])
        ax.set_xlabel("% of the forward pass")
        ax.set_title(f"The model on {m.id}: where the time goes, by operation")
        ax.set_xlim(0, 100)
        ax.legend(fontsize=7, ncol=7, loc="upper center", bbox_to_anchor=(0.5, -0.3 * 4 / (len(runs) + 2)))
        fig.tight_layout()
        figures.append((f"The model on {m.id}, by operation", f"model-{m.id}", fig))

    # The model against resolution: time per pass over tokens (log-log), a (HW)^2 slope for
    # reference, and where a 16, 40 and 80 GB device runs out of memory (from the context).
    for m in measured:
        sweeps = {}
        for c in m.cases.values():
            if c["suite"] == "model-sweep" and c.get("flops") and not c.get("error"):
                tokens = c["size"] * c["size"]
                sweeps.setdefault(f'{c["rung"]} ({c["dtype"]})', []).append((tokens, c["pass_seconds"]))
        if not sweeps:
            continue
        fig, ax = plt.subplots(figsize=(8, 5))
        for label, points in sorted(sweeps.items()):
            points.sort()
            x = [t for t, _ in points]
            y = [seconds for _, seconds in points]
            ax.plot(x, y, "o-", label=label)
        x_last, y_last = x[-1], y[-1]
        guide = [x[0], x_last * 16]
        ax.plot(guide, [y_last * (g / x_last) ** 2 for g in guide], "k--", linewidth=0.8, label="∝ (HW)²")
        for key, value in sorted(m.context.items()):
            found = re.match(r"model_out_of_memory_side_(\d+)GB", key)
            if found:
                side, _, shape = str(value).partition(" ")
                side = int(side)
                ax.axvline(side * side, color="grey", linestyle=":", linewidth=0.8)
                ax.text(side * side, 0.03, f" {found.group(1)} GB device full at {side}×{side} {shape}",
                        transform=ax.get_xaxis_transform(), rotation=90, fontsize=7, va="bottom", ha="right")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("tokens HW (the correlation volume and each head's scores are (HW)²)")
        ax.set_ylabel("seconds per forward pass")
        ax.set_title(f"The model on {m.id} against resolution")
        ax.legend(fontsize=8)
        fig.tight_layout()
        figures.append((f"The model on {m.id} against resolution", f"model-sweep-{m.id}", fig))

    # Across machines: the best GEMM rate per dtype, measured and predicted.
    labels, values, colours = [], [], []
    for m, device, _ in device_columns(measured):  # a host's CPU and GPU are two devices, two bars
        best = best_gemm(m, device, ("f32", "tf32", "f16", "bf16"))
        if best:
            name = m.context.get("gpu_name", "GPU") if device == "GPU" else m.context.get("cpu_model", m.id)
            labels.append(f"{name} ({device})\nhost {m.id}, {best['dtype']}\n(measured)")
            values.append(best["flops"] / 1e9)
            colours.append(DEVICE_COLOURS[device])
    for s in specs:
        for dtype in ("f32", "tf32", "f16", "bf16"):
            value = spec_peak(s, dtype)
            if value:
                labels.append(f"{s.id}\n{dtype} (predicted)")
                values.append(value / 1e9)
                colours.append("#aaaaaa")
    if values:
        fig, ax = plt.subplots(figsize=(max(8, len(values) * 0.6), 5))
        ax.bar(range(len(values)), values, color=colours)
        ax.set_xticks(range(len(values)), labels, rotation=90, fontsize=7)
        ax.set_yscale("log")
        ax.set_ylabel("GEMM GFLOP/s (log)")
        ax.set_title("Across machines: measured best GEMM, and datasheet roofline predictions (n=8192)")
        fig.tight_layout()
        figures.append(("Across machines", "machines", fig))
    return figures


DEVICE_COLOURS = {"CPU": "#1f77b4", "GPU": "#2ca02c"}
# Each unit a colour: the CPU's in blues, the GPU's in greens (the unit name starts with its device).
# Each unit a colour of its own (no two near-identical blues): CPU units in cool and earth tones,
# GPU units in warm ones.
UNIT_COLOURS = {"CPU": ("#1f77b4", "#17becf", "#2ca02c", "#9467bd", "#8c564b", "#7f7f7f", "#bcbd22"),
                "GPU": ("#d62728", "#ff7f0e", "#e377c2", "#ffbb78")}


def ladder_figure(m, plt):
    """Every rung at the common size on one log scale, CPU and GPU: bars coloured by device and unit,
    extrapolated ones hatched, each device's highest unit peak a line."""
    rows = [r for r in ladder_rows(m) if r["rate"]]
    if not rows:
        return None
    units = []
    for r in rows:
        if r["unit"] not in units:
            units.append(r["unit"])
    colour = {}
    for device in ("CPU", "GPU"):
        mine = [u for u in units if u.startswith(device)]
        for i, unit in enumerate(mine):
            colour[unit] = UNIT_COLOURS[device][i % len(UNIT_COLOURS[device])]
    fig, ax = plt.subplots(figsize=(max(11, 0.75 * len(rows)), 6))
    bars = ax.bar(range(len(rows)), [r["rate"] / 1e9 for r in rows], color=[colour.get(r["unit"], "#999999") for r in rows],
                  edgecolor="black", linewidth=0.4)
    for bar, r in zip(bars, rows):
        if r["extrapolated"]:
            bar.set_hatch("//")
        seconds = r["seconds_at_size"]
        label = ("" if not seconds else f"{seconds:,.0f} s" if seconds >= 100 else f"{seconds:.3g} s" if seconds >= 1
                 else f"{seconds * 1e3:.3g} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.3g} µs")
        ax.text(bar.get_x() + bar.get_width() / 2, bar.get_height() * 1.15, label, ha="center", fontsize=7)
    # Each unit's measured peak: a line in the unit's colour (the CPU's dashed, the GPU's dotted),
    # its figure in the legend, where no label can overprint a bar's.
    peak_of = {}
    for unit in units:
        peak = next((r["unit_peak"] for r in rows if r["unit"] == unit and r["unit_peak"]), None)
        if peak:
            peak_of[unit] = peak
            ax.axhline(peak / 1e9, color=colour[unit], linestyle=":" if unit.startswith("GPU") else "--", linewidth=1.2)
    # The chain: each rung's speedup over the rung it refines (or its baseline), under its name.
    ticks = [r["rung"] + (f"\n{r['measured']:.3g}x {r['parent']}" if r.get("measured") and r.get("parent") else "")
             for r in rows]
    ax.set_xticks(range(len(rows)), ticks, rotation=60, ha="right", fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("GFLOP/s (log)")
    ax.set_title(f"The GEMM ladder on {host_title(m)}\nevery rung, time at n = {COMMON_SIZE} above each bar, "
                 "speedup over the rung it refines under its name", fontsize=10)
    handles = [plt.Rectangle((0, 0), 1, 1, facecolor=colour[u], edgecolor="black", linewidth=0.4) for u in units]
    labels = [f"{u}: peak {peak_of[u] / 1e9:,.0f} GFLOP/s (line)" if u in peak_of else u for u in units]
    if any(r["extrapolated"] for r in rows):
        handles.append(plt.Rectangle((0, 0), 1, 1, facecolor="white", edgecolor="black", linewidth=0.4, hatch="//"))
        labels.append("extrapolated by n³ from the size it ran at")
    ax.legend(handles, labels, fontsize=8, loc="upper left", bbox_to_anchor=(1.005, 1.0), borderaxespad=0)
    ax.set_ylim(top=max(r["rate"] for r in rows) / 1e9 * 30)
    fig.tight_layout()
    return fig


def render(figures, out_dir, formats=("png", "svg")):
    """Each figure as PNG and SVG, byte for byte the same from the same runs (no date in the SVG,
    its element ids from a fixed salt rather than at random), so that report.py publish's check can
    compare them; returns (title, a smaller PNG) for pages that embed them."""
    import matplotlib.pyplot as plt
    out_dir.mkdir(parents=True, exist_ok=True)
    pngs = []
    for title, stem, fig in figures:
        for fmt in formats:
            with plt.rc_context({"svg.hashsalt": f"ladderbench-{stem}"}):
                fig.savefig(out_dir / f"{stem}.{fmt}", dpi=110, metadata={"Date": None} if fmt == "svg" else None)
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=80)
        pngs.append((title, buffer.getvalue()))
        plt.close(fig)  # drawn and saved: its memory is not kept for the rest of the report
    return pngs
