#!/usr/bin/env python3
"""One line per `jigsaw train` summary.json given: epochs done, test accuracy (and per epoch with
--per-epoch), mean iteration time. Used by bench/device/evidence.sh to log each run's outcome."""
import json
import sys


def main():
    per_epoch = "--per-epoch" in sys.argv[1:]
    for path in (a for a in sys.argv[1:] if a != "--per-epoch"):
        try:
            with open(path) as f:
                s = json.load(f)
        except (OSError, ValueError) as e:
            print(f"  {path}: unreadable ({e})")
            continue
        line = (f"  {path}: {s['epochs_done']}/{s['epochs']} epochs, test accuracy "
                f"{s['test_accuracy']:.4f}, {1000 * s['mean_iter_s']:.1f} ms/iteration")
        if per_epoch:
            line += ", per epoch " + " ".join(f"{a:.4f}" for a in s["epoch_test_accuracy"])
        print(line)


if __name__ == "__main__":
    main()
