#!/usr/bin/env python3
"""The tiled rung's own source compiled for two ISAs on any machine, its hottest loop read as the
build reads every rung's (scripts/inner_loops.py): for AVX2 (16 vector registers) a 6x32 block's
24 accumulators do not fit, so the loop must load and store on the stack; for AVX-512 (32
registers) they fit, so it must not. The counter that explains Zen 3's tiled is checked here on
both sides, and against a loop with its stack accesses removed.

    check_spills.py AVX2_OBJECT AVX512_OBJECT"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
import inner_loops  # noqa: E402


def main(avx2, avx512):
    missing = [path for path in (avx2, avx512) if not os.path.isfile(path)]
    if missing:
        print(f"check_spills: not built: {', '.join(missing)} (cmake --build: targets tiled_avx2_object, "
              "tiled_avx512_object)", file=sys.stderr)
        return 1
    failures = []
    spilled, fitted = inner_loops.hottest_loop(avx2), inner_loops.hottest_loop(avx512)
    for name, loop in (("AVX2", spilled), ("AVX-512", fitted)):
        if not loop:
            failures.append(f"{name}: no loop with floating-point arithmetic found")
        else:
            print(f"{name}: {len(loop[1])} instructions, {loop[2]} arithmetic, {loop[3]} stack loads, {loop[4]} stack stores")
    if spilled and spilled[3] + spilled[4] < inner_loops_share(spilled):
        failures.append("AVX2: a 6x32 block's 24 accumulators in 16 registers, yet no stack traffic counted")
    if fitted and fitted[3] + fitted[4] > 0:
        failures.append("AVX-512: 12 accumulators in 32 registers, yet stack traffic counted")
    # The counter itself: the same loop with its stack operands taken away counts none.
    if spilled:
        body = [(a, m, o.replace("(%rsp)", "(%rdi)")) for a, m, o in spilled[1]]
        if sum(1 for _, m, o in body if inner_loops.stack_access(m, o, False)):
            failures.append("a loop without stack operands still counted stack accesses")
    for f in failures:
        print(f"check_spills: {f}", file=sys.stderr)
    return 1 if failures else 0


def inner_loops_share(loop):
    return 0.25 * loop[2]  # why.py's SPILL_SHARE: what the report names as spills


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
