#!/usr/bin/env python3
"""ladderbench's report tools: turn results/ into tables, plots, explanations and the ladder report.

  report.py tables  [PATHS...]        Markdown, CSV and one self-contained HTML page
  report.py plot    [PATHS...]        PNG and SVG figures
  report.py explain A B [--m M ...]   how much of a speed gap between two machines the hardware explains
  report.py ladder  [PATH]            results/<machine-id>/ladder.{md,csv,html} and plots/ladder-<id>.png: every
                                      rung at n = 4096 (time, GFLOP/s, speedups, % of its unit's peak, why)
  report.py publish                   every artefact above from one chosen run per machine (results/<m>/PUBLISHED
                                      may pin it), each saying which run it came from
  report.py compare A B               two runs: ratio of medians, 95% interval, verdict per case (exit 1: slower)
  report.py history MACHINE           chosen cases against commit and date, from every run of the machine
  report.py db [PATHS...]             every result into one SQLite file (report.py db --schema)
  report.py bundle RUNS... --out F    runs and their machine records as one .tar.gz
  report.py gather SOURCES...         folders of runs and bundles into results/<machine-id>/ (a machine id
                                      already there with other hardware: refused, exit 1)
  report.py references --machine M --system S:P --out F   ReFrame references from a machine's runs
  report.py site OUT                  a static site: machines, each one's ladder and ceilings, every pair compared

PATHS are result files (Google Benchmark JSON written by ladderbench), machine folders under
results/, or spec sheets under results/specs/; the default is all of results/. Files that cannot be
read, or that are not ladderbench results, are named on stderr and skipped.
"""
import argparse
import pathlib
import sys

# One definition each of a usable number, a safe folder name, and how a file is read.
from ladderreport.runs import safe_slug, warn
from ladderreport.explain import explain, explain_model, model_ops
from ladderreport.fleet import bundle, gather, report_gather, write_references
from ladderreport.guide import GuideError, write_guide
from ladderreport.ladder import ladder_csv, ladder_html, ladder_markdown, ladder_rows  # noqa: F401 (ladder_rows: tests)
from ladderreport.machines import RESULTS, ROOT, Machine, gpu_view, load_machines, load_spec, regime_codes, regime_of  # noqa: F401
from ladderreport.plots import ladder_figure, make_figures, render
from ladderreport.predict import GPU_RUNG, INPUT_BYTES  # noqa: F401 (GPU_RUNG: for the tests)
from ladderreport.tables import build_tables, write_csv, write_html, write_markdown

# --- commands -------------------------------------------------------------------------------------


def write_tables(measured, specs, out, plots=None):
    """tables.md, tables.csv and index.html into `out`, and every cross-machine figure into `plots`
    (None: none, the page without them)."""
    out.mkdir(parents=True, exist_ok=True)
    tables = build_tables(measured, specs)
    write_markdown(tables, out / "tables.md", measured)
    write_csv(tables, out / "tables.csv")
    figures = render(make_figures(measured, specs), plots) if plots else []
    write_html(tables, measured, figures, out / "index.html")


def cmd_tables(args):
    measured, specs = load_machines(args.paths)
    if not measured and not specs:
        warn("nothing to tabulate")
        return 1
    out = pathlib.Path(args.out)
    write_tables(measured, specs, out, None if args.no_plots else pathlib.Path(args.plots))
    print(f"report: wrote {out / 'tables.md'}, {out / 'tables.csv'}, {out / 'index.html'} "
          f"({len(measured)} measured machine(s), {len(specs)} spec sheet(s))")
    return 0


def cmd_plot(args):
    measured, specs = load_machines(args.paths)
    if not measured and not specs:
        warn("nothing to plot")
        return 1
    figures = make_figures(measured, specs)
    render(figures, pathlib.Path(args.out))
    print(f"report: wrote {len(figures)} figure(s) as PNG and SVG into {args.out}")
    return 0


