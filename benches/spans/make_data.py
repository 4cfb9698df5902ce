"""Synthetic data of spec/spans.md 8 (seeded): `tags.conll`, 1,000,000
tokens in 2,500 documents (-DOCSTART-), sentences of 10-30 tokens, gold and
three systems in BIO (each system drops, shifts, retypes or invents
entities at its own rate); `spans.csv`, 20,000 documents x 5 annotators
(about 300,000 rows, each annotator perturbing a shared set of spans).

Usage: python3 make_data.py OUTDIR"""
import os
import random
import sys

TYPES = ["LOC", "MISC", "ORG", "PER"]


def tags_of(n, ents):
    t = ["O"] * n
    for s, e, l in ents:
        t[s] = "B-" + l
        for i in range(s + 1, e):
            t[i] = "I-" + l
    return t


def perturb(rng, n, ents, rate):
    out = []
    for s, e, l in ents:
        r = rng.random()
        if r < rate * 0.3:
            continue
        if r < rate * 0.6:
            e = max(s + 1, min(n, e + rng.choice([-1, 1])))
        elif r < rate:
            l = rng.choice(TYPES)
        out.append((s, e, l))
    if rng.random() < rate:
        s = rng.randrange(n)
        if all(e <= s or s2 > s for s2, e, _ in out):
            out.append((s, s + 1, rng.choice(TYPES)))
    out.sort()
    clean, last = [], 0
    for s, e, l in out:
        if s >= last:
            clean.append((s, e, l))
            last = e
    return clean


def sentence_entities(rng, n):
    ents, i = [], 0
    while i < n:
        if rng.random() < 0.12:
            ln = min(n - i, rng.choice([1, 1, 2, 2, 3]))
            ents.append((i, i + ln, rng.choice(TYPES)))
            i += ln + 1
        else:
            i += 1
    return ents


def conll(path, rng):
    rates = [0.10, 0.15, 0.25]
    with open(path, "w") as f:
        tokens = 0
        for d in range(2500):
            f.write("-DOCSTART- -X- O O O O\n\n")
            left = 400
            while left > 0:
                n = min(left, rng.randint(10, 30))
                left -= n
                gold = sentence_entities(rng, n)
                cols = [tags_of(n, gold)] + [tags_of(n, perturb(rng, n, gold, r)) for r in rates]
                for i in range(n):
                    f.write("w%d %s\n" % (i, " ".join(c[i] for c in cols)))
                f.write("\n")
                tokens += n
    return tokens


def table(path, rng):
    rows = 0
    with open(path, "w") as f:
        f.write("document,annotator,start,end,label\n")
        for d in range(20000):
            n = 200
            base = [(s * 5, e * 5, l) for s, e, l in sentence_entities(rng, 40)]
            for a in range(5):
                ents = perturb(rng, n, base, 0.1 + 0.05 * a)
                if not ents:
                    f.write("doc%05d,ann%d,,,\n" % (d, a))
                    rows += 1
                for s, e, l in ents:
                    f.write("doc%05d,ann%d,%d,%d,%s\n" % (d, a, s, e, l))
                    rows += 1
    return rows


if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    print("tokens", conll(os.path.join(out, "tags.conll"), random.Random(1)))
    print("rows", table(os.path.join(out, "spans.csv"), random.Random(2)))
    with open(os.path.join(out, "tokens.toml"), "w") as f:
        f.write('experiment_id = "bench_tokens"\ninput_file = "tags.conll"\nformat = "conll"\n'
                'columns = ["token", "gold", "sys_a", "sys_b", "sys_c"]\n'
                'annotators = ["gold", "sys_a", "sys_b", "sys_c"]\nreference = "gold"\n')
    with open(os.path.join(out, "agreement.toml"), "w") as f:
        f.write('experiment_id = "bench_agreement"\ninput_file = "spans.csv"\n')
