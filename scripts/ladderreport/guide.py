"""The generated parts of the teaching guide (docs/ladder.md) and the front door (README.md).
Between `<!-- generated: KIND ARGS -->` and `<!-- end generated -->` stands what the committed
runs and the rungs' own sources say, remade by report.py publish (publish-check fails on a stale
one); the prose around them is written by hand and quotes no measured number. Kinds:

    chain MACHINE        the ladder as the machine's published run measured it, a row a rung
    rung RUNG MACHINE    one rung: its source's opening (what changed and why), the lines between
                         its `teach: begin` and `teach: end` markers, and its row of that run
    sweep MACHINE        the machine's sweep run: each rung's rates over n against its model, and
                         every point more than 2x off it with the mechanism the sweep shows
    memory MACHINE       the GPU's device-memory and L2 bandwidths as its run measured them
"""
import pathlib
import re

from .ladder import COMMON_SIZE, ladder_rows
from .sweep import sweep_points

ROOT = pathlib.Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"(<!-- generated: (\w+) ([^>]*?) -->\n)(.*?)(<!-- end generated -->)", re.S)
# Rungs whose source is not backends/cpu/NN_<rung>.cpp or backends/cuda/NN_<rung>.cu.
SOURCES = {"python": "backends/cpu/00_boxed/matmul.py", "boxed": "backends/cpu/00_boxed/boxed_rung.cpp",
           "openblas": "backends/openblas/openblas_gemm.cpp", "numpy": "backends/python/library_matmul.py"}
LANGUAGES = {".py": "python", ".cpp": "cpp", ".cu": "cuda", ".hpp": "cpp", ".inc": "cpp"}


class GuideError(Exception):
    """A block the guide cannot fill: an unknown kind, machine or rung (said in one line)."""


def rung_source(rung):
    """The file a rung is written in, relative to the repository; None where none is found."""
    if rung in SOURCES:
        return SOURCES[rung]
    family = rung.split("-")[0]
    patterns = [f"backends/cpu/[0-9][0-9]_{rung}.cpp", f"backends/cuda/[0-9][0-9]_{rung.replace('-', '_')}.cu"]
    if family == "onednn":
        patterns.append("backends/onednn/onednn_gemm.cpp")
    elif family in ("torch", "jax", "cupy"):
        patterns.append(SOURCES["numpy"])
    elif family == "cublas":
        patterns.append("backends/cuda/14_cublas.cpp")
    elif rung.startswith("cuda-mma"):
        patterns.append("backends/cuda/15_cuda_mma.cu")
    for pattern in patterns:
        found = sorted(ROOT.glob(pattern))
        if found:
            return str(found[0].relative_to(ROOT))
    return None


def opening(text):
    """The comment a source file opens with, as prose."""
    lines = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped.startswith(("//", "#")) or stripped.startswith("#include"):
            break
        lines.append(stripped.lstrip("/#").strip())
    return " ".join(lines)


def excerpt(text):
    """The lines between the file's `teach: begin` and `teach: end` markers, dedented."""
    found = re.search(r"^[^\n]*teach: begin[^\n]*\n(.*?)^[^\n]*teach: end", text, re.S | re.M)
    if not found:
        return ""
    lines = found.group(1).rstrip("\n").splitlines()
    # A pragma stands at the left margin whatever the code's depth: it sets no indent.
    indent = min((len(line) - len(line.lstrip()) for line in lines if line.strip() and not line.startswith("#pragma")),
                 default=0)
    return "\n".join(line if line.startswith("#pragma") else line[indent:] for line in lines)


def evidence(machine, row):
    """The rung's row of the run, as a sentence of figures (each from the run's own counters)."""
    if not row["rate"]:
        return f"On `{machine.id}` it did not run or failed."
    seconds, n = row["seconds_at_size"], row["n"]
    ran = (f"measured at n = {n}, its time at {COMMON_SIZE} extrapolated" if row["extrapolated"] else f"n = {n}")
    parts = [f"{ran}: {seconds:.4g} s a call, {row['rate'] / 1e9:.4g} GFLOP/s"]
    if row["measured"]:
        parts.append(f"{row['measured']:.3g}x over {row['parent']}" + (" (within noise)" if row.get("within_noise") else ""))
    if row["predicted"]:
        parts.append(f"predicted {row['predicted']:.3g}x ({row['predicted_from']})")
    if row["peak_fraction"]:
        parts.append(f"{100 * row['peak_fraction']:.3g}% of the peak of its unit ({row['unit']})")
    if row["regime"]:
        parts.append(f"{row['regime']}-bound" + (f": {row['traffic']}" if row.get("traffic") and row["regime"] == "memory"
                                                  else ""))
    text = "; ".join(parts) + "."
    if row["why"]:
        text += f" Why it differs from the prediction: {row['why']}."
    return f"On `{machine.id}` ({run_files(machine)}): {text}"


def run_files(machine):
    return " + ".join(f"`{pathlib.Path(p).name}`" for p in str(machine.source).split(" + "))


