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
# The sections help2man cannot take from --help.
cat >>"$out" <<'MAN'
[EXAMPLES]
.nf
jigsaw sim                                   # the default synthetic workload; out/sim/
jigsaw sim --policy shockwave --jobs 200 --gpus 64 --out out/shockwave
jigsaw net --topology fattree:k=4 --traffic incast:6:500KB --cc dcqcn
jigsaw d2r --topology Abilene.graphml --fail each-link --out out/d2r
jigsaw faas-sim --load 0.6 --requests 20000
jigsaw train --model lenet --dataset fashion-mnist --workers 2 --epochs 1
jigsaw -q sweep examples/sweep_shockwave.toml
jigsaw report out/sim out/shockwave out/d2r --out out/report
.fi
[EXIT STATUS]
.TP
.B 0
Success; also for \-\-help and \-\-version.
.TP
.B 1
The run failed (a worker died, a run of a sweep failed, an unexpected error).
.TP
.B 2
A usage error or bad input: an unknown option or subcommand, a value out of range, a malformed
file (reported as file:line and what was expected). Nothing was run.
.TP
.B 3
jigsaw net only: the outputs are written but the run stopped (\-\-stop, or no events left) with
flows or jobs unfinished.
[ENVIRONMENT]
.TP
.B JIGSAW_DATA_DIR
A data folder searched first: for the shipped data files (throughput tables, efficiencies) and
for the shared real data (datasets/cifar10/cifar10\-jpeg.tar.gz, datasets/femnist, traces), the
defaults of \-\-data\-dir, \-\-cifar and \-\-femnist. Without it: <prefix>/share/jigsaw/data beside
the executable, and ../shared/data beside the source tree or the working directory.
.TP
.B XDG_CACHE_HOME
Where decoded CIFAR\-10 images are cached (<XDG_CACHE_HOME>/jigsaw, default ~/.cache/jigsaw).
.TP
.B OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE, PMI_RANK, PMI_SIZE
Set by mpirun: jigsaw sweep runs its share of the runs.
.TP
.B TMPDIR
Where the local training launcher makes its private rendezvous folder.
MAN
