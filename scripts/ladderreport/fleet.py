"""Runs from many machines into one results tree: a run and its machine record travel as one file
(bundle), and gather merges folders of runs (a cluster's shared results folder) and bundles into
results/<machine-id>/. A machine id already there with other hardware is a conflict, named and
left out, never merged into the other machine's history."""
import io
import json
import pathlib
import shutil
import tarfile

from .runs import warn

# What makes two machines the same hardware, from the run's context: the CPU, its topology as
# hwloc counted it, its memory (to the GiB: the kernel's reserve moves by megabytes), its GPU.
FINGERPRINT_KEYS = ("cpu_vendor", "cpu_model", "cpu_microarchitecture", "cpu_packages", "cpu_cores", "cpu_logical_cores",
                    "numa_nodes", "gpu_name")
MANIFEST = "ladderbench-bundle.json"


def fingerprint(context):
    """The hardware a run's context describes, as a dict (absent keys left out)."""
    found = {k: str(context[k]) for k in FINGERPRINT_KEYS if context.get(k) not in (None, "")}
    try:
        found["memory_gib"] = str(round(float(context["memory_total_bytes"]) / 2 ** 30))
    except (KeyError, TypeError, ValueError):
        pass
    return found


def differences(a, b):
    """'key: a vs b' for each key both fingerprints have and that differs."""
    return [f"{k}: {a[k]} vs {b[k]}" for k in sorted(set(a) & set(b)) if a[k] != b[k]]


def read_run(data, name):
    """(document, error): a ladderbench result with its machine id, or the reason it is not one."""
    try:
        doc = json.loads(data)
    except ValueError as e:
        return None, f"{name}: not readable JSON ({e})"
    if not isinstance(doc, dict) or not isinstance(doc.get("context"), dict) or not isinstance(doc.get("benchmarks"), list):
        return None, f"{name}: not a ladderbench result (no context or benchmarks)"
    machine = doc["context"].get("machine_id")
    if not isinstance(machine, str) or not machine or "/" in machine or machine.startswith("."):
        return None, f"{name}: no usable machine_id in its context"
    return doc, None


def bundle(runs, out):
    """One .tar.gz with each run under <machine-id>/ and a manifest naming each run's machine and
    fingerprint; returns the number of runs in it."""
    members = []
    for path in runs:
        path = pathlib.Path(path)
        doc, error = read_run(path.read_bytes(), str(path))
        if error:
            raise ValueError(error)
        members.append((f"{doc['context']['machine_id']}/{path.name}", path.read_bytes(), doc))
    manifest = {"runs": [{"file": name, "machine_id": doc["context"]["machine_id"], "git_sha": doc["context"].get("git_sha"),
                          "date": doc["context"].get("date"), "fingerprint": fingerprint(doc["context"])}
                         for name, _, doc in members]}
    out = pathlib.Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(out, "w:gz") as tar:
        for name, data in [(MANIFEST, json.dumps(manifest, indent=1, sort_keys=True).encode())] + \
                [(n, d) for n, d, _ in members]:
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            tar.addfile(info, io.BytesIO(data))
    return len(members)


def candidates(source):
    """(name, bytes) of each run a source holds: a folder's */*.json (a shared results folder) or
    *.json, a bundle's members, or one file."""
    source = pathlib.Path(source)
    if source.is_dir():
        for path in sorted(set(source.glob("*/*.json")) | set(source.glob("*.json"))):
            if path.is_file() and path.parent.name not in ("specs", "tables"):
                yield str(path), path.read_bytes()
    elif tarfile.is_tarfile(source):
        with tarfile.open(source) as tar:
            for member in tar.getmembers():
                # Plain files with plain names only: no links, no paths that climb out.
                if member.isfile() and member.name.endswith(".json") and member.name != MANIFEST \
                        and ".." not in pathlib.PurePosixPath(member.name).parts:
                    yield f"{source}:{member.name}", tar.extractfile(member).read()
    else:
        yield str(source), source.read_bytes()