def chain(machine, cards=""):
    rows = [r for r in ladder_rows(machine) if r["rate"]]
    lines = [f"From {run_files(machine)}, `{machine.id}`: every rung at n = {COMMON_SIZE} (a slow rung's time "
             "extrapolated from the size it ran at, marked *), its speedup over the rung it refines, and the "
             "share of its own unit's measured peak.", "",
             "| rung | refines | unit | time at n = 4096 | GFLOP/s | speedup | % of unit peak | regime |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        time = f"{r['seconds_at_size']:.4g} s" + (" *" if r["extrapolated"] else "")
        speedup = f"{r['measured']:.3g}x" if r["measured"] else ""
        share = f"{100 * r['peak_fraction']:.3g}%" if r["peak_fraction"] else ""
        lines.append(f"| [`{r['rung']}`]({cards}#{r['rung']}) | {r['parent'] or ''} | {r['unit']} | {time} | "
                     f"{r['rate'] / 1e9:.4g} | {speedup} | {share} | {r['regime'] or ''} |")
    return "\n".join(lines)


def rung_card(machine, rung):
    source = rung_source(rung)
    if not source:
        raise GuideError(f"no source file found for rung {rung}")
    text = (ROOT / source).read_text(encoding="utf-8")
    parts = [f"**What changed, and why it should be faster** (the opening of [`{source}`](../{source})): "
             f"{opening(text)}"]
    code = excerpt(text)
    if code:
        parts += ["", f"```{LANGUAGES.get(pathlib.Path(source).suffix, '')}", code, "```"]
    row = next((r for r in ladder_rows(machine) if r["rung"] == rung), None)
    parts += ["", f"**Evidence.** {evidence(machine, row)}" if row else f"**Evidence.** `{machine.id}`'s run has no {rung}."]
    return "\n".join(parts)


def sweep_summary(machine):
    sweep = machine.sweep
    points = sweep_points(sweep) if sweep else {}
    if not points:
        raise GuideError(f"docs/ladder.md: a 'sweep' block names {machine.id}, whose published runs have no sweep")
    lines = [f"From {run_files(sweep)} (`{sweep.id}`, profile sweep):", ""]
    for rung, rows in points.items():
        rates = [p["rate"] / 1e9 for p in rows]
        shares = [p["share"] for p in rows if p["share"]]
        text = (f"- `{rung}`: {min(rates):.3g} to {max(rates):.3g} GFLOP/s over n = {rows[0]['n']} … {rows[-1]['n']}"
                + (f", {100 * min(shares):.0f}–{100 * max(shares):.0f}% of its model" if shares else ""))
        # The flagged points grouped by the mechanism named (its first clause; the report has the rest).
        by_reason = {}
        for p in rows:
            if p["flag"]:
                by_reason.setdefault(p["why"].split(":")[0], []).append(str(p["n"]))
        if by_reason:
            text += "; more than 2x off it: " + "; ".join(f"{reason} at n = {', '.join(ns)}" for reason, ns in by_reason.items())
        lines.append(text)
    return "\n".join(lines)


def memory(machine):
    ctx = machine.context

    def tb(key):
        value = float(ctx.get(key, 0) or 0)
        return f"{value / 1e12:.2f} TB/s" if value else "not measured"

    if not ctx.get("gpu_bandwidth_copy_bytes_per_second"):
        raise GuideError(f"docs/ladder.md: a 'memory' block names {machine.id}, whose run measured no GPU memory")
    return (f"On {ctx.get('gpu_name', 'the GPU')} ({run_files(machine)}): device memory's copy "
            f"{tb('gpu_bandwidth_copy_bytes_per_second')}, read {tb('gpu_bandwidth_read_bytes_per_second')}, write "
            f"{tb('gpu_bandwidth_write_bytes_per_second')}, so its roof is {tb('gpu_bandwidth_memory_roof_bytes_per_second')}; "
            f"L2's read {tb('gpu_bandwidth_l2_read_bytes_per_second')}.")


def fill(template, machines, cards=""):
    """The page with every generated block remade (its chain linking each rung to its card in
    `cards`, this page where empty); GuideError on a block it cannot fill."""
    by_id = {m.id: m for m in machines}

    def remade(found):
        kind, args = found.group(2), found.group(3).split()
        machine = by_id.get(args[-1]) if args else None
        if machine is None:
            raise GuideError(f"docs/ladder.md: a '{kind}' block names machine {args[-1] if args else '(none)'}, "
                             "which no published run is from")
        if kind == "chain":
            body = chain(machine, cards)
        elif kind == "sweep":
            body = sweep_summary(machine)
        elif kind == "memory":
            body = memory(machine)
        elif kind == "rung" and len(args) == 2:
            body = rung_card(machine, args[0])
        else:
            raise GuideError(f"docs/ladder.md: unknown generated block '{kind} {' '.join(args)}'")
        return f"{found.group(1)}{body}\n{found.group(5)}"

    return BLOCK.sub(remade, template)


def write_guide(machines, template_path, out_path, cards=""):
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(fill(template_path.read_text(encoding="utf-8"), machines, cards), encoding="utf-8")
    return out_path
