# The pure-Python matrix multiply that the boxed rung runs as bytecode, and that the `python`
# rung runs under the real CPython beside it. Reads A and B (float32, row-major) from files,
# writes C, prints the seconds the multiply took. Usage: matmul.py n a.bin b.bin c.bin [K]
# (K multiplies back to back, their total seconds: a tiny n takes less than starting Python does)
import sys
import time
from array import array


# teach: begin (the lines docs/ladder.md shows)
def matmul(A, B, C, n):
    for i in range(n):
        for j in range(n):
            s = 0.0
            for k in range(n):
                s += A[i][k] * B[k][j]
            C[i][j] = s
# teach: end


def read_matrix(path, n):
    flat = array("f")
    with open(path, "rb") as f:
        flat.fromfile(f, n * n)
    return [list(flat[i * n:(i + 1) * n]) for i in range(n)]


def main():
    n = int(sys.argv[1])
    A = read_matrix(sys.argv[2], n)
    B = read_matrix(sys.argv[3], n)
    C = [[0.0] * n for _ in range(n)]
    calls = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    start = time.perf_counter()
    for _ in range(calls):
        matmul(A, B, C, n)
    seconds = time.perf_counter() - start
    with open(sys.argv[4], "wb") as f:
        array("f", [x for row in C for x in row]).tofile(f)
    print(repr(seconds))


if __name__ == "__main__":
    main()
