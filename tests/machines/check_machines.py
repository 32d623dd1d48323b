"""What a user on each recorded machine gets: ladderbench --list and --plan of every profile, run
as if on that machine (hwloc's HWLOC_XMLFILE / HWLOC_SYNTHETIC for its topology, LADDER_TEST_CPU
for its CPU), checked against what the machine's own description says:
  - the last-level cache of the CPUs that run is every instance of the last level, at its size;
  - the large arrays are at least 4 x that cache, or capped with the cap's reason;
  - the memory held at once fits the machine's memory;
  - one thread a core (a hardware thread each with --smt), on the machine's cores;
  - on more than one socket, the one-socket triad beside the all-socket one, and not on one;
  - no rung or probe of an ISA the CPU lacks is offered, and none it has is refused for the ISA;
  - each GPU on the machine's PCI buses is found, with the package and NUMA node it hangs from;
  - the quick profile is estimated under its budget (10 minutes).
Python's rungs are left out (LADDER_PYTHON=/bin/false): whether they run is this machine's
software, not the recorded hardware, and each would start an interpreter.

  check_machines.py LADDERBENCH [MACHINE...]   every machine under tests/machines/, or those named
  check_machines.py --self-test                 each check fails on a plan with its decision broken
"""

import os
import pathlib
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

HERE = pathlib.Path(__file__).resolve().parent
PROFILES = ("quick", "full", "ladder")
QUICK_BUDGET_SECONDS = 600
CACHE_TYPES = {f"L{level}Cache": level for level in (1, 2, 3, 4, 5)}
# The hand-written rungs and probes name their ISA: the CPU flag each needs, the first match.
ISA_OF_NAME = [("amx", "amx_tile"), ("avx512-bf16", "avx512_bf16"), ("avx512", "avx512f"), ("avx2", "avx2")]


def read_machine(path):
    fields = {}
    for line in path.read_text().splitlines():
        if line and not line.startswith("#") and ":" in line:
            key, value = line.split(":", 1)
            fields[key.strip()] = value.strip()
    kind, _, value = fields["topology"].partition(" ")
    fields["env"] = {"HWLOC_XMLFILE": str(HERE / value)} if kind == "xml" else {"HWLOC_SYNTHETIC": value}
    fields["flags"] = set(fields.get("flags", "").split())
    return fields


def topology_facts(machine):
    """The machine's facts from its description, read apart from the program: its last-level
    cache (instances x size), cores, logical CPUs and memory."""
    if "HWLOC_XMLFILE" in machine["env"]:
        root = ET.parse(machine["env"]["HWLOC_XMLFILE"]).getroot()
        objects = list(root.iter("object"))
        caches = [(CACHE_TYPES[o.get("type")], int(o.get("cache_size"))) for o in objects if o.get("type") in CACHE_TYPES]
        last = max(level for level, _ in caches)
        sizes = [size for level, size in caches if level == last]
        gpus = []
        for parent in objects:  # a GPU's place: the package, group or NUMA node its bridge hangs from
            for bridge in parent.findall("object[@type='Bridge']"):
                for device in bridge.iter("object"):
                    if device.get("type") == "PCIDev" and device.get("pci_type", "").startswith("03"):
                        package = next((o for o in objects if o.get("type") == "Package" and parent in o.iter("object")), None)
                        nodeset = int(parent.get("nodeset"), 16)
                        nodes = [str(i) for i in range(64) if nodeset >> i & 1]
                        gpus.append(
                            f"{device.get('pci_busid')} on package {package.get('os_index')}, NUMA node "
                            f"{nodes[0] if len(nodes) == 1 else nodes[0] + '-' + nodes[-1]}"
                        )
        return {
            "llc": sum(sizes),
            "packages": sum(o.get("type") == "Package" for o in objects),
            "llc_instances": len(sizes),
            "gpus": "; ".join(gpus),
            "cores": sum(o.get("type") == "Core" for o in objects),
            "pus": sum(o.get("type") == "PU" for o in objects),
            "memory": sum(int(o.get("local_memory", 0)) for o in objects if o.get("type") == "NUMANode"),
        }
    count, llc, llc_instances, memory_per_node, nodes = 1, 0, 0, 0, 0
    cores = pus = packages = 0
    for level in machine["env"]["HWLOC_SYNTHETIC"].split():
        if level.startswith("["):  # a NUMA node attached at this depth
            memory_per_node = int(re.search(r"memory=(\d+)", level).group(1))
            nodes = count
            continue
        name, _, rest = level.partition(":")
        arity = int(re.match(r"\d+", rest).group(0))
        count *= arity
        if name.startswith("l") and name[1].isdigit() and int(name[1]) >= 3:
            llc_instances, llc = count, count * int(re.search(r"size=(\d+)", rest).group(1))
        if name == "pack":
            packages = count
        if name == "core":
            cores = count
        if name == "pu":
            pus = count
    return {
        "llc": llc,
        "llc_instances": llc_instances,
        "cores": cores,
        "pus": pus,
        "memory": memory_per_node * nodes,
        "gpus": "",
        "packages": max(1, packages),
    }


