#!/usr/bin/env python3
"""Check the dependency rule of docs/architecture.md on the library's code.

    python3 scripts/check-layers.py               # check crates/rsmreport/src/ (the engine)
    python3 scripts/check-layers.py --root DIR    # check DIR/src/
    python3 scripts/check-layers.py --edges       # also list every edge found
    python3 scripts/check-layers.py --self-test   # run on small synthetic trees

The top-level modules are the `mod` items of `src/lib.rs`. For each one,
the script walks its non-test files (following its `mod name;` items from
`src/X.rs` or `src/X/mod.rs`) and collects every `crate::Y` path in the
code (`use` items, grouped `use crate::{a, b::c}`, paths in expressions and
types). Comments, strings and char literals are blanked first, so a
`crate::kinds` in a doc comment or a message is not an edge.

Test code is left out: files named `tests.rs` or under a `tests/` folder,
files declared by a `#[cfg(test)] mod name;`, and every item or statement
with a `#[cfg(test)]` attribute (a `mod tests { ... }` block is skipped to
its matching brace).

It fails (exit 1, naming the file and line of one reference per edge) if

  (a) imports between top-level modules close a cycle;
  (b) a module other than `kinds` imports `kinds`;
  (c) a file of one kind refers to another kind: under `src/kinds/`, every
      folder (or file) but `common` is a kind, and no file under
      `kinds/<a>/` may name `kinds::<b>` (also in a grouped `use
      crate::kinds::{..}`) or reach `<b>` through `super::` (`super::<b>`
      from `kinds/<a>.rs` or `kinds/<a>/mod.rs`, `super::super::<b>` one
      level down, ...) for another kind `b`. `kinds/common/` is the shared
      layer: every kind may use it, and it names no kind. `kinds/mod.rs`
      and the contract's files beside it (`archive`, `registry`, `check`:
      they run, write and list every kind) are not kinds and are not
      checked. A folder may hold a family of commands that is one kind
      (`versions`: compare and summarize; `rsmtool`: build, train and
      predict), whose files may use each other. Test code counts
      here (a kind's tests use no other kind either);
  (d) a leaf module (table, schema, pyrepr, provenance, error) imports
      anything of the crate.

Limits: only `crate::` paths are seen (rule (c) also follows `super::`
chains, through inline modules, and `kinds::` paths). A `super::` chain that climbs out of
a top-level module to the crate root (none exists today), a `#[path]`
attribute, a `use` through a re-export and a macro that builds a path from
pieces are not followed. Only the exact attribute `#[cfg(test)]` marks test
code (not `cfg(any(test, ...))`). Only the engine crate is checked: the
layering between crates (core, metrics, config, io, report, the engine, the
command line) is Cargo's (docs/architecture.md), and today's leaf modules of
rule (d) live in rsmreport-core, so (d) holds trivially in the engine; it
stays for --root on other trees. Python 3 standard library only.
"""
import argparse
import os
import re
import sys
import tempfile

LEAVES = {"table", "schema", "pyrepr", "provenance", "error"}
KINDS = "kinds"
SHARED_KIND_LAYER = "common"
# The contract's files beside kinds/mod.rs: the one writer (archive), the
# kind table (registry) and the check of every kind (check). Like mod.rs
# they name every kind and are not kinds; any kind may use them.
CONTRACT = {"archive", "registry", "check"}


# ---------------------------------------------------------------- lexing


