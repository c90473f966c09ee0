#!/usr/bin/env python3
"""docs/troubleshooting.md names every reason and error code the daemon can write.

The texts are read from the source, never listed here, so a reason or an error added to the code
without a line in the troubleshooting page fails this check:

  - load split skip reasons: the `.reason = "..."` of daemon/watch/split_planner.cc and
    daemon/watch/daughter_mover.cc, the `skip("...")` of daemon/watch/load_watcher.cc, and the
    constants daemon/watch assigns to a table's `hold_reason`;
  - table status phases: the kPhase* constants of daemon/reconcile/reconciler.h;
  - migration phases: the phases of daemon/migrate/migration_phases.json (presplitd's phase
    table as data), and the final phases only the status carries (`PublishProgress(plan,
    "...")`, `Finish(..., "...")`);
  - migration request refusals: every `refusal` of that table ("<request> refused: ...", its
    {table}, {source}, {target} and {phase} placeholders);
  - migration errors: the message of every `Fail(node, ...)`, `refuse(...)` and assignment to
    `error` / `plan.error` in daemon/migrate/*.cc;
  - plan refusals: every `Refuse(...)` and `Status::InvalidArgument(...)` of
    daemon/migrate/plan_check.cc;
  - table status errors: every `outcome.error = ...`, `refuse(...)` and `fail(Status::...(...))`
    of daemon/reconcile/reconciler.cc.

A reason or a phase must have a table row of its own, its first cell the code (| `dry_run` |).
A message is a template: its string literals in order, anything computed in between (a table
name, a count, the error passed on) a placeholder; the page must hold the literals in that order
on one line, with anything in place of the placeholders (`creating the target <target>: <error>`
matches "creating the target " + plan.target + ": " + created.message()).

Usage: check_errors.py [--root DIR] [--doc FILE] [--list] [--no-self-test]
Exit status: 0 every item documented; 1 some missing (each printed with where it comes from);
2 the source could not be read as expected (the extraction needs updating).
After a passing check it proves that it can fail: it removes one item of each kind from a copy
of the page and runs itself on that copy, which must exit 1 naming the item.
"""

import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))

# The fewest items each extraction must find: fewer means the code moved and the extraction no
# longer sees it (a check that silently checks nothing is worse than none).
MINIMUM = {
    "skip reason": 8,
    "status phase": 5,
    "migration phase": 10,
    "migration error": 40,
    "plan refusal": 15,
    "request refusal": 5,
    "status error": 5,
}

# A template whose literals carry fewer characters than this says too little to look for.
MIN_LITERAL_CHARS = 6


class ExtractionError(Exception):
    pass


class Item:
    def __init__(self, kind, text, where, pieces=None):
        self.kind = kind
        self.text = text  # a code (reason, phase) or the template shown to the reader
        self.where = where  # "file:line"
        self.pieces = pieces  # templates: literal strings and None for placeholders

    def pattern(self):
        if self.pieces is None:
            # A row of its own: a table row whose first cell is the code.
            return re.compile(r"^\|\s*" + re.escape("`" + self.text + "`") + r"\s*\|", re.M)
        parts = list(self.pieces)
        while parts and parts[0] is None:
            parts.pop(0)
        while parts and parts[-1] is None:
            parts.pop()
        regex = ""
        for p in parts:
            regex += r"[^\n]*?" if p is None else re.escape(p)
        return re.compile(regex)

    def key(self):
        return (self.kind, self.text)


def read(root, rel):
    path = os.path.join(root, rel)
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        raise ExtractionError(f"cannot read {rel}: {e}")


def line_of(text, offset):
    return text.count("\n", 0, offset) + 1


def literal_end(text, i):
    """The offset after the string or character literal starting at `i`, or None when `i` does
    not start one (a digit separator such as 1'000 is no literal)."""
    c = text[i]
    if c not in "\"'":
        return None
    if c == "'" and 0 < i < len(text) - 1 and text[i - 1].isalnum() and text[i + 1].isalnum():
        return None
    j, n = i + 1, len(text)
    while j < n and text[j] != c:
        j += 2 if text[j] == "\\" else 1
    return j + 1


