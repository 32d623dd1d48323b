#!/usr/bin/env python3
"""The program's front door (app/) knows suites only through suites/suite.hpp: it includes no
suite's own header and names no suite. Exit 1 with each offending line, else 0.

    check_layering.py [ROOT]      ROOT: the checkout (default: two folders up)
    check_layering.py --self-test a tree with one of each offence is caught
"""
import pathlib
import re
import sys
import tempfile

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def offences(root):
    root = pathlib.Path(root)
    suites = {p.name for p in (root / "suites").iterdir() if p.is_dir()}
    # A suite's name in quotes ("gemm", "gemm/..."), or its name constant (kGemmSuite).
    quoted = re.compile(r'"(?:%s)(?:"|/)' % "|".join(map(re.escape, sorted(suites))))
    constant = re.compile(r"\bk[A-Z]\w*Suite\b")
    found = []
    for path in sorted((root / "app").glob("*.[ch]pp")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            where = f"{path.relative_to(root)}:{number}: "
            include = INCLUDE.match(line)
            if include:
                target = include.group(1)
                first = target.split("/")[0]
                if first in suites or target.startswith("suites/"):
                    found.append(where + f"includes a suite's own header ({target}): {line.strip()}")
                continue
            code = line.split("//", 1)[0]
            if constant.search(code) or quoted.search(code):
                found.append(where + f"names a suite: {line.strip()}")
    return found


def self_test():
    with tempfile.TemporaryDirectory() as folder:
        root = pathlib.Path(folder)
        (root / "suites" / "gemm").mkdir(parents=True)
        (root / "app").mkdir()
        (root / "app" / "fine.cpp").write_text('#include "suite.hpp"\n// the gemm suite, in a comment\n')
        bad = {
            "include.cpp": '#include "gemm/gemm_suite.hpp"\n',
            "path.cpp": '#include "suites/gemm/gemm_suite.hpp"\n',
            "constant.cpp": "auto s = kGemmSuite;\n",
            "quoted.cpp": 'if (name == "gemm") {}\n',
            "prefix.cpp": 'if (name.rfind("gemm/", 0) == 0) {}\n',
        }
        for name, text in bad.items():
            (root / "app" / name).write_text(text)
        caught = {line.split(":")[0].split("/")[-1] for line in offences(root)}
        missed = set(bad) - caught
        wrong = caught - set(bad)
        print(f"self-test: {len(caught & set(bad))} of {len(bad)} offences caught, {len(wrong)} false")
        return 0 if not missed and not wrong else 1


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    root = argv[1] if len(argv) > 1 else pathlib.Path(__file__).resolve().parents[2]
    found = offences(root)
    for line in found:
        print(line)
    print(f"app/ knows suites only through suites/suite.hpp: {'no' if not found else len(found)} offence(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
