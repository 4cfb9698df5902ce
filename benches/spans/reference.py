"""seqeval 1.2.2 (default and strict mode) and nervaluate 1.2.1 on the
benchmark's tags.conll (three systems against gold), timed the way
spec/spans.md 8 measures them (wall and CPU time). Usage: python3 reference.py tags.conll"""
import sys
import time

from nervaluate import Evaluator
from seqeval.metrics import classification_report
from seqeval.metrics.sequence_labeling import get_entities
from seqeval.scheme import IOB2


def read(path):
    sents, cur = [], []
    for line in open(path):
        f = line.split()
        if not f:
            if cur:
                sents.append(cur)
                cur = []
            continue
        if f[0] == "-DOCSTART-":
            continue
        cur.append(f[1:])
    if cur:
        sents.append(cur)
    return [[[t[k] for t in s] for s in sents] for k in range(len(sents[0][0]))]


def main():
    cols = read(sys.argv[1])
    gold, systems = cols[0], cols[1:]
    labels = ["LOC", "MISC", "ORG", "PER"]
    t0, c0 = time.perf_counter(), time.process_time()
    for y in systems:
        classification_report(gold, y, output_dict=True, zero_division=0)
        classification_report(gold, y, output_dict=True, zero_division=0, mode="strict", scheme=IOB2)
    t1, c1 = time.perf_counter(), time.process_time()
    def spans(sent):
        return [{"label": l, "start": s, "end": e} for l, s, e in get_entities(sent)]
    for y in systems:
        Evaluator([spans(s) for s in gold], [spans(s) for s in y], tags=labels, loader="dict").evaluate()
    t2, c2 = time.perf_counter(), time.process_time()
    # CPU time beside wall time: on a loaded machine only the CPU time
    # compares with other runs.
    print("seqeval (both modes, 3 systems): %.1f s wall, %.1f s CPU" % (t1 - t0, c1 - c0))
    print("nervaluate (3 systems): %.1f s wall, %.1f s CPU" % (t2 - t1, c2 - c1))


main()
