#!/usr/bin/env bash
# Writes a help2man --include file with every subcommand's --help, so the man page (built by
# CMake when help2man is present) documents each subcommand's options and defaults, not only the
# top-level list. Usage: scripts/man_include.sh BUILD/jigsaw OUT_FILE
set -euo pipefail
bin="$1"
out="$2"
# A default naming a shipped data file is the build tree's absolute path here; the installed
# binary looks in <prefix>/share/jigsaw/data (core/data_files.h), so the page says that.
build_parent="$(cd "$(dirname "$bin")/.." && pwd -P)"
{
  echo "[SUBCOMMANDS]"
  for sub in $("$bin" --help | awk '/^Subcommands:/ { on = 1; next } on && NF { print $1 }'); do
    echo ".SS $sub"
    echo ".nf"
    # roff: escape backslashes and lines starting with a dot or quote.
    ("$bin" "$sub" --help 2>&1 || true) | sed -e 's|Usage: [^ ]*jigsaw\(-runtime\)\{0,1\}|Usage: jigsaw|' \
      -e "s|$build_parent/data/|<prefix>/share/jigsaw/data/|g" \
      -e "s|$build_parent/share/jigsaw/data/|<prefix>/share/jigsaw/data/|g" \
      -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/"
    echo ".fi"
  done
} >"$out"
