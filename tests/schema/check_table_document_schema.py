#!/usr/bin/env python3
"""schema.table_document_verdicts: conf/tables/table-document.schema.json against libpresplit.

Every table document of the project's test corpus is judged twice: by the JSON Schema (python3
jsonschema, Draft202012Validator, after parsing the text as JSON) and by libpresplit's own
parser, through `presplitctl plan -` (exit 0: accepted; exit 1: "document refused: <why>"). The
verdicts must be the same, except for the documents that break only a rule in INEXPRESSIBLE:
those the schema must accept and libpresplit must refuse, with the message the rule describes.

The corpus (collect()):
  - the documents on disk: conf/tables/*.json, examples/*.json, bench/*/document.json, the
    fuzzers' seeds (tests/native/fuzz/corpus/table_config, tests/daemon/fuzz/corpus/
    reconcile_document), tests/native/fuzz/corpus/json_bounds/reference.json;
  - every raw string literal in tests/**/*.cc|h that is a whole JSON document with a "version";
  - every layout of tests/vectors/layouts.json, in a salt-buckets document;
  - the ```json blocks of README.md, docs/ and conf/ that are table documents;
  - table_document_cases.json: the documents the C++ tests build in code (edits of the reference
    document, templates), and documents at the schema's edges;
  - every proper prefix of the reference document (TruncatedDocumentsAreRejectedWithoutThrowing).

The test fails when a document gets two verdicts outside INEXPRESSIBLE, when a case marked
native_only does not (any more) get the two verdicts its rule predicts, when a rule of
INEXPRESSIBLE is exercised by no document, when the corpus is smaller than MIN_VALID/MIN_INVALID,
and when the comparison cannot tell a broken schema from this one (MUTANTS).
"""
import argparse
import concurrent.futures
import copy
import glob
import json
import os
import re
import subprocess
import sys

# The rules only libpresplit checks, each with why JSON Schema cannot say it and the start of
# the message libpresplit refuses such a document with. docs/table-documents.md ("A JSON Schema
# for portals and editors") lists the same rules.
INEXPRESSIBLE = {
    "duplicate-keys": (
        "no key twice in one object: a JSON parser keeps one of the values before any schema sees "
        "the document",
        r"/.*: duplicate key$"),
    "size": (
        "at most 1 MiB of JSON text: a schema sees the parsed value, not its bytes",
        r"JSON of \d+ bytes is larger than the limit of 1048576 bytes$"),
    "integer-spelling": (
        "integers written as integers: libpresplit refuses 2.0 or 2e0 where an integer goes, JSON "
        "Schema's integer is any number without a fractional part",
        r"/.*: expected an integer, got a number with a fraction$"),
    "explicit-keys-order": (
        "explicit split keys strictly increasing in unsigned byte order once \\xHH is decoded: a "
        "schema cannot compare array items",
        r"/split/keys: split key \d+ '.*' is not greater than split key \d+ "),
    "row-key-bytes": (
        "a row key (split.keys, split.sample, uniform's first_row and last_row) at most 32767 "
        "bytes once decoded: a schema counts characters, not bytes after \\xHH decoding",
        r"/split(/sample/\d+)?(/keys)?: (longer than 32767 bytes|split key \d+ is \d+ "
        r"bytes long|first and last row must be at most 32767 bytes long)"),
    "split-range": (
        "hex-string, decimal-string and uniform: last_row above first_row, and a range that holds "
        "at least `regions` values: arithmetic on the rows",
        r"/split: (last row '.*' must be greater than first row|cannot split the range|"
        r"last row '.*' equals first row)"),
    "salt-bucket-regions": (
        "salt-buckets: regions equal to layout.salt.buckets x regions_per_bucket, and that product "
        "at most 10000: arithmetic across fields",
        r"/split/(regions: must equal layout\.salt\.buckets|regions_per_bucket: \d+ "
        r"buckets x \d+ = \d+ regions)"),
    "load-split-budget": (
        "load_split.max_regions at least the regions the table is created with, a number that "
        "follows from split and layout",
        r"/load_split/max_regions: must be between \d+ and 10000 \(got \d+\)$"),
    "family-names-unique": (
        "column family names unique: a schema's uniqueItems compares whole families, not names",
        r"/families/\d+/name: duplicate column family "),
}

