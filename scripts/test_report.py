"""report.py's command line: help for every subcommand, one line for what cannot be written."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

from ladderreport.testing import RESULT, ROOT, run


def test_every_subcommand_has_help():
    for command in ("tables", "plot", "explain", "ladder"):
        result = subprocess.run([sys.executable, str(ROOT / "scripts" / "report.py"), command, "--help"],
                                capture_output=True, text=True)
        assert result.returncode == 0 and "usage:" in result.stdout


def test_an_unwritable_output_folder_is_one_line(tmp_path, capsys):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        code, _, err = run(["tables", str(RESULT), "--out", str(locked / "t"), "--no-plots"], capsys)
        if os.geteuid() == 0:  # root writes anywhere; a file in the way fails for root too
            blocker = tmp_path / "file"
            blocker.write_text("x")
            code, _, err = run(["tables", str(RESULT), "--out", str(blocker / "t"), "--no-plots"], capsys)
        assert code == 1
        assert err.startswith("report: cannot write") and err.count("\n") == 1, err
    finally:
        locked.chmod(0o700)


def test_google_benchmarks_compare_py_accepts_two_of_our_files():
    compare = pathlib.Path("/usr/share/benchmark/compare.py")  # Debian's libbenchmark-tools
    if not compare.exists():
        pytest.skip("compare.py is not installed (scripts/setup.sh installs libbenchmark-tools)")
    files = sorted(p for p in (ROOT / "results").glob("*/*.json") if p.parent.name != "specs")
    first, second = (files[0], files[1]) if len(files) > 1 else (files[0], files[0])
    result = subprocess.run([sys.executable, str(compare), "-a", "benchmarks", str(first), str(second)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    names = [{b["run_name"] for b in json.loads(f.read_text())["benchmarks"]} for f in (first, second)]
    common = sorted(n for n in names[0] & names[1] if n.startswith("gemm/"))
    assert common and all(n in result.stdout for n in common)  # every GEMM case the two files share
