#!/usr/bin/env bash
# Compiles every translation unit that uses oneDNN against oneDNN 3.x's headers, as Debian 13
# (trixie) ships them, whatever this machine has: the package is downloaded from Debian's trixie
# suite into build/onednn3/ with apt's own client on a private list and state (the system's apt
# configuration and packages are not touched), unpacked there, and each file is compiled with
# its real command from the given build's compile_commands.json, the 3.x headers first.
#   scripts/check-onednn3.sh [build-dir]     (default build/ci)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/ci}"
work="$PWD/build/onednn3"
commands="$build/compile_commands.json"
[ -f "$commands" ] || { echo "check-onednn3: no $commands (build that preset first)" >&2; exit 1; }

if ! [ -f "$work/root/usr/include/oneapi/dnnl/dnnl_version.h" ]; then
  mkdir -p "$work/state/lists/partial" "$work/cache/archives/partial" "$work/debs"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main" >"$work/sources.list"
  : >"$work/state/status"
  apt_private=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/nonexistent
               -o "Dir::State=$work/state" -o "Dir::State::status=$work/state/status"
               -o "Dir::Cache=$work/cache" -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
  for attempt in 1 2; do
    if apt-get "${apt_private[@]}" -qq update >"$work/apt.log" 2>&1 &&
       (cd "$work/debs" && apt-get "${apt_private[@]}" -qq download libdnnl-dev >>"$work/apt.log" 2>&1); then
      break
    fi
    [ "$attempt" = 2 ] && { tail -5 "$work/apt.log" >&2; echo "check-onednn3: could not download libdnnl-dev from Debian's trixie suite ($work/apt.log)" >&2; exit 1; }
    sleep 5
  done
  dpkg-deb -x "$work"/debs/libdnnl-dev_*.deb "$work/root"
fi
version=$(sed -n 's/^#define DNNL_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' "$work/root/usr/include/oneapi/dnnl/dnnl_version.h" | paste -sd.)

python3 - "$commands" "$work/root/usr/include" "$version" <<'EOF'
import json, shlex, subprocess, sys
commands, include, version = sys.argv[1], sys.argv[2], sys.argv[3]
# A unit that calls oneDNN itself, or includes one of the oneDNN backend's headers (the model's
# GEMM policy is such a header: model_backends.cpp never names dnnl itself).
def uses_onednn(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    return "dnnl" in text or '#include "onednn/' in text
units = [e for e in json.load(open(commands)) if e["file"].endswith(".cpp") and uses_onednn(e["file"])]
if not units:
    sys.exit("check-onednn3: no translation unit in %s uses oneDNN (configure with LADDER_WITH_ONEDNN=ON)" % commands)
failed = 0
for e in units:
    args = shlex.split(e["command"]) if "command" in e else e["arguments"]
    out = [a for a in args]
    # The output goes nowhere; the 3.x headers come before the system's 2.x.
    if "-o" in out:
        i = out.index("-o")
        del out[i:i + 2]
    out = [out[0], "-I" + include] + out[1:] + ["-fsyntax-only"]
    result = subprocess.run(out, cwd=e["directory"], capture_output=True, text=True)
    if result.returncode != 0:
        failed += 1
        print(result.stderr[-3000:], file=sys.stderr)
        print(f"check-onednn3: {e['file']} does not compile against oneDNN {version}", file=sys.stderr)
if failed:
    sys.exit(1)
print(f"check-onednn3: {len(units)} translation units compile against oneDNN {version} (Debian 13's headers)")
EOF
