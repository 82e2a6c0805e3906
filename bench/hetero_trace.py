#!/usr/bin/env python3
"""Source trace for bench/hetero.sh: Gavel's continuous-single job distribution.

Writes a Gavel 10-column trace (tab-separated) of N single-GPU jobs drawn with a seed as Gavel's
generator (scheduler/scripts/utils/generate_trace.py, read for facts) draws them: a job type
uniformly from the throughput table's single-GPU types, a duration of 60 * 10^U(1.5, 3) s with
probability 0.8 and 60 * 10^U(3, 4) s otherwise, and total_steps = duration x the type's V100
throughput. Arrival times are 0: `jigsaw sim --arrival-rate-jph` draws the Poisson stream.
Usage: hetero_trace.py THROUGHPUTS_JSON JOBS SEED > trace
"""
import ast
import json
import random
import sys


def main():
    table_path, jobs, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    with open(table_path) as f:
        v100 = json.load(f)["v100"]
    types = sorted(ast.literal_eval(key)[0] for key in v100 if ast.literal_eval(key)[1] == 1)
    rng = random.Random(seed)
    for _ in range(jobs):
        job_type = types[rng.randrange(len(types))]
        if rng.random() < 0.8:
            duration = 60 * 10 ** rng.uniform(1.5, 3)
        else:
            duration = 60 * 10 ** rng.uniform(3, 4)
        throughput = v100["('%s', 1)" % job_type]["null"]
        steps = max(1, round(duration * throughput))
        print("\t".join([job_type, "-", "-", "--num_steps", "0", str(steps), "1", "1", "-1", "0"]))


if __name__ == "__main__":
    main()
