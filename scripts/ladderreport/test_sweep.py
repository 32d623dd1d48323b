"""Rate against n: each sweep point against its rung's model, flagged beyond 2x with the mechanism
the sweep shows or "unexplained"; a sweep run kept beside its machine's column, never merged."""
import pytest

from ladderreport.machines import load_machines
from ladderreport.sweep import sweep_markdown, sweep_points
from ladderreport.why import model_curve
from ladderreport.testing import SWEEP, ladder_machine, run


def sweep_machine(rates, model, context=None):
    """A made-up sweep run: rung -> {n: GFLOP/s}, each case's bound at `model` GFLOP/s."""
    cases = [(rung, n, 2.0 * n ** 3 / (rate * 1e9), {"roof_fraction": rate / model, "regime": "compute"})
             for rung, by_n in rates.items() for n, rate in by_n.items()]
    m = ladder_machine(cases, {"profile": "sweep", **(context or {})})
    m.sweep = m
    return m


def test_a_point_more_than_twice_below_its_model_is_flagged_and_says_why_or_unexplained():
    m = sweep_machine({"tiled": {64: 90, 91: 40, 128: 95, 181: 60}}, model=100)
    points = {p["n"]: p for p in sweep_points(m)["tiled"]}
    assert not points[64]["flag"] and not points[181]["flag"]  # 90% and 60% of the model
    assert points[91]["flag"] and points[91]["why"] == "unexplained"
    assert points[91]["share"] == pytest.approx(0.4)


def test_a_cliff_at_a_power_of_two_is_named_from_its_neighbours():
    m = sweep_machine({"naive": {181: 5.0, 256: 2.0, 362: 4.5, 512: 4.4}}, model=17)
    points = {p["n"]: p for p in sweep_points(m)["naive"]}
    assert points[256]["flag"] and "a cliff at a power of two" in points[256]["why"]
    assert "5 at n = 181" in points[256]["why"] and "4.5 at n = 362" in points[256]["why"]
    # 512 has no measured neighbour above it: no cliff can be shown, so none is claimed.
    assert "cliff" not in points[512]["why"]


def test_a_dip_where_edge_blocks_leave_the_register_block_is_named_only_for_a_rung_that_declares_one():
    rates = {"tiled": {64: 194, 91: 87.4, 128: 220, 181: 128, 256: 236, 362: 163}}
    m = sweep_machine(rates, model=275, context={"rung_register_block/tiled": "6x32"})
    points = {p["n"]: p for p in sweep_points(m)["tiled"]}
    # 91 = 2 x 32 + 27 columns, 15 x 6 + 1 rows: 30% of C outside whole blocks; 64 has 6%, 128 2%.
    assert points[91]["why"].startswith("edge blocks: 30% of its multiply-adds")
    assert "194 at n = 64 (6% there)" in points[91]["why"] and "220 at n = 128 (2% there)" in points[91]["why"]
    assert points[181]["why"].startswith("edge blocks: 12%")
    # A rung that declares no register block (edges padded, or a library's): never said to dip there.
    del m.context["rung_register_block/tiled"]
    assert points and all(p["why"] in ("", "unexplained") for p in sweep_points(m)["tiled"])


def test_an_edge_share_dip_needs_both_neighbours_faster_with_fewer_edges():
    context = {"rung_register_block/parallel": "6x32"}
    # 64 is within CLIFF_FACTOR of 91's rate: no dip shown, so none is claimed.
    m = sweep_machine({"parallel": {64: 229, 91: 156.6, 128: 348}}, model=546, context=context)
    assert sweep_points(m)["parallel"][1]["why"] == "unexplained"
    # A slow n with whole blocks (n = 192 = 6 x 32 x 1) is not an edge dip whatever its neighbours.
    m = sweep_machine({"parallel": {128: 348, 192: 100, 256: 400}}, model=546, context=context)
    assert sweep_points(m)["parallel"][1]["why"] == "unexplained"


def test_a_calls_packing_is_named_where_taking_it_out_brings_the_point_within_2x_of_its_model():
    m = sweep_machine({"avx512": {64: 115, 128: 320, 256: 380}}, model=412)
    case = m.gemm_ran("avx512")[64]
    call = case["seconds"]  # 2 x 64^3 / 115e9: 4.56 us
    case["pack_seconds"] = 0.5 * call  # half the call: 230 GFLOP/s without it, within 2x of 412
    why = sweep_points(m)["avx512"][0]["why"]
    assert why.startswith("packing: copying A and B into its panels takes 2.28 us of its 4.56 us call (50%")
    assert "n / 2 = 32 multiply-adds" in why and "without it 230 GFLOP/s" in why
    case["pack_seconds"] = 0.2 * call  # 144 GFLOP/s without it: still more than 2x below, not the reason
    assert sweep_points(m)["avx512"][0]["why"] == "unexplained"


def test_a_noisy_point_says_how_far_its_repetitions_spread():
    m = sweep_machine({"avx512": {64: 70, 128: 320, 256: 380}}, model=530)
    m.gemm_ran("avx512")[64].update(cv=0.37, noisy=True)
    lines = "\n".join(sweep_markdown(m))
    assert "| 70 (13%) ~ ⚠ |" in lines
    assert "avx512 at n = 64: 70 GFLOP/s, 13% of its model's 530 (compute-bound): unexplained (its repetitions " \
           "spread 37%, CV: a noisy point)" in lines
    assert "| 320 (60%) |" in lines  # a quiet point carries no mark


