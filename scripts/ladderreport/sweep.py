"""Rate against n: a sweep-profile run's CPU rungs measured over n across the cache levels, each
point set against the rate its rung's model allows on that machine (the program's
rung_model_rate/<rung>: its unit's peak, its traffic at the measured bandwidth of the level holding
each working set, its fixed cost). A point further than SWEEP_FLAG_FACTOR below its model is
flagged, with the mechanism the sweep itself shows where it shows one (a cliff at a power of two,
a dip where C's edge blocks leave its register block, a call's packing, the split of a small n
over the cores), else "unexplained"."""
import html
import pathlib

from .machines import rung_parents
from .runs import finite, noisy_cv
from .why import chain_reason, iteration_reason, model_curve, spill_reason
from .slides import SLIDE_INCHES

# A point further than this below the rate its model allows is flagged.
SWEEP_FLAG_FACTOR = 2.0
# A power-of-two n is a cliff where its rate is below both neighbours' (n / sqrt 2, n * sqrt 2) by this.
CLIFF_FACTOR = 1.5
# A dip at an n whose edge blocks hold at least this share of the multiply-adds may be theirs.
EDGE_SHARE = 0.05
# A point within this range of its split's bound (split_reason) is held by it.
SPLIT_NEAR = (0.75, 1.1)
# Above its model by more than this share, the model's bound is wrong there (a bound cannot be beaten).
ABOVE_MODEL = 1.10


def sweep_rungs(sweep):
    """The rungs a sweep run measured at several sizes, in the order it ran them."""
    rungs = []
    for key in sweep.order:
        c = sweep.cases.get(key, {})
        if c.get("suite") == "gemm" and c.get("flops") and not c.get("error") and c["rung"] not in rungs:
            rungs.append(c["rung"])
    return [r for r in rungs if len(sweep.gemm_ran(r)) >= 3]


def cliff(ran, n):
    """The neighbours a power-of-two n falls below by CLIFF_FACTOR: ((n1, rate1), (n2, rate2)), or None."""
    if n & (n - 1):
        return None
    below = [m for m in ran if n / 1.5 < m < n]
    above = [m for m in ran if n < m < n * 1.5]
    if not below or not above:
        return None
    lo, hi = max(below), min(above)
    rate, r_lo, r_hi = ran[n]["flops"], ran[lo]["flops"], ran[hi]["flops"]
    return ((lo, r_lo), (hi, r_hi)) if rate * CLIFF_FACTOR <= min(r_lo, r_hi) else None


def register_block(machine, rung):
    """(rows, cols): the block of C the rung's fast path keeps in registers, whose edge blocks take a
    general path (rung_register_block/<rung>, "6x32"); None where the run declares none."""
    rows, _, cols = str(machine.context.get(f"rung_register_block/{rung}", "")).partition("x")
    return (int(rows), int(cols)) if rows.isdigit() and cols.isdigit() and int(rows) and int(cols) else None