# The corpus must stay a real one: at least this many documents of each verdict (libpresplit's),
# among those that are JSON (the truncated prefixes of the reference document are counted apart).
MIN_VALID = 120
MIN_INVALID = 200

# Schemas made wrong on purpose, each one way: the comparison must notice every one.
MUTANTS = [
    ("unknown top-level fields accepted",
     lambda s: s.pop("additionalProperties")),
    ("split.regions without its maximum",
     lambda s: s["properties"]["split"]["properties"]["regions"].pop("maximum")),
    ("byte salts up to 10000 buckets",
     lambda s: s["properties"]["layout"]["properties"]["salt"].pop("allOf")),
    ("family names unchecked",
     lambda s: s["$defs"]["family"]["properties"]["name"].pop("pattern")),
    ("two families needed",
     lambda s: s["properties"]["families"].__setitem__("minItems", 2)),
    ("split keys must be upper case",
     lambda s: s["$defs"]["binary_key"].__setitem__("pattern", "^[^a-z]*$")),
]


class Document:
    def __init__(self, source, data, native_only=None):
        self.source = source
        self.data = data
        self.native_only = native_only
        self.sources = [source]

    def shown(self, limit=300):
        text = self.data.decode("utf-8", "backslashreplace")
        return text if len(text) <= limit else text[:limit] + "... (%d bytes)" % len(self.data)


# ---------------------------------------------------------------------------------------------
# The corpus

RAW_STRING = re.compile(r'R"([^()\\\s]{0,16})\((.*?)\)\1"', re.S)
NAMED_RAW_STRING = re.compile(r'\b(k\w+)\s*=\s*R"([^()\\\s]{0,16})\((.*?)\)\2"', re.S)


def is_document(value):
    return isinstance(value, dict) and "version" in value and (
        "split" in value or "families" in value)


def dumps(value):
    return json.dumps(value, ensure_ascii=False).encode("utf-8")


def pointer_parts(pointer):
    if not pointer.startswith("/"):
        raise ValueError("not a JSON Pointer: %r" % pointer)
    return [p.replace("~1", "/").replace("~0", "~") for p in pointer[1:].split("/")]


def pointer_set(doc, pointer, value):
    *parents, last = pointer_parts(pointer)
    node = doc
    for p in parents:
        node = node[int(p)] if isinstance(node, list) else node[p]
    if isinstance(node, list):
        if last == "-":
            node.append(value)
        else:
            node[int(last)] = value
    else:
        node[last] = value


def pointer_remove(doc, pointer):
    *parents, last = pointer_parts(pointer)
    node = doc
    for p in parents:
        node = node[int(p)] if isinstance(node, list) else node[p]
    if isinstance(node, list):
        del node[int(last)]
    else:
        del node[last]


def named_raw_string(root, path, name):
    with open(os.path.join(root, path), encoding="utf-8") as f:
        for m in NAMED_RAW_STRING.finditer(f.read()):
            if m.group(1) == name:
                return m.group(3)
    raise SystemExit("%s: no raw string named %s (table_document_cases.json's bases)" % (
        path, name))


def deep(kind, depth):
    if kind == "objects":
        return '{"":' * depth + "1" + "}" * depth
    return "[" * depth + "]" * depth


def generated(case, base_text):
    kind = case["generated"]
    if kind == "pad":
        text = case["text"]
        if "pad_by" in case:
            return text + " " * case["pad_by"]
        return text + " " * (case["pad_to"] - len(text.encode("utf-8")))
    if kind == "deep_objects":
        return deep("objects", case["depth"])
    if kind == "deep_arrays":
        return deep("arrays", case["depth"])
    if kind == "many_keys":
        # The minimal document split by `algorithm` with `count` distinct, increasing keys.
        doc = json.loads(base_text["minimal"])
        keys = ["k%06d" % i for i in range(case["count"])]
        if case["algorithm"] == "explicit":
            doc["split"] = {"algorithm": "explicit", "keys": keys}
        else:
            doc["split"] = {"algorithm": "sampled", "regions": 100, "sample": keys}
        return json.dumps(doc, separators=(",", ":"))
    if kind == "deep_member":
        # A valid document with one more member whose value is nested `depth` levels deep.
        valid = base_text["minimal"]
        nested = deep("arrays" if case.get("arrays") else "objects", case["depth"])
        return valid[:-1] + ',"%s":%s}' % (case["member"].lstrip("/"), nested)
    raise SystemExit("table_document_cases.json: unknown generated kind %r" % kind)


