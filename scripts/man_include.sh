#!/usr/bin/env bash
# Writes a help2man --include file with every subcommand's --help, so the man page (built by
# CMake when help2man is present) documents each subcommand's options and defaults, not only the
# top-level list. Usage: scripts/man_include.sh BUILD/jigsaw OUT_FILE
set -euo pipefail
bin="$1"
out="$2"
{
  echo "[SUBCOMMANDS]"
  for sub in $("$bin" --help | awk '/^Subcommands:/ { on = 1; next } on && NF { print $1 }'); do
    echo ".SS $sub"
    echo ".nf"
    # roff: escape backslashes and lines starting with a dot or quote.
    ("$bin" "$sub" --help 2>&1 || true) | sed -e 's|Usage: [^ ]*jigsaw\(-runtime\)\{0,1\}|Usage: jigsaw|' \
      -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/"
    echo ".fi"
  done
} >"$out"