def gather(sources, into):
    """Merge each source's runs into `into`/<machine-id>/. Returns (merged, skipped, conflicts):
    lines naming each run merged, each already there, each refused with its reason."""
    into = pathlib.Path(into)
    merged, skipped, conflicts = [], [], []
    known = {}  # machine id -> fingerprint of the runs already under it
    for folder in sorted(p for p in into.glob("*") if p.is_dir()) if into.is_dir() else []:
        for path in sorted(folder.glob("*.json")):
            doc, _ = read_run(path.read_bytes(), str(path))
            if doc and doc["context"]["machine_id"] == folder.name:
                known.setdefault(folder.name, fingerprint(doc["context"]))
    for source in sources:
        if not pathlib.Path(source).exists():
            conflicts.append(f"{source}: no such file or folder")
            continue
        for name, data in candidates(source):
            doc, error = read_run(data, name)
            if error:
                conflicts.append(error)
                continue
            machine, prints = doc["context"]["machine_id"], fingerprint(doc["context"])
            if machine in known and (changed := differences(known[machine], prints)):
                conflicts.append(f"{name}: machine id {machine} is already another machine here ({'; '.join(changed)}); "
                                 "not merged (a node replaced, or two kinds of node under one id): gather it into another "
                                 "tree (--into)")
                continue
            target = into / machine / pathlib.PurePosixPath(name.split(":")[-1]).name
            if target.exists():
                (skipped if target.read_bytes() == data else conflicts).append(
                    f"{name}: already in {target}" if target.read_bytes() == data
                    else f"{name}: {target} exists with other contents; not overwritten")
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            partial = target.with_suffix(".json.partial")
            partial.write_bytes(data)
            shutil.move(partial, target)  # whole or not at all
            known.setdefault(machine, prints)
            merged.append(f"{name} -> {target}")
    return merged, skipped, conflicts


def report_gather(merged, skipped, conflicts):
    for line in merged:
        print(f"report: gathered {line}")
    for line in skipped:
        print(f"report: skipped {line}")
    for line in conflicts:
        warn(line)
    return 1 if conflicts else 0


# A reference's tolerance: three times the case's measured spread across the machine's runs (or
# within its one run), never under REFERENCE_FLOOR (a shared node's run-to-run noise) nor over
# REFERENCE_CEILING (beyond it a regression could hide).
REFERENCE_FLOOR, REFERENCE_CEILING = 0.10, 0.50


def perf_name(case):
    """A case's name as a ReFrame performance variable (no ':', which ReFrame's output splits on)."""
    return case.replace(":", "=")


def case_values(doc):
    """{case: (values of its repetitions, unit)}: GFLOP/s where the case counts FLOPs, else GB/s."""
    found = {}
    for b in doc.get("benchmarks", []):
        if b.get("run_type") != "iteration" or b.get("error_occurred"):
            continue
        name = b.get("run_name", "").rsplit("/real_time", 1)[0].rsplit("/manual_time", 1)[0]
        if b.get("flops"):
            value, unit = b["flops"] / 1e9, "GFLOP/s"
        elif b.get("bytes_per_second"):
            value, unit = b["bytes_per_second"] / 1e9, "GB/s"
        else:
            continue
        found.setdefault(name, ([], unit))[0].append(value)
    return found


def references(docs, floor=REFERENCE_FLOOR):
    """{perf name: [value, -tolerance, None, unit]} from one machine's runs: the median of each
    run's median, its tolerance from the spread (across runs where there are several)."""
    from statistics import median, pstdev
    per_case = {}
    for doc in docs:
        for case, (values, unit) in case_values(doc).items():
            per_case.setdefault(case, ([], [], unit))
            per_case[case][0].append(median(values))
            if len(values) > 1 and median(values) > 0:
                per_case[case][1].append(pstdev(values) / median(values))
    table = {}
    for case, (medians, within, unit) in sorted(per_case.items()):
        value = median(medians)
        spread = (pstdev(medians) / value if len(medians) > 1 and value else max(within, default=0))
        tolerance = min(REFERENCE_CEILING, max(floor, 3 * spread))
        table[perf_name(case)] = [round(value, 6), -round(tolerance, 3), None, unit]
    return table


def write_references(results, machine, system, out, floor=REFERENCE_FLOOR):
    """Merge `system`'s references, from every run of `machine` under `results`, into `out`."""
    folder = pathlib.Path(results) / machine
    docs = []
    for path in sorted(folder.glob("*.json")):
        doc, error = read_run(path.read_bytes(), str(path))
        if doc and doc["context"]["machine_id"] == machine:
            docs.append(doc)
    if not docs:
        raise ValueError(f"no run of machine {machine} under {folder}")
    out = pathlib.Path(out)
    table = json.loads(out.read_text()) if out.exists() else {}
    table[system] = references(docs, floor)
    out.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    return len(docs), len(table[system])