def case_documents(root, here):
    with open(os.path.join(here, "table_document_cases.json"), encoding="utf-8") as f:
        spec = json.load(f)
    base_text = {}
    for name, base in spec["bases"].items():
        if "cxx" in base:
            base_text[name] = named_raw_string(root, base["cxx"], base["name"])
        else:
            base_text[name] = json.dumps(base["doc"], separators=(",", ":"))
    docs = []
    for i, case in enumerate(spec["cases"]):
        label = "table_document_cases.json#%d (%s)" % (i, case["source"])
        if "generated" in case:
            data = generated(case, base_text).encode("utf-8")
        elif "fill" in case:
            data = base_text[case["base"]].replace("%s", case["fill"]).encode("utf-8")
        elif "base" in case:
            doc = json.loads(base_text[case["base"]])
            for pointer, value in case.get("set", {}).items():
                pointer_set(doc, pointer, copy.deepcopy(value))
            for pointer, pieces in case.get("repeat", {}).items():
                pointer_set(doc, pointer, "".join(text * count for text, count in pieces))
            for pointer in case.get("remove", []):
                pointer_remove(doc, pointer)
            data = dumps(doc)
        elif "doc" in case:
            data = dumps(case["doc"])
        elif "text" in case:
            data = case["text"].encode("utf-8")
        elif "latin1" in case:
            data = case["latin1"].encode("latin-1")
        else:
            raise SystemExit("%s: no document in the case" % label)
        native_only = case.get("native_only")
        if native_only is not None and native_only not in INEXPRESSIBLE:
            raise SystemExit("%s: native_only %r is not in INEXPRESSIBLE" % (label, native_only))
        docs.append(Document(label, data, native_only))
    # Every proper prefix of the reference document is malformed JSON.
    reference = base_text["reference"].encode("utf-8")
    for n in range(len(reference) - 1):
        docs.append(Document("kReferenceDoc[:%d] (TruncatedDocumentsAreRejectedWithoutThrowing)"
                             % n, reference[:n]))
    return docs


def file_documents(root):
    docs = []

    def rel(path):
        return os.path.relpath(path, root)

    plain = (glob.glob(os.path.join(root, "conf/tables/*.json")) +
             glob.glob(os.path.join(root, "examples/*.json")) +
             glob.glob(os.path.join(root, "tests/native/fuzz/corpus/table_config/*")) +
             [os.path.join(root, "tests/native/fuzz/corpus/json_bounds/reference.json")])
    for path in sorted(plain):
        if path.endswith(".schema.json"):
            continue
        with open(path, "rb") as f:
            docs.append(Document(rel(path), f.read()))
    # Benchmark documents are templates: @TABLE@ is the table the benchmark creates.
    for path in sorted(glob.glob(os.path.join(root, "bench/*/document.json"))):
        with open(path, "rb") as f:
            docs.append(Document(rel(path), f.read().replace(b"@TABLE@", b"bench:table")))
    # The reconcile fuzzer's input: one byte of mode, then the document (with mode bit 3, up to
    # the first 0xFF byte; a status follows).
    seeds = os.path.join(root, "tests/daemon/fuzz/corpus/reconcile_document/*")
    for path in sorted(glob.glob(seeds)):
        with open(path, "rb") as f:
            data = f.read()
        if not data:
            continue
        document = data[1:]
        if data[0] & 8 and b"\xff" in document:
            document = document[:document.index(b"\xff")]
        docs.append(Document(rel(path), document))
    return docs


