#!/usr/bin/env python3
"""Prints the folder-level import graph of src/ and fails on a cycle or on an import of the
entry point.

A "unit" is a top-level folder of src/ (agent, session, ...) or a top-level file (cli.rs is
`cli`). Every `crate::NAME` path in a file (in `use` lines and in inline paths alike) is an
edge from the file's unit to NAME. Test modules are code too and count. Exit status: 0 clean,
1 a cycle or an import of `app`/`main`.
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
ENTRY = {"app", "main", "lib"}
PATH = re.compile(r"\bcrate::([a-z_][a-z0-9_]*)")
COMMENT = re.compile(r"^\s*//")


def unit_of(rel):
    head = rel.split(os.sep)[0]
    return head[:-3] if head.endswith(".rs") else head


def scan():
    edges = {}
    for base, _dirs, files in os.walk(ROOT):
        for f in files:
            if not f.endswith(".rs"):
                continue
            full = os.path.join(base, f)
            rel = os.path.relpath(full, ROOT)
            src = unit_of(rel)
            edges.setdefault(src, {})
            with open(full, encoding="utf-8") as fh:
                for line in fh:
                    if COMMENT.match(line):
                        continue
                    for m in PATH.finditer(line):
                        dst = m.group(1)
                        if dst != src:
                            edges[src].setdefault(dst, set()).add(rel)
    return edges


def cycles(edges):
    """Strongly connected components with more than one unit (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                visit(w)
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
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def main():
    edges = scan()
    bad = False
    for src in sorted(edges):
        if src in ENTRY:
            continue
        dsts = sorted(edges[src])
        print(f"{src} -> {', '.join(dsts) if dsts else '(nothing)'}")
    for src in sorted(edges):
        if src in ENTRY:
            continue
        for entry in ENTRY & set(edges[src]):
            bad = True
            files = ", ".join(sorted(edges[src][entry]))
            print(f"error: {src} imports the entry point `{entry}` ({files})")
    for comp in cycles(edges):
        bad = True
        print(f"error: import cycle between {', '.join(comp)}")
        for a in comp:
            for b in comp:
                if b in edges.get(a, {}):
                    files = ", ".join(sorted(edges[a][b]))
                    print(f"  {a} -> {b}: {files}")
    if bad:
        return 1
    print("import graph: no cycle, nothing imports the entry point")
    return 0


if __name__ == "__main__":
    sys.exit(main())
