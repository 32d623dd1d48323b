"""Every result in one SQLite file, so that runs and machines can be queried with SQL (and browsed
with any SQLite viewer). One row per run, per context key, per case repetition (and Google
Benchmark's aggregates), per counter. The schema below is the documentation."""
import json
import os
import pathlib
import sqlite3
import tempfile

from .runs import TIME_UNITS, case_axes, case_axes_table, case_name, finite, read_result_doc, result_files, warn

SCHEMA = """
-- One result file: one run of ladderbench on one machine.
CREATE TABLE runs (
  run_id     INTEGER PRIMARY KEY,
  file       TEXT NOT NULL UNIQUE,  -- the path it was read from
  machine_id TEXT NOT NULL,         -- results/<machine_id>/
  date       TEXT,                  -- when it ran (Google Benchmark's date)
  git_sha    TEXT,                  -- the code that ran
  profile    TEXT,                  -- quick, full, smoke or custom sizes
  noise      TEXT                   -- noise_verdict: quiet or noisy (absent in older files)
);
-- Every context key of a run, as written (machine, build, ceilings: peak_f32_flops, ...).
CREATE TABLE context (
  run_id INTEGER NOT NULL REFERENCES runs(run_id),
  key    TEXT NOT NULL,
  value  TEXT,
  PRIMARY KEY (run_id, key)
);
-- One repetition of one case (run_type 'iteration'), or one of Google Benchmark's aggregates
-- over the repetitions (run_type 'aggregate': mean, median, stddev, cv).
CREATE TABLE cases (
  case_id          INTEGER PRIMARY KEY,
  run_id           INTEGER NOT NULL REFERENCES runs(run_id),
  name             TEXT NOT NULL,   -- gemm/avx512/f32/n:1024
  suite            TEXT, rung TEXT, dtype TEXT,
  size             INTEGER,         -- the number after the last ':' of the name
  run_type         TEXT,            -- iteration or aggregate
  aggregate_name   TEXT,            -- mean, median, stddev, cv; NULL for a repetition
  repetition_index INTEGER,
  seconds          REAL,            -- real time per iteration, in seconds (cv: the fraction)
  iterations       INTEGER,
  label            TEXT,
  error            TEXT             -- why the case failed; NULL when it ran
);
-- Every numeric counter of a case row: flops (FLOP/s), bytes_per_second, roof_fraction,
-- rel_error, op/<operation>/seconds, ...
CREATE TABLE counters (
  case_id INTEGER NOT NULL REFERENCES cases(case_id),
  name    TEXT NOT NULL,
  value   REAL NOT NULL,
  PRIMARY KEY (case_id, name)
);
CREATE INDEX cases_by_name ON cases(name);
CREATE INDEX counters_by_name ON counters(name);
"""

# Google Benchmark's own fields. "threads" is not among them: ladderbench's counter of that name
# (the threads a case ran on) follows Google Benchmark's field in the file, and a reader keeps it.
SKIP = {"name", "run_name", "run_type", "aggregate_name", "aggregate_unit", "repetitions", "repetition_index",
        "iterations", "real_time", "cpu_time", "time_unit", "label", "error_occurred", "error_message",
        "skipped", "skip_message", "family_index", "per_family_instance_index"}


