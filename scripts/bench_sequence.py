#!/usr/bin/env python3
"""Side-by-side timing of `rsmreport sequence` (sequence.md 6) with sacreBLEU
2.6.0 (BLEU + chrF paired bootstrap, 1,000 resamples) and jiwer 4.0.0 on the
same seeded synthetic data: N segments x 3 systems, one reference.

    python3 scripts/bench_sequence.py N [--rsmreport target/release/rsmreport] [--skip-sacrebleu]

Needs numpy, sacrebleu==2.6.0 and jiwer==4.0.0 (a venv under /tmp is fine).
Prints wall times and peak memory (ru_maxrss of the children); note the
machine's load (`uptime`) with any number you report.
"""
import argparse
import os
import random
import resource
import subprocess
import sys
import tempfile
import time


def make(n, path):
    random.seed(6)
    vocab = [f"w{i}" for i in range(3000)] + [",", ".", "the", "a", "of"]
    with open(path, "w") as f:
        f.write("id\tref\tv1\tv2\tv3\n")
        for i in range(n):
            k = random.randint(8, 40)
            ref = [random.choice(vocab) for _ in range(k)]

            def pert(p):
                return " ".join(w if random.random() > p else random.choice(vocab) for w in ref)

            f.write(f"{i}\t{' '.join(ref)}\t{pert(0.3)}\t{pert(0.25)}\t{pert(0.35)}\n")


def read(path):
    rows = [line.rstrip("\n").split("\t") for line in open(path)][1:]
    return [r[1] for r in rows], [[r[j] for r in rows] for j in (2, 3, 4)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("n", type=int)
    ap.add_argument("--rsmreport")
    ap.add_argument("--skip-sacrebleu", action="store_true")
    a = ap.parse_args()
    work = tempfile.mkdtemp()
    data = os.path.join(work, "bench.tsv")
    make(a.n, data)
    refs, systems = read(data)
    print(f"{a.n} segments x 3 systems; load {os.getloadavg()}")
    if a.rsmreport:
        exp = os.path.join(work, "exp.toml")
        with open(exp, "w") as f:
            f.write(f'experiment_id = "bench"\npredictions_file = "{data}"\nreference_columns = ["ref"]\n'
                    'system_columns = ["v1", "v2", "v3"]\nmetrics = ["bleu", "chrf", "wer"]\n')
        t = time.time()
        subprocess.run([a.rsmreport, "sequence", exp, "-o", os.path.join(work, "out")], check=True,
                       stdout=subprocess.DEVNULL)
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(f"rsmreport sequence (bleu, chrf, wer, 1000-replicate paired bootstrap): {time.time() - t:.2f} s, peak {rss:.0f} MB")
    import jiwer
    t = time.time()
    for hyp in systems:
        jiwer.process_words(refs, hyp)
    print(f"jiwer process_words x 3 systems: {time.time() - t:.2f} s")
    if not a.skip_sacrebleu:
        os.environ["SACREBLEU_SEED"] = "12345"
        from sacrebleu.metrics import BLEU, CHRF
        from sacrebleu.significance import PairedTest
        named = [("v1", systems[0]), ("v2", systems[1]), ("v3", systems[2])]
        t = time.time()
        PairedTest(named, {"BLEU": BLEU(references=[refs]), "chrF": CHRF(references=[refs])}, None, "bs", 1000)()
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"sacreBLEU PairedTest bs 1000 (BLEU + chrF): {time.time() - t:.2f} s, peak {rss:.0f} MB (this process)")


if __name__ == "__main__":
    sys.exit(main())
