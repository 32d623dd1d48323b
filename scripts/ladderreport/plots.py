"""The figures: the ladder, the rooflines, the model by operation and against resolution, machines."""
import io
import re
from .ladder import COMMON_SIZE, host_title, ladder_rows
from .sweep import sweep_figure
from .predict import spec_peak
from .slides import SLIDE_DPI, SLIDE_INCHES, SLIDE_STYLE
from .tables import best_gemm, device_columns


# --- plots ----------------------------------------------------------------------------------------

# The roofs' own colours (greys for the CPU's levels, purple for the GPU's), so that no rung's
# point shares a colour with a roof.
LEVEL_COLOURS = {"L1": "#222222", "L2": "#555555", "L3": "#888888", "DRAM": "#bbbbbb"}
GPU_ROOF_COLOUR = "#7b3294"


def time_label(seconds):
    return ("" if not seconds else f"{seconds:,.0f} s" if seconds >= 100 else f"{seconds:.3g} s" if seconds >= 1
            else f"{seconds * 1e3:.3g} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.3g} µs")


def make_figures(measured, specs):
    """[(title, file stem, matplotlib figure)]."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams.update(SLIDE_STYLE)

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
        fig = roofline_figure(m, plt)
        if fig:
            figures.append((f"The roofline of {m.id}", f"roofline-{m.id}", fig))

    # The model's time by operation, per backend, at the largest configuration each ran.
    for m in measured:
        runs = {}
        for c in m.cases.values():
            if c["suite"] == "model" and c.get("ops") and c["size"] >= runs.get(c["rung"], {"size": 0})["size"]:
                runs[c["rung"]] = c
        if not runs:
            continue
        fig, ax = plt.subplots(figsize=SLIDE_INCHES)
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
        ax.legend(ncol=5, loc="upper center", bbox_to_anchor=(0.5, -0.12), frameon=False)
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
        fig, ax = plt.subplots(figsize=SLIDE_INCHES)
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
                        transform=ax.get_xaxis_transform(), rotation=90, va="bottom", ha="right")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("tokens HW (the correlation volume and each head's scores are (HW)²)")
        ax.set_ylabel("seconds per forward pass")
        ax.set_title(f"The model on {m.id} against resolution")
        ax.legend(loc="upper left")
        fig.tight_layout()
        figures.append((f"The model on {m.id} against resolution", f"model-sweep-{m.id}", fig))

    fig = machines_figure(measured, specs, plt)
    if fig:
        figures.append(("Across machines", "machines", fig))
    return figures


DEVICE_COLOURS = {"CPU": "#1f77b4", "GPU": "#2ca02c"}
# Each unit a colour: the CPU's in blues, the GPU's in greens (the unit name starts with its device).
# Each unit a colour of its own (no two near-identical blues): CPU units in cool and earth tones,
# GPU units in warm ones.
UNIT_COLOURS = {"CPU": ("#1f77b4", "#17becf", "#2ca02c", "#9467bd", "#8c564b", "#7f7f7f", "#bcbd22"),
                "GPU": ("#d62728", "#ff7f0e", "#e377c2", "#ffbb78")}


def unit_colours(rows):
    """{unit: colour}, the CPU's units from one palette and the GPU's from another, in ladder order."""
    colour = {}
    for device in ("CPU", "GPU"):
        mine = list(dict.fromkeys(r["unit"] for r in rows if r["unit"].startswith(device)))
        for i, unit in enumerate(mine):
            colour[unit] = UNIT_COLOURS[device][i % len(UNIT_COLOURS[device])]
    return colour


def ladder_figure(m, plt):
    """Every rung at the common size, a horizontal bar each on one log scale (the CPU's and the GPU's
    rungs side by side): coloured by unit, each unit's measured peak a line, extrapolated bars
    hatched, the time at the bar's end and the speedup over the rung it refines beside its name."""
    rows = [r for r in ladder_rows(m) if r["rate"]]
    if not rows:
        return None
    colour = unit_colours(rows)
    groups = [g for g in ([r for r in rows if not r["gpu"]], [r for r in rows if r["gpu"]]) if g]
    fig, axes = plt.subplots(1, len(groups), figsize=SLIDE_INCHES, squeeze=False)
    peak_of = {}
    for ax, group in zip(axes[0], groups):
        y = list(range(len(group)))[::-1]  # the ladder read from the top
        rates = [r["rate"] / 1e9 for r in group]
        bars = ax.barh(y, rates, color=[colour[r["unit"]] for r in group], edgecolor="black", linewidth=0.4)
        for bar, r, rate in zip(bars, group, rates):
            if r["extrapolated"]:
                bar.set_hatch("//")
            ax.text(rate * 1.15, bar.get_y() + bar.get_height() / 2, time_label(r["seconds_at_size"]), va="center")
        for unit in dict.fromkeys(r["unit"] for r in group):
            peak = next((r["unit_peak"] for r in group if r["unit"] == unit and r["unit_peak"]), None)
            if peak:
                peak_of[unit] = peak
                ax.axvline(peak / 1e9, color=colour[unit], linestyle=":" if unit.startswith("GPU") else "--", linewidth=1.5)
        names = [r["rung"] + (f"  {r['measured']:.3g}x {r['parent']}" if r.get("measured") and r.get("parent") else "")
                 for r in group]
        ax.set_yticks(y, names)
        ax.set_xscale("log")
        ax.set_xlim(min(rates) / 3, max(max(rates), *(peak_of.get(r["unit"], 0) / 1e9 for r in group)) * 40)
        ax.set_xlabel("GFLOP/s (log)")
        ax.set_title("GPU" if group[0]["gpu"] else "CPU")
    units = list(colour)
    handles = [plt.Rectangle((0, 0), 1, 1, facecolor=colour[u], edgecolor="black", linewidth=0.4) for u in units]
    labels = [f"{u}: peak {peak_of[u] / 1e9:,.0f} GFLOP/s (line)" if u in peak_of else u for u in units]
    if any(r["extrapolated"] for r in rows):
        handles.append(plt.Rectangle((0, 0), 1, 1, facecolor="white", edgecolor="black", linewidth=0.4, hatch="//"))
        labels.append("hatched: time extrapolated from the size it ran at")
    columns = 2 if len(labels) > 3 else 1
    fig.legend(handles, labels, loc="lower center", ncol=columns, frameon=False)
    fig.suptitle(f"The GEMM ladder on {host_title(m)}\ntime at n = {COMMON_SIZE} at each bar's end, "
                 "speedup over the rung it refines beside its name")
    legend_lines = -(-len(labels) // columns)
    fig.tight_layout(rect=(0, (legend_lines * 21 + 10) / (SLIDE_INCHES[1] * SLIDE_DPI), 1, 1))
    return fig


def roofline_figure(m, plt):
    """The measured roofs (compute per format, bandwidth per level; the GPU's where its rungs ran)
    and each ladder rung's measured case as a point of its own colour, at the intensity its traffic
    model gives (filled) or its compulsory traffic (hollow: A and B read once, C written once)."""
    rows = [r for r in ladder_rows(m) if r["rate"] and r["case"].get("intensity")]
    if not m.peak("f32") and not rows:
        return None
    fig, ax = plt.subplots(figsize=SLIDE_INCHES)
    x = [2 ** (i / 4) for i in range(-24, 49)]
    handles, labels = [], []
    peak = m.peak("f32")
    for level, line_colour in LEVEL_COLOURS.items():
        bw = m.context.get(f"bandwidth_{level}_all_cores_bytes_per_second")
        if bw and peak:
            line, = ax.plot(x, [min(peak, float(bw) * i) / 1e9 for i in x], "-", color=line_colour, linewidth=1.5)
            handles.append(line)
            labels.append(f"{level} roof {float(bw) / 1e9:,.0f} GB/s (all cores)")
    for dtype, style in (("f32", "-"), ("f64", ":"), ("bf16", "--")):
        if m.peak(dtype):
            handles.append(ax.axhline(m.peak(dtype) / 1e9, linestyle=style, color="black", linewidth=1))
            labels.append(f"CPU peak {dtype} {m.peak(dtype) / 1e9:,.0f} GFLOP/s")
    gpu_memory = float(m.context.get("gpu_bandwidth_memory_roof_bytes_per_second",
                                     m.context.get("gpu_bandwidth_copy_bytes_per_second", 0)) or 0)
    gpu_f32 = float(m.context.get("gpu_peak_f32_fma_flops", 0) or 0)
    if gpu_memory and gpu_f32:
        line, = ax.plot(x, [min(gpu_f32, gpu_memory * i) / 1e9 for i in x], "-", color=GPU_ROOF_COLOUR, linewidth=1.5)
        handles.append(line)
        labels.append(f"GPU memory {gpu_memory / 1e9:,.0f} GB/s, f32 FMA {gpu_f32 / 1e12:.0f} TFLOP/s")
        for mode, style in (("cublas-tf32", "--"), ("cublas-f16", "-."), ("cublas-bf16", ":")):
            if (rate := float(m.context.get(f"gpu_peak_{mode}_flops", 0) or 0)):
                handles.append(ax.axhline(rate / 1e9, linestyle=style, color=GPU_ROOF_COLOUR, linewidth=1))
                labels.append(f"GPU {mode} {rate / 1e12:,.0f} TFLOP/s")
    # Ten strong colours, then the same with another marker: no two rungs alike, none pale.
    palette, markers = plt.cm.tab10.colors, ("o", "D", "^", "v")
    for i, r in enumerate(rows):
        c = r["case"]
        # A traffic model beyond the compulsory bytes moves the point left of its compulsory intensity.
        modelled = bool(c.get("traffic_bytes") and c.get("bytes") and c["traffic_bytes"] > 1.01 * c["bytes"])
        intensity = c["intensity"] * c["bytes"] / c["traffic_bytes"] if modelled else c["intensity"]
        colour = palette[i % len(palette)]
        point, = ax.plot(intensity, r["rate"] / 1e9, markers[i // len(palette) % len(markers)], markersize=10,
                         color=colour, markerfacecolor=colour if modelled else "none", markeredgewidth=2)
        handles.append(point)
        labels.append(f"{r['rung']} (n = {r['n']})")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (FLOP per byte moved from the level that bounds it)")
    ax.set_ylabel("GFLOP/s")
    ax.set_title(f"Roofline of {m.id}: measured roofs, each rung's measured case\n"
                 "filled: intensity from the rung's traffic model; hollow: A and B read once, C written once")
    columns = 1 if len(labels) <= 26 else 2
    ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0, ncol=columns,
              fontsize=12, handlelength=1.6, labelspacing=0.25 if len(labels) > 22 else 0.5)
    fig.tight_layout()
    return fig


def machines_figure(measured, specs, plt):
    """The best GEMM rate of each measured device and each datasheet peak, in two panels (f32 and
    the 16-bit formats), one horizontal bar each with its figure and the n it was measured at."""
    panels = (("f32 (or tf32)", ("f32", "tf32")), ("bf16 or f16", ("bf16", "f16")))
    filled = []
    for title, dtypes in panels:
        bars = []  # (label, GFLOP/s, colour, hatch, what it is)
        for m, device, _ in device_columns(measured):
            best = best_gemm(m, device, dtypes)
            if best:
                name = m.context.get("gpu_name", "GPU") if device == "GPU" else "CPU"
                bars.append((f"{m.id} ({name})", best["flops"] / 1e9, DEVICE_COLOURS[device], "",
                             f"{best['dtype']}, {best['rung']}, n = {best['size']}"))
        for s in specs:
            dtype, value = max(((d, spec_peak(s, d) or 0) for d in dtypes), key=lambda dv: dv[1])
            if value:
                bars.append((f"{s.id}", value / 1e9, "#cccccc", "//", f"{dtype}, datasheet"))
        if bars:
            filled.append((title, bars))
    if not filled:
        return None
    fig, axes = plt.subplots(1, len(filled), figsize=SLIDE_INCHES, squeeze=False)
    for ax, (title, bars) in zip(axes[0], filled):
        y = list(range(len(bars)))[::-1]
        drawn = ax.barh(y, [b[1] for b in bars], color=[b[2] for b in bars], edgecolor="black", linewidth=0.4)
        for bar, b in zip(drawn, bars):
            bar.set_hatch(b[3])
            ax.text(b[1] * 1.1, bar.get_y() + bar.get_height() / 2, f"{b[1]:,.0f}", va="center")
        ax.set_yticks(y, [f"{b[0]}\n{b[4]}" for b in bars])
        ax.set_xscale("log")
        ax.set_xlim(min(b[1] for b in bars) / 3, max(b[1] for b in bars) * 30)
        ax.set_xlabel("GFLOP/s (log)")
        ax.set_title(title)
    handles = [plt.Rectangle((0, 0), 1, 1, facecolor=c, edgecolor="black", linewidth=0.4, hatch=h)
               for c, h in ((DEVICE_COLOURS["CPU"], ""), (DEVICE_COLOURS["GPU"], ""), ("#cccccc", "//"))]
    fig.legend(handles, ["measured, CPU", "measured, GPU", "datasheet peak (not measured)"], loc="lower center", ncol=3,
               frameon=False)
    fig.suptitle("Across machines: each device's best measured GEMM (GFLOP/s at the bar's end), beside datasheet peaks")
    fig.tight_layout(rect=(0, 0.05, 1, 1))
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
                fig.savefig(out_dir / f"{stem}.{fmt}", dpi=SLIDE_DPI, metadata={"Date": None} if fmt == "svg" else None)
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=80)
        pngs.append((title, buffer.getvalue()))
        plt.close(fig)  # drawn and saved: its memory is not kept for the rest of the report
    return pngs
