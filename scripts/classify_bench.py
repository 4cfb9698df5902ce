"""Benchmark data and the scikit-learn side of `rsmreport classify` (issue 27).

    python3 scripts/classify_bench.py make DIR        # DIR/bench.csv + DIR/exp.toml (1M x 3 systems x 10 classes)
    python3 scripts/classify_bench.py sklearn DIR     # times classification_report + AP + AUC per system

Seeded (numpy default_rng(27)); probabilities with 4 decimals; the
predicted label is the most probable one. The scikit-learn side reads the
same file with pandas and, per system, calls classification_report,
average_precision_score (macro) and roc_auc_score (macro, one vs rest).
"""
import sys
import time

import numpy as np

N, K, SYSTEMS = 1_000_000, 10, ["a", "b", "c"]
LABELS = [f"c{k}" for k in range(K)]


def make(d):
    rng = np.random.default_rng(27)
    gold = rng.integers(0, K, N)
    cols = {"id": np.arange(1, N + 1), "gold": np.array(LABELS)[gold]}
    for s, skill in zip(SYSTEMS, [1.5, 2.0, 2.5]):
        logits = rng.normal(size=(N, K))
        logits[np.arange(N), gold] += skill
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        p = np.round(p, 4)
        p[:, 0] += 1 - p.sum(axis=1)  # rows sum to 1 (within 1e-12)
        p = np.clip(p, 0, 1)
        cols[s] = np.array(LABELS)[p.argmax(axis=1)]
        for k in range(K):
            cols[f"{s}_p_{LABELS[k]}"] = p[:, k]
    import pandas as pd

    pd.DataFrame(cols).to_csv(f"{d}/bench.csv", index=False, float_format="%.4f")
    with open(f"{d}/exp.toml", "w") as f:
        f.write(
            'experiment_id = "bench"\npredictions_file = "bench.csv"\nid_column = "id"\n'
            'gold_column = "gold"\nsystem_columns = ["a", "b", "c"]\n'
            'probability_pattern = "{system}_p_{label}"\n'
            f"labels = {LABELS!r}\n".replace("'", '"')
        )


def sklearn(d):
    import pandas as pd
    from sklearn.metrics import average_precision_score, classification_report, roc_auc_score

    t0 = time.perf_counter()
    df = pd.read_csv(f"{d}/bench.csv", dtype={"gold": str, "a": str, "b": str, "c": str})
    t1 = time.perf_counter()
    y = df["gold"].to_numpy()
    Y = (y[:, None] == np.array(LABELS)[None, :]).astype(int)
    for s in SYSTEMS:
        classification_report(y, df[s].to_numpy(), labels=LABELS, zero_division=0)
        S = df[[f"{s}_p_{l}" for l in LABELS]].to_numpy()
        average_precision_score(Y, S, average="macro")
        roc_auc_score(Y, S, average="macro")
    t2 = time.perf_counter()
    print(f"scikit-learn: read {t1 - t0:.2f} s, metrics {t2 - t1:.2f} s, total {t2 - t0:.2f} s")


if __name__ == "__main__":
    {"make": make, "sklearn": sklearn}[sys.argv[1]](sys.argv[2])
