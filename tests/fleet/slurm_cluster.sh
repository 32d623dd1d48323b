#!/usr/bin/env bash
# A real two-node Slurm cluster on this host, from Debian's packages (munge, slurmctld, two slurmd
# as nodes n1 and n2, in partitions cpu and gpu; with accounting, MariaDB and slurmdbd, where they
# are installed), under a temporary prefix: the smoke profile
# submitted to both through fleet/slurm/submit, a job that fails named with its node and reason
# while the others' results stand, the shared folder gathered into a fresh results tree and its
# tables published, ReFrame's check through the squeue scheduler (and the slurm one, with
# accounting); then every daemon it started stopped by its PID. Exit 77 (skipped) where the
# packages are not installed (scripts/setup.sh --for-tests installs them).
#
#   tests/fleet/slurm_cluster.sh BUILD_DIR
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: slurm_cluster.sh BUILD_DIR}" && pwd)
for tool in munged slurmctld slurmd sbatch squeue sinfo; do
  command -v "$tool" >/dev/null || { echo "slurm_cluster: no $tool (Debian: munge slurmctld slurmd slurm-client)"; exit 77; }
done
[ "$(id -u)" = 0 ] || { echo "slurm_cluster: slurmd runs jobs as their user only as root here"; exit 77; }
prefix=$(mktemp -d /tmp/ladder-slurm.XXXXXX)
chmod 755 "$prefix"
pids=()
stop() {
  for pidfile in "$prefix"/slurmd-n1.pid "$prefix"/slurmd-n2.pid "$prefix"/slurmctld.pid "$prefix"/slurmdbd.pid \
    "$prefix"/mysql/mysqld.pid "$prefix"/munge/munged.pid; do
    [ -s "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null
  done
  sleep 1
  for pidfile in "$prefix"/*.pid "$prefix"/mysql/mysqld.pid "$prefix"/munge/munged.pid; do
    [ -s "$pidfile" ] && kill -9 "$(cat "$pidfile")" 2>/dev/null
  done
  rm -rf "$prefix"
}
trap stop EXIT
fail() { echo "slurm_cluster: $*" >&2; tail -n 20 "$prefix"/log/*.log "$prefix"/shared/logs/* 2>/dev/null >&2; exit 1; }

# Ports out of the way of another cluster on this host and of a second copy of this test.
base=$((20000 + RANDOM % 20000))
# Accounting (MariaDB and slurmdbd) where both are installed: then ReFrame's "slurm" scheduler,
# which reads job states with sacct, runs too.
accounting=false
command -v mariadbd >/dev/null && command -v mariadb-install-db >/dev/null && command -v slurmdbd >/dev/null &&
  command -v sacctmgr >/dev/null && accounting=true
mkdir -p "$prefix"/{munge,state,spool,log,shared}
chmod 755 "$prefix/munge"
head -c 1024 /dev/urandom >"$prefix/munge/munge.key"
chmod 400 "$prefix/munge/munge.key"
host=$(hostname)
cat >"$prefix/slurm.conf" <<CONF
ClusterName=ladder-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$base
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$prefix/munge/munge.socket.2
CredType=cred/munge
StateSaveLocation=$prefix/state
SlurmdSpoolDir=$prefix/spool/%n
SlurmctldPidFile=$prefix/slurmctld.pid
SlurmdPidFile=$prefix/slurmd-%n.pid
SlurmctldLogFile=$prefix/log/slurmctld.log
SlurmdLogFile=$prefix/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
$(if $accounting; then echo "AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=$((base + 3))
AccountingStoragePass=$prefix/munge/munge.socket.2"; else echo "AccountingStorageType=accounting_storage/none"; fi)
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
NodeName=n1 NodeHostname=$host NodeAddr=127.0.0.1 Port=$((base + 1)) CPUs=2 State=UNKNOWN
NodeName=n2 NodeHostname=$host NodeAddr=127.0.0.1 Port=$((base + 2)) CPUs=2 State=UNKNOWN
PartitionName=cpu Nodes=n1 Default=YES MaxTime=INFINITE State=UP
PartitionName=gpu Nodes=n2 MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$prefix/slurm.conf
munged --key-file="$prefix/munge/munge.key" --socket="$prefix/munge/munge.socket.2" \
  --pid-file="$prefix/munge/munged.pid" --log-file="$prefix/log/munged.log" --seed-file="$prefix/munge/seed" --force ||
  fail "munged did not start"
if $accounting; then
  mkdir -p "$prefix/mysql/data"
  mariadb-install-db --no-defaults --datadir="$prefix/mysql/data" --user=root --auth-root-authentication-method=normal \
    --skip-test-db >"$prefix/log/mariadb-install.log" 2>&1 || fail "mariadb-install-db failed"
  mariadbd --no-defaults --datadir="$prefix/mysql/data" --socket="$prefix/mysql/mysql.sock" --skip-networking \
    --user=root --pid-file="$prefix/mysql/mysqld.pid" --log-error="$prefix/log/mariadb.log" >"$prefix/log/mariadb.out" 2>&1 &
  for _ in $(seq 60); do [ -S "$prefix/mysql/mysql.sock" ] && break; sleep 0.5; done
  [ -S "$prefix/mysql/mysql.sock" ] || fail "MariaDB did not start"
  cat >"$prefix/slurmdbd.conf" <<DBD
AuthType=auth/munge
AuthInfo=socket=$prefix/munge/munge.socket.2
DbdHost=localhost
DbdPort=$((base + 3))
SlurmUser=root
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageUser=root
StorageLoc=ladder_acct
PidFile=$prefix/slurmdbd.pid
LogFile=$prefix/log/slurmdbd.log
DBD
  chmod 600 "$prefix/slurmdbd.conf"
  # slurmdbd reads slurmdbd.conf beside SLURM_CONF; the MariaDB client library finds the server's
  # socket through MYSQL_UNIX_PORT.
  MYSQL_UNIX_PORT=$prefix/mysql/mysql.sock slurmdbd ||
    fail "slurmdbd did not start"
  for _ in $(seq 60); do sacctmgr -i add cluster ladder-test >/dev/null 2>&1 && break; sleep 0.5; done
  sacctmgr -n -P list cluster format=cluster | grep -qx ladder-test || fail "sacctmgr could not add the cluster"
fi
slurmctld -f "$SLURM_CONF" || fail "slurmctld did not start"
slurmd -f "$SLURM_CONF" -N n1 || fail "slurmd n1 did not start"
slurmd -f "$SLURM_CONF" -N n2 || fail "slurmd n2 did not start"
for _ in $(seq 60); do
  [ "$(sinfo -h -N -o '%N %t' | sort -u | grep -c idle)" = 2 ] && break
  sleep 0.5
done
[ "$(sinfo -h -N -o '%N %t' | sort -u | grep -c idle)" = 2 ] || fail "the two nodes never came up idle: $(sinfo 2>&1)"
echo "slurm_cluster: two nodes up: $(sinfo -h -o '%R:%N' | tr '\n' ' ')"

wait_for() {  # job ids: until none is queued or running, at most $1 seconds
  local limit=$1; shift
  for _ in $(seq $((limit * 2))); do
    [ -z "$(squeue -h -j "$(
      IFS=,
      echo "$*"
    )" 2>/dev/null)" ] && return 0
    sleep 0.5
  done
  fail "jobs $* still in the queue after ${limit}s: $(squeue 2>&1)"
}
shared=$prefix/shared
mapfile -t jobs < <("$root/fleet/slurm/submit" --exe "$build/ladderbench" --results "$shared" --profile smoke \
  --args "--suite gemm,stream --rungs naive,tiled,parallel" cpu gpu) || fail "submit failed"
[ ${#jobs[@]} = 2 ] || fail "submit printed ${#jobs[@]} job ids, not 2"
mapfile -t broken < <("$root/fleet/slurm/submit" --exe "$build/ladderbench" --results "$shared" --profile smoke \
  --args "--no-such-option" cpu) || fail "submit of the failing job failed"
wait_for 150 "${jobs[@]}" "${broken[@]}"
runs=("$shared"/*/*.json)
[ ${#runs[@]} = 2 ] || fail "${#runs[@]} result files in the shared folder, not 2: ${runs[*]}"
for node in n1 n2; do
  ls "$shared"/*/*-"$node"-*.json >/dev/null 2>&1 || fail "no result from node $node"
done
grep -q "node n1, job ${broken[0]}: ladderbench exited 2" "$shared/failed/n1-${broken[0]}.txt" ||
  fail "the failing job is not named with its node and reason: $(cat "$shared"/failed/* 2>&1)"

# Gathered into a fresh results tree: both runs, the failure named (exit 1), then the tables.
db=$prefix/db
"$root/fleet/slurm/gather" "$shared" --into "$db" >"$prefix/gather.out" 2>&1 && fail "gather hid the failed job"
grep -q "a job failed: node n1, job ${broken[0]}" "$prefix/gather.out" || fail "gather did not name the failed job"
[ "$(find "$db" -name '*.json' | wc -l)" = 2 ] || fail "gather merged $(find "$db" -name '*.json' | wc -l) runs, not 2"
py=$root/.venv/bin/python
[ -x "$py" ] || py=python3
"$py" "$root/scripts/report.py" tables "$db" --out "$prefix/tables" --no-plots >/dev/null || fail "tables from the gathered runs failed"
grep -q "$(basename "$(dirname "${runs[0]}")")" "$prefix/tables/tables.md" || fail "the tables do not name the machine"

# ReFrame's test of the suite through the squeue scheduler, on partition cpu (node n1).
if [ -x "$root/.venv/bin/reframe" ]; then
  TMPDIR=$prefix "$root/.venv/bin/reframe" -C "$root/fleet/reframe/settings.py" -c "$root/fleet/reframe/ladderbench_check.py" \
    --system ladder-cluster:cpu -r -S exe="$build/ladderbench" -S rungs=naive,parallel -S sizes=256 \
    --prefix "$prefix/reframe" >"$prefix/reframe.log" 2>&1 || fail "ReFrame through squeue failed: $(tail -n 30 "$prefix/reframe.log")"
  grep -q "Job type: squeue\|PASSED" "$prefix/reframe.log" || fail "ReFrame did not pass: $(tail -n 30 "$prefix/reframe.log")"
  echo "slurm_cluster: ReFrame's ladderbench check passed through the squeue scheduler on ladder-cluster:cpu"
  if $accounting; then
    TMPDIR=$prefix "$root/.venv/bin/reframe" -C "$root/fleet/reframe/settings.py" -c "$root/fleet/reframe/ladderbench_check.py" \
      --system ladder-cluster-accounting:cpu -r -S exe="$build/ladderbench" -S rungs=naive,parallel -S sizes=256 \
      --prefix "$prefix/reframe-slurm" >"$prefix/reframe-slurm.log" 2>&1 ||
      fail "ReFrame through the slurm scheduler failed: $(tail -n 30 "$prefix/reframe-slurm.log")"
    sacct -n -X -o jobname,state | grep -q "rfm_.*COMPLETED" || fail "sacct does not show ReFrame's job completed: $(sacct -X 2>&1)"
    echo "slurm_cluster: and through the slurm scheduler, with accounting (MariaDB, slurmdbd): sacct shows its job"
  else
    echo "slurm_cluster: note: no MariaDB or slurmdbd here; ReFrame's slurm scheduler (it needs accounting) left out"
  fi
else
  echo "slurm_cluster: note: no ReFrame in .venv; its squeue run left out"
fi

stop
trap - EXIT
leftover=$(pgrep -f "$prefix" || true)
[ -z "$leftover" ] || { echo "slurm_cluster: daemons left running: $leftover" >&2; exit 1; }
echo "slurm_cluster: two nodes' smoke runs submitted through fleet/slurm/submit, a failed job named, gathered, tabled; every daemon stopped"