def test_an_all_core_rung_at_a_small_n_is_held_by_its_split_only_where_that_bound_explains_the_miss():
    context = {"rung_parent/parallel": "tiled", "rung_register_block/parallel": "6x32",
               "overhead_omp_fork_join_seconds": "4.36e-07"}
    m = sweep_machine({"tiled": {64: 183, 128: 212, 256: 231}, "parallel": {64: 215, 128: 342, 256: 402}}, model=530,
                      context=context)
    for case in m.gemm_ran("parallel").values():
        case["threads"] = 2
    why = sweep_points(m)["parallel"][0]["why"]
    # 2.86 us for tiled; 11 strips of 6 rows, 6 for the busiest thread: 1.56 us, and 0.44 us of fork and join.
    assert why == ("its split: tiled took 2.86 us at n = 64; its 11 strips of 6 rows over 2 threads leave the busiest "
                   "6, plus one fork and join (0.44 us, overhead probe): at best 262 GFLOP/s, of which it reaches 82%")
    for case in m.gemm_ran("parallel").values():  # four threads: at best 431, within 2x of the model
        case["threads"] = 4
    assert sweep_points(m)["parallel"][0]["why"] == "unexplained"
    for case in m.gemm_ran("parallel").values():
        case["threads"] = 2
    del m.context["overhead_omp_fork_join_seconds"]  # no fork-join probe: no bound, no claim
    assert sweep_points(m)["parallel"][0]["why"] == "unexplained"


def test_a_serial_sum_near_one_chains_rate_is_named_and_only_then():
    chain = {"peak_probe/scalar-add-chain/f32/threads:1": "4.5e9", "rung_serial_sum/naive": "one chain of dependent adds"}
    m = sweep_machine({"naive": {64: 7.0, 91: 6.5, 128: 1.0}}, model=17, context=chain)
    points = {p["n"]: p for p in sweep_points(m)["naive"]}
    assert "one chain of dependent adds" in points[64]["why"] and "1.6x" in points[64]["why"]
    assert points[128]["why"] == "unexplained"  # 0.22x one chain's rate: not waiting on it
    del m.context["rung_serial_sum/naive"]  # a rung whose sum is not one chain is never said to wait on one
    assert all("chain" not in p["why"] for p in sweep_points(m)["naive"])


def test_a_point_above_its_model_says_the_model_is_wrong_there():
    m = sweep_machine({"avx2": {64: 150, 128: 95, 256: 96}}, model=100)
    point = sweep_points(m)["avx2"][0]
    assert point["flag"] and "the model's bound is wrong here" in point["why"]


def test_the_model_curve_is_read_from_the_context_and_bad_pairs_are_skipped():
    m = ladder_machine([], {"rung_model_rate/naive": "64:1.7e10,91:x,bad,128:1.6e10"})
    assert model_curve(m, "naive") == {64: 1.7e10, 128: 1.6e10}
    assert model_curve(m, "tiled") == {}


@pytest.mark.skipif(SWEEP is None, reason="no committed sweep run")
def test_a_committed_sweep_run_is_kept_beside_its_machines_column_and_reported(tmp_path, capsys):
    measured, _ = load_machines([SWEEP.parent])
    m = next(m for m in measured if m.sweep is not None)
    # Its sizes between the ladder's are in the sweep, never in the machine's column.
    assert any(c["size"] == 91 for c in m.sweep.cases.values())
    assert not any(c["size"] == 91 for c in m.cases.values())
    lines = sweep_markdown(m)
    assert "## Rate against n, measured and modelled" in lines
    points = sweep_points(m.sweep)
    assert {"naive", "interchange", "autovec", "tiled", "avx2"} <= set(points) or {"naive", "autovec"} <= set(points)
    for rows in points.values():
        for p in rows:
            assert p["model"] and p["model"] > 0  # every point against its model
            if p["flag"]:
                assert p["why"]  # a mechanism or "unexplained", never nothing
    code, _, err = run(["ladder", str(SWEEP.parent), "--out", str(tmp_path / "ladder.md")], capsys)
    assert code == 0, err
    assert "Rate against n" in (tmp_path / "ladder.md").read_text()
    assert "Rate against n" in (tmp_path / "ladder.html").read_text()


def test_a_loop_held_at_one_pass_a_cycle_is_named_from_its_compiled_loop_and_the_measured_clock():
    # interchange on the Zen 5 VM: one scalar multiply-add (2 FLOP) a pass of its compiled loop, a
    # 4.24 GHz clock: at most 8.48 GFLOP/s, against a model of its unit's 17 GFLOP/s.
    loop = {"rung_inner_loop_fields": "instructions,arithmetic,stack_loads,stack_stores,flops",
            "rung_inner_loop/interchange": "6,1,0,0,2", "cpu_clock_measured_hz": "4.24e9"}
    m = sweep_machine({"interchange": {64: 8.1, 91: 8.0, 128: 2.0}}, model=17, context=loop)
    points = {p["n"]: p for p in sweep_points(m)["interchange"]}
    assert points[64]["why"].startswith("one pass of its loop a cycle") and "8.48 GFLOP/s" in points[64]["why"]
    assert points[128]["why"] == "unexplained"  # a quarter of that bound: not held by it
    del m.context["cpu_clock_measured_hz"]  # no measured clock: no bound claimed
    assert all(p["why"] == "unexplained" for p in sweep_points(m)["interchange"])
