#!/usr/bin/env python3
"""Side-by-side timing of `rsmreport sequence` (sequence.md 6) with sacreBLEU
2.6.0 (BLEU + chrF paired bootstrap, 1,000 resamples) and jiwer 4.0.0 on the
same seeded synthetic data: N segments x 3 systems, one reference.

    python3 scripts/bench_sequence.py N [--rsmreport target/release/rsmreport] [--skip-sacrebleu]

Needs numpy, sacrebleu==2.6.0 and jiwer==4.0.0 (a venv under /tmp is fine).
Prints wall times, rsmreport's CPU time (user + sys of the child) and peak
memory (ru_maxrss of the children); with --rsmreport it also times
`metrics = ["ter"]` on the first 10,000 segments (the second target of
sequence.md 6). Note the machine's load (`uptime`) with any number you
report: CPU time is the steadier figure on a shared machine.
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


def run_rsmreport(binary, work, data, metrics, label):
    """Runs `rsmreport sequence` once; prints wall, user + sys and peak memory."""
    exp = os.path.join(work, "exp.toml")
    with open(exp, "w") as f:
        f.write(f'experiment_id = "bench"\npredictions_file = "{data}"\nreference_columns = ["ref"]\n'
                f'system_columns = ["v1", "v2", "v3"]\nmetrics = {metrics}\n')
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.time()
    subprocess.run([binary, "sequence", exp, "-o", os.path.join(work, "out"), "--force"], check=True,
                   stdout=subprocess.DEVNULL)
    wall = time.time() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    rss = after.ru_maxrss / 1024
    print(f"rsmreport sequence ({label}): {wall:.2f} s wall, {cpu:.2f} s user+sys, "
          f"peak {rss:.0f} MB (largest child so far)")


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
        run_rsmreport(a.rsmreport, work, data, '["bleu", "chrf", "wer"]',
                      "bleu, chrf, wer, 1000-replicate paired bootstrap")
        small = os.path.join(work, "bench10k.tsv")
        with open(data) as src, open(small, "w") as dst:
            for k, line in enumerate(src):
                if k > 10000:
                    break
                dst.write(line)
        run_rsmreport(a.rsmreport, work, small, '["ter"]',
                      "ter on 10,000 x 3, 1000-replicate paired bootstrap")
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
