"""Writes predictions.csv for examples/classify (synthetic, seeded, stdlib only).

600 support tickets with a gold intent (billing, tech, other) and a channel
(web, phone, email), classified by two versions of a model: v1 and v2, each
with a probability per label (three decimals, summing to 1) and its predicted
label (the most probable one). v2 is better overall but worse on `other`
by email. Run: python3 make_predictions.py
"""
import math
import random

LABELS = ["billing", "tech", "other"]
CHANNELS = [("web", 0.55), ("phone", 0.35), ("email", 0.10)]


def softmax_thousandths(logits):
    exps = [math.exp(x) for x in logits]
    total = sum(exps)
    raw = [1000 * e / total for e in exps]
    units = [int(r) for r in raw]
    # Largest remainder, so the row sums to exactly 1.000.
    order = sorted(range(3), key=lambda k: raw[k] - units[k], reverse=True)
    for k in order[: 1000 - sum(units)]:
        units[k] += 1
    return [u / 1000 for u in units]


def system(rng, gold, channel, skill):
    logits = [rng.gauss(0, 1.0) for _ in LABELS]
    logits[LABELS.index(gold)] += skill
    probs = softmax_thousandths(logits)
    best = max(range(3), key=lambda k: (probs[k], -k))
    return LABELS[best], probs


def main():
    rng = random.Random(2026)
    rows = []
    for i in range(600):
        gold = rng.choices(LABELS, weights=[0.45, 0.38, 0.17])[0]
        channel = rng.choices([c for c, _ in CHANNELS], weights=[w for _, w in CHANNELS])[0]
        p1, q1 = system(rng, gold, channel, 1.6)
        skill2 = 0.9 if (gold == "other" and channel == "email") else 2.3
        p2, q2 = system(rng, gold, channel, skill2)
        rows.append([f"t{i + 1:04d}", channel, gold, p1, p2] + q1 + q2)
    header = ["id", "channel", "gold", "v1", "v2"]
    header += [f"v1_p_{l}" for l in LABELS] + [f"v2_p_{l}" for l in LABELS]
    with open("predictions.csv", "w", encoding="utf-8", newline="\n") as f:
        f.write(",".join(header) + "\n")
        for r in rows:
            f.write(",".join(x if isinstance(x, str) else f"{x:.3f}" for x in r) + "\n")


if __name__ == "__main__":
    main()
