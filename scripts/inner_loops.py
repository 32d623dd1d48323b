#!/usr/bin/env python3
"""A CPU rung's hottest compiled loop, read from its object file at build time: the innermost loop
(a backward branch enclosing no other) that does the most floating-point work a pass, and in it how many
instructions load from or store to the stack. A kernel whose accumulators outnumber the
registers keeps some on the stack and reloads them every pass: those loads and stores are its
register spills, counted here rather than guessed from the blocking.

    inner_loops.py OUT.inc OBJECT...      one C++ initialiser line a rung (cpu/NN_<rung>.cpp.o)
    inner_loops.py --show OBJECT          the chosen loop, as objdump printed it

Standard library and objdump only: it runs in the build."""
import os
import re
import subprocess
import sys

INSTRUCTION = re.compile(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$")
FUNCTION = re.compile(r"^[0-9a-f]+ <(.+)>:$")
BRANCH_TARGET = re.compile(r"^([0-9a-f]+) <")
# Floating-point multiply-adds, multiplies and adds (scalar or packed), AMX and bf16 dot products.
ARITHMETIC = re.compile(r"^(v?(f(n)?m(add|sub)\w*|(mul|add)[sp][sdh])|tdp\w+|vdpbf16ps)$")
STACK = "(%rsp"


def disassemble(path):
    """[(function, [(address, mnemonic, operands)])] of every function in the object."""
    text = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-M", "att", path],
                          capture_output=True, text=True, check=True).stdout
    functions, current = [], None
    for line in text.splitlines():
        if m := FUNCTION.match(line):
            current = (m.group(1), [])
            functions.append(current)
        elif current and (m := INSTRUCTION.match(line)):
            current[1].append((int(m.group(1), 16), m.group(2), m.group(3).split("#")[0].strip()))
    return functions


def loops(instructions):
    """Each backward branch's range [target, branch], innermost ones only."""
    found = []
    for address, mnemonic, operands in instructions:
        if mnemonic.startswith("j") and (m := BRANCH_TARGET.match(operands)):
            target = int(m.group(1), 16)
            if target < address:
                found.append((target, address))
    return [(a, b) for a, b in found
            if not any((c, d) != (a, b) and a <= c and d <= b for c, d in found)]


def stack_access(mnemonic, operands, frame_pointer):
    if mnemonic.startswith(("lea", "prefetch", "push", "pop", "call", "nop")):
        return None
    bases = (STACK, "(%rbp") if frame_pointer else (STACK,)
    if not any(b in operands for b in bases):
        return None
    last = operands.rsplit(",", 1)[-1]  # AT&T: the destination is the last operand
    return "store" if any(b in last for b in bases) else "load"


def flops(mnemonic, operands):
    """The FLOPs one arithmetic instruction does: a multiply-add 2 a lane, a multiply or an add 1,
    times its lanes (by register width and element: ps 4/8/16, pd 2/4/8, ss and sd 1); AMX and
    dot products are counted as 0 (their work depends on the tile shape, not the instruction)."""
    if not ARITHMETIC.match(mnemonic) or mnemonic.startswith(("tdp", "vdp")):
        return 0
    per_lane = 2 if "fm" in mnemonic or "fnm" in mnemonic else 1
    width = 512 if "%zmm" in operands else 256 if "%ymm" in operands else 128
    element = {"s": 32, "d": 64, "h": 16}[mnemonic[-1]]
    lanes = 1 if mnemonic[-2] == "s" and mnemonic[-1] in "sdh" and not mnemonic.endswith(("ps", "pd", "ph")) else width // element
    return per_lane * lanes


def hottest_loop(path):
    """(function, loop instructions, arithmetic instructions, stack loads, stack stores, FLOPs) of the
    innermost loop with the most FLOPs a pass (then the most arithmetic instructions: a matrix
    unit's count no FLOPs); None where no loop has any (a rung whose kernel is another file's:
    parallel calls tiled's)."""
    best = None
    for function, instructions in disassemble(path):
        frame_pointer = any(m == "mov" and o == "%rsp,%rbp" for _, m, o in instructions)
        for start, end in loops(instructions):
            body = [(a, m, o) for a, m, o in instructions if start <= a <= end]
            arithmetic = sum(1 for _, m, _ in body if ARITHMETIC.match(m))
            work = sum(flops(m, o) for _, m, o in body)
            # The loop doing the most work a pass: an edge loop can hold more, narrower instructions
            # (GCC 14's tiled edge block: 14 of them, 98 FLOP; its full block 12, 384 FLOP).
            if not arithmetic or (best and (work, arithmetic) <= (best[5], best[2])):
                continue
            kinds = [stack_access(m, o, frame_pointer) for _, m, o in body]
            best = (function, body, arithmetic, kinds.count("load"), kinds.count("store"), work)
    return best


def rung_of(path):
    m = re.match(r"\d\d_([a-z0-9_-]+)\.cpp\.o(bj)?$", os.path.basename(path))
    return m.group(1) if m else None


def main(argv):
    if argv[:1] == ["--show"]:
        loop = hottest_loop(argv[1])
        if not loop:
            print("no loop with floating-point arithmetic")
            return 0
        function, body, arithmetic, loads, stores, work = loop
        print(f"{function}: {len(body)} instructions, {arithmetic} arithmetic ({work} FLOP a pass), {loads} stack loads, "
              f"{stores} stack stores")
        for address, mnemonic, operands in body:
            print(f"  {address:6x}  {mnemonic:10} {operands}")
        return 0
    out, objects = argv[0], argv[1:]
    lines = []
    for path in sorted(objects):
        rung = rung_of(path)
        if not rung:
            continue
        try:
            loop = hottest_loop(path)
        except (OSError, subprocess.CalledProcessError) as e:
            print(f"inner_loops.py: {path}: {e}", file=sys.stderr)
            continue
        if loop:
            _, body, arithmetic, loads, stores, work = loop
            lines.append(f'{{"{rung}", {len(body)}, {arithmetic}, {loads}, {stores}, {work}}},\n')
    text = ("// Generated by scripts/inner_loops.py at build time: rung, instructions, arithmetic instructions, "
            "stack loads, stack stores, FLOPs a pass.\n")
    text += "".join(lines)
    # Rewritten only when it changes, so that the files including it are not rebuilt every time.
    if not os.path.exists(out) or open(out).read() != text:
        with open(out, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
