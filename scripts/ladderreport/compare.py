"""Two runs side by side (two commits on one machine, or two machines): per case the ratio of
median times B/A, its 95% interval (a bootstrap of the repetitions, fixed seed), the Mann-Whitney
U test's p (SciPy), and a verdict against a threshold:

  slower   the whole interval lies above 1 + threshold, and the rank test agrees (p < alpha)
  faster   the whole interval lies below 1 / (1 + threshold), and the rank test agrees
  same     the whole interval lies between those two
  noisy    none of these: the repetitions spread too wide to say

The rank test can only reach p < 0.05 with at least four repetitions a side; with fewer, the
interval alone decides and the row says so. The exit status is 1 where any case is slower."""
import csv
import html
import io
import math

import numpy as np
from scipy import stats

from .runs import newest_run, warn

MIN_RANK_REPETITIONS = 4
BOOTSTRAP_SAMPLES = 4000


def ratio_interval(a, b, seed=0, level=0.95):
    """The ratio of medians b/a and its bootstrap interval."""
    rng = np.random.default_rng(seed)
    a, b = np.asarray(a, float), np.asarray(b, float)
    ra = np.median(a[rng.integers(0, len(a), (BOOTSTRAP_SAMPLES, len(a)))], axis=1)
    rb = np.median(b[rng.integers(0, len(b), (BOOTSTRAP_SAMPLES, len(b)))], axis=1)
    ratios = rb / ra
    tail = (1 - level) / 2 * 100
    return float(np.median(b) / np.median(a)), float(np.percentile(ratios, tail)), float(np.percentile(ratios, 100 - tail))


def verdict(a, b, threshold=0.05, alpha=0.05, seed=0):
    """{ratio, low, high, p, verdict, note} for two lists of seconds (B against A)."""
    ratio, low, high = ratio_interval(a, b, seed)
    ranked = len(a) >= MIN_RANK_REPETITIONS and len(b) >= MIN_RANK_REPETITIONS
    p = float(stats.mannwhitneyu(a, b, alternative="two-sided").pvalue) if len(a) > 1 and len(b) > 1 else None
    agrees = (p is not None and p < alpha) or not ranked
    if low > 1 + threshold and agrees:
        word = "slower"
    elif high < 1 / (1 + threshold) and agrees:
        word = "faster"
    elif low >= 1 / (1 + threshold) and high <= 1 + threshold:
        word = "same"
    else:
        word = "noisy"
    note = "" if ranked else f"{min(len(a), len(b))} repetition(s): interval only, no rank test"
    return {"ratio": ratio, "low": low, "high": high, "p": p, "verdict": word, "note": note}


def compare_runs(run_a, run_b, threshold=0.05, alpha=0.05):
    """Rows for every case both runs measured, in A's order; and the geometric mean per suite."""
    rows = []
    for name in sorted(run_a.order):
        a, b = run_a.seconds.get(name, []), run_b.seconds.get(name, [])
        if name not in run_b.seconds:
            continue
        if not a or not b:
            failed = run_a.errors.get(name) or run_b.errors.get(name) or "no time"
            rows.append({"case": name, "verdict": "failed", "note": failed, "a": None, "b": None})
            continue
        row = verdict(a, b, threshold, alpha)
        row.update(case=name, a=float(np.median(a)), b=float(np.median(b)), n_a=len(a), n_b=len(b))
        rows.append(row)
    suites = {}
    for row in rows:
        if row.get("ratio"):
            suites.setdefault(run_b.suite_of(row["case"]), []).append(math.log(row["ratio"]))
    geomeans = {suite: math.exp(sum(logs) / len(logs)) for suite, logs in suites.items()}
    return rows, geomeans


