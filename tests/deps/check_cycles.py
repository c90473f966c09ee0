#!/usr/bin/env python3
"""Fails when the sources depend on themselves in a circle.

- C++ (native/, jni/, daemon/, ctl/): a file's unit is its path without `.h`/`.cc` (libpresplit's
  native/src/x.cc belongs to native/include/presplit/x.h), and a unit depends on every project
  header it includes. Two units that include each other (directly or
  through others) cannot be understood, tested or moved one without the other.
- Java (java-shim/src/main/java): a package depends on every io.presplit package its code names
  (imports and fully qualified names; comments left out).

Prints each cycle with the edges that close it, and exits 1 if there is one.
Usage: check_cycles.py SOURCE_DIR
"""
import collections
import os
import re
import sys

CXX_DIRS = ("native", "jni", "daemon", "ctl")
JAVA_DIR = os.path.join("java-shim", "src", "main", "java")


def cxx_graph(root):
    graph = collections.defaultdict(dict)
    for top in CXX_DIRS:
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in files:
                if not name.endswith((".h", ".cc")):
                    continue
                path = os.path.join(dirpath, name)
                unit = os.path.relpath(path, root).rsplit(".", 1)[0]
                # libpresplit keeps a header in native/include/presplit and its source in
                # native/src: one unit.
                if unit.startswith("native/src/"):
                    header = "native/include/presplit/" + unit[len("native/src/"):]
                    if os.path.exists(os.path.join(root, header + ".h")):
                        unit = header
                graph[unit]
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                for match in re.finditer(r'^#include "([^"]+)\.h"', text, re.M):
                    included = match.group(1)
                    for candidate in (included, os.path.join("native", "include", included)):
                        if candidate != unit and os.path.exists(os.path.join(root, candidate + ".h")):
                            graph[unit].setdefault(candidate, name)
    return graph


def java_graph(root):
    graph = collections.defaultdict(dict)
    for dirpath, _, files in os.walk(os.path.join(root, JAVA_DIR)):
        for name in files:
            if not name.endswith(".java"):
                continue
            with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                text = f.read()
            text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
            text = re.sub(r"//[^\n]*", "", text)
            package = re.search(r"^package ([\w.]+);", text, re.M).group(1)
            graph[package]
            for match in re.finditer(r"\b(io\.presplit(?:\.[a-z]\w*)+)\.[A-Z]", text):
                if match.group(1) != package:
                    graph[package].setdefault(match.group(1), name)
    return graph


def cycles(graph):
    """The strongly connected components of more than one node (Tarjan, iterative)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = 0
    for start in list(graph):
        if start in index:
            continue
        work = [(start, iter(graph.get(start, {})))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            advanced = False
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(graph.get(nxt, {}))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    failed = False
    for kind, graph in (("C++ include", cxx_graph(root)), ("Java package", java_graph(root))):
        if len(graph) < 10:
            print(f"{kind} graph of {len(graph)} nodes: wrong source directory?")
            failed = True
        for component in cycles(graph):
            failed = True
            members = set(component)
            print(f"{kind} cycle: {' <-> '.join(component)}")
            for node in component:
                for dep, where in sorted(graph[node].items()):
                    if dep in members:
                        print(f"  {node} -> {dep} ({where})")
        print(f"{kind}: {len(graph)} nodes checked")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
