#!/usr/bin/env python3
"""Keeps the operator's references true to the code: a setting, a metric or a command that the
code has and the reference lacks is one no operator finds, and a row the code no longer backs
sends an operator (or a dashboard) after nothing. The names are read from the source text, so
the check needs no build; the reference's names from the first column of its tables.

  check_reference.py config REPO       docs/reference/config.md, conf/presplitd.conf and
                                       packaging/man/presplitd.8 against presplitd's settings
                                       table (daemon/runner/settings.def): names, defaults,
                                       ranges, which SIGHUP applies live (and that
                                       daemon_runner.cc applies them); presplitd's flags
  check_reference.py metrics REPO      docs/reference/metrics.md against the metrics table
                                       (daemon/metrics/metrics.def): names, types, labels, and
                                       each meaning beginning with the table's help; every row
                                       written by some code (Metric::name), and no presplit_*
                                       name written as a string in daemon/ besides
  check_reference.py presplitctl REPO  docs/reference/presplitctl.md: the commands registered in
                                       ctl/common.cc's Commands(), their subcommands and options,
                                       and the global options
  check_reference.py phases REPO       docs/migrations.md's phase table: the phases of
                                       daemon/migrate/migration_phases.json (presplitd's phase
                                       table as data), in order, and the requests each accepts

Each mode prints every difference, saying on which side a name is missing, and exits 1 if there
is one.
"""
import glob
import json
import os
import re
import sys

# presplit_* strings in daemon/ that are not /metrics series, and why.
NOT_METRICS = {
    "presplit_jar": "a config key",
    "presplit_resalt_": "prefix of a re-salt migration's source snapshot name "
                        "(SourceSnapshotOf in daemon/migrate/migration_plan.cc)",
    "presplit_": "prefix of a re-salt migration's replication peer ids (PeerBase, same file)",
}

CXX_TOKEN = re.compile(r'//[^\n]*|/\*.*?\*/|R"([^(\s]*)\((.*?)\)\1"|"((?:[^"\\\n]|\\.)*)"'
                       r"|'(?:[^'\\\n]|\\.)*'", re.S)
JOINABLE = re.compile(r"\s*(\+\s*)?$")  # what may stand between two literals that are one string


def read(repo, path):
    with open(os.path.join(repo, path), encoding="utf-8") as f:
        return f.read()


def json_file(repo, path):
    return json.loads(read(repo, path))


def need(found, what):
    """Stops when an extraction comes back empty: the code moved and this checker must follow."""
    if not found:
        sys.exit(f"check_reference: cannot find {what}; update tests/docs/reference/"
                 "check_reference.py to the code")
    return found


def literals(source):
    """[(text, start, end)] of the C++ string literals, comments skipped; adjacent literals and
    "a" + "b" are joined."""
    out = []
    for m in CXX_TOKEN.finditer(source):
        if m.group(0)[0] in "/'":
            continue
        text = m.group(2) if m.group(2) is not None else m.group(3)
        if out and JOINABLE.fullmatch(source[out[-1][2]:m.start()]):
            out[-1] = (out[-1][0] + text, out[-1][1], m.end())
        else:
            out.append((text, m.start(), m.end()))
    return out


def table_rows(markdown, heading=None):
    """[(names, cells)] of the table rows (header and rule rows skipped) under `heading` (to the
    next heading of its level or above), or of the whole file; `names` are the first word of each
    `code` span of the first cell."""
    rows, inside, level, fence = [], heading is None, 0, False
    for line in markdown.splitlines():
        if line.lstrip().startswith("```"):
            fence = not fence
        h = None if fence else re.match(r"^(#+)\s+(.*?)\s*$", line)
        if h and heading is not None:
            if h.group(2) == heading:
                inside, level = True, len(h.group(1))
            elif inside and len(h.group(1)) <= level:
                inside = False
        if inside and line.startswith("|") and not re.match(r"^\|[\s:|-]+\|?\s*$", line):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            names = [span.split()[0] for span in re.findall(r"`([^`]+)`", cells[0])]
            if names:
                rows.append((names, cells))
    return rows


def compare(what, in_code, in_reference, reference):
    problems = []
    for name in sorted(set(in_code) - set(in_reference)):
        problems.append(f"{reference}: {what} {name} is in the code, missing from the reference")
    for name in sorted(set(in_reference) - set(in_code)):
        problems.append(f"{reference}: {what} {name} is in the reference, not in the code")
    return problems


SETTING = re.compile(r'^PRESPLIT_SETTING\(\s*(\w+)\s*,\s*([^,]+?)\s*,\s*(k\w+)\s*,\s*'
                     r'("(?:[^"\\]|\\.)*"|\{\}|[^,]+?)\s*,\s*(-?\d+)\s*,\s*(-?\d+)\s*,\s*'
                     r'"([^"]*)"\s*,\s*(true|false)\s*,', re.M | re.S)


