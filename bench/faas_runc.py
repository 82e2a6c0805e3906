#!/usr/bin/env python3
"""What OpenWhisk's invoker pays to resume a paused container, measured with runc itself.

OpenWhisk (use-runc: true, its default) pauses an idle action container with `runc pause` and
resumes it with `runc resume`, each a fresh runc process started by the invoker. This probe starts
one busybox container with runc, then times rounds of `runc pause` / `runc resume` the same way
(wall time of the whole command, process start included), on an idle host and with every core
kept busy by spinning processes (an invoker whose cores all run activations, as at the baseline's
edge). It also times a cold start of the same container (`runc run -d` of a prepared bundle; the
image pull and Docker's own work are not included, so it is a lower bound of OpenWhisk's cold
start). Needs root, runc and a static busybox (Debian: runc, busybox-static).

Usage: bench/faas_runc.py [ROUNDS] [BUSY_LEVELS]   e.g. bench/faas_runc.py 300 0,2,4
BUSY_LEVELS: spinning processes per row (default: 0 and the core count)."""

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def need(tool):
    path = shutil.which(tool)
    if not path:
        sys.exit(f"faas_runc: {tool} not found (Debian packages runc and busybox-static)")
    return path


def quantile(values, q):
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def summary(values):
    return "%.1f / %.1f / %.1f / %.1f / %.1f" % (
        statistics.mean(values),
        statistics.median(values),
        quantile(values, 0.9),
        quantile(values, 0.99),
        max(values),
    )


def make_bundle(directory, busybox):
    rootfs = os.path.join(directory, "rootfs")
    os.makedirs(os.path.join(rootfs, "bin"))
    shutil.copy(busybox, os.path.join(rootfs, "bin", "busybox"))
    for applet in ("sh", "sleep"):
        os.symlink("busybox", os.path.join(rootfs, "bin", applet))
    subprocess.run(["runc", "spec"], cwd=directory, check=True)
    config_path = os.path.join(directory, "config.json")
    with open(config_path) as f:
        config = json.load(f)
    config["process"]["terminal"] = False
    config["process"]["args"] = ["sleep", "1000000"]
    with open(config_path, "w") as f:
        json.dump(config, f)


def timed(command):
    start = time.perf_counter()
    subprocess.run(command, check=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    return (time.perf_counter() - start) * 1000.0


def spin_forever():
    while True:
        pass


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    cores = os.cpu_count() or 1
    levels = [int(x) for x in sys.argv[2].split(",")] if len(sys.argv) > 2 else [0, cores]
    if os.geteuid() != 0:
        sys.exit("faas_runc: needs root (runc creates cgroups and namespaces)")
    need("runc")
    busybox = need("busybox")
    work = tempfile.mkdtemp(prefix="faas_runc.")
    root = os.path.join(work, "state")
    runc = ["runc", "--root", root]
    name = "jigsaw-probe-%d" % os.getpid()
    spinners = []
    try:
        make_bundle(work, busybox)
        print("host: %s, %d cores, load average %s" % (
            os.uname().release, cores, " ".join(open("/proc/loadavg").read().split()[:3])))
        print()
        print("| busy spinners | rounds | runc resume ms mean / p50 / p90 / p99 / max | "
              "runc pause ms mean / p50 / p90 / p99 / max | cold start (runc run -d) ms p50 / max |")
        print("|---|---|---|---|---|")
        for level in levels:
            for _ in range(level):
                pid = os.fork()
                if pid == 0:
                    os.nice(0)
                    spin_forever()
                spinners.append(pid)
            time.sleep(0.2)
            colds = []
            for i in range(5):
                colds.append(timed(runc + ["run", "-d", "--bundle", work, name]))
                if i < 4:
                    subprocess.run(runc + ["delete", "-f", name], check=True)
            pauses, resumes = [], []
            for _ in range(rounds):
                pauses.append(timed(runc + ["pause", name]))
                time.sleep(0.06)  # past OpenWhisk 1.0.0's 50 ms pause grace
                resumes.append(timed(runc + ["resume", name]))
                time.sleep(0.01)
            subprocess.run(runc + ["delete", "-f", name], check=True)
            for pid in spinners:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
            spinners = []
            print("| %d | %d | %s | %s | %.1f / %.1f |" % (
                level, rounds, summary(resumes), summary(pauses),
                statistics.median(colds), max(colds)))
            sys.stdout.flush()
    finally:
        for pid in spinners:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        subprocess.run(runc + ["delete", "-f", name], stderr=subprocess.DEVNULL)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
