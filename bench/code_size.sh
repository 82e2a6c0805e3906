#!/usr/bin/env bash
# Prints the longest functions under src/ and every source file over 500 lines, with the reason
# it is that long (bench/code_size_reasons.txt: one "path: reason" line per file).
# Exits 1 when a function is over MAX_FUNCTION lines or a file over 500 lines has no reason.
# Usage: bench/code_size.sh        env: TOP=20 (functions listed) MAX_FUNCTION=150
# Needs universal-ctags (Debian package universal-ctags).
set -euo pipefail
cd "$(dirname "$0")/.."
TOP="${TOP:-20}"
MAX_FUNCTION="${MAX_FUNCTION:-150}"
REASONS=bench/code_size_reasons.txt
command -v ctags >/dev/null || { echo "code_size: ctags not found (apt-get install universal-ctags)" >&2; exit 2; }
ctags --version 2>/dev/null | grep -q "Universal Ctags" ||
  { echo "code_size: needs universal-ctags (found another ctags)" >&2; exit 2; }

mapfile -t files < <(git ls-files 'src/*.cc' 'src/*.h')
# One row per function: lines, name, path:line (a function's lines run from its first to its end
# line, both included; lambdas count towards the function that holds them).
functions="$(ctags --languages=C++ --c++-kinds=f --fields=+ne -o - "${files[@]}" 2>/dev/null |
  awk -F'\t' '{
    line = ""; end = ""; scope = "";
    for (i = 4; i <= NF; i++) {
      if ($i ~ /^line:/) line = substr($i, 6);
      else if ($i ~ /^end:/) end = substr($i, 5);
      else if ($i ~ /^(class|struct|namespace):/) { scope = $i; sub(/^[a-z]+:/, "", scope); }
    }
    if (line != "" && end != "") {
      name = (scope == "" ? $1 : scope "::" $1);
      gsub(/__anon[0-9a-f]+::/, "", name);  # anonymous namespaces
      printf "%d\t%s\t%s:%s\n", end - line + 1, name, $2, line;
    }
  }' | sort -t$'\t' -k1,1nr -k3,3)"

status=0
echo "The $TOP longest functions under src/ (lines, function, where):"
printf '%s\n' "$functions" |
  awk -F'\t' -v top="$TOP" 'NR <= top { printf "  %5d  %s  (%s)\n", $1, $2, $3 }'
over="$(printf '%s\n' "$functions" | awk -F'\t' -v max="$MAX_FUNCTION" '$1 > max' | wc -l)"
echo "Functions over $MAX_FUNCTION lines: $over"
[ "$over" -eq 0 ] || status=1

echo
echo "Files over 500 lines (lines, file, reason):"
long=0
while read -r lines path; do
  [ "$path" = total ] && continue
  [ "$lines" -gt 500 ] || continue
  long=$((long + 1))
  reason="$(grep -E "^$path: " "$REASONS" 2>/dev/null | head -n 1 | sed 's/^[^:]*: //')" || true
  if [ -z "$reason" ]; then
    reason="NO REASON GIVEN (add one to $REASONS or split the file)"
    status=1
  fi
  printf '  %5d  %s: %s\n' "$lines" "$path" "$reason"
done < <(wc -l "${files[@]}" | sort -nr)
[ "$long" -gt 0 ] || echo "  none"
exit "$status"
