"""Runs from many machines into one results tree: bundles, gathering, conflicts."""
import io
import json
import tarfile

from ladderreport.fleet import fingerprint, gather
from ladderreport.testing import RESULT, run


def a_run(tmp_path, name="run.json", **context):
    doc = json.loads(RESULT.read_text())
    doc["context"].update(context)
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path, doc["context"]["machine_id"]


def test_a_bundle_gathers_into_its_machines_folder_once(tmp_path, capsys):
    path, machine = a_run(tmp_path)
    assert run(["bundle", str(path), "--out", str(tmp_path / "b.tar.gz")], capsys)[0] == 0
    with tarfile.open(tmp_path / "b.tar.gz") as tar:
        manifest = json.loads(tar.extractfile("ladderbench-bundle.json").read())
    assert manifest["runs"][0]["machine_id"] == machine and manifest["runs"][0]["fingerprint"]["cpu_model"]
    code, out, _ = run(["gather", str(tmp_path / "b.tar.gz"), "--into", str(tmp_path / "db")], capsys)
    assert code == 0 and (tmp_path / "db" / machine / "run.json").read_bytes() == path.read_bytes()
    code, out, _ = run(["gather", str(tmp_path / "b.tar.gz"), "--into", str(tmp_path / "db")], capsys)
    assert code == 0 and "skipped" in out  # the same run twice: already there, not a conflict


def test_a_shared_results_folder_from_several_nodes_is_gathered_and_other_hardware_under_one_id_refused(tmp_path):
    shared = tmp_path / "shared"
    (shared / "n1").mkdir(parents=True)
    (shared / "n2").mkdir()
    one, machine = a_run(shared / "n1", "one.json")
    a_run(shared / "n2", "two.json", machine_id="other-node-2c")
    merged, skipped, conflicts = gather([shared], tmp_path / "db")
    assert len(merged) == 2 and not conflicts
    assert (tmp_path / "db" / "other-node-2c" / "two.json").exists()
    # The same id, other hardware: named with what differs, not merged, the rest still gathered.
    a_run(tmp_path, "imposter.json", cpu_model="Intel Xeon 6980P", cpu_cores="128")
    a_run(tmp_path, "fine.json", machine_id="third-2c")
    merged, _, conflicts = gather([tmp_path / "imposter.json", tmp_path / "fine.json"], tmp_path / "db")
    assert len(merged) == 1 and "third-2c" in merged[0]
    assert len(conflicts) == 1 and f"machine id {machine} is already another machine" in conflicts[0]
    assert "cpu_model" in conflicts[0] and not (tmp_path / "db" / machine / "imposter.json").exists()


def test_gather_refuses_what_is_not_a_run_and_members_that_climb_out(tmp_path):
    (tmp_path / "junk.json").write_text("{not json")
    (tmp_path / "foreign.json").write_text(json.dumps({"context": {}, "benchmarks": []}))
    evil = tmp_path / "evil.tar.gz"
    data = RESULT.read_bytes()
    with tarfile.open(evil, "w:gz") as tar:
        info = tarfile.TarInfo("../../escaped.json")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    merged, _, conflicts = gather([tmp_path / "junk.json", tmp_path / "foreign.json", evil, tmp_path / "absent"],
                                  tmp_path / "db")
    assert not merged and not (tmp_path.parent / "escaped.json").exists()
    assert any("not readable JSON" in c for c in conflicts) and any("no usable machine_id" in c for c in conflicts)
    assert any("no such file" in c for c in conflicts)


def test_the_fingerprint_ignores_a_few_megabytes_of_memory_but_not_a_cpu():
    base = {"cpu_model": "AMD EPYC", "cpu_cores": "2", "memory_total_bytes": str(24 * 2 ** 30)}
    assert fingerprint(base) == fingerprint({**base, "memory_total_bytes": str(24 * 2 ** 30 - 5 * 2 ** 20)})
    assert fingerprint(base) != fingerprint({**base, "cpu_cores": "4"})


def test_references_are_each_cases_median_with_a_tolerance_from_its_spread(tmp_path, capsys):
    from ladderreport.fleet import references

    def doc(*rates):
        return {"benchmarks": [{"run_name": "gemm/naive/f32/n:512/real_time", "run_type": "iteration", "flops": r * 1e9}
                               for r in rates] +
                              [{"run_name": "stream/triad/f64/n:8/real_time", "run_type": "iteration", "bytes_per_second": 5e10},
                               {"run_name": "overhead/empty-call/-/ops:1000", "run_type": "iteration", "seconds_per_op": 1e-9}]}
    table = references([doc(10, 10, 10), doc(10, 10, 10)])
    assert table["gemm/naive/f32/n=512"] == [10.0, -0.1, None, "GFLOP/s"]  # no spread: the floor
    assert table["stream/triad/f64/n=8"][3] == "GB/s" and "overhead/empty-call/-/ops=1000" not in table
    spread = references([doc(8, 8, 8), doc(12, 12, 12)])["gemm/naive/f32/n=512"]
    assert spread[0] == 10.0 and spread[1] == -0.5  # 20% across runs, three times: capped at 50%
    path, machine = a_run(tmp_path, "run.json")
    (tmp_path / machine).mkdir()
    path.rename(tmp_path / machine / "run.json")
    code, out, _ = run(["references", "--machine", machine, "--system", "c:cpu", "--results", str(tmp_path),
                        "--out", str(tmp_path / "refs.json"), "--floor", "0.2"], capsys)
    assert code == 0, out
    assert json.loads((tmp_path / "refs.json").read_text())["c:cpu"]
    assert run(["references", "--machine", "nobody", "--system", "c:cpu", "--results", str(tmp_path),
                "--out", str(tmp_path / "refs.json")], capsys)[0] == 2
