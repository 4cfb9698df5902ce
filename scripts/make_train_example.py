#!/usr/bin/env python3
"""Generate the synthetic data of the bundled training example (examples/train/).

    python3 scripts/make_train_example.py

Writes examples/train/train.csv (2400 essays), test.csv (800) and new.csv
(500 essays the model has never seen, for `rsmreport predict`). Plain
Python 3 standard library, fixed seed: running it again gives byte-identical
files (only `random.Random` with a fixed seed and fixed-precision
formatting are used).

Design (an essay-scoring engine's features, after the simulations of the
train fixtures):

* true score  T ~ Normal(3.5, 0.9), clipped to [1, 6];
* human score h1 = round(T + e1) clipped to [1, 6], e1 ~ N(0, 0.5); a second
  human score h2 (independent error) on 30% of the test and new essays;
* ten features, each a noisy function of T on its own scale: some need a
  transform (the feature file gives sqrt, log, inv, addOneLn, addOneInv),
  two are reversed (sign -1), one is pure noise (pronoun_share);
* the length n_words (the length column: length analyses, not a feature);
* a subgroup L1 (four first languages, uneven sizes, small shifts in two
  features);
* data problems a real file has: a few zero human scores (off-topic essays,
  excluded by default), non-numeric human scores (`NS`) and feature values
  (`NA`), and a few values far beyond the training mean +/- 4 sd.
"""

import math
import os
import random

SEED = 20250304
N_TRAIN, N_TEST, N_NEW = 2400, 800, 500
L1 = [("Spanish", 0.40, 0.00), ("Mandarin", 0.30, -0.15), ("Arabic", 0.20, 0.10), ("Hindi", 0.10, 0.05)]

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "examples", "train")

COLUMNS = [
    "essay_id", "L1", "n_words", "vocab_level", "grammar_err_rate", "type_token_ratio",
    "mean_sentence_len", "discourse_units", "spelling_errors", "cohesion", "syntactic_depth",
    "idea_development", "pronoun_share", "h1", "h2",
]


def clip(x, lo, hi):
    return max(lo, min(hi, x))


def level(rng):
    u = rng.random()
    acc = 0.0
    for name, share, shift in L1:
        acc += share
        if u < acc:
            return name, shift
    return L1[-1][0], L1[-1][2]


def essay(rng, double_scored):
    t = clip(rng.gauss(3.5, 0.9), 1.0, 6.0)
    l1, shift = level(rng)
    f = {
        "L1": l1,
        "n_words": "%d" % max(30, int(150 + 60 * t + rng.gauss(0, 50))),
        "vocab_level": "%.4f" % (0.6 * t + shift + rng.gauss(0, 0.6)),
        "grammar_err_rate": "%.4f" % max(0.005, math.exp(-0.4 * t + rng.gauss(0, 0.3))),
        "type_token_ratio": "%.4f" % clip(0.3 + 0.05 * t + rng.gauss(0, 0.05), 0.05, 0.95),
        "mean_sentence_len": "%.3f" % max(3.0, 8 + 2 * t + rng.gauss(0, 3)),
        "discourse_units": "%d" % max(0, round(1 + 1.2 * t + rng.gauss(0, 1))),
        "spelling_errors": "%d" % max(0, round(6 - t + rng.gauss(0, 1.5))),
        "cohesion": "%.4f" % (0.3 * t - shift + rng.gauss(0, 0.8)),
        "syntactic_depth": "%.4f" % (1.5 + 0.3 * t + rng.gauss(0, 0.4)),
        "idea_development": "%.4f" % (0.5 * t + rng.gauss(0, 0.7)),
        "pronoun_share": "%.4f" % clip(rng.gauss(0.08, 0.02), 0.0, 1.0),
    }
    h1 = int(clip(round(t + rng.gauss(0, 0.5)), 1, 6))
    f["h1"] = str(h1)
    f["h2"] = str(int(clip(round(t + rng.gauss(0, 0.5)), 1, 6))) if double_scored else ""
    return f


def problems(rng, rows):
    """A few zero and non-numeric scores, non-numeric feature values and
    extreme values, at seeded positions."""
    n = len(rows)
    for i in rng.sample(range(n), max(2, n // 300)):
        rows[i]["h1"] = "0"
    for i in rng.sample(range(n), max(1, n // 400)):
        rows[i]["h1"] = "NS"
    for i in rng.sample(range(n), max(2, n // 250)):
        rows[i][rng.choice(["cohesion", "vocab_level", "discourse_units"])] = "NA"
    for i in rng.sample(range(n), max(1, n // 500)):
        rows[i]["syntactic_depth"] = "%.4f" % (float(rows[i]["syntactic_depth"]) + 6.0)


def write(name, prefix, n, share_double, rng):
    rows = []
    for i in range(n):
        r = essay(rng, rng.random() < share_double)
        r["essay_id"] = "%s%05d" % (prefix, i + 1)
        rows.append(r)
    problems(rng, rows)
    with open(os.path.join(OUT, name), "w", newline="") as fh:
        fh.write(",".join(COLUMNS) + "\n")
        for r in rows:
            fh.write(",".join(r[c] for c in COLUMNS) + "\n")


def main():
    rng = random.Random(SEED)
    os.makedirs(OUT, exist_ok=True)
    write("train.csv", "E", N_TRAIN, 0.0, rng)
    write("test.csv", "T", N_TEST, 0.30, rng)
    write("new.csv", "N", N_NEW, 0.30, rng)


if __name__ == "__main__":
    main()