def cmd_explain(args):
    measured, specs = load_machines(args.paths)
    machines = {m.id: m for m in measured + specs}
    # A measured machine's GPU by its own name, "<machine id>/gpu", with the device's ceilings.
    machines.update({g.id: g for g in map(gpu_view, measured) if g})
    # A spec sheet of a measured machine is usable by name too.
    for path in (RESULTS / "specs").glob("*.json"):
        spec = load_spec(path)
        if spec and spec.id not in machines:
            machines[spec.id] = spec
    for ident in (args.a, args.b):
        if ident not in machines:
            warn(f"unknown machine '{ident}' (known: {', '.join(sorted(machines))})")
            return 2
    if args.model:
        ops, footprint, description = model_ops(measured, args.model)
        if not ops:
            warn(f"no result file holds the model at configuration '{args.model}' (run ladderbench --suite model)")
            return 2
        print(explain_model(machines[args.a], machines[args.b], ops, footprint, description, args.gap))
        return 0
    print(explain(machines[args.a], machines[args.b], args.m, args.n or args.m, args.k or args.m, args.dtype, args.gap))
    return 0


def write_ladder(m, out, plots, figure=True):
    """results/<machine-id>/ladder.{md,csv,html} (or `out` and its siblings) and the ladder figure."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(ladder_markdown(m), encoding="utf-8")
    out.with_suffix(".csv").write_text(ladder_csv(m), encoding="utf-8")
    png = None
    if figure:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        drawn = ladder_figure(m, plt)
        if drawn:
            png = render([(f"The ladder on {m.id}", f"ladder-{safe_slug(m.id)}", drawn)], plots)[0][1]
    out.with_suffix(".html").write_text(ladder_html(m, png), encoding="utf-8")
    written = [out, out.with_suffix(".csv"), out.with_suffix(".html")]
    if png:
        written.append(plots / f"ladder-{safe_slug(m.id)}.png")
    return written


def cmd_ladder(args):
    measured, _ = load_machines([args.path] if args.path else None)
    if not measured:
        warn("no ladderbench result file found")
        return 1
    # The figure: where asked; beside the report where it goes elsewhere; else plots/ beside results/.
    plots = pathlib.Path(args.plots) if args.plots else pathlib.Path(args.out).parent if args.out else RESULTS.parent / "plots"
    for m in measured:
        # m.id is a safe slug (load_result_file): the report stays inside results/.
        out = pathlib.Path(args.out) if args.out else RESULTS / safe_slug(m.id) / "ladder.md"
        if args.out and len(measured) > 1:  # one file a machine: --out's name with the machine's id
            out = out.with_name(f"{out.stem}-{safe_slug(m.id)}{out.suffix}")
        written = write_ladder(m, out, plots, not args.no_plots)
        print(f"report: wrote {', '.join(str(w) for w in written)}")
    return 0


def published_paths(results):
    """The runs the published artefacts come from: per machine folder, the files its PUBLISHED
    pointer names (one a line, relative to the folder), else the folder (its newest run of each
    profile); and the spec sheets."""
    paths = []
    for folder in sorted(p for p in results.iterdir() if p.is_dir() and p.name not in ("tables", "specs")):
        pointer = folder / "PUBLISHED"
        if pointer.is_file():
            names = [line.strip() for line in pointer.read_text(encoding="utf-8").splitlines()
                     if line.strip() and not line.startswith("#")]
            missing = [n for n in names if not (folder / n).is_file()]
            if missing:
                raise SystemExit(f"report: {pointer} names {', '.join(missing)}, not in {folder}")
            paths += [folder / n for n in names]
        else:
            paths.append(folder)
    if (results / "specs").is_dir():
        paths.append(results / "specs")
    return paths


def cmd_publish(args):
    """Every committed artefact, from one chosen run per machine: the cross-machine tables and figures
    and each machine's ladder report, all from the same runs."""
    out = pathlib.Path(args.out)
    measured, specs = load_machines(published_paths(pathlib.Path(args.results)))
    if not measured:
        warn("no ladderbench result file found")
        return 1
    plots = out / "plots"
    write_tables(measured, specs, out / "results" / "tables", plots)
    for m in measured:
        write_ladder(m, out / "results" / safe_slug(m.id) / "ladder.md", plots)
    # The teaching guide quotes the repository's own committed runs: remade from those alone.
    if pathlib.Path(args.results).resolve() == RESULTS.resolve():
        try:
            write_guide(measured, ROOT / "docs" / "ladder.md", out / "docs" / "ladder.md")
            write_guide(measured, ROOT / "README.md", out / "README.md", cards="docs/ladder.md")
        except GuideError as e:
            warn(str(e))
            return 1
    runs = sorted(pathlib.Path(p).name for m in measured for p in str(m.source).split(" + "))
    print(f"report: published {len(measured)} machine(s) into {out}: results/tables/, results/<machine-id>/ladder.*, "
          f"the generated parts of docs/ladder.md and README.md, plots/ (from: {', '.join(runs)})")
    return 0