def strip_comments(text):
    """Blanks // and /* */ comments (keeping offsets and newlines), leaving string literals."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        end = literal_end(text, i)
        if end is not None:
            i = end
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = " "
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        else:
            i += 1
    return "".join(out)


def unescape(body):
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), body)


def expression_at(text, start, stops):
    """The C++ expression from `start` up to the first of `stops` outside brackets and
    literals; returns (expression, end offset)."""
    depth = 0
    i, n = start, len(text)
    while i < n:
        c = text[i]
        end = literal_end(text, i)
        if end is not None:
            i = end
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                if c in stops:
                    return text[start:i], i
                raise ExtractionError("unbalanced expression at offset %d" % i)
            depth -= 1
        elif depth == 0 and c in stops:
            return text[start:i], i
        i += 1
    raise ExtractionError("unterminated expression at offset %d" % start)


def split_top_level(text, separator):
    """The parts of `text` between top-level `separator`s (outside brackets and literals)."""
    parts, depth, i, start = [], 0, 0, 0
    n = len(text)
    while i < n:
        c = text[i]
        end = literal_end(text, i)
        if end is not None:
            i = end
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == separator and depth == 0:
            parts.append(text[start:i])
            start = i + 1
        i += 1
    parts.append(text[start:])
    return [part.strip() for part in parts]


def split_plus(expr):
    """Top-level terms of a concatenation."""
    return split_top_level(expr, "+")


LITERALS = re.compile(r'^(?:\s*"((?:[^"\\]|\\.)*)")+\s*$', re.S)
ONE_LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"', re.S)
WRAPPED = re.compile(r'^std::string\((.*)\)$', re.S)


def literal_of(term):
    """The text of a term made of string literals only (adjacent ones joined), else None."""
    wrapped = WRAPPED.match(term)
    if wrapped:
        term = wrapped.group(1).strip()
    if not LITERALS.match(term):
        return None
    return "".join(unescape(m.group(1)) for m in ONE_LITERAL.finditer(term))


def template_of(expr):
    pieces = []
    for term in split_plus(expr):
        lit = literal_of(term)
        if lit is None:
            if not pieces or pieces[-1] is not None:
                pieces.append(None)
        elif lit:
            if pieces and pieces[-1] is not None:
                pieces[-1] += lit
            else:
                pieces.append(lit)
    return pieces


def shown(pieces):
    return "".join("<...>" if p is None else p for p in pieces)


def templates(rel, text, call_regex, kind, stops=")"):
    """Items for the first argument (up to `stops`) after each match of `call_regex`."""
    code = strip_comments(text)
    items = []
    for m in re.finditer(call_regex, code):
        # A call's first argument (fail(status, layout): the status), or an assignment's value.
        expr, _ = expression_at(code, m.end(), ",)" if stops == ")" else stops)
        pieces = template_of(expr)
        literal_chars = sum(len(p.strip()) for p in pieces if p is not None)
        if literal_chars < MIN_LITERAL_CHARS:
            continue  # computed elsewhere (a variable), or too short to say anything
        items.append(Item(kind, shown(pieces), f"{rel}:{line_of(text, m.start())}", pieces))
    return items


def codes(rel, text, regex, kind, group=1):
    code = strip_comments(text)
    return [Item(kind, m.group(group), f"{rel}:{line_of(text, m.start())}")
            for m in re.finditer(regex, code)]


def extract(root):
    items = []

    # Load split skip reasons.
    rel = "daemon/watch/split_planner.cc"
    items += codes(rel, read(root, rel), r'\.reason\s*=\s*"([a-z_]+)"', "skip reason")
    rel = "daemon/watch/daughter_mover.cc"
    items += codes(rel, read(root, rel), r'\.reason\s*=\s*"([a-z_]+)"', "skip reason")
    rel = "daemon/watch/load_watcher.cc"
    items += codes(rel, read(root, rel), r'\bskip\(\s*"([a-z_]+)"\s*\)', "skip reason")
    constants = {}
    for path in sorted(glob.glob(os.path.join(root, "daemon/watch/*.h"))):
        rel = os.path.relpath(path, root)
        text = strip_comments(read(root, rel))
        for m in re.finditer(r'constexpr\s+const\s+char\s*\*\s*(k\w+)\s*=\s*"([^"]*)"', text):
            constants[m.group(1)] = (m.group(2), f"{rel}:{line_of(text, m.start())}")
    for path in sorted(glob.glob(os.path.join(root, "daemon/watch/*.cc"))):
        rel = os.path.relpath(path, root)
        text = read(root, rel)
        for m in re.finditer(r'hold_reason\s*=\s*(k\w+|"[a-z_]+")', strip_comments(text)):
            value = m.group(1)
            if value.startswith('"'):
                where = f"{rel}:{line_of(text, m.start())}"
                items.append(Item("skip reason", value.strip('"'), where))
            elif value in constants:
                items.append(Item("skip reason", constants[value][0], constants[value][1]))
            else:
                raise ExtractionError(f"{rel}: hold_reason = {value}, a constant not found in "
                                      "daemon/watch/*.h")

    # Table status phases.
    rel = "daemon/reconcile/reconciler.h"
    items += codes(rel, read(root, rel),
                   r'constexpr\s+const\s+char\s*\*\s*kPhase\w+\s*=\s*"([a-z_]+)"', "status phase")

    # Migration phases: the plan's (the phase table), then the final ones only the status
    # carries; the table's request refusals.
    rel = "daemon/migrate/migration_phases.json"
    try:
        table = json.loads(read(root, rel))
        phases = table["phases"]
    except (ValueError, KeyError, TypeError) as e:
        raise ExtractionError(f"{rel}: not the phase table ({e})")
    for phase in phases:
        items.append(Item("migration phase", phase["name"], rel))
        for request, rule in phase["requests"].items():
            if rule.get("refusal"):
                literals = re.split(r"\{(?:table|source|target|phase)\}",
                                    f"{request} refused: {rule['refusal']}")
                pieces = []
                for i, literal in enumerate(literals):
                    if i:
                        pieces.append(None)  # a placeholder between two literals
                    if literal:
                        pieces.append(literal)
                items.append(Item("request refusal", shown(pieces),
                                  f"{rel}: {phase['name']}/{request}", pieces))
    for path in sorted(glob.glob(os.path.join(root, "daemon/migrate/*.cc"))):
        rel = os.path.relpath(path, root)
        text = read(root, rel)
        code = strip_comments(text)
        for m in re.finditer(r'\bPublishProgress\(\s*[\w.]+\s*,\s*"([a-z_]+)"\s*\)', code):
            items.append(Item("migration phase", m.group(1), f"{rel}:{line_of(text, m.start())}"))
        for m in re.finditer(r'\bFinish\(', code):
            call, _ = expression_at(code, m.end(), ")")
            last = split_args(call)[-1]
            lit = literal_of(last)
            if lit:
                items.append(Item("migration phase", lit, f"{rel}:{line_of(text, m.start())}"))

    # Migration errors.
    for path in sorted(glob.glob(os.path.join(root, "daemon/migrate/*.cc"))):
        rel = os.path.relpath(path, root)
        text = read(root, rel)
        items += templates(rel, text, r'\bFail\(\s*\*?\w+\s*,', "migration error")
        items += templates(rel, text, r'\brefuse\(', "migration error")
        items += templates(rel, text, r'(?<![\w.])(?:plan\.error|error)\s*\+?=(?!=)',
                           "migration error", stops=";")

    # Plan refusals.
    rel = "daemon/migrate/plan_check.cc"
    text = read(root, rel)
    items += templates(rel, text, r'\bRefuse\(', "plan refusal")
    items += templates(rel, text, r'\bStatus::InvalidArgument\(', "plan refusal")

    # Table status errors.
    rel = "daemon/reconcile/reconciler.cc"
    text = read(root, rel)
    items += templates(rel, text, r'\boutcome\.error\s*=(?!=)', "status error", stops=";")
    items += templates(rel, text, r'\brefuse\(', "status error")
    items += templates(rel, text, r'\bfail\(\s*Status::\w+\(', "status error")

    unique, seen = [], set()
    for item in items:
        if item.key() not in seen:
            seen.add(item.key())
            unique.append(item)
    for kind, least in MINIMUM.items():
        found = sum(1 for i in unique if i.kind == kind)
        if found < least:
            raise ExtractionError(f"found {found} {kind}s in the source, expected at least "
                                  f"{least}: the code moved; update "
                                  "tests/docs/errors/check_errors.py")
    return unique


def split_args(call):
    """Top-level arguments of a call's argument list."""
    return split_top_level(call, ",")