def insert_file(db, path):
    doc = read_result_doc(path)
    if doc is None:
        return False
    ctx = doc["context"]
    text = lambda key: None if ctx.get(key) is None else str(ctx.get(key))  # noqa: E731
    cur = db.execute("INSERT INTO runs (file, machine_id, date, git_sha, profile, noise) VALUES (?, ?, ?, ?, ?, ?)",
                     (str(path), str(ctx["machine_id"]), text("date"), text("git_sha"), text("profile"), text("noise_verdict")))
    run_id = cur.lastrowid
    db.executemany("INSERT OR REPLACE INTO context VALUES (?, ?, ?)",
                   [(run_id, str(k), v if isinstance(v, str) else json.dumps(v)) for k, v in ctx.items()])
    axes_table = case_axes_table(ctx)
    for b in doc["benchmarks"]:
        if not isinstance(b, dict) or not isinstance(b.get("run_name", b.get("name")), str):
            continue
        name = case_name(b.get("run_name", b.get("name")))
        axes = case_axes(axes_table, name) or {}
        seconds = finite(b.get("real_time"))
        if seconds is not None and b.get("aggregate_unit") != "percentage":
            unit = TIME_UNITS.get(b.get("time_unit"))
            seconds = None if unit is None else seconds * unit  # no unit given: no time, not ns
        error = b.get("error_message") or b.get("skip_message") if (b.get("error_occurred") or b.get("skip_message")) else None
        cur = db.execute(
            "INSERT INTO cases (run_id, name, suite, rung, dtype, size, run_type, aggregate_name, repetition_index, seconds, "
            "iterations, label, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (run_id, name, axes.get("suite"), axes.get("rung"), axes.get("dtype"), axes.get("size"), b.get("run_type"),
             b.get("aggregate_name"), finite(b.get("repetition_index")), seconds, finite(b.get("iterations")),
             str(b.get("label", "")) or None, None if error is None else str(error)))
        counters = [(cur.lastrowid, str(k), finite(v)) for k, v in b.items()
                    if k not in SKIP and not isinstance(v, (str, bool)) and finite(v) is not None]
        db.executemany("INSERT OR REPLACE INTO counters VALUES (?, ?, ?)", counters)
    return True


def docs_from_database(path):
    """[(file, document)]: each run of a database written by build_database, as the Google Benchmark
    document it was read from (its context, and every repetition and aggregate with its counters),
    so that every report reads a database as it reads the files."""
    try:
        db = sqlite3.connect(f"file:{pathlib.Path(path).resolve()}?mode=ro", uri=True)
        runs = db.execute("SELECT run_id, file FROM runs ORDER BY run_id").fetchall()
    except sqlite3.Error as e:
        warn(f"skipping {path}: not a ladderbench results database ({e})")
        return []
    docs = []
    for run_id, file in runs:
        context = {}
        for key, value in db.execute("SELECT key, value FROM context WHERE run_id = ?", (run_id,)):
            # Structured values (caches, load_avg) were stored as JSON; every other value as text.
            context[key] = json.loads(value) if value and value[:1] in "[{" else value
        benchmarks = []
        rows = db.execute("SELECT case_id, name, run_type, aggregate_name, repetition_index, seconds, iterations, label, "
                          "error FROM cases WHERE run_id = ? ORDER BY case_id", (run_id,)).fetchall()
        for case_id, name, run_type, aggregate, repetition, seconds, iterations, label, error in rows:
            b = {"name": name, "run_name": name, "run_type": run_type, "real_time": seconds, "time_unit": "s",
                 "iterations": iterations, "label": label or ""}
            if aggregate:
                b["aggregate_name"] = aggregate
            if repetition is not None:
                b["repetition_index"] = repetition
            if error:
                b.update(error_occurred=True, error_message=error)
            b.update(db.execute("SELECT name, value FROM counters WHERE case_id = ?", (case_id,)).fetchall())
            benchmarks.append(b)
        docs.append((file, {"context": context, "benchmarks": benchmarks}))
    db.close()
    return docs


def build_database(paths, out):
    """Writes the database to `out` (a new file, renamed into place); returns the number of runs."""
    out = pathlib.Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=out.name, suffix=".tmp", dir=out.parent)
    os.close(fd)
    try:
        db = sqlite3.connect(temporary)
        db.executescript(SCHEMA)
        runs = 0
        for path in paths:
            for f in result_files(path):
                runs += insert_file(db, f)
        db.commit()
        db.close()
        os.replace(temporary, out)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
    return runs


def cmd_db(args):
    if args.schema:
        print(SCHEMA.strip())
        return 0
    runs = build_database(args.paths or [args.results_root], args.out)
    if not runs:
        warn("no ladderbench result file found")
        return 1
    print(f"report: wrote {args.out} ({runs} runs); e.g. sqlite3 {args.out} "
          "\"SELECT r.machine_id, c.name, k.value FROM cases c JOIN runs r USING (run_id) JOIN counters k USING (case_id) "
          "WHERE k.name = 'flops' AND c.aggregate_name = 'median' AND c.suite = 'gemm'\"")
    return 0
