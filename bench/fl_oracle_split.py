#!/usr/bin/env python3
"""Oracle 2-cohort splits of the FEMNIST writers, and the 105-writer score of per-group runs.

The splits are chosen with full knowledge of every writer's training labels (which Auxo does
not have), as an upper-bound-style check (docs/results/fl.md, "FEMNIST with oracle 2-cohort
splits").

Usage:
  bench/fl_oracle_split.py split DATA_DIR OUT_DIR
      Writes OUT_DIR/{labelmix,labelmix50,digits}_{0,1}.txt (one LEAF writer id a line, for
      `jigsaw fl --client-list`) and prints each group's size and label profile.
      labelmix: 2-means (20 restarts, seed 1) on each writer's normalised 62-class training
        label histogram. labelmix50: the same 2-means fitted on the writers with at least 50
        training samples, every writer then in the group of the nearer centre. digits: writers
        sorted by the share of digit labels (classes 0-9) in their training data, the lower half
        (floor(n / 2) writers) against the rest.
  bench/fl_oracle_split.py score CLIENTS_CSV [CLIENTS_CSV ...]
      Joins the runs' clients.csv on the writer id (each writer must appear exactly once) and
      prints writers, mean accuracy, worst 10% (mean of the lowest floor(n / 10)), bias
      (population standard deviation), as `jigsaw fl`'s summary.json computes them.
Writers: those with training and test samples in shards present in both train/ and test/, in
the order `jigsaw fl` reads them (shards sorted by name, writers in file order).
"""
import csv
import gzip
import json
import math
import os
import random
import sys

CLASSES = 62
DIGITS = 10
MIN_SAMPLES = 50


def load_json(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def read_writers(data_dir):
    """[(writer id, training labels)] in jigsaw fl's order."""
    train_dir = os.path.join(data_dir, "train")
    test_dir = os.path.join(data_dir, "test")
    writers = []
    for shard in sorted(n for n in os.listdir(train_dir) if ".json" in n):
        if "_train_" not in shard:
            continue
        test_name = shard.replace("_train_", "_test_", 1)
        if not os.path.exists(os.path.join(test_dir, test_name)):
            continue
        train = load_json(os.path.join(train_dir, shard))
        test = load_json(os.path.join(test_dir, test_name))
        for user in train["users"]:
            labels = train["user_data"][user]["y"]
            test_data = test["user_data"].get(user)
            if labels and test_data and test_data["y"]:
                writers.append((user, labels))
    return writers


def histogram(labels):
    counts = [0.0] * CLASSES
    for y in labels:
        counts[y] += 1.0
    return [c / len(labels) for c in counts]


def distance2(a, b):
    return sum((x - y) * (x - y) for x, y in zip(a, b))


def two_means(points, restarts=20, seed=1, iterations=100):
    """Lloyd's 2-means from k-means++ starts; the assignment with the lowest inertia."""
    rng = random.Random(seed)
    best = None
    for _ in range(restarts):
        first = rng.randrange(len(points))
        weights = [distance2(p, points[first]) for p in points]
        second = rng.choices(range(len(points)), weights=weights)[0]
        centres = [list(points[first]), list(points[second])]
        assign = None
        for _ in range(iterations):
            new = [0 if distance2(p, centres[0]) <= distance2(p, centres[1]) else 1 for p in points]
            if new == assign:
                break
            assign = new
            for k in (0, 1):
                members = [p for p, a in zip(points, assign) if a == k]
                if members:
                    centres[k] = [sum(col) / len(members) for col in zip(*members)]
        inertia = sum(distance2(p, centres[a]) for p, a in zip(points, assign))
        if best is None or inertia < best[0] - 1e-12:
            best = (inertia, assign, centres)
    return best[1], best[2]


def digit_share(labels):
    return sum(1 for y in labels if y < DIGITS) / len(labels)


def write_split(out_dir, name, writers, assign, note):
    for k in (0, 1):
        ids = [w for (w, _), a in zip(writers, assign) if a == k]
        path = os.path.join(out_dir, "%s_%d.txt" % (name, k))
        with open(path, "w") as f:
            f.write("# %s, group %d of 2: %d writers (bench/fl_oracle_split.py)\n" %
                    (note, k, len(ids)))
            f.write("".join(i + "\n" for i in ids))
        shares = [digit_share(l) for (_, l), a in zip(writers, assign) if a == k]
        samples = sum(len(l) for (_, l), a in zip(writers, assign) if a == k)
        print("%s group %d: %d writers, %d training samples, digit share mean %.3f [%.3f..%.3f]" %
              (name, k, len(ids), samples, sum(shares) / len(shares), min(shares), max(shares)))


def split(data_dir, out_dir):
    writers = read_writers(data_dir)
    os.makedirs(out_dir, exist_ok=True)
    print("%d writers" % len(writers))
    points = [histogram(labels) for _, labels in writers]
    assign, _ = two_means(points)
    write_split(out_dir, "labelmix", writers, assign, "2-means on the training label histogram")
    # The same on the writers with at least MIN_SAMPLES training samples (a histogram of 4
    # samples is mostly noise); the others join the nearer centre.
    fitted = [i for i, (_, labels) in enumerate(writers) if len(labels) >= MIN_SAMPLES]
    _, centres = two_means([points[i] for i in fitted])
    assign = [0 if distance2(p, centres[0]) <= distance2(p, centres[1]) else 1 for p in points]
    write_split(out_dir, "labelmix50", writers, assign,
                "2-means on the label histograms of writers with >= %d samples" % MIN_SAMPLES)
    order = sorted(range(len(writers)), key=lambda i: (digit_share(writers[i][1]), i))
    low = set(order[: len(writers) // 2])
    assign = [0 if i in low else 1 for i in range(len(writers))]
    cut = (digit_share(writers[order[len(writers) // 2 - 1]][1]),
           digit_share(writers[order[len(writers) // 2]][1]))
    print("digits: median cut between shares %.3f and %.3f" % cut)
    write_split(out_dir, "digits", writers, assign, "digit share, lower half vs the rest")


def score(paths):
    accuracy = {}
    for path in paths:
        with open(path) as f:
            for row in csv.DictReader(f):
                if row["client"] in accuracy:
                    sys.exit("%s: writer %s appears twice" % (path, row["client"]))
                accuracy[row["client"]] = float(row["accuracy"])
    values = sorted(accuracy.values())
    n = len(values)
    mean = sum(values) / n
    worst = max(1, n // 10)
    worst10 = sum(values[:worst]) / worst
    bias = math.sqrt(sum((v - mean) ** 2 for v in values) / n)
    print("writers %d mean %.4f worst10 %.4f bias %.4f" % (n, mean, worst10, bias))


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "split":
        split(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 3 and sys.argv[1] == "score":
        score(sys.argv[2:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