def missing_items(items, doc):
    return [i for i in items if not i.pattern().search(doc)]


def report(missing, doc_rel):
    by_kind = {}
    for item in missing:
        by_kind.setdefault(item.kind, []).append(item)
    for kind, group in by_kind.items():
        print(f"{doc_rel} does not document these {kind}s:")
        for item in group:
            print(f"  {item.text!r}  ({item.where})")


def self_test(items, doc, argv_root):
    """Removes one item of each kind from a copy of the page: the check must then fail."""
    kinds = []
    for item in items:
        if item.kind not in [k.kind for k in kinds]:
            kinds.append(item)
    for item in kinds:
        mutated = item.pattern().sub("", doc)
        if not any(m.key() == item.key() for m in missing_items([item], mutated)):
            print(f"self-test: removing {item.text!r} from the page went unnoticed")
            return False
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "troubleshooting.md")
            with open(path, "w", encoding="utf-8") as f:
                f.write(mutated)
            run = subprocess.run([sys.executable, os.path.abspath(__file__), "--root", argv_root,
                                  "--doc", path, "--no-self-test"],
                                 capture_output=True, text=True)
            if run.returncode != 1 or repr(item.text) not in run.stdout:
                print(f"self-test: the check passed a page without {item.text!r} "
                      f"(exit {run.returncode}):\n{run.stdout}{run.stderr}")
                return False
    print(f"self-test: a page missing any one of {len(kinds)} kinds of item fails the check")
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=DEFAULT_ROOT, help="the repository (default: this one)")
    parser.add_argument("--doc", help="the page to check (default: docs/troubleshooting.md)")
    parser.add_argument("--list", action="store_true", help="print what the source yields")
    parser.add_argument("--no-self-test", action="store_true",
                        help="do not prove afterwards that the check can fail")
    args = parser.parse_args()
    doc_path = args.doc or os.path.join(args.root, "docs", "troubleshooting.md")
    try:
        items = extract(args.root)
    except ExtractionError as e:
        print(f"check_errors: {e}")
        return 2
    if args.list:
        for item in items:
            print(f"{item.kind:16} {item.text}    ({item.where})")
    try:
        with open(doc_path, encoding="utf-8") as f:
            doc = f.read()
    except OSError as e:
        print(f"check_errors: cannot read {doc_path}: {e}")
        return 1
    missing = missing_items(items, doc)
    doc_rel = os.path.relpath(doc_path, args.root) if args.doc is None else doc_path
    if missing:
        report(missing, doc_rel)
        return 1
    counts = {}
    for item in items:
        counts[item.kind] = counts.get(item.kind, 0) + 1
    print(f"{doc_rel} documents all " + ", ".join(f"{n} {k}s" for k, n in counts.items()))
    if not args.no_self_test and not self_test(items, doc, args.root):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
