"""Benchmark data and the scikit-learn side of `rsmreport classify` (issue 27).

    python3 scripts/classify_bench.py make DIR [--decimals D] [--subgroup]
        # DIR/bench.csv, DIR/bench.parquet, DIR/exp.toml (the CSV) and
        # DIR/exp_parquet.toml (1M x 3 systems x 10 classes)
    python3 scripts/classify_bench.py sklearn DIR [csv|parquet]
        # times classification_report + AP + AUC per system
    python3 scripts/classify_bench.py side-by-side DATA BEFORE AFTER [RUNS]
        # DATA/cls4 (4 decimals) and DATA/cls6 (6 decimals + subgroup), made
        # if missing; runs the two rsmreport binaries interleaved on each
        # file as CSV and as parquet (RUNS each, default 3) and prints a
        # Markdown table: median wall, CPU (user + sys), peak RSS, output size

Seeded (numpy default_rng(27)); probabilities with D decimals (default 4:
at most 10,001 distinct scores per class; 6, as models write them: about
a million); the predicted label is the most probable one. `--subgroup`
adds a `domain` column with 3 uneven levels (news 50%, forum 30%, legal
20%), drawn after the scores so the scores do not depend on it. The
scikit-learn side reads the same file with pandas and, per system, calls
classification_report, average_precision_score (macro) and roc_auc_score
(macro, one vs rest).
"""
import sys
import time

import numpy as np

N, K, SYSTEMS = 1_000_000, 10, ["a", "b", "c"]
LABELS = [f"c{k}" for k in range(K)]


def make(d, decimals=4, subgroup=False):
    rng = np.random.default_rng(27)
    gold = rng.integers(0, K, N)
    cols = {"id": np.arange(1, N + 1), "gold": np.array(LABELS)[gold]}
    for s, skill in zip(SYSTEMS, [1.5, 2.0, 2.5]):
        logits = rng.normal(size=(N, K))
        logits[np.arange(N), gold] += skill
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        p = np.round(p, decimals)
        p[:, 0] += 1 - p.sum(axis=1)  # rows sum to 1 (within 1e-12)
        p = np.clip(p, 0, 1)
        cols[s] = np.array(LABELS)[p.argmax(axis=1)]
        for k in range(K):
            cols[f"{s}_p_{LABELS[k]}"] = p[:, k]
    if subgroup:
        cols["domain"] = np.array(["news", "forum", "legal"])[
            rng.choice(3, N, p=[0.5, 0.3, 0.2])
        ]
    import pandas as pd

    df = pd.DataFrame(cols)
    df.to_csv(f"{d}/bench.csv", index=False, float_format=f"%.{decimals}f")
    df.to_parquet(f"{d}/bench.parquet", index=False)
    for name, file in [("exp.toml", "bench.csv"), ("exp_parquet.toml", "bench.parquet")]:
        with open(f"{d}/{name}", "w") as f:
            f.write(
                f'experiment_id = "bench"\npredictions_file = "{file}"\nid_column = "id"\n'
                'gold_column = "gold"\nsystem_columns = ["a", "b", "c"]\n'
                'probability_pattern = "{system}_p_{label}"\n'
                + ('subgroups = ["domain"]\n' if subgroup else "")
                + f"labels = {LABELS!r}\n".replace("'", '"')
            )


def sklearn(d, source="csv"):
    import pandas as pd
    from sklearn.metrics import average_precision_score, classification_report, roc_auc_score

    t0 = time.perf_counter()
    if source == "parquet":
        df = pd.read_parquet(f"{d}/bench.parquet")
    else:
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


def side_by_side(data, before, after, runs=3):
    import os
    import shutil
    import statistics
    import subprocess
    import tempfile

    sets = [("cls4", 4, False), ("cls6", 6, True)]
    for name, dec, sub in sets:
        d = os.path.join(data, name)
        if not os.path.exists(os.path.join(d, "bench.parquet")):
            os.makedirs(d, exist_ok=True)
            make(d, decimals=dec, subgroup=sub)
    print("| data | file | binary | wall (median; runs) | CPU | peak RSS | output folder |")
    print("|---|---|---|---|---|---|---|")
    for name, dec, sub in sets:
        for exp, kind in [("exp.toml", "CSV"), ("exp_parquet.toml", "parquet")]:
            res = {"before": [], "after": []}
            for _ in range(runs):
                for label, binary in [("before", before), ("after", after)]:
                    out = tempfile.mkdtemp(prefix="clsbench")
                    shutil.rmtree(out)
                    cmd = ["/usr/bin/time", "-f", "%e %U %S %M", binary, "classify",
                           os.path.join(data, name, exp), "-o", out, "--quiet"]
                    p = subprocess.run(cmd, capture_output=True, text=True)
                    if p.returncode != 0:
                        sys.exit(f"{binary} failed: {p.stderr}")
                    wall, user, system, rss = p.stderr.strip().splitlines()[-1].split()
                    size = sum(os.path.getsize(os.path.join(r, f))
                               for r, _, fs in os.walk(out) for f in fs)
                    shutil.rmtree(out)
                    res[label].append((float(wall), float(user) + float(system), int(rss), size))
            shape = f"1M x 3 x 10, {dec} decimals" + (", subgroup" if sub else "")
            for label in ["before", "after"]:
                r = res[label]
                wall = statistics.median(x[0] for x in r)
                walls = " ".join(f"{x[0]:.2f}" for x in r)
                cpu = statistics.median(x[1] for x in r)
                rss = max(x[2] for x in r) / 1024
                size = r[0][3] / 1e6
                print(f"| {shape} | {kind} | {label} | {wall:.2f} s ({walls}) | {cpu:.1f} s "
                      f"| {rss:.0f} MB | {size:.1f} MB |")


if __name__ == "__main__":
    cmd, d, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
    if cmd == "make":
        dec = int(rest[rest.index("--decimals") + 1]) if "--decimals" in rest else 4
        make(d, decimals=dec, subgroup="--subgroup" in rest)
    elif cmd == "side-by-side":
        side_by_side(d, rest[0], rest[1], int(rest[2]) if len(rest) > 2 else 3)
    else:
        sklearn(d, *(rest[:1]))
