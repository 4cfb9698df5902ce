#!/usr/bin/env python3
"""Generate the synthetic data of the bundled example (examples/).

    python3 scripts/make_example_data.py                  # examples/ (an engine that passes its gates)
    python3 scripts/make_example_data.py --gates-fail     # examples/gates-fail/ (one that does not)

Writes OUTPUT_DIR/predictions.csv (3000 responses) and OUTPUT_DIR/scale.csv
(1000 responses of an independent sample, used by `scale_with`). Plain
Python 3 standard library, fixed seed: running it again gives byte-identical
files (only `random.Random` with a fixed seed and fixed-precision
formatting are used).

Design (the "sim" family of the rsmreport fixtures, after Loukina et al.
2020, "Using PRMSE to evaluate automated scoring systems in the presence of
label noise"):

* true score  T ~ Normal(3.844, 0.74), clipped to [1, 6];
* first human score  h1 = round(T + e1) clipped to [1, 6], e1 ~ N(0, 0.6);
* second human score h2 = round(T + e2) clipped to [1, 6], e2 independent of
  e1, only on a random 30% of the responses (blank elsewhere);
* the engine's score on its own scale: S = T + small L1 shift + es,
  es ~ N(0, 0.5), written as 0.8 * S + 0.35, so that scaling it to the human
  scale (`scale_with`) makes a visible difference;
* subgroups: `L1` (six first languages, uneven sizes; Tagalog only ~0.6%) and
  `gender` (F / M);
* data problems a real file has: a few zero human scores (off-topic
  responses, excluded by default), a few non-numeric human scores (`NS`,
  "not scorable") and non-numeric engine scores (`NA`, `error`), a few zero
  second-human scores.

The scale file holds `sc1` (human score) and `prediction` (engine score on
its raw scale) for a separate 1000-response sample of the same design,
without data problems.
"""

import os
import random
import sys

SEED = 20240611
N_MAIN = 3000
N_SCALE = 1000

TRUE_MEAN, TRUE_SD = 3.844, 0.74
SCORE_MIN, SCORE_MAX = 1, 6
DOUBLE_SCORED_SHARE = 0.30

# Two engines of the same design. "passing" (examples/): trained raters
# (rater error SD 0.35, human-human correlation about 0.7) and an engine
# close to them (QWK and correlation about 0.78), small first-language
# shifts: it meets the Williamson et al. (2012) criteria. "gates-fail"
# (examples/gates-fail/): noisier raters and an engine that misses the
# criteria (QWK and correlation about 0.60).
# first language: (weight, shift of the engine's score on the true-score scale)
PROFILES = {
    "passing": {
        "rater_sd": 0.35,
        "system_sd": 0.3,
        "l1": [
            ("Spanish", 0.40, 0.00),
            ("Mandarin", 0.25, 0.03),
            ("Arabic", 0.15, -0.03),
            ("Korean", 0.11, 0.02),
            ("Hindi", 0.084, -0.01),
            ("Tagalog", 0.006, -0.15),
        ],
    },
    "gates-fail": {
        "rater_sd": 0.6,
        "system_sd": 0.5,
        "l1": [
            ("Spanish", 0.40, 0.00),
            ("Mandarin", 0.25, 0.06),
            ("Arabic", 0.15, -0.05),
            ("Korean", 0.11, 0.03),
            ("Hindi", 0.084, -0.02),
            ("Tagalog", 0.006, -0.15),
        ],
    },
}
PROFILE = PROFILES["passing"]
RATER_SD = PROFILE["rater_sd"]
SYSTEM_SD = PROFILE["system_sd"]
L1_LEVELS = PROFILE["l1"]
GENDERS = [("F", 0.52), ("M", 0.48)]

N_ZERO_H1 = 9          # off-topic responses scored 0
N_NONNUMERIC_H1 = 3    # "NS" (not scorable)
N_NONNUMERIC_SYS = 5   # engine failures: "NA" / "error"
N_ZERO_H2 = 2          # second rater gave 0


def clip(x, lo, hi):
    return max(lo, min(hi, x))


def choose(rng, levels):
    """Pick a level name from [(name, weight, ...)]."""
    u = rng.random() * sum(level[1] for level in levels)
    acc = 0.0
    for level in levels:
        acc += level[1]
        if u < acc:
            return level[0]
    return levels[-1][0]


def human(rng, t):
    """A human score: the true score plus rater error, rounded and clipped.
    Python's round() rounds half to even, as the reference's numpy does."""
    return int(clip(round(t + rng.gauss(0.0, RATER_SD)), SCORE_MIN, SCORE_MAX))