def raw_string_documents(root):
    docs = []
    sources = sorted(glob.glob(os.path.join(root, "tests/**/*.cc"), recursive=True) +
                     glob.glob(os.path.join(root, "tests/**/*.h"), recursive=True))
    for path in sources:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            text = f.read()
        for m in RAW_STRING.finditer(text):
            body = m.group(2)
            if '"version"' not in body:
                continue
            try:
                value = json.loads(body)
            except ValueError:
                continue  # a piece of a document put together in code
            if is_document(value):
                line = text.count("\n", 0, m.start()) + 1
                docs.append(Document("%s:%d" % (os.path.relpath(path, root), line),
                                     body.encode("utf-8", "surrogateescape")))
    return docs


def vector_documents(root):
    path = os.path.join(root, "tests/vectors/layouts.json")
    with open(path, encoding="utf-8") as f:
        vectors = json.load(f)
    docs = []
    for entry in vectors["layouts"]:
        doc = {"version": 1, "table": "vectors:t", "layout": entry["layout"],
               "split": {"algorithm": "salt-buckets"}, "families": [{"name": "f"}]}
        docs.append(Document("tests/vectors/layouts.json %s" % entry["name"], dumps(doc)))
    return docs


def markdown_documents(root):
    docs = []
    pages = ([os.path.join(root, "README.md")] +
             glob.glob(os.path.join(root, "docs/**/*.md"), recursive=True) +
             glob.glob(os.path.join(root, "conf/**/*.md"), recursive=True))
    block = re.compile(r"^```json\n(.*?)^```", re.S | re.M)
    for path in sorted(pages):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for m in block.finditer(text):
            try:
                value = json.loads(m.group(1))
            except ValueError:
                continue
            if is_document(value):
                line = text.count("\n", 0, m.start()) + 1
                docs.append(Document("%s:%d" % (os.path.relpath(path, root), line),
                                     m.group(1).encode("utf-8")))
    return docs


def collect(root, here):
    """The corpus without duplicates, and how many documents each kind of source gave."""
    kinds = [("files", file_documents(root)), ("C++ raw strings", raw_string_documents(root)),
             ("layout vectors", vector_documents(root)), ("docs", markdown_documents(root)),
             ("cases and prefixes", case_documents(root, here))]
    counts = {kind: len(found) for kind, found in kinds}
    docs = [doc for _, found in kinds for doc in found]
    unique = {}
    for doc in docs:
        seen = unique.get(doc.data)
        if seen is None:
            unique[doc.data] = doc
            continue
        seen.sources.append(doc.source)
        if doc.native_only and seen.native_only and doc.native_only != seen.native_only:
            raise SystemExit("%s and %s: the same document marked %s and %s" % (
                seen.source, doc.source, seen.native_only, doc.native_only))
        seen.native_only = seen.native_only or doc.native_only
    return list(unique.values()), counts


# ---------------------------------------------------------------------------------------------
# The two verdicts

def reject_constant(name):
    raise ValueError("%s is not JSON" % name)