def blank(text):
    """`text` with comments, strings and char literals replaced by spaces.

    Newlines are kept, so line numbers and offsets stay those of the file.
    Handles nested block comments, raw strings (`r#"..."#`, `br"..."`),
    byte strings and chars, and tells a char (`'{'`) from a lifetime
    (`'a`).
    """
    out = list(text)
    n = len(text)
    i = 0

    def wipe(a, b):
        for k in range(a, min(b, n)):
            if out[k] != "\n":
                out[k] = " "

    def ident(c):
        return c.isalnum() or c == "_"

    while i < n:
        c = text[i]
        nxt = text[i + 1] if i + 1 < n else ""
        if c == "/" and nxt == "/":
            j = text.find("\n", i)
            j = n if j < 0 else j
            wipe(i, j)
            i = j
        elif c == "/" and nxt == "*":
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            wipe(i, j)
            i = j
        elif c in "rb" and (i == 0 or not ident(text[i - 1])):
            m = re.compile(r'(?:br|rb|r)(#*)"').match(text, i)
            if m:  # raw string: ends at `"` followed by as many `#`
                end = text.find('"' + m.group(1), m.end())
                end = n if end < 0 else end + 1 + len(m.group(1))
                wipe(i, end)
                i = end
            elif c == "b" and nxt in "\"'":
                i += 1  # a byte string or byte char: lexed as the plain one
            else:
                i += 1
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            wipe(i, j + 1)
            i = j + 1
        elif c == "'":
            if nxt == "\\":  # escaped char: '\n', '\'', '\u{..}'
                j = text.find("'", i + 3)
                j = n if j < 0 else j
                wipe(i, j + 1)
                i = j + 1
            elif i + 2 < n and text[i + 2] == "'":  # 'x'
                wipe(i, i + 3)
                i += 3
            else:  # a lifetime or label
                i += 1
        else:
            i += 1
    return "".join(out)


CFG_TEST = re.compile(r"#\s*\[\s*cfg\s*\(\s*test\s*\)\s*\]")
INNER_CFG_TEST = re.compile(r"#\s*!\s*\[\s*cfg\s*\(\s*test\s*\)\s*\]")
ATTR = re.compile(r"#\s*!?\s*\[")
OPEN, CLOSE = "([{", ")]}"


def skip_attrs(code, i):
    """The offset of the first non-attribute, non-space text from `i`."""
    n = len(code)
    while True:
        while i < n and code[i].isspace():
            i += 1
        m = ATTR.match(code, i)
        if not m:
            return i
        depth, j = 1, m.end()
        while j < n and depth:
            depth += code[j] == "["
            depth -= code[j] == "]"
            j += 1
        i = j


def item_end(code, i):
    """The end of the item or statement that starts at `i`.

    It ends at a `;` outside brackets, or at the `}` that closes its first
    top-level `{` (and a `;` right after it: `use a::{b};`,
    `static S: T = T { .. };`).
    """
    n, depth = len(code), 0
    while i < n:
        c = code[i]
        if c in OPEN:
            depth += 1
        elif c in CLOSE:
            depth -= 1
            if depth < 0:  # the enclosing block ended first
                return i
            if depth == 0 and c == "}":
                j = i + 1
                while j < n and code[j] in " \t\r\n":
                    j += 1
                return j + 1 if j < n and code[j] == ";" else i + 1
        elif c == ";" and depth == 0:
            return i + 1
        i += 1
    return n


def strip_test_code(code):
    """`code` (already blanked) with every `#[cfg(test)]` item blanked.

    Returns the new code and the names of the `#[cfg(test)] mod name;`
    items (their files are test code).
    """
    out = list(code)
    test_mods = set()
    pos = 0
    while True:
        m = CFG_TEST.search(code, pos)
        if not m:
            break
        start = skip_attrs(code, m.end())
        end = item_end(code, start)
        head = re.match(r"(?:pub(?:\s*\([^)]*\))?\s+)?mod\s+(\w+)\s*;", code[start:end])
        if head:
            test_mods.add(head.group(1))
        for k in range(m.start(), end):
            if out[k] != "\n":
                out[k] = " "
        pos = end
    return "".join(out), test_mods


# ------------------------------------------------------------- the tree


MOD_SCAN = re.compile(r"(?<![\w$])mod\s+(\w+)\s*([;{])|([{}])")


