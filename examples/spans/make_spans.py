"""The spans example (synthetic, seeded): 24 short news-like documents,
three annotators (ann1-ann3), an adjudicated gold annotator and two
taggers (tagger_v1, tagger_v2) as one long span table `spans.csv`, and
`documents.csv` with each document's text, genre and the (document,
annotator) pairs that were annotated: ann3 skipped four documents, ann2
saw two documents and marked nothing. Offsets are code points, ends
exclusive. Run: python3 make_spans.py (writes both files here)."""
import csv
import random

rng = random.Random(7)
PEOPLE = ["Ana Souza", "Jürgen Klein", "Li Wei", "Fatima Zahra", "Olu Ade", "María López"]
PLACES = ["Lisbon", "Kraków", "São Paulo", "Lagos", "Osaka", "Montréal"]
ORGS = ["Acme Corp", "the Red Cross", "Nordbank", "UNESCO", "Vega Labs"]
FILLER = ["said on Monday that", "met with", "visited", "announced a deal with", "spoke in", "left"]


def document(i):
    parts, spans = [], []
    pos = 0
    for _ in range(rng.randint(2, 4)):
        kind = rng.choice(["PER", "LOC", "ORG"])
        name = rng.choice({"PER": PEOPLE, "LOC": PLACES, "ORG": ORGS}[kind])
        for piece, label in [(name, kind), (" " + rng.choice(FILLER) + " ", None)]:
            if label:
                spans.append((pos, pos + len(piece), label))
            parts.append(piece)
            pos += len(piece)
    text = "".join(parts).strip() + "."
    return text, spans


def perturb(spans, text, rate):
    out = []
    for s, e, l in spans:
        r = rng.random()
        if r < rate * 0.35:
            continue
        if r < rate * 0.6 and e - s > 4:
            cut = text.rfind(" ", s, e)
            e = cut if cut > s else e
        elif r < rate * 0.8:
            l = rng.choice(["PER", "LOC", "ORG", "MISC"])
        out.append((s, e, l))
    return out


docs = [document(i) for i in range(24)]
rates = {"ann1": 0.10, "ann2": 0.18, "ann3": 0.25, "gold": 0.0, "tagger_v1": 0.35, "tagger_v2": 0.22}
skipped = {("ann3", 3), ("ann3", 8), ("ann3", 15), ("ann3", 21)}
empty = {("ann2", 5), ("ann2", 12)}
with open("spans.csv", "w", newline="", encoding="utf-8") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["document", "annotator", "start", "end", "label", "text"])
    for i, (text, spans) in enumerate(docs):
        doc = "news-%02d" % (i + 1)
        for ann, rate in rates.items():
            if (ann, i) in skipped:
                continue
            marked = [] if (ann, i) in empty else perturb(spans, text, rate)
            for s, e, l in marked:
                w.writerow([doc, ann, s, e, l, text[s:e]])
with open("documents.csv", "w", newline="", encoding="utf-8") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["document", "annotator", "genre", "text"])
    for i, (text, _) in enumerate(docs):
        for ann in rates:
            if (ann, i) not in skipped:
                w.writerow(["news-%02d" % (i + 1), ann, "politics" if i % 3 else "business", text])