def seconds_text(s):
    if s is None:
        return "-"
    for unit, scale in (("s", 1), ("ms", 1e-3), ("us", 1e-6)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


def noise_state(run):
    """Whether the machine was quiet during a run, as its file says, with how far an interrupted
    run's verdict reaches; an older file (or an interrupted one from before interrupted runs were
    judged) says that instead of nothing."""
    verdict = run.context.get("noise_verdict")
    if verdict:
        reasons = run.context.get("noise_reasons")
        scope = run.context.get("noise_scope")
        return (f"{verdict}" + (f" ({reasons})" if verdict == "noisy" and reasons else "")
                + (f", {scope}" if scope else ""))
    if str(run.path).endswith(".interrupted.json"):
        return "not judged (an interrupted run: its noise was never assessed)"
    return "not recorded (an older file)"


def markdown(run_a, run_b, rows, geomeans, threshold):
    lines = [f"# {run_b.describe()} against {run_a.describe()}", "",
             f"Time per call, medians of the repetitions; B/A above 1 is slower. Verdicts at a threshold of "
             f"{100 * threshold:.0f}% with 95% bootstrap intervals and the Mann-Whitney U test.", "",
             f"Machine state: A {noise_state(run_a)}; B {noise_state(run_b)}.", "",
             "| case | A | B | B/A | 95% interval | p | reps | verdict |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["verdict"] == "failed":
            lines.append(f"| {r['case']} | | | | | | | failed: {r['note']} |")
            continue
        p = f"{r['p']:.3g}" if r["p"] is not None else "-"
        note = f" ({r['note']})" if r["note"] else ""
        lines.append(f"| {r['case']} | {seconds_text(r['a'])} | {seconds_text(r['b'])} | {r['ratio']:.3f} | "
                     f"{r['low']:.3f} – {r['high']:.3f} | {p} | {r['n_a']}/{r['n_b']} | {r['verdict']}{note} |")
    lines += ["", "| suite | geometric mean of B/A | cases |", "|---|---|---|"]
    for suite, g in geomeans.items():
        lines.append(f"| {suite} | {g:.3f} | {sum(1 for r in rows if r['case'].split('/')[0] == suite and r.get('ratio'))} |")
    counts = {w: sum(1 for r in rows if r["verdict"] == w) for w in ("slower", "faster", "same", "noisy", "failed")}
    lines += ["", "Verdicts: " + ", ".join(f"{n} {w}" for w, n in counts.items()), ""]
    return "\n".join(lines)


def csv_text(rows):
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(["case", "a_seconds", "b_seconds", "ratio", "low", "high", "p", "n_a", "n_b", "verdict", "note"])
    for r in rows:
        w.writerow([r["case"], r.get("a"), r.get("b"), r.get("ratio"), r.get("low"), r.get("high"), r.get("p"),
                    r.get("n_a"), r.get("n_b"), r["verdict"], r.get("note", "")])
    return out.getvalue()


def html_text(run_a, run_b, rows, geomeans):
    e = html.escape

    def number(value, digits=3):
        return "" if value is None else f"{value:.{digits}f}"

    def row(r):
        interval = f"{number(r.get('low'))} – {number(r.get('high'))}" if r.get("low") is not None else ""
        cells = [r["case"], seconds_text(r.get("a")), seconds_text(r.get("b")), number(r.get("ratio")), interval,
                 r["verdict"], r.get("note", "")]
        return f"<tr class='{e(r['verdict'])}'>" + "".join(f"<td>{e(c)}</td>" for c in cells) + "</tr>"

    suites = "".join(f"<tr><td>{e(s)}</td><td>{g:.3f}</td></tr>" for s, g in geomeans.items())
    return ("<!doctype html><meta charset='utf-8'><title>ladderbench: compare</title><style>"
            "body{font-family:sans-serif} td{padding:2px 8px} .slower{background:#fdd} .faster{background:#dfd} "
            ".noisy{background:#ffd}</style>"
            f"<h1>{e(run_b.describe())} against {e(run_a.describe())}</h1>"
            "<table><tr><th>case</th><th>A</th><th>B</th><th>B/A</th><th>95% interval</th><th>verdict</th><th>note</th></tr>"
            + "".join(row(r) for r in rows) + f"</table><h2>Geometric mean of B/A per suite</h2><table>{suites}</table>")


def cmd_compare(args):
    run_a, run_b = newest_run(args.a), newest_run(args.b)
    for path, run in ((args.a, run_a), (args.b, run_b)):
        if run is None:
            warn(f"no ladderbench result in {path}")
            return 2
    rows, geomeans = compare_runs(run_a, run_b, args.threshold, args.alpha)
    if not rows:
        warn(f"the two runs have no case in common ({run_a.describe()}; {run_b.describe()})")
        return 2
    text = markdown(run_a, run_b, rows, geomeans, args.threshold)
    print(text)
    if args.out:
        import pathlib
        out = pathlib.Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "compare.md").write_text(text, encoding="utf-8")
        (out / "compare.csv").write_text(csv_text(rows), encoding="utf-8")
        (out / "compare.html").write_text(html_text(run_a, run_b, rows, geomeans), encoding="utf-8")
        print(f"report: wrote {out / 'compare.md'}, {out / 'compare.csv'}, {out / 'compare.html'}")
    return 1 if any(r["verdict"] == "slower" for r in rows) else 0