def module_decls(code):
    """`(name, kind, inline_path)` of each `mod` item of a file.

    `kind` is ';' for a `mod name;` (its own file) or '{' for an inline
    module; `inline_path` lists the inline modules it sits in, so a
    `mod a { mod b; }` resolves to `a/b.rs`.
    """
    decls = []
    stack = []  # (name, depth of its body)
    depth = 0
    for m in MOD_SCAN.finditer(code):
        if m.group(1):
            decls.append((m.group(1), m.group(2), [s[0] for s in stack]))
            if m.group(2) == "{":
                depth += 1
                stack.append((m.group(1), depth))
        elif m.group(3) == "{":
            depth += 1
        else:
            if stack and stack[-1][1] == depth:
                stack.pop()
            depth -= 1
    return decls


def is_test_path(path):
    parts = path.replace(os.sep, "/").split("/")
    return parts[-1] == "tests.rs" or "tests" in parts[:-1]


def read_code(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    code = blank(text)
    if INNER_CFG_TEST.match(code[skip_space(code, 0):]):
        return None, set()
    return strip_test_code(code)


def skip_space(code, i):
    while i < len(code) and code[i].isspace():
        i += 1
    return i


def module_files(src, name):
    """The non-test files of top-level module `name`, with their code.

    Follows the `mod` items from `src/name.rs` or `src/name/mod.rs`.
    Returns `[(path, code)]` and the list of `mod name;` items whose file
    was not found (reported as a warning).
    """
    roots = [os.path.join(src, name + ".rs"), os.path.join(src, name, "mod.rs")]
    first = next((p for p in roots if os.path.isfile(p)), None)
    if first is None:
        return [], ["%s (neither %s nor %s)" % (name, roots[0], roots[1])]
    # The folder of a file's child modules: src/a.rs -> src/a/, src/a/mod.rs -> src/a/.
    todo = [(first, os.path.join(src, name))]
    files, missing = [], []
    while todo:
        path, child_dir = todo.pop()
        if is_test_path(os.path.relpath(path, src)):
            continue
        code, test_mods = read_code(path)
        if code is None:
            continue
        files.append((path, code))
        for mod, kind, inline in module_decls(code):
            if kind != ";" or mod in test_mods:
                continue
            base = os.path.join(child_dir, *inline)
            cands = [os.path.join(base, mod + ".rs"), os.path.join(base, mod, "mod.rs")]
            found = next((p for p in cands if os.path.isfile(p)), None)
            if found is None:
                missing.append("%s: mod %s (%s)" % (path, mod, cands[0]))
                continue
            todo.append((found, os.path.join(base, mod)))
    return sorted(files), missing


def top_modules(src):
    """The `mod` items of `src/lib.rs` (non-test), in file order."""
    code, test_mods = read_code(os.path.join(src, "lib.rs"))
    return [m for m, kind, inline in module_decls(code) if kind == ";" and not inline and m not in test_mods]


CRATE_PATH = re.compile(r"(?<![\w$])\$?crate\s*::\s*(\{|\w+)")


def group_heads(code, i):
    """The first names of a `{a, b::c, d::{e}}` group starting at `i`."""
    depth, j, n = 0, i, len(code)
    while j < n:
        depth += code[j] == "{"
        depth -= code[j] == "}"
        j += 1
        if depth == 0:
            break
    inner = code[i + 1 : j - 1]
    heads, level, piece = [], 0, ""
    for c in inner + ",":
        if c == "," and level == 0:
            m = re.match(r"\s*(\w+)", piece)
            if m:
                heads.append(m.group(1))
            piece = ""
            continue
        level += c == "{"
        level -= c == "}"
        piece += c
    return heads


def references(code):
    """`(top-level name, line)` of every `crate::name` path in `code`."""
    refs = []
    for m in CRATE_PATH.finditer(code):
        line = code.count("\n", 0, m.start()) + 1
        if m.group(1) == "{":
            refs.extend((h, line) for h in group_heads(code, m.start(1)))
        else:
            refs.append((m.group(1), line))
    return refs


# ------------------------------------------------------- kinds apart (c)


def kind_names(src):
    """The kinds: every folder and `.rs` file of `src/kinds/` but `mod.rs`
    and the shared layer."""
    root = os.path.join(src, KINDS)
    if not os.path.isdir(root):
        return []
    out = []
    for entry in sorted(os.listdir(root)):
        name = entry[:-3] if entry.endswith(".rs") else entry
        path = os.path.join(root, entry)
        if entry == "mod.rs" or name == SHARED_KIND_LAYER or name in CONTRACT:
            continue
        if os.path.isdir(path) or entry.endswith(".rs"):
            out.append(name)
    return sorted(set(out))


def module_path(src, path):
    """The module path of file `path` (`src/kinds/a/b.rs` -> kinds, a, b;
    `src/kinds/a/mod.rs` -> kinds, a)."""
    rel = os.path.relpath(path, src).replace(os.sep, "/")
    parts = rel[:-3].split("/")
    if parts[-1] == "mod":
        parts = parts[:-1]
    return parts


INLINE_SCAN = re.compile(r"(?<![\w$])mod\s+(\w+)\s*\{|([{}])")
KIND_REF = re.compile(
    r"(?<![\w$])(?:(kinds)\s*::\s*(\{|\w+)|((?:super\s*::\s*)+)(\{|\w+))"
)


def inline_depths(code):
    """`[(offset, depth)]`: from `offset` on, the code is `depth` inline
    modules deep (`mod tests { ... }` counts one)."""
    events, stack, depth = [(0, 0)], [], 0
    for m in INLINE_SCAN.finditer(code):
        if m.group(1):
            depth += 1
            stack.append(depth)
            events.append((m.end(), len(stack)))
        elif m.group(2) == "{":
            depth += 1
        else:
            if stack and stack[-1] == depth:
                stack.pop()
                events.append((m.end(), len(stack)))
            depth -= 1
    return events


def depth_at(events, offset):
    d = 0
    for at, depth in events:
        if at > offset:
            break
        d = depth
    return d


def kind_references(src, path, code):
    """`(kind, line)` of every reference in `code` (file `path`) to a
    module `kinds::<kind>`: every `kinds::x` path (`crate::kinds::x`, and
    grouped `kinds::{x, y}`), and `super::` chains resolved from the
    file's module (and the inline modules around the reference)."""
    here = module_path(src, path)
    events = inline_depths(code)
    refs = []
    for m in KIND_REF.finditer(code):
        line = code.count("\n", 0, m.start()) + 1
        if m.group(1):
            heads = group_heads(code, m.start(2)) if m.group(2) == "{" else [m.group(2)]
            refs.extend((h, line) for h in heads)
            continue
        ups = m.group(3).count("super")
        inner = here + ["<inline>"] * depth_at(events, m.start())
        base = inner[: len(inner) - ups]
        heads = group_heads(code, m.start(4)) if m.group(4) == "{" else [m.group(4)]
        if base == [KINDS]:
            refs.extend((h, line) for h in heads)
    return refs


def kinds_apart(src):
    """Problems of rule (c): a file of one kind naming another kind, or of
    the shared layer naming any."""
    kinds = kind_names(src)
    root = os.path.join(src, KINDS)
    problems = []
    for folder, _, files in sorted(os.walk(root)):
        for f in sorted(files):
            if not f.endswith(".rs"):
                continue
            path = os.path.join(folder, f)
            here = module_path(src, path)
            if len(here) < 2:
                continue  # kinds/mod.rs: the contract names every kind
            owner = here[1]
            if owner in CONTRACT:
                continue  # the contract's files name every kind
            with open(path, encoding="utf-8") as fh:
                code = blank(fh.read())
            seen = set()
            for target, line in kind_references(src, path, code):
                if target not in kinds or target == owner or target in seen:
                    continue
                seen.add(target)
                rel = os.path.relpath(path, os.path.dirname(src))
                who = "the shared kind layer %s" % SHARED_KIND_LAYER if owner == SHARED_KIND_LAYER else "kind %s" % owner
                problems.append(
                    "%s refers to kind %s (%s:%d); what two kinds share belongs in kinds/%s"
                    % (who, target, rel, line, SHARED_KIND_LAYER)
                )
    return kinds, problems


# ---------------------------------------------------------------- checks


def collect(root):
    """The modules, and the edges `{(a, b): [(path, line)]}` between them."""
    src = os.path.join(root, "src")
    mods = top_modules(src)
    known = set(mods)
    edges, warnings = {}, []
    for mod in mods:
        files, missing = module_files(src, mod)
        warnings.extend("file not found for " + m for m in missing)
        for path, code in files:
            rel = os.path.relpath(path, root)
            for target, line in references(code):
                if target == mod or target not in known:
                    continue  # itself, or `crate::SomeReexport` / a macro
                edges.setdefault((mod, target), []).append((rel, line))
    return mods, edges, warnings


def find_cycles(mods, edges):
    """One cycle (a list of modules, first == last) per strongly connected
    component with more than one module (Tarjan)."""
    succ = {m: sorted(b for (a, b) in edges if a == m) for m in mods}
    index, low, on, stack, comps = {}, {}, set(), [], []
    counter = [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in succ[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(set(comp))

    for m in mods:
        if m not in index:
            strong(m)
    cycles = []
    for comp in comps:
        start = min(comp, key=mods.index)
        # Shortest path back to `start` inside the component (BFS).
        prev, queue, seen = {}, [start], {start}
        while queue:
            v = queue.pop(0)
            for w in succ[v]:
                if w == start:
                    path = [start]
                    while v != start:
                        path.append(v)
                        v = prev[v]
                    path.append(start)
                    cycles.append([path[0]] + path[1:-1][::-1] + [start])
                    queue = []
                    break
                if w in comp and w not in seen:
                    seen.add(w)
                    prev[w] = v
                    queue.append(w)
    return cycles


def where(refs):
    path, line = refs[0]
    more = len(refs) - 1
    return "%s:%d%s" % (path, line, " (and %d more)" % more if more else "")


def check(root, show_edges=False, out=sys.stdout):
    """Run the checks on `root`; print the outcome; return the exit code."""
    if not os.path.isfile(os.path.join(root, "src", "lib.rs")):
        print("check-layers: no src/lib.rs under %s" % root, file=out)
        return 2
    mods, edges, warnings = collect(root)
    for w in warnings:
        print("check-layers: warning: " + w, file=out)
    if show_edges:
        for (a, b), refs in sorted(edges.items()):
            print("  %s -> %s  (%d references, e.g. %s)" % (a, b, len(refs), where(refs)), file=out)
    problems = []
    for cycle in find_cycles(mods, edges):
        lines = ["import cycle: " + " -> ".join(cycle)]
        for a, b in zip(cycle, cycle[1:]):
            lines.append("    %s -> %s: %s" % (a, b, where(edges[(a, b)])))
        problems.append("\n".join(lines))
    for (a, b), refs in sorted(edges.items()):
        if b == KINDS and a != KINDS:
            problems.append("%s imports %s (only the binary and the kinds may): %s" % (a, KINDS, where(refs)))
    kinds, apart = kinds_apart(os.path.join(root, "src"))
    problems.extend(apart)
    for (a, b), refs in sorted(edges.items()):
        if a in LEAVES:
            problems.append("leaf module %s imports %s (a leaf imports nothing of the crate): %s" % (a, b, where(refs)))
    if problems:
        print("check-layers: the dependency rule of docs/architecture.md is broken:", file=out)
        for p in problems:
            print("  " + p, file=out)
        return 1
    print(
        "check-layers: ok: %d top-level modules, %d edges between them, no cycle, "
        "no stage imports kinds, %d kinds apart (beside kinds/%s), leaves import nothing"
        % (len(mods), len(edges), len(kinds), SHARED_KIND_LAYER),
        file=out,
    )
    return 0


# ------------------------------------------------------------- self-test


SELF_TEST_LIB = """//! A tiny crate: `crate::kinds` here is a comment.
pub mod table;
pub mod metrics;
pub mod analysis;
pub mod kinds;
#[cfg(test)]
mod testing;
"""


def write_tree(root, files):
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


def base_tree():
    return {
        "src/lib.rs": SELF_TEST_LIB,
        "src/testing.rs": "use crate::kinds::Run;\n",
        "src/table.rs": "pub struct Table;\n// crate::metrics in a comment\n",
        "src/metrics/mod.rs": "mod inner;\npub fn mean() -> f64 { 0.0 }\n",
        "src/metrics/inner.rs": "use crate::table::Table;\n",
        "src/analysis/mod.rs": (
            "use crate::{metrics::mean, table::{self, Table}};\n"
            "pub fn run() -> f64 { crate::metrics::mean() }\n"
        ),
        "src/kinds/mod.rs": (
            "pub struct Run;\nuse crate::analysis::run;\n"
            "pub mod alpha;\npub mod beta;\npub mod common;\n"
        ),
        "src/kinds/common/mod.rs": "//! Names no kind: not crate::kinds::alpha.\npub fn shared() {}\n",
        "src/kinds/alpha/mod.rs": (
            "mod run;\nuse crate::kinds::common::shared;\n"
            "#[cfg(test)]\nmod tests {\n    use super::run::x;\n}\n"
        ),
        "src/kinds/alpha/run.rs": (
            "pub fn x() {}\n// crate::kinds::beta in a comment\n"
            'const S: &str = "kinds::beta";\n'
        ),
        "src/kinds/beta.rs": "use super::common::shared;\npub fn y() { shared(); }\n",
    }


def run_case(name, changes, want_code, want_text):
    with tempfile.TemporaryDirectory(prefix="check-layers-") as root:
        files = base_tree()
        files.update(changes)
        write_tree(root, files)

        class Buffer:
            text = ""

            def write(self, s):
                self.text += s

        buf = Buffer()
        code = check(root, show_edges=True, out=buf)
        ok = code == want_code and all(t in buf.text for t in want_text)
        print("  %-44s %s" % (name, "ok" if ok else "FAILED"))
        if not ok:
            print("    expected exit %d with %r, got exit %d:" % (want_code, want_text, code))
            print("    " + buf.text.replace("\n", "\n    "))
        return ok


def self_test():
    print("check-layers self-test:")
    cases = [
        ("a clean tree passes", {}, 0, ["ok: 4 top-level modules, 4 edges", "analysis -> metrics  (2 references"]),
        (
            "a cycle is found, one reference per edge",
            {"src/metrics/inner.rs": "use crate::table::Table;\n\nfn f() { crate::analysis::run(); }\n"},
            1,
            [
                "import cycle: metrics -> analysis -> metrics",
                "metrics -> analysis: src/metrics/inner.rs:3",
                "analysis -> metrics: src/analysis/mod.rs:1",
            ],
        ),
        (
            "a stage importing kinds fails",
            {"src/metrics/mod.rs": "mod inner;\nuse crate::kinds::Run;\n"},
            1,
            ["metrics imports kinds", "src/metrics/mod.rs:2"],
        ),
        (
            "a grouped use importing kinds fails",
            {"src/analysis/mod.rs": "use crate::{\n    metrics::mean,\n    kinds::Run,\n};\n"},
            1,
            ["analysis imports kinds", "src/analysis/mod.rs:1"],
        ),
        (
            "a leaf importing the crate fails",
            {"src/table.rs": "pub struct Table;\nfn f() -> f64 { crate::metrics::mean() }\n"},
            1,
            ["leaf module table imports metrics", "src/table.rs:2", "import cycle: table -> metrics -> table"],
        ),
        (
            "cfg(test) code, tests.rs, strings are ignored",
            {
                "src/metrics/mod.rs": (
                    "mod inner;\n"
                    "#[cfg(test)]\nmod tests;\n"
                    "#[cfg(test)]\nmod test_util;\n"
                    'pub const BRACE: char = \'{\';\n'
                    'pub const MSG: &str = "crate::kinds } {";\n'
                    'pub const RAW: &str = r#"crate::analysis "} "#;\n'
                    "pub fn f<'a>(x: &'a str) -> &'a str { x }\n"
                    "#[cfg(test)]\n"
                    "#[allow(dead_code)]\n"
                    "mod more {\n"
                    "    use crate::kinds::Run;\n"
                    '    fn g() { let _ = "}"; let _ = \'}\'; crate::analysis::run(); }\n'
                    "    /* } nested /* } */ */\n"
                    "}\n"
                    "#[cfg(test)]\n"
                    "use crate::kinds::Run as R;\n"
                    "pub fn after() { let _ = crate::table::Table; }\n"
                ),
                "src/metrics/tests.rs": "use crate::kinds::Run;\n",
                "src/metrics/test_util.rs": "use crate::analysis::run;\n",
                "src/analysis/tests/deep.rs": "use crate::kinds::Run;\n",
            },
            0,
            ["ok: 4 top-level modules, 4 edges", "metrics -> table  (2 references"],
        ),
    ]
    cases += [
        (
            "a kind naming another kind fails",
            {"src/kinds/alpha/run.rs": "use crate::kinds::beta::y;\npub fn x() {}\n"},
            1,
            ["kind alpha refers to kind beta (src/kinds/alpha/run.rs:1)"],
        ),
        (
            "a grouped use naming another kind fails",
            {"src/kinds/beta.rs": "use crate::kinds::{\n    common::shared,\n    alpha::x,\n};\n"},
            1,
            ["kind beta refers to kind alpha (src/kinds/beta.rs:1)"],
        ),
        (
            "super chains to another kind fail",
            {
                "src/kinds/beta.rs": "use super::common::shared;\nuse super::alpha;\n",
                "src/kinds/alpha/run.rs": "pub fn x() { super::super::beta::y(); }\n",
            },
            1,
            [
                "kind beta refers to kind alpha (src/kinds/beta.rs:2)",
                "kind alpha refers to kind beta (src/kinds/alpha/run.rs:1)",
            ],
        ),
        (
            "super chains count inline modules",
            {
                "src/kinds/alpha/run.rs": (
                    "pub fn x() {}\n#[cfg(test)]\nmod tests {\n"
                    "    use super::super::run::x;\n"
                    "    fn f() { super::super::super::beta::y(); }\n}\n"
                )
            },
            1,
            ["kind alpha refers to kind beta (src/kinds/alpha/run.rs:5)"],
        ),
        (
            "the shared layer names no kind",
            {"src/kinds/common/mod.rs": "pub fn shared() { super::beta::y(); }\n"},
            1,
            ["the shared kind layer common refers to kind beta (src/kinds/common/mod.rs:1)"],
        ),
        (
            "a kind's own paths and the shared layer pass",
            {
                "src/kinds/alpha/run.rs": (
                    "use crate::kinds::alpha::run;\nuse crate::kinds::common::shared;\n"
                    "#[cfg(test)]\nmod tests {\n    use super::super::run::x;\n}\n"
                )
            },
            0,
            ["2 kinds apart (beside kinds/common)"],
        ),
    ]
    results = [run_case(*c) for c in cases]
    if all(results):
        print("check-layers self-test: %d cases ok" % len(results))
        return 0
    print("check-layers self-test: %d of %d cases FAILED" % (results.count(False), len(results)))
    return 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--root", default=os.path.join(here, "crates", "rsmreport"))
    parser.add_argument("--edges", action="store_true", help="list every edge between top-level modules")
    parser.add_argument("--self-test", action="store_true", help="run on small synthetic trees")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    return check(args.root, show_edges=args.edges)


if __name__ == "__main__":
    sys.exit(main())