def edge_share(n, block):
    """The share of an n x n C (and so of the multiply-adds) outside whole register blocks."""
    rows, cols = block
    return 1 - (n // rows * rows) * (n // cols * cols) / (n * n)


def edge_blocks(machine, rung, ran, n):
    """A dip where C's edge blocks take the general path: at least EDGE_SHARE of n's multiply-adds
    outside whole register blocks, and both measured neighbours, each with fewer at the edges, at
    least CLIFF_FACTOR faster; else ""."""
    block = register_block(machine, rung)
    below, above = [m for m in ran if m < n], [m for m in ran if m > n]
    if not block or not below or not above or edge_share(n, block) < EDGE_SHARE:
        return ""
    rate, share, (rows, cols) = ran[n]["flops"], edge_share(n, block), block
    neighbours = (max(below), min(above))
    if any(edge_share(m, block) >= share or ran[m]["flops"] < CLIFF_FACTOR * rate for m in neighbours):
        return ""
    seen = " and ".join(f"{ran[m]['flops'] / 1e9:.3g} at n = {m} ({edge_share(m, block):.0%} there)" for m in neighbours)
    return (f"edge blocks: {share:.0%} of its multiply-adds fall outside whole {rows}x{cols} register blocks "
            f"(n = {n} is {n // cols} x {cols} + {n % cols} columns, {n // rows} x {rows} + {n % rows} rows), and "
            f"those take the general block path; {rate / 1e9:.3g} GFLOP/s against {seen}")


def packing_reason(case, model):
    """A call's packing (pack_seconds: its loops with only the packing of A and B, timed after the
    case) where, taken out of the call, it leaves the point within SWEEP_FLAG_FACTOR of its model;
    else ""."""
    pack, seconds, rate, n = case.get("pack_seconds"), case.get("seconds"), case["flops"], case["size"]
    if not pack or not seconds or not model or pack >= seconds:
        return ""
    without = rate * seconds / (seconds - pack)
    if without * SWEEP_FLAG_FACTOR < model:
        return ""
    return (f"packing: copying A and B into its panels takes {pack * 1e6:.3g} us of its {seconds * 1e6:.3g} us call "
            f"({pack / seconds:.0%}; its loops with only the packing, timed after the case), and at n = {n} each "
            f"packed element serves n / 2 = {n / 2:g} multiply-adds; without it {without / 1e9:.3g} GFLOP/s, within "
            f"{SWEEP_FLAG_FACTOR:g}x of its model")


def split_reason(machine, rung, case, model):
    """An all-core rung held by how its rows split at a small n: its parent's time at the same n (in
    this sweep), its largest thread's share of the rows in whole register-block strips, plus one
    fork and join (the overhead probe). Named where that bound is itself more than
    SWEEP_FLAG_FACTOR below the model and the point reaches SPLIT_NEAR of it; else ""."""
    parent, block = next(iter(rung_parents(machine, rung) or []), None), register_block(machine, rung)
    fork = finite(machine.context.get("overhead_omp_fork_join_seconds")) or 0
    threads, n = int(case.get("threads") or 1), case["size"]
    mine = machine.gemm_ran(parent).get(n) if parent else None
    if not block or not fork or threads < 2 or not model or not mine or not mine.get("seconds") or not case.get("seconds"):
        return ""
    strips = -(-n // block[0])
    largest = -(-strips // threads)
    bound = mine["seconds"] * largest / strips + fork
    best = case["flops"] * case["seconds"] / bound
    if best * SWEEP_FLAG_FACTOR > model or not SPLIT_NEAR[0] <= case["flops"] / best <= SPLIT_NEAR[1]:
        return ""
    return (f"its split: {parent} took {mine['seconds'] * 1e6:.3g} us at n = {n}; its {strips} strips of {block[0]} rows "
            f"over {threads} threads leave the busiest {largest}, plus one fork and join "
            f"({fork * 1e6:.2g} us, overhead probe): at best {best / 1e9:.3g} GFLOP/s, of which it reaches "
            f"{case['flops'] / best:.0%}")


def sweep_points(sweep):
    """{rung: [point]} with each point's n, measured and model rate, share, regime, flag and why."""
    points = {}
    for rung in sweep_rungs(sweep):
        ran, curve = sweep.gemm_ran(rung), model_curve(sweep, rung)
        rows = []
        for n in sorted(ran):
            c = ran[n]
            rate = c["flops"]
            # The case's own bound (roof_fraction: bound / time) is the model at exactly this case;
            # the curve where the case has none.
            model = rate / c["roof_fraction"] if c.get("roof_fraction") else curve.get(n)
            share = rate / model if model else None
            point = {"n": n, "rate": rate, "model": model, "share": share, "regime": c.get("regime"), "why": "",
                     "cv": c.get("cv"), "noisy": bool(c.get("noisy"))}
            point["flag"] = share is not None and (share * SWEEP_FLAG_FACTOR < 1 or share > ABOVE_MODEL)
            if point["flag"]:
                found, chain = cliff(ran, n), chain_reason(sweep, rung, rate)
                if share > ABOVE_MODEL:
                    point["why"] = (f"{share:.2g}x the rate its model allows: the model's bound is wrong here "
                                    "(a bandwidth or peak measured low, or a term it lacks)")
                elif found:
                    (n1, r1), (n2, r2) = found
                    point["why"] = (f"a cliff at a power of two: {rate / 1e9:.3g} GFLOP/s against {r1 / 1e9:.3g} at "
                                    f"n = {n1} and {r2 / 1e9:.3g} at n = {n2} (rows {4 * n} bytes apart map the "
                                    "walk down a column to the same few cache sets: conflict misses)")
                elif edges := edge_blocks(sweep, rung, ran, n):
                    point["why"] = edges
                elif packing := packing_reason(c, model):
                    point["why"] = packing
                elif split := split_reason(sweep, rung, c, model):
                    point["why"] = split
                elif chain:
                    point["why"] = chain
                elif spills := spill_reason(sweep, rung):
                    point["why"] = spills
                elif passes := iteration_reason(sweep, rung, rate, c.get("threads", 1)):
                    point["why"] = passes
                else:
                    point["why"] = "unexplained"
            rows.append(point)
        points[rung] = rows
    return points


def _cell(p):
    share = f" ({p['share']:.0%})" if p["share"] is not None else ""
    return f"{p['rate'] / 1e9:.3g}{share}" + (" ~" if p["noisy"] else "") + (" ⚠" if p["flag"] else "")


def _spread(p):
    """A noisy point's spread, said beside its reason: the median of scattered repetitions."""
    return f" (its repetitions spread {p['cv']:.0%}, CV: a noisy point)" if p["noisy"] and p["cv"] is not None else ""


def _intro(sweep):
    name = pathlib.Path(str(sweep.source)).name
    return (f"The CPU rungs with a traffic model, measured at each n by the sweep profile ({name}), each cell "
            "its GFLOP/s and, in brackets, its share of the rate the rung's model allows on this machine (its "
            "unit's measured peak, its loops' traffic at the measured bandwidth of the level holding the "
            f"working set, its fixed cost). ⚠: more than {SWEEP_FLAG_FACTOR:g}x below the model (or above it), "
            f"with the reason the sweep shows, else \"unexplained\". ~: its repetitions spread more than the "
            f"run's noise threshold ({noisy_cv(sweep.context):.0%} CV). plots/rate-vs-n-{sweep.id}.png draws "
            "the model's curve beside the points.")


def sweep_markdown(machine):
    sweep = machine.sweep
    points = sweep_points(sweep) if sweep else {}
    if not points:
        return []
    sizes = sorted({p["n"] for rows in points.values() for p in rows})
    lines = ["", "## Rate against n, measured and modelled", "", _intro(sweep), "",
             "| rung | " + " | ".join(f"n = {n}" for n in sizes) + " |", "|---|" + "---|" * len(sizes)]
    for rung, rows in points.items():
        by_n = {p["n"]: p for p in rows}
        lines.append(f"| {rung} | " + " | ".join(_cell(by_n[n]) if n in by_n else "—" for n in sizes) + " |")
    flagged = [(rung, p) for rung, rows in points.items() for p in rows if p["flag"]]
    if flagged:
        lines += ["", "Flagged:", ""]
        for rung, p in flagged:
            model = f"{p['model'] / 1e9:.3g}" if p["model"] else "?"
            lines.append(f"- {rung} at n = {p['n']}: {p['rate'] / 1e9:.3g} GFLOP/s, {p['share']:.0%} of its model's "
                         f"{model} ({p['regime'] or '?'}-bound): {p['why']}{_spread(p)}")
    return lines


def sweep_html(machine):
    sweep = machine.sweep
    points = sweep_points(sweep) if sweep else {}
    if not points:
        return []
    e = html.escape
    sizes = sorted({p["n"] for rows in points.values() for p in rows})
    parts = ["<h2>Rate against n, measured and modelled</h2>", f"<p>{e(_intro(sweep))}</p>",
             "<table><tr><th>rung</th>" + "".join(f"<th>n = {n}</th>" for n in sizes) + "</tr>"]
    for rung, rows in points.items():
        by_n = {p["n"]: p for p in rows}
        parts.append(f"<tr><td>{e(rung)}</td>" + "".join(
            f"<td class='num'>{e(_cell(by_n[n])) if n in by_n else '—'}</td>" for n in sizes) + "</tr>")
    parts.append("</table>")
    flagged = [(rung, p) for rung, rows in points.items() for p in rows if p["flag"]]
    if flagged:
        parts.append("<ul>" + "".join(f"<li>{e(rung)} at n = {p['n']}: {e(p['why'] + _spread(p))}</li>"
                                      for rung, p in flagged) + "</ul>")
    return parts


def cache_sizes(machine):
    """[(level, bytes)] of the data caches one core sees, smallest first."""
    sizes = []
    for level in ("l1", "l2", "l3"):
        for key, value in machine.context.items():
            if key.startswith(f"cache_{level}_") and not key.endswith("_instruction"):
                try:
                    sizes.append((level.upper(), int(str(value).split(" ", 1)[0])))
                except ValueError:
                    continue
                break
    return sizes


def sweep_figure(machine, plt):
    """Each rung's measured rate against n (points) and its model's (dashed), the n at which one f32
    matrix fills each cache level marked, flagged points ringed."""
    sweep = machine.sweep
    points = sweep_points(sweep) if sweep else {}
    if not points:
        return None
    fig, ax = plt.subplots(figsize=SLIDE_INCHES)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, (rung, rows) in enumerate(points.items()):
        colour = colours[i % len(colours)]
        ax.plot([p["n"] for p in rows], [p["rate"] / 1e9 for p in rows], "o-", color=colour, markersize=4,
                linewidth=1, label=f"{rung} measured")
        curve = sorted(model_curve(sweep, rung).items())
        if curve:
            ax.plot([n for n, _ in curve], [r / 1e9 for _, r in curve], "--", color=colour, linewidth=1,
                    label=f"{rung} model")
        flagged = [p for p in rows if p["flag"]]
        ax.plot([p["n"] for p in flagged], [p["rate"] / 1e9 for p in flagged], "o", markersize=10,
                markerfacecolor="none", markeredgecolor="red", linewidth=0)
    for level, size in cache_sizes(sweep):
        n = (size / 4) ** 0.5
        ax.axvline(n, color="grey", linestyle=":", linewidth=0.8)
        ax.text(n, ax.get_ylim()[1], f" one matrix\n = {level}\n ({size // 1024:,} KiB)", va="top", color="dimgrey")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("n (log)")
    ax.set_ylabel("GFLOP/s (log)")
    ax.set_title(f"Rate against n on {machine.id}: measured (points) and the traffic model's bound (dashed)\n"
                 f"ringed in red: more than {SWEEP_FLAG_FACTOR:g}x off the model")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    fig.tight_layout()
    return fig
