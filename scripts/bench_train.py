#!/usr/bin/env python3
"""Benchmark data of `rsmreport train` (issue 52 point 3).

    python3 scripts/bench_train.py DIR [N_TRAIN [N_TEST [FEATURES]]]

Writes DIR/train.csv (N_TRAIN responses, default 1,000,000), DIR/test.csv
(N_TEST, default 250,000) and DIR/train.toml: LinearRegression on FEATURES
(default 40) raw features with every section (two subgroups, a second
human score on 30% of the evaluation responses, a length column, fairness
analyses, intervals, the report). Plain Python 3 standard library, seeded:
the same arguments give byte-identical files.

Design: true score T ~ Normal(3.5, 0.9) clipped to [1, 6]; human scores
h1 (and h2) = round(T + N(0, 0.5)) clipped to [1, 6]; feature k =
w_k * T + N(0, 1) with weights from 0 to 0.9, written with 4 decimals;
`n_words` = 150 + 60 T + N(0, 50); `L1` six uneven levels, `gender` two.
"""

import os
import random
import sys

SEED = 52
L1 = [("Spanish", 0.35), ("Mandarin", 0.25), ("Arabic", 0.15), ("Hindi", 0.12),
      ("Korean", 0.08), ("Tagalog", 0.05)]


def level(u):
    acc = 0.0
    for name, share in L1:
        acc += share
        if u < acc:
            return name
    return L1[-1][0]


def write(path, prefix, n, p, share_h2, rng):
    weights = [0.9 * k / max(1, p - 1) for k in range(p)]
    gauss, rand = rng.gauss, rng.random
    names = ["f%02d" % (k + 1) for k in range(p)]
    with open(path, "w") as fh:
        fh.write(",".join(["id", "L1", "gender", "n_words"] + names + ["h1", "h2"]) + "\n")
        for i in range(n):
            t = min(6.0, max(1.0, gauss(3.5, 0.9)))
            feats = ",".join("%.4f" % (w * t + gauss(0.0, 1.0)) for w in weights)
            h1 = min(6, max(1, round(t + gauss(0.0, 0.5))))
            h2 = str(min(6, max(1, round(t + gauss(0.0, 0.5))))) if rand() < share_h2 else ""
            fh.write("%s%d,%s,%s,%d,%s,%d,%s\n" % (
                prefix, i + 1, level(rand()), "F" if rand() < 0.5 else "M",
                max(30, int(150 + 60 * t + gauss(0.0, 50.0))), feats, h1, h2))
    return names


def main():
    out = sys.argv[1]
    n_train = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
    n_test = int(sys.argv[3]) if len(sys.argv) > 3 else 250_000
    p = int(sys.argv[4]) if len(sys.argv) > 4 else 40
    os.makedirs(out, exist_ok=True)
    rng = random.Random(SEED)
    names = write(os.path.join(out, "train.csv"), "E", n_train, p, 0.0, rng)
    write(os.path.join(out, "test.csv"), "T", n_test, p, 0.30, rng)
    with open(os.path.join(out, "train.toml"), "w") as fh:
        fh.write(
            'experiment_id = "bench"\nmodel = "LinearRegression"\n'
            'train_file = "train.csv"\ntest_file = "test.csv"\nid_column = "id"\n'
            'train_label_column = "h1"\ntest_label_column = "h1"\n'
            'second_human_score_column = "h2"\nlength_column = "n_words"\n'
            'subgroups = ["L1", "gender"]\ntrim_min = 1\ntrim_max = 6\n'
            'use_scaled_predictions = true\nfeatures = [%s]\n'
            % ", ".join('"%s"' % n for n in names))


if __name__ == "__main__":
    main()