def byte_count_text(n):
    units, unit = "KMGT", -1
    while n and unit < 3 and n % 1024 == 0:
        n //= 1024
        unit += 1
    return str(n) + (units[unit] if unit >= 0 else "")


def settings_table(repo):
    """{name: (kind, default text, min, max, choices, live)} from daemon/runner/settings.def."""
    text = re.sub(r"//[^\n]*", "", read(repo, "daemon/runner/settings.def"))
    out = {}
    for m in SETTING.finditer(text):
        name, _, kind, default, lo, hi, choices, live = m.groups()
        if default.startswith('"'):
            default = default[1:-1]
        elif default == "{}":
            default = ""
        elif kind == "kBytes":
            shifted = re.fullmatch(r"int64_t\{(\d+)\}\s*<<\s*(\d+)", default)
            default = byte_count_text(int(shifted.group(1)) << int(shifted.group(2)) if shifted
                                      else int(default))
        out[name] = (kind, default, int(lo), int(hi), choices, live == "true")
    return need(out, "PRESPLIT_SETTING rows in daemon/runner/settings.def")


def check_config(repo):
    """config.md, the sample config and the man page against settings.def: every setting named,
    its default, its range (an integer's "min to max", a choice's words), live or restart."""
    ref_path = "docs/reference/config.md"
    table = settings_table(repo)
    keys = set(table) | {p + "*" for p in re.findall(
        r'\bkey\.rfind\("([\w.]+)", 0\) == 0', read(repo, "daemon/runner/daemon_options.cc"))}
    main = read(repo, "daemon/presplitd_main.cc")
    flags = need(set(re.findall(r'\barg == "(-[\w-]+)"', main)), "flags in presplitd_main.cc")
    runner = read(repo, "daemon/runner/daemon_runner.cc")
    applied = set(re.findall(r'\bname == "(\w+)"', runner))
    live = {n for n, row in table.items() if row[5]}
    problems = compare("setting SIGHUP applies (live in settings.def; `name == \"...\"` in "
                       "daemon_runner.cc):", live, applied, "daemon/runner/daemon_runner.cc")

    reference = read(repo, ref_path)
    rows = table_rows(reference, "Settings")
    ref_keys = {n for names, _ in rows for n in names}
    ref_live = {n for names, cells in rows for n in names if cells[-1].lower().startswith("yes")}
    ref_flags = {n for names, _ in table_rows(reference, "Command line") for n in names}
    problems += (compare("config key", keys, ref_keys, ref_path)
                 + compare("setting SIGHUP applies live (last column 'yes'):", live, ref_live,
                           ref_path)
                 + compare("presplitd flag", flags, ref_flags, ref_path))
    for names, cells in rows:
        row = table.get(names[0])
        if row is None or len(cells) < 3:
            continue
        kind, default, lo, hi, choices, _ = row
        shown = re.match(r"\s*`([^`]*)`", cells[1])
        documented = shown.group(1) if shown else ""
        if not shown and not re.match(r"\s*(empty|none)\b", cells[1]):
            problems.append(f"{ref_path}: {names[0]}: the default column neither shows a `value` "
                            "nor says empty")
        elif documented != default:
            problems.append(f"{ref_path}: {names[0]}: default {documented or 'empty'!r}, "
                            f"settings.def has {default or 'empty'!r}")
        text = " ".join(cells)
        if kind == "kInt" and f"{lo} to {hi}" not in text:
            problems.append(f"{ref_path}: {names[0]}: the range '{lo} to {hi}' of settings.def "
                            "is not in its row")
        for choice in choices.split("|") if kind == "kChoice" else ():
            if f"`{choice}`" not in text:
                problems.append(f"{ref_path}: {names[0]}: the choice `{choice}` of settings.def "
                                "is not in its row")

    # The man page: `.BR name " (default)"`, `(none...)` for an empty one.
    man_path = "packaging/man/presplitd.8"
    man = read(repo, man_path).replace("\\-", "-")
    for name, (_, default, *_rest) in table.items():
        m = re.search(r'^\.BR ' + re.escape(name) + r' " \(([^)]*)\)"', man, re.M)
        if not m:
            problems.append(f"{man_path}: setting {name} has no entry (.BR {name} \" (default)\")")
        elif not (m.group(1) == default or (not default and m.group(1).startswith("none"))):
            problems.append(f"{man_path}: {name}: default ({m.group(1)}), settings.def has "
                            f"{default or 'none'!r}")

    # The sample config: every setting, set to its default unless config.md's row says the
    # packaged file sets that value (`# key = ...` lines are examples).
    conf_path = "conf/presplitd.conf"
    conf = read(repo, conf_path)
    row_text = {names[0]: " ".join(cells) for names, cells in rows}
    for name, (_, default, *_rest) in table.items():
        lines = re.findall(r"^(#\s*)?" + re.escape(name) + r"\s*=\s*(.*?)\s*$", conf, re.M)
        if not lines:
            problems.append(f"{conf_path}: setting {name} is missing (set or as a # comment)")
        for commented, value in lines:
            if commented or value == default:
                continue
            if f"packaged file sets `{value}`" not in row_text.get(name, ""):
                problems.append(f"{conf_path}: {name} = {value}, its default is {default!r} "
                                f"(and {ref_path} does not say the packaged file sets it)")
    return problems


