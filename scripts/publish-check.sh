#!/usr/bin/env bash
# The committed artefacts are what `report.py publish` makes from the committed runs, byte for
# byte: publishes into a scratch folder and names every committed table, report or figure that
# differs from it, and every one it no longer makes (stale). Exit 1 on any; fix: report.py publish.
set -euo pipefail
cd "$(dirname "$0")/.."
py=.venv/bin/python
[ -x "$py" ] || { echo "publish-check: no .venv (run scripts/setup.sh)"; exit 77; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$py" scripts/report.py publish --out "$scratch" >/dev/null
bad=0
while IFS= read -r f; do
  if [ ! -e "$scratch/$f" ]; then
    echo "publish-check: $f is committed but report.py publish no longer makes it (stale)"; bad=1
  elif ! cmp -s "$f" "$scratch/$f"; then
    echo "publish-check: $f differs from what report.py publish makes from the committed runs"; bad=1
  fi
done < <(git ls-files plots results/tables 'results/*/ladder.*' docs/ladder.md README.md)
while IFS= read -r f; do
  git ls-files --error-unmatch "$f" >/dev/null 2>&1 || { echo "publish-check: report.py publish makes $f, which is not committed"; bad=1; }
done < <(cd "$scratch" && find . -type f | sed 's|^\./||' | sort)
[ "$bad" = 0 ] && echo "publish-check: every committed artefact is what report.py publish makes ($(cd "$scratch" && find . -type f | wc -l) files)"
exit "$bad"