def true_score(rng):
    return clip(rng.gauss(TRUE_MEAN, TRUE_SD), SCORE_MIN, SCORE_MAX)


def engine(rng, t, shift):
    """The engine's score on its own (unscaled) scale."""
    s = t + shift + rng.gauss(0.0, SYSTEM_SD)
    return 0.8 * s + 0.35


def fmt(x):
    """Engine scores with 6 decimals: realistic precision, small file."""
    return "%.6f" % x


def make_main(rng):
    shifts = {name: shift for name, _, shift in L1_LEVELS}
    rows = []
    for i in range(N_MAIN):
        l1 = choose(rng, L1_LEVELS)
        gender = choose(rng, GENDERS)
        t = true_score(rng)
        h1 = str(human(rng, t))
        h2 = str(human(rng, t)) if rng.random() < DOUBLE_SCORED_SHARE else ""
        system = fmt(engine(rng, t, shifts[l1]))
        rows.append({
            "response_id": "EX%05d" % (i + 1),
            "L1": l1,
            "gender": gender,
            "h1": h1,
            "h2": h2,
            "system": system,
        })

    # Data problems, on distinct randomly chosen rows (never a Tagalog row,
    # so that the small group keeps all its responses).
    candidates = [i for i, r in enumerate(rows) if r["L1"] != "Tagalog"]
    picked = rng.sample(candidates, N_ZERO_H1 + N_NONNUMERIC_H1 + N_NONNUMERIC_SYS)
    zero_h1 = picked[:N_ZERO_H1]
    ns_h1 = picked[N_ZERO_H1:N_ZERO_H1 + N_NONNUMERIC_H1]
    bad_sys = picked[N_ZERO_H1 + N_NONNUMERIC_H1:]
    for i in zero_h1:
        rows[i]["h1"] = "0"
    for i in ns_h1:
        rows[i]["h1"] = "NS"
    for k, i in enumerate(bad_sys):
        rows[i]["system"] = "NA" if k % 2 == 0 else "error"
    double = [i for i, r in enumerate(rows) if r["h2"] != "" and i not in picked]
    for i in rng.sample(double, N_ZERO_H2):
        rows[i]["h2"] = "0"
    return rows


def make_scale(rng):
    shifts = {name: shift for name, _, shift in L1_LEVELS}
    rows = []
    for _ in range(N_SCALE):
        l1 = choose(rng, L1_LEVELS)
        t = true_score(rng)
        rows.append({"sc1": str(human(rng, t)), "prediction": fmt(engine(rng, t, shifts[l1]))})
    return rows


def write_csv(path, columns, rows):
    # Values never contain commas, quotes or newlines: no quoting needed.
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(",".join(columns) + "\n")
        for r in rows:
            f.write(",".join(r[c] for c in columns) + "\n")


def use_profile(name):
    global PROFILE, RATER_SD, SYSTEM_SD, L1_LEVELS
    PROFILE = PROFILES[name]
    RATER_SD = PROFILE["rater_sd"]
    SYSTEM_SD = PROFILE["system_sd"]
    L1_LEVELS = PROFILE["l1"]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    args = sys.argv[1:]
    name = "passing"
    if args and args[0] == "--gates-fail":
        name = "gates-fail"
        args = args[1:]
    use_profile(name)
    default = os.path.join(here, "..", "examples") if name == "passing" else \
        os.path.join(here, "..", "examples", "gates-fail")
    out = args[0] if args else default
    os.makedirs(out, exist_ok=True)
    rng = random.Random(SEED)
    main_rows = make_main(rng)
    scale_rows = make_scale(random.Random(SEED + 1))
    write_csv(os.path.join(out, "predictions.csv"),
              ["response_id", "L1", "gender", "h1", "h2", "system"], main_rows)
    write_csv(os.path.join(out, "scale.csv"), ["sc1", "prediction"], scale_rows)

    # A short summary, to check the design at a glance.
    by_l1 = {}
    for r in main_rows:
        by_l1[r["L1"]] = by_l1.get(r["L1"], 0) + 1
    n_h2 = sum(1 for r in main_rows if r["h2"] != "")
    print("predictions.csv: %d responses, %d double-scored" % (len(main_rows), n_h2))
    print("  L1: " + ", ".join("%s %d" % (k, by_l1[k]) for k in sorted(by_l1)))
    print("  h1 = 0: %d, h1 non-numeric: %d, system non-numeric: %d, h2 = 0: %d"
          % (N_ZERO_H1, N_NONNUMERIC_H1, N_NONNUMERIC_SYS, N_ZERO_H2))
    print("scale.csv: %d responses" % len(scale_rows))


if __name__ == "__main__":
    main()