def cmd_bundle(args):
    try:
        count = bundle(args.runs, args.out)
    except ValueError as e:
        warn(str(e))
        return 2
    print(f"report: bundled {count} run(s) into {args.out}")
    return 0


def cmd_gather(args):
    return report_gather(*gather(args.sources, args.into))


def cmd_site(args):
    from ladderreport.site import build_site
    measured, _ = load_machines(published_paths(pathlib.Path(args.results)))
    if not measured:
        warn(f"no ladderbench result under {args.results}")
        return 1
    written = build_site(measured, args.results, args.out, write_ladder)
    print(f"report: the site's {len(written)} files in {args.out}; open {pathlib.Path(args.out) / 'index.html'}")
    return 0


def cmd_references(args):
    try:
        runs, cases = write_references(args.results, args.machine, args.system, args.out, args.floor)
    except ValueError as e:
        warn(str(e))
        return 2
    print(f"report: {cases} references for {args.system} from {runs} run(s) of {args.machine} into {args.out}")
    return 0


def number_in(parse, low, high, what):
    """An argparse type: `parse` of the text, with low < value <= high (NaN never is), else one line."""
    def check(text):
        try:
            value = parse(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
        if not (low < value <= high):
            raise argparse.ArgumentTypeError(f"{text} is not {what}")
        return value
    return check


positive_int = number_in(int, 0, 10**7, "a size from 1 to 10000000")
positive_number = number_in(float, 0, 1e300, "a finite number above 0")
positive_fraction = number_in(float, 0, 1 - 1e-12, "between 0 and 1")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="report.py", description=__doc__.split("\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n", 2)[2])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("tables", help="Markdown, CSV and HTML tables: rungs as rows, machines as columns")
    p.add_argument("paths", nargs="*", help="result files, machine folders or spec sheets (default: results/)")
    p.add_argument("--out", default=str(RESULTS / "tables"), help="folder for tables.md, tables.csv, index.html")
    p.add_argument("--plots", default=str(ROOT / "plots"), help="folder for the figures the HTML embeds")
    p.add_argument("--no-plots", action="store_true", help="tables only, no figures")
    p.set_defaults(func=cmd_tables)

    p = sub.add_parser("plot", help="PNG and SVG: the ladder, each machine's roofline, across machines")
    p.add_argument("paths", nargs="*", help="result files, machine folders or spec sheets (default: results/)")
    p.add_argument("--out", default=str(ROOT / "plots"), help="folder for the figures")
    p.set_defaults(func=cmd_plot)

    p = sub.add_parser("explain", help="how much of a speed gap between machines A and B the hardware explains")
    p.add_argument("a", help="machine id (a results folder or a spec sheet), e.g. nvidia-t4")
    p.add_argument("b", help="machine id, e.g. nvidia-a100-40gb")
    p.add_argument("--m", type=positive_int, default=4096, help="GEMM rows (default 4096)")
    p.add_argument("--n", type=positive_int, help="GEMM columns (default: m)")
    p.add_argument("--k", type=positive_int, help="GEMM depth (default: m)")
    p.add_argument("--dtype", default="f32", choices=sorted(INPUT_BYTES), help="number format (default f32)")
    p.add_argument("--gap", type=positive_number, help="the speed gap measured in practice, e.g. 170")
    p.add_argument("--model", metavar="CONFIG", help="the model at a configuration a result file ran (tiny, small, "
                   "medium, large, custom) instead of a GEMM")
    p.add_argument("paths", nargs="*", default=[], help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_explain)

    p = sub.add_parser("ladder", help="results/<machine-id>/ladder.md: predicted against measured factor per rung")
    p.add_argument("path", nargs="?", help="a result file or machine folder (default: every machine in results/)")
    p.add_argument("--out", help="write here instead of results/<machine-id>/ladder.md (the .csv and .html beside it)")
    p.add_argument("--plots", help="folder for the figure ladder-<machine-id>.png/.svg (default: plots/, or the "
                   "folder of --out)")
    p.add_argument("--no-plots", action="store_true", help="tables only, no figure")
    p.set_defaults(func=cmd_ladder)

    p = sub.add_parser("publish", help="every committed artefact (tables, figures, each machine's ladder report) "
                       "from one chosen run per machine")
    p.add_argument("--results", default=str(RESULTS), help="the results folder to publish from (default: results/); "
                   "a machine folder's PUBLISHED file may pin its runs, one file name a line")
    p.add_argument("--out", default=str(ROOT), help="the folder to write results/... and plots/ into (default: the "
                   "project's own, replacing the committed artefacts)")
    p.set_defaults(func=cmd_publish)

    p = sub.add_parser("compare", help="two runs side by side: ratio of medians, interval and verdict per case")
    p.add_argument("a", help="the baseline: a result file, or a folder (its newest run)")
    p.add_argument("b", help="the run compared with it")
    p.add_argument("--threshold", type=positive_fraction, default=0.05,
                   help="smallest change that counts, as a fraction (default 0.05: 5%%)")
    p.add_argument("--alpha", type=positive_fraction, default=0.05, help="the rank test's level (default 0.05)")
    p.add_argument("--out", help="also write compare.md, compare.csv and compare.html into this folder")
    p.set_defaults(func=lambda a: __import__("ladderreport.compare", fromlist=["cmd_compare"]).cmd_compare(a))

    p = sub.add_parser("history", help="chosen cases of one machine against commit and date, with their spread")
    p.add_argument("machine", help="a machine id (a folder under results/) or a folder")
    p.add_argument("--case", action="append", help="a regular expression of case names (repeatable; default: "
                   "the GEMM ladder's cases at n = 1024)")
    p.add_argument("--out", default=str(ROOT / "plots"), help="folder for history-<machine>.png/.svg and .md")
    p.set_defaults(func=lambda a: __import__("ladderreport.history", fromlist=["cmd_history"]).cmd_history(a),
                   results_root=RESULTS)

    p = sub.add_parser("db", help="every result into one SQLite file (schema: report.py db --schema)")
    p.add_argument("paths", nargs="*", help="result files or folders (default: results/)")
    p.add_argument("--out", default=str(RESULTS / "ladderbench.sqlite"), help="the database file (replaced)")
    p.add_argument("--schema", action="store_true", help="print the schema and exit")
    p.set_defaults(func=lambda a: __import__("ladderreport.db", fromlist=["cmd_db"]).cmd_db(a), results_root=RESULTS)

    p = sub.add_parser("bundle", help="runs and their machine records as one .tar.gz, for report.py gather elsewhere")
    p.add_argument("runs", nargs="+", help="result files")
    p.add_argument("--out", required=True, help="the bundle to write (.tar.gz)")
    p.set_defaults(func=cmd_bundle)

    p = sub.add_parser("gather", help="folders of runs (a cluster's shared results) and bundles into results/<machine-id>/; "
                                      "a machine id already there with other hardware is refused (exit 1)")
    p.add_argument("sources", nargs="+", help="folders holding <machine-id>/*.json or *.json, bundles, result files")
    p.add_argument("--into", default=str(RESULTS), help="the results tree to merge into (default: results/)")
    p.set_defaults(func=cmd_gather)

    p = sub.add_parser("site", help="a static site of the results: index of machines, each machine's ladder and ceilings, "
                                    "every pair compared")
    p.add_argument("out", help="the folder to write the site into")
    p.add_argument("--results", default=str(RESULTS), help="the results tree (default: results/)")
    p.set_defaults(func=cmd_site)

    p = sub.add_parser("references", help="ReFrame references for one system:partition from one machine's runs "
                                          "(fleet/reframe/ladderbench_check.py reads them)")
    p.add_argument("--machine", required=True, help="the machine id whose runs (results/<id>/*.json) set them")
    p.add_argument("--system", required=True, help="the ReFrame system:partition they are for")
    p.add_argument("--results", default=str(RESULTS), help="the results tree (default: results/)")
    p.add_argument("--out", required=True, help="the references file (JSON; other systems' entries are kept)")
    p.add_argument("--floor", type=number_in(float, 0, 0.5, "--floor"), default=0.10,
                   help="the least tolerance below the reference, as a fraction (default 0.10; at most 0.5)")
    p.set_defaults(func=cmd_references)

    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except OSError as e:  # a read-only or missing output folder, a full disk
        warn(f"cannot write {e.filename or 'the output'}: {e.strerror or e}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
