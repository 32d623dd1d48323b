#!/usr/bin/env bash
# Runs a command in a Debian 13 (trixie) root over a copy of this tree's tracked files, as root:
#   scripts/debian13-root.sh ROOT 'COMMAND'
# The root is made with debootstrap from Debian's registry the first time and kept; it is made
# anew where scripts/setup.sh (which installs the packages, inside it) has changed since. The tree
# goes to ROOT/src, each changed file with a new time (build/ and .venv/ there are kept: builds are
# incremental). COMMAND runs in /src with a clean environment and LADDER_IN_DEBIAN13_ROOT=1.
# Exit status: COMMAND's; 1 where the root cannot be made (the reason in one line).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$1" command="$2"
[ "$(id -u)" -eq 0 ] || { echo "debian13-root: needs root (debootstrap and chroot)" >&2; exit 1; }
if ! command -v debootstrap >/dev/null 2>&1; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null 2>&1 ||
    { echo "debian13-root: cannot install debootstrap; as root: apt-get install debootstrap" >&2; exit 1; }
fi
root="$(realpath -m "$root")"
stamp="$(sha256sum scripts/setup.sh | cut -d' ' -f1)"
if [ -x "$root/usr/bin/apt-get" ] && [ "$(cat "$root/.ladder-setup-stamp" 2>/dev/null)" != "$stamp" ]; then
  echo "debian13-root: scripts/setup.sh changed since $root was made: making it anew"
  rm -rf --one-file-system "$root"
fi
if ! [ -x "$root/usr/bin/apt-get" ]; then
  echo "debian13-root: making a Debian 13 root in $root (debootstrap, a few minutes)"
  mkdir -p "$(dirname "$root")"
  debootstrap --variant=minbase trixie "$root" http://deb.debian.org/debian >"$root.debootstrap.log" 2>&1 ||
    { tail -5 "$root.debootstrap.log" >&2; echo "debian13-root: debootstrap failed ($root.debootstrap.log)" >&2; exit 1; }
  echo "$stamp" >"$root/.ladder-setup-stamp"
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"
# The host's own certificate authorities and pip configuration (a proxy's CA, a mirror) carry over.
mkdir -p "$root/usr/local/share/ca-certificates"
cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/" 2>/dev/null || true
[ -f /etc/pip.conf ] && cp /etc/pip.conf "$root/etc/pip.conf"

# The tree as it is (tracked files), beside the root's own build outputs: a file that differs is
# copied with a new time, so that the build there sees it (a copy keeping an older time would not
# be rebuilt), one that is the same is left, and one no longer tracked goes.
mkdir -p "$root/src"
git ls-files -z | while IFS= read -r -d '' f; do
  if ! cmp -s "$f" "$root/src/$f"; then
    mkdir -p "$root/src/$(dirname "$f")"
    rm -f "$root/src/$f" && cp "$f" "$root/src/$f"
  fi
done
comm -23 <(cd "$root/src" && find . \( -path ./build -o -path ./.venv \) -prune -o \( -type f -o -type l \) -print | sed 's|^\./||' | sort) \
         <(git ls-files | sort) | (cd "$root/src" && xargs -r -d '\n' rm -f)

mounted=()
cleanup() { for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" 2>/dev/null || true; done; }
trap cleanup EXIT
for fs in proc sys dev dev/pts; do
  mount --bind "/$fs" "$root/$fs"
  mounted+=("$root/$fs")
done

status=0
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 LADDER_IN_DEBIAN13_ROOT=1 \
  ${CI:+CI="$CI"} /bin/bash -c '
  set -o pipefail
  cd /src && mkdir -p build
  if ! [ -f /etc/ssl/certs/ca-certificates.crt ] || [ /usr/local/share/ca-certificates -nt /etc/ssl/certs/ca-certificates.crt ]; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ca-certificates >/dev/null
    update-ca-certificates >/dev/null
  fi
  '"$command" || status=$?
exit "$status"