METRIC = re.compile(r'^PRESPLIT_METRIC\(\s*(\w+)\s*,\s*(\w+)\s*,\s*"([^"]*)"\s*,\s*'
                    r'((?:"(?:[^"\\]|\\.)*"\s*)+)\)', re.M)


def metrics_table(repo):
    """[(name, type, [labels], help)] of daemon/metrics/metrics.def, in its order."""
    text = re.sub(r"//[^\n]*", "", read(repo, "daemon/metrics/metrics.def"))
    out = []
    for m in METRIC.finditer(text):
        name, kind, labels, help_literals = m.groups()
        help_text = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', help_literals))
        out.append((name, kind, [l.strip() for l in labels.split(",") if l.strip()],
                    help_text.replace('\\"', '"').replace("\\\\", "\\")))
    return need(out, "PRESPLIT_METRIC rows in daemon/metrics/metrics.def")


def plain(markdown_text):
    """A reference cell's text without its code spans' backticks."""
    return markdown_text.replace("`", "")


def check_metrics(repo):
    ref_path = "docs/reference/metrics.md"
    table = metrics_table(repo)
    problems = []
    # Every series goes through the table: a presplit_* name the table lacks, written as a string
    # anywhere in daemon/, would be a series nobody declared (a declared one may be mentioned,
    # as presplitd's --help does).
    declared = {name for name, _, _, _ in table}
    used = set()
    for path in sorted(glob.glob(os.path.join(repo, "daemon", "**", "*.cc"), recursive=True)):
        source = open(path, encoding="utf-8").read()
        where = os.path.relpath(path, repo)
        used.update(re.findall(r"\bMetric::(presplit_\w+)", source))
        for text, _, _ in literals(source):
            for m in re.finditer(r"(?<!\w)presplit_\w*", text):
                if m.group(0) not in NOT_METRICS and m.group(0) not in declared:
                    problems.append(f"{where}: \"{m.group(0)}\" written by hand: declare the "
                                    "series in daemon/metrics/metrics.def and write it through "
                                    "its Metric")
    names = [name for name, _, _, _ in table]
    for name in names:
        if name not in used:
            problems.append(f"daemon/metrics/metrics.def: {name} is declared, and no code writes "
                            "it (Metric::" + name + ")")
    rows = table_rows(read(repo, ref_path))
    ref = {row_names[0]: cells for row_names, cells in rows if row_names[0].startswith("presplit_")}
    problems += compare("metric", names, ref, ref_path)
    for name, kind, labels, help_text in table:
        cells = ref.get(name)
        if cells is None:
            continue
        if len(cells) < 4:
            problems.append(f"{ref_path}: {name}: expected the columns metric, type, labels, "
                            "meaning")
            continue
        if cells[1] != kind:
            problems.append(f"{ref_path}: {name} is a {cells[1]} in the reference, a {kind} in "
                            "metrics.def")
        ref_labels = [l for l in re.findall(r"`([^`]+)`", cells[2])]
        if ref_labels != labels:
            problems.append(f"{ref_path}: {name}: labels {ref_labels or 'none'} in the reference, "
                            f"{labels or 'none'} in metrics.def")
        if not plain(cells[3]).startswith(help_text):
            problems.append(f"{ref_path}: {name}: the meaning must begin with metrics.def's help "
                            f"\"{help_text}\" (it says \"{plain(cells[3])[:80]}...\")")
    # presplit_migration_phase's numbers are the phase table's order.
    phases = [p["name"] for p in json_file(repo, "daemon/migrate/migration_phases.json")["phases"]]
    numbered = ", ".join(f"{i} {name}" for i, name in enumerate(phases))
    phase_cells = ref.get("presplit_migration_phase")
    if phase_cells and numbered not in plain(phase_cells[3]):
        problems.append(f"{ref_path}: presplit_migration_phase: the meaning must number the phases "
                        f"as the phase table does: \"{numbered}\"")
    return problems


