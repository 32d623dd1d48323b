"""Chosen cases of one machine against its runs, oldest first: the median of each run's
repetitions with their spread (min to max), against commit and date. Every run under the
machine's folder is read, not only the newest; a figure and a Markdown table name the run each
point comes from."""
import pathlib
import re

import numpy as np

from .runs import load_run, result_files, safe_slug, warn

DEFAULT_CASES = [r"^gemm/[^/]+/[^/]+/n:1024$"]


def machine_runs(machine, results):
    folder = pathlib.Path(machine)
    if not folder.is_dir():
        folder = pathlib.Path(results) / machine
    runs = [r for r in (load_run(f) for f in result_files(folder)) if r]
    return sorted(runs, key=lambda r: (r.date, str(r.path))), folder


def series(runs, patterns):
    """{case: [(run index, median, low, high)]} for the cases any pattern matches."""
    regexes = [re.compile(p) for p in patterns]
    out = {}
    for i, run in enumerate(runs):
        for name in run.order:
            times = run.seconds.get(name)
            if times and any(r.search(name) for r in regexes):
                out.setdefault(name, []).append((i, float(np.median(times)), min(times), max(times)))
    return out


def cmd_history(args):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    try:
        patterns = args.case or DEFAULT_CASES
        for p in patterns:
            re.compile(p)
    except re.error as e:
        warn(f"--case '{e.pattern}' is not a regular expression: {e}")
        return 2
    runs, folder = machine_runs(args.machine, args.results_root)
    if not runs:
        warn(f"no ladderbench result in {folder}")
        return 1
    data = series(runs, patterns)
    if not data:
        warn(f"no case of {folder} matches {', '.join(patterns)}")
        return 1
    labels = [f"{r.date[:10]}\n{r.sha[:7]}" for r in runs]
    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(runs)), 4.5))
    for name, points in data.items():
        x = [p[0] for p in points]
        median = np.array([p[1] for p in points])
        low, high = median - np.array([p[2] for p in points]), np.array([p[3] for p in points]) - median
        ax.errorbar(x, median * 1e3, yerr=[low * 1e3, high * 1e3], marker="o", capsize=3, label=name)
    ax.set_xticks(range(len(runs)), labels, fontsize=7)
    ax.set_yscale("log")
    ax.set_ylabel("ms per call (median; bars: min to max of the repetitions)")
    ax.set_title(f"History of {runs[-1].machine}: {len(runs)} runs")
    ax.legend(fontsize=6, loc="best")
    fig.tight_layout()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = out / f"history-{safe_slug(runs[-1].machine) or 'machine'}"
    for ext in ("png", "svg"):
        fig.savefig(f"{stem}.{ext}")
    plt.close(fig)
    lines = [f"# History of {runs[-1].machine}", "", "| run | file | " + " | ".join(data) + " |",
             "|---|---|" + "---|" * len(data)]
    for i, run in enumerate(runs):
        cells = []
        for name in data:
            point = next((p for p in data[name] if p[0] == i), None)
            cells.append(f"{point[1] * 1e3:.3g} ms ({point[2] * 1e3:.3g}–{point[3] * 1e3:.3g})" if point else "")
        lines.append(f"| {run.date} git {run.sha} | {run.path.name} | " + " | ".join(cells) + " |")
    pathlib.Path(f"{stem}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    print(f"report: wrote {stem}.png, {stem}.svg, {stem}.md")
    return 0
