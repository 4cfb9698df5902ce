"""Generates predictions.csv, the example of `build` with more than two
human raters (README, "More human raters in build"): 800 essays scored 1-6
by a first and a second human rater (every essay), a third rater on half of
them and a fourth, less reliable one on a quarter, plus the engine's score
on the human scale. Seeded: the same file every time
(python3 make_predictions.py > predictions.csv)."""
import random

rng = random.Random(20261123)
# (rater error sd, share of essays scored)
RATERS = [("r1", 0.45, 1.0), ("r2", 0.45, 1.0), ("r3", 0.5, 0.5), ("r4", 0.8, 0.25)]


def score(truth, sd):
    return min(6, max(1, round(truth + rng.gauss(0, sd))))


print("essay_id,prompt,r1,r2,r3,r4,engine")
for i in range(800):
    prompt = ["argument", "narrative"][i % 2]
    truth = min(6.0, max(1.0, rng.gauss(3.6, 0.9)))
    cells = []
    for name, sd, share in RATERS:
        cells.append(str(score(truth, sd)) if rng.random() < share else "")
    engine = truth + rng.gauss(0, 0.5)
    print(f"E{i + 1:04d},{prompt},{','.join(cells)},{engine:.4f}")