def parse_json(data):
    """The JSON value of `data`, or None (with why) when it is not JSON text."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]  # libpresplit's parser skips a UTF-8 byte order mark too
    try:
        text = data.decode("utf-8")
        return json.loads(text, parse_constant=reject_constant), None
    except (ValueError, RecursionError) as e:
        return None, "not JSON: %s" % e


def schema_verdict(validator, data):
    """(accepted, why)."""
    value, problem = parse_json(data)
    if problem:
        return False, problem
    error = next(iter(validator.iter_errors(value)), None)
    if error is None:
        return True, ""
    where = "/" + "/".join(str(p) for p in error.absolute_path)
    return False, "%s: %s" % (where, error.message[:200])


def native_verdict(presplitctl, data):
    """(accepted, message) from `presplitctl plan -`."""
    run = subprocess.run([presplitctl, "plan", "-", "--format", "json"], input=data,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    stderr = run.stderr.decode("utf-8", "backslashreplace").strip()
    if run.returncode == 0:
        return True, ""
    prefix = "presplitctl: document refused: "
    if run.returncode != 1 or not stderr.startswith(prefix):
        raise SystemExit("presplitctl plan exited %d: %s" % (run.returncode, stderr))
    return False, stderr[len(prefix):]


def rule_of(message):
    for rule, (_, pattern) in INEXPRESSIBLE.items():
        if re.match(pattern, message):
            return rule
    return None


def compare(validator, docs, native):
    """Problems (strings), and the rules each disagreeing document was put down to."""
    problems = []
    exercised = {rule: [] for rule in INEXPRESSIBLE}
    for doc in docs:
        native_ok, message = native[doc.data]
        schema_ok, why = schema_verdict(validator, doc.data)
        if doc.native_only:
            if schema_ok and not native_ok and rule_of(message) == doc.native_only:
                exercised[doc.native_only].append(doc)
                continue
            problems.append(
                "%s: marked native_only %s, expected schema: accepts, libpresplit: refuses (%s);"
                " got schema: %s, libpresplit: %s\n    %s" % (
                    doc.source, doc.native_only, INEXPRESSIBLE[doc.native_only][0],
                    "accepts" if schema_ok else "refuses (%s)" % why,
                    "accepts" if native_ok else "refuses (%s)" % message, doc.shown()))
            continue
        if schema_ok == native_ok:
            continue
        if schema_ok and not native_ok:
            rule = rule_of(message)
            if rule:
                exercised[rule].append(doc)
                continue
            problems.append("%s: the schema accepts, libpresplit refuses: %s\n    %s" % (
                doc.source, message, doc.shown()))
        else:
            problems.append("%s: the schema refuses (%s), libpresplit accepts\n    %s" % (
                doc.source, why, doc.shown()))
    return problems, exercised


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", required=True, help="the source tree")
    parser.add_argument("--presplitctl", required=True, help="the presplitctl binary")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    here = os.path.dirname(os.path.abspath(__file__))

    try:
        from jsonschema import Draft202012Validator
    except ImportError:
        print("FAIL: python3's jsonschema is missing (Debian: python3-jsonschema; scripts/setup "
              "installs it)")
        return 1

    schema_path = os.path.join(root, "conf/tables/table-document.schema.json")
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)

    docs, counts = collect(root, here)
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        verdicts = pool.map(lambda d: native_verdict(args.presplitctl, d.data), docs)
        native = {doc.data: verdict for doc, verdict in zip(docs, verdicts)}

    problems, exercised = compare(validator, docs, native)

    for rule, matched in exercised.items():
        if not matched:
            problems.append("INEXPRESSIBLE[%r]: no document of the corpus breaks only this rule "
                            "any more; if the schema now expresses it, remove it here and from "
                            "docs/table-documents.md; else add a document that breaks it" % rule)

    json_docs = [d for d in docs if parse_json(d.data)[1] is None]
    valid = sum(1 for d in json_docs if native[d.data][0])
    invalid = len(json_docs) - valid
    not_json = len(docs) - len(json_docs)
    if valid < MIN_VALID or invalid < MIN_INVALID:
        problems.append("the corpus shrank: %d valid and %d invalid JSON documents, at least %d "
                        "and %d expected" % (valid, invalid, MIN_VALID, MIN_INVALID))

    # The comparison must be able to fail: every mutant schema must disagree somewhere.
    for what, mutate in MUTANTS:
        mutant = copy.deepcopy(schema)
        mutate(mutant)
        mutant_problems, _ = compare(Draft202012Validator(mutant), docs, native)
        if not mutant_problems:
            problems.append("a schema with %s gets the same verdicts as libpresplit on the whole "
                            "corpus: the corpus misses documents that tell them apart" % what)

    print("%d documents (%s; duplicates once): %d valid and %d invalid JSON documents, %d not "
          "JSON (libpresplit's verdicts)" % (
              len(docs), ", ".join("%d %s" % (n, kind) for kind, n in counts.items()), valid,
              invalid, not_json))
    for rule, matched in exercised.items():
        print("  native only, %-20s %2d document(s): %s" % (
            rule, len(matched), INEXPRESSIBLE[rule][0]))
    print("%d mutant schemas told apart" % len(MUTANTS))
    if problems:
        print("\nFAIL: %d problem(s)" % len(problems))
        for p in problems:
            print("- " + p)
        return 1
    print("OK: the schema and libpresplit agree on every document, but for the rules above")
    return 0


if __name__ == "__main__":
    sys.exit(main())
