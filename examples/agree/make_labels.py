"""Generates labels.csv, the example annotation file of `rsmreport agree`
(README, "Rater agreement"): 360 short texts from three sources labelled
neg / neutral / pos by four annotators of different reliability, a few
ratings missing, and an adjudicated gold label. Seeded: the same file every
time (python3 make_labels.py > labels.csv)."""
import random

rng = random.Random(20261123)
LABELS = ["neg", "neutral", "pos"]
SOURCES = [("news", [0.20, 0.60, 0.20]), ("reviews", [0.35, 0.20, 0.45]), ("tweets", [0.30, 0.35, 0.35])]
# (probability of the true label, of a neighbouring label when wrong, missing share)
RATERS = [("ann1", 0.92, 0.85, 0.03), ("ann2", 0.86, 0.80, 0.08),
          ("ann3", 0.82, 0.70, 0.12), ("ann4", 0.70, 0.60, 0.05)]


def rate(truth, p_ok, p_near):
    if rng.random() < p_ok:
        return truth
    near = [k for k in range(3) if abs(k - truth) == 1]
    far = [k for k in range(3) if abs(k - truth) == 2]
    if far and rng.random() > p_near:
        return far[0]
    return rng.choice(near)


print("item,source,ann1,ann2,ann3,ann4,gold")
for i in range(360):
    source, weights = SOURCES[i % 3]
    truth = rng.choices(range(3), weights)[0]
    cells = []
    for _, p_ok, p_near, p_missing in RATERS:
        cells.append("" if rng.random() < p_missing else LABELS[rate(truth, p_ok, p_near)])
    gold = truth if rng.random() < 0.97 else rate(truth, 0.0, 1.0)
    print(f"t{i + 1:04d},{source},{','.join(cells)},{LABELS[gold]}")
