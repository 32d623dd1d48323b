"""ladderbench as a ReFrame regression test: the suite's own verification is the sanity check
(every case ran, none failed its check against the reference product), and each case's rate is a
performance variable (GFLOP/s, or GB/s for the bandwidth suites) against references per
system:partition that `report.py references` writes from the results database, so a slower node
or a broken driver fails as a regression.

    reframe -C fleet/reframe/settings.py -c fleet/reframe/ladderbench_check.py --system S:P -r \
        -S exe=build/release/ladderbench -S references_file=refs.json [-S profile=quick -S rungs=...]
"""
import json
import os
import statistics
import sys

import reframe as rfm
import reframe.utility.sanity as sn
from reframe.core.builtins import performance_function, run_before, sanity_function, variable  # noqa: F401

# A result file is read as the report tools read it (scripts/ladderreport, standard library only).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "scripts"))
from ladderreport.fleet import case_values, perf_name  # noqa: E402


def case_rates(path):
    """{case: (value, unit)}: each case's median rate over its repetitions in its result file
    (GFLOP/s where it counts FLOPs, else GB/s where it counts bytes)."""
    with open(path) as f:
        doc = json.load(f)
    return {case: (statistics.median(values), unit) for case, (values, unit) in case_values(doc).items()}


@rfm.simple_test
class LadderbenchCheck(rfm.RunOnlyRegressionTest):
    descr = "ladderbench: every case verified; each case's rate against this system's references"
    valid_systems = ["*"]
    valid_prog_environs = ["*"]
    exe = variable(str, value=os.environ.get("LADDER_EXE", "ladderbench"))
    profile = variable(str, value="smoke")
    suites = variable(str, value="gemm")
    rungs = variable(str, value="")
    sizes = variable(str, value="")
    repetitions = variable(int, value=3)
    references_file = variable(str, value=os.environ.get("LADDER_REFERENCES", ""))
    num_tasks = 1
    exclusive_access = True
    keep_files = ["result.json"]

    @run_before("run")
    def arguments(self):
        self.executable = self.exe
        self.executable_opts = [f"--profile={self.profile}", f"--suite={self.suites}", "--quiet",
                                f"--benchmark_repetitions={self.repetitions}",
                                "--benchmark_out=result.json", "--benchmark_out_format=json"]
        if self.rungs:
            self.executable_opts.append(f"--rungs={self.rungs}")
        if self.sizes:
            self.executable_opts.append(f"--sizes={self.sizes}")

    @sanity_function
    def every_case_verified(self):
        # ladderbench exits 1 when a case fails its verification, and names it; a result file with
        # no case, or with a case in error, fails here too.
        result = os.path.join(self.stagedir, "result.json")
        return sn.all([sn.assert_not_found(r"failed|wrong result|error", self.stderr),
                       sn.assert_true(os.path.exists(result), msg="ladderbench wrote no result.json"),
                       sn.assert_gt(sn.defer(len(case_rates(result)) if os.path.exists(result) else 0), 0,
                                    msg="no case measured")])

    @run_before("performance")
    def rates_and_references(self):
        rates = case_rates(os.path.join(self.stagedir, "result.json"))
        # ':' would be read as ReFrame's own separator: n:512 is n=512 here, as report.py references writes it.
        rates = {perf_name(case): rate for case, rate in rates.items()}
        self.perf_variables = {case: sn.make_performance_function(sn.defer(value), unit)
                               for case, (value, unit) in rates.items()}
        if self.references_file:
            with open(self.references_file) as f:
                table = json.load(f)
            self.reference = {system: {case: tuple(ref) for case, ref in cases.items() if case in rates}
                              for system, cases in table.items()}