def run(exe, machine_path, *args):
    machine = read_machine(machine_path)
    # What the plan must show comes from the machine, not from this shell's OpenMP settings.
    own = (
        "HWLOC_XMLFILE",
        "HWLOC_SYNTHETIC",
        "HWLOC_FSROOT",
        "HWLOC_THISSYSTEM",
        "OMP_NUM_THREADS",
        "OMP_PROC_BIND",
        "OMP_PLACES",
        "LADDER_MAX_ISA",
    )
    env = {k: v for k, v in os.environ.items() if k not in own}
    env.update(machine["env"], LADDER_TEST_CPU=str(machine_path), LADDER_PYTHON="/bin/false")
    result = subprocess.run([exe, *args], env=env, capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        raise AssertionError(f"{' '.join(args)} exited {result.returncode}: {result.stderr.strip()}")
    return result.stdout


def mib(text):
    value, unit = re.match(r"([\d.]+) (MiB|GiB)", text).groups()
    return float(value) * (1 << (20 if unit == "MiB" else 30))


def duration_seconds(text):
    hours = re.search(r"(\d+) h", text)
    minutes = re.search(r"(\d+) min", text)
    seconds = re.search(r"(\d+) s", text)
    return sum(int(m.group(1)) * f for m, f in ((hours, 3600), (minutes, 60), (seconds, 1)) if m)


def check_plan(plan, facts, flags, profile, smt=False):
    """The problems of one plan, as sentences (none: it is what the machine must get)."""
    problems = []
    line = {key: value for key, _, value in (row.partition(": ") for row in plan.splitlines() if not row.startswith(" "))}
    llc = re.match(r"([\d.]+ [MG]iB) \((\d+) x", line["last-level cache of the CPUs that run"])
    if abs(mib(llc.group(1)) - facts["llc"]) > 0.01 * facts["llc"] or int(llc.group(2)) != facts["llc_instances"]:
        problems.append(
            f"last-level cache {llc.group(0)}, the machine has {facts['llc_instances']} x "
            f"{facts['llc'] / facts['llc_instances'] / (1 << 20):.0f} MiB"
        )
    if "large arrays" in line:
        if min(mib(size) for size in re.findall(r"[\d.]+ [MG]iB", line["large arrays"])) < 4 * facts["llc"] * 0.99:
            problems.append(f"large arrays ({line['large arrays']}) under 4 x the last-level cache, with no cap named")
    elif "large arrays capped" in line:
        if not re.search(r": \S", line["large arrays capped"]):
            problems.append(f"arrays capped without a reason: {line['large arrays capped']}")
    elif profile != "ladder":
        problems.append("no line on the large arrays")
    held = re.match(r"([\d.]+ GiB) of", line["memory held at once"])
    if mib(held.group(1)) > facts["memory"]:
        problems.append(f"holds {held.group(1)} at once, over the machine's {facts['memory'] / (1 << 30):.0f} GiB")
    threads = re.match(r"(\d+) on (\d+) cores?", line["threads"])
    wanted = facts["pus"] if smt else facts["cores"]  # one a core, or with --smt one a hardware thread
    if (int(threads.group(1)), int(threads.group(2))) != (wanted, facts["cores"]):
        problems.append(f"threads {threads.group(0)}, wanted {wanted} on the machine's {facts['cores']} cores")
    sockets = facts["packages"] > 1
    if sockets != bool(re.search(r"^  stream/triad-one-socket/", plan, re.M)) and "stream" in line["cases"]:
        problems.append(f"{facts['packages']} package(s) and the one-socket triad {'not ' if sockets else ''}planned")
    found = "; ".join(row.partition(": ")[2] for row in plan.splitlines() if row.startswith("GPU on PCI: "))
    if found != facts["gpus"]:
        problems.append(f"GPUs found: '{found}', the machine has '{facts['gpus']}'")
    for name in re.findall(r"^  (\S+/\S+)", plan, re.M):
        for isa, flag in ISA_OF_NAME:
            if isa in name.split("/")[1] and flag not in flags:
                problems.append(f"case {name} planned on a CPU without {flag}")
                break
    estimate = duration_seconds(re.search(r"about (.*)$", line["plan"]).group(1))
    if profile == "quick" and estimate > QUICK_BUDGET_SECONDS:
        problems.append(f"the quick profile estimated at {estimate} s, over its budget of {QUICK_BUDGET_SECONDS} s")
    return problems


def check_list(listing, flags):
    problems = []
    for row in listing.splitlines():
        if row.startswith(" ") or not row.strip():
            continue
        name, state = row.split()[0], row.split(None, 1)[1]
        rung = name.split("/")[1]
        for isa, flag in ISA_OF_NAME:
            if isa in rung:
                if flag not in flags and "unavailable" not in state:
                    problems.append(f"{name} offered on a CPU without {flag}")
                if flag in flags and "unavailable: CPU lacks" in state:
                    problems.append(f"{name} refused for its ISA on a CPU with {flag}: {state}")
                break
    return problems


def check_machine(exe, path):
    machine = read_machine(path)
    facts = topology_facts(machine)
    problems = [f"--list: {p}" for p in check_list(run(exe, path, "--list"), machine["flags"])]
    for profile in PROFILES:
        plan = run(exe, path, "--plan", "--profile", profile)
        problems += [f"--plan --profile {profile}: {p}" for p in check_plan(plan, facts, machine["flags"], profile)]
    plan = run(exe, path, "--plan", "--profile", "quick", "--smt")
    problems += [f"--plan --smt: {p}" for p in check_plan(plan, facts, machine["flags"], "quick", smt=True)]
    return problems


def self_test():
    """Each check catches a plan whose decision is broken."""
    facts = {
        "llc": 768 << 20,
        "packages": 2,
        "llc_instances": 24,
        "cores": 384,
        "pus": 768,
        "memory": 1536 << 30,
        "gpus": "0000:17:00.0 on package 0, NUMA node 0",
    }
    good = "\n".join(
        [
            "  case  memory  estimate",
            "  stream/triad/f64/bytes:1  1 MiB  0.5 s",
            "  gemm/avx2/f32/n:1024  16 MiB  0.5 s",
            "  stream/triad-one-socket/f64/n:1  1 MiB  0.5 s",
            "cases: 3 (gemm 1, stream 2)",
            "last-level cache of the CPUs that run: 768 MiB (24 x 32 MiB)",
            "threads: 384 on 384 cores",
            "GPU on PCI: 0000:17:00.0 on package 0, NUMA node 0",
            "large arrays: 3072 MiB each (4 x the last-level cache)",
            "memory held at once: 40.0 GiB of 1200.0 GiB usable (x)",
            "plan: quick profile, 2 cases, 40.0 GiB held at once, 768 threads, about 4 min 10 s",
        ]
    )
    flags = {"avx2", "fma", "avx512f"}
    assert check_plan(good, facts, flags, "quick") == [], check_plan(good, facts, flags, "quick")
    broken = {
        "one instance of the cache": ("768 MiB (24 x", "32 MiB (1 x"),
        "cache read from the wrong level (L2)": ("768 MiB (24 x 32 MiB)", "384 MiB (384 x 1 MiB)"),
        "the arrays under 4 x the cache, no cap": ("3072 MiB each", "3072 MiB, 1024 MiB each"),
        "a cap with no reason": ("large arrays: 3072 MiB each (4 x the last-level cache)", "large arrays capped: 1024 MiB"),
        "memory over the machine's": ("40.0 GiB of", "2000.0 GiB of"),
        "threads not from the machine": ("384 on 384 cores", "2 on 2 cores"),
        "a thread a hardware thread by default": ("384 on 384 cores", "768 on 384 cores"),
        "no one-socket triad on two sockets": ("  stream/triad-one-socket/f64/n:1  1 MiB  0.5 s\n", ""),
        "a rung of an ISA the CPU lacks": ("gemm/avx2/f32", "gemm/amx/bf16"),
        "over the quick budget": ("about 4 min 10 s", "about 12 min 00 s"),
        "a GPU placed on the wrong node": ("on package 0, NUMA node 0", "on package 1, NUMA node 1"),
    }
    for what, (old, new) in broken.items():
        assert old in good, what
        if not check_plan(good.replace(old, new), facts, flags, "quick"):
            raise AssertionError(f"self-test: a plan with {what} passed")
    listing = "gemm/amx  bf16  all cores  available\n    summary\ngemm/avx512  f32  one core  unavailable: CPU lacks AVX-512\n"
    if not check_list(listing, {"avx2"}) or not check_list(listing, {"avx2", "avx512f", "amx_tile"}):
        raise AssertionError("self-test: a listing offering amx without it, or refusing avx512 with it, passed")
    print(f"self-test: each of the {len(broken) + 2} broken decisions is caught")


def main():
    if sys.argv[1:] == ["--self-test"]:
        self_test()
        return 0
    exe, names = sys.argv[1], sys.argv[2:]
    paths = [HERE / f"{n}.machine" for n in names] if names else sorted(HERE.glob("*.machine"))
    failed = 0
    for path in paths:
        problems = check_machine(exe, path)
        print(f"{path.stem}: {'ok' if not problems else 'FAILED'}")
        for problem in problems:
            print(f"  {problem}")
        failed += bool(problems)
    print(f"{len(paths) - failed} of {len(paths)} recorded machines get what they must")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