def check_presplitctl(repo):
    ref_path = "docs/reference/presplitctl.md"
    registered = need(re.findall(r"for \(auto& c : (\w+Commands)\(\)\)",
                                 read(repo, "ctl/common.cc")),
                      "the command lists in ctl/common.cc's Commands()")
    options, defined = {}, set()
    for path in sorted(glob.glob(os.path.join(repo, "ctl", "*.cc"))):
        source = open(path, encoding="utf-8").read()
        for function in re.finditer(r"std::vector<CommandSpec> (\w+Commands)\(\) \{", source):
            if function.group(1) not in registered:
                continue
            defined.add(function.group(1))
            body = source[function.end():source.find("\n}", function.end())]
            # CommandSpec{"name", {"value-flag", ...}, {"switch", ...}, help, run}
            for name, values, switches in re.findall(
                    r'\{\s*"([a-z][\w-]*)",\s*\{([^{}]*)\},\s*\{([^{}]*)\},', body):
                options[name] = {"--" + o for o in re.findall(r'"([\w-]+)"', values + switches)}
    for missing in sorted(set(registered) - defined):
        sys.exit(f"check_reference: {missing}() is in Commands() but defined in no ctl/*.cc")
    main = read(repo, "ctl/presplitctl_main.cc")
    global_names = set(re.findall(r'"([\w-]+)"', need(re.search(r"bool global =(.*?);", main),
                                                       "bool global = ... in main").group(1)))
    global_options = {"--" + o for o in global_names}
    global_options |= set(re.findall(r'\barg == "(-[\w-]+)"', main))  # --help, -h
    # import hands its words on to SaltedImport: its options are ctl/import_command.cc's.
    importing = read(repo, "ctl/import_command.cc")
    own = need(re.search(r"const bool own =(.*?);", importing, re.S), "import's own options")
    options["import"] = {"--" + o for o in set(re.findall(r'"([\w-]+)"', own.group(1)))
                         - global_names
                         | {f for s in re.findall(r"names = \{([^}]*)\}", importing)
                            for f in re.findall(r'"([\w-]+)"', s)}}
    subcommands = {
        "migration": set(re.findall(r'\baction [!=]= "(\w+)"', read(repo, "ctl/migration.cc")))
        | set(re.findall(r'"(\w+)"', need(re.search(
            r"kRequestNames = \{([^}]*)\}", read(repo, "daemon/migrate/migration_request.cc")),
            "kRequestNames").group(1))),
        "key": set(re.findall(r'\bkeys\[0\] == "(\w+)"', read(repo, "ctl/key.cc"))),
    }
    need(all(subcommands.values()), "the subcommands of migration and key")

    reference = read(repo, ref_path)
    entries = [re.findall(r"`([^`]+)`", cells[0])[0].split()
               for _, cells in table_rows(reference, "Commands")]
    problems = compare("command", options, {e[0] for e in entries}, ref_path)
    problems += compare("subcommand", {f"{c} {s}" for c, subs in subcommands.items() for s in subs},
                        {" ".join(e[:2]) for e in entries if len(e) > 1}, ref_path)
    problems += compare("global option", global_options,
                        {n for names, _ in table_rows(reference, "Global options") for n in names},
                        ref_path)
    for command in sorted(options):
        in_reference = {n for names, _ in table_rows(reference, f"`{command}`") for n in names
                        if n.startswith("--")}
        problems += compare(f"option of {command}:", options[command], in_reference, ref_path)
    return problems


def check_phases(repo):
    table = json_file(repo, "daemon/migrate/migration_phases.json")
    doc_path = "docs/migrations.md"
    rows = need(table_rows(read(repo, doc_path), "The phases"), f"the phase table of {doc_path}")
    problems = []
    in_code = [p["name"] for p in table["phases"]]
    in_doc = [names[0] for names, _ in rows]
    if in_doc != in_code:
        problems.append(f"{doc_path}: the phases are {in_doc}, presplitd's table has {in_code}")
    accepts = {p["name"]: {r for r, rule in p["requests"].items() if rule["verdict"] != "refuse"}
               for p in table["phases"]}
    for names, cells in rows:
        documented = set(re.findall(r"`([a-z]+)`", cells[-1])) & set(table["requests"])
        expected = accepts.get(names[0])
        if expected is not None and documented != expected:
            problems.append(f"{doc_path}: phase {names[0]} accepts {sorted(expected)} in "
                            f"presplitd's table, the docs say {sorted(documented)}")
    return problems


def main():
    modes = {"config": check_config, "metrics": check_metrics, "presplitctl": check_presplitctl,
             "phases": check_phases}
    if len(sys.argv) != 3 or sys.argv[1] not in modes:
        print(__doc__, file=sys.stderr)
        return 2
    problems = modes[sys.argv[1]](sys.argv[2])
    for problem in problems:
        print(problem)
    print(f"{sys.argv[1]}: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
