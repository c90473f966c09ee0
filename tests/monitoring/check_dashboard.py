#!/usr/bin/env python3
"""Keeps conf/monitoring true to the daemon: the Grafana dashboard and the Prometheus alert rules
query only metrics presplitd serves on /metrics, and the dashboard stays importable.

  check_dashboard.py model DASHBOARD
      the dashboard's JSON parses; it has the ${DS_PROMETHEUS} datasource variable and the
      instance variable; every panel (rows aside) has that datasource, a place on the grid and
      targets, each with a refId and an expression
  check_dashboard.py names METRICS_MD DASHBOARD [RULES...]
      every metric name in the dashboard's expressions (and its variables' queries) and in the
      rules' `expr:` is one METRICS_MD lists (docs/reference/metrics.md: the rows of its tables
      that start with | `presplit_name` |); NAME_bucket, NAME_sum and NAME_count are accepted for
      a NAME whose row says histogram (_sum and _count: or summary)
  check_dashboard.py promql PROMTOOL DASHBOARD
      every expression of the dashboard parses: Grafana's variables are replaced ($__range and
      the other intervals by 5m, $name by .*) and the expressions handed to
      `promtool check rules` as recording rules; the panels "Copy ETA" and "Migration
      progress" compute the values expected on a migration's series, and the tables-by-phase
      panels theirs on a leader's presplit_tables beside a standby (promtool test rules)
  check_dashboard.py self-test
      the name extraction on expressions with functions, by/on clauses, strings, comments and
      Grafana variables, and a dashboard and rules with an unknown metric, which must be found

Each mode prints every problem as WHERE: what, and exits 1 if there is one. Python's standard
library only: the rules file is read for its `expr:` keys (one line, quoted or plain, or a | or >
block), not parsed as YAML.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

DATASOURCE_UID = "${DS_PROMETHEUS}"
GRID_WIDTH = 24

# ---- PromQL: the metric names an expression selects

KEYWORDS = {"and", "or", "unless", "bool", "offset", "atan2", "inf", "nan"}
GROUPING = {"by", "without", "on", "ignoring", "group_left", "group_right"}
AGGREGATIONS = {"sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values",
                "bottomk", "topk", "quantile", "limitk", "limit_ratio"}
# Grafana's variables: ${name}, ${name:format}, [[name]], $name (and $__interval & co.).
GRAFANA_VARIABLE = re.compile(r"\$\{[^}]*\}|\[\[[^\]]*\]\]|\$\w+")
IDENT_START = re.compile(r"[A-Za-z_:]")
IDENT = re.compile(r"[A-Za-z_:][A-Za-z0-9_:]*")
NUMBER = re.compile(r"(?:0[xX][0-9a-fA-F]+|[0-9.]+(?:[eE][+-]?[0-9]+)?[A-Za-z0-9_.]*)")


def tokens(expr):
    """(kind, text) of a PromQL expression: 'str', 'ident', 'num' or the punctuation itself;
    comments dropped."""
    i, n = 0, len(expr)
    while i < n:
        c = expr[i]
        if c.isspace():
            i += 1
        elif c == "#":
            while i < n and expr[i] != "\n":
                i += 1
        elif c in "\"'`":
            j, value = i + 1, []
            while j < n and expr[j] != c:
                if expr[j] == "\\" and c != "`" and j + 1 < n:
                    j += 1
                value.append(expr[j])
                j += 1
            yield "str", "".join(value)
            i = j + 1
        elif c.isdigit() or (c == "." and i + 1 < n and expr[i + 1].isdigit()):
            m = NUMBER.match(expr, i)
            yield "num", m.group(0)
            i = m.end()
        elif IDENT_START.match(c):
            m = IDENT.match(expr, i)
            yield "ident", m.group(0)
            i = m.end()
        elif expr.startswith(("=~", "!~", "==", "!=", ">=", "<="), i):
            yield expr[i:i + 2], expr[i:i + 2]
            i += 2
        else:
            yield c, c
            i += 1


def metric_names(expr):
    """The metric names a PromQL expression selects (Grafana's variables allowed), and the
    problems that keep a name from being known (a regular expression on __name__)."""
    toks = list(tokens(GRAFANA_VARIABLE.sub(" ", expr)))
    names, problems = set(), []
    i = 0
    while i < len(toks):
        kind, text = toks[i]
        following = toks[i + 1][0] if i + 1 < len(toks) else None
        if kind == "{":
            # A selector's matchers: label names, except a __name__ matcher, which names a metric.
            j = i + 1
            while j < len(toks) and toks[j][0] != "}":
                if toks[j] == ("ident", "__name__") and j + 2 < len(toks):
                    op, value = toks[j + 1][0], toks[j + 2]
                    if op == "=" and value[0] == "str":
                        names.add(value[1])
                    else:
                        problems.append("a __name__ matcher other than = cannot be checked")
                j += 1
            i = j + 1
            continue
        if kind == "[":
            # A range or a subquery's range and step.
            while i < len(toks) and toks[i][0] != "]":
                i += 1
            i += 1
            continue
        if kind == "ident":
            word = text.lower()
            if word in GROUPING:
                i += 1
                if i < len(toks) and toks[i][0] == "(":
                    while i < len(toks) and toks[i][0] != ")":
                        i += 1
                    i += 1
                continue
            if word in KEYWORDS or following == "(":
                pass  # an operator, or a function or aggregation called
            elif text in AGGREGATIONS and following == "ident" and \
                    toks[i + 1][1].lower() in ("by", "without"):
                pass  # sum by (...) (...)
            else:
                names.add(text)
        i += 1
    return names, problems


def split_arguments(text):
    """The top-level comma-separated arguments of a call's inside."""
    args, depth, current, quote = [], 0, [], None
    for c in text:
        if quote:
            if c == quote:
                quote = None
        elif c in "\"'`":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            args.append("".join(current))
            current = []
            continue
        current.append(c)
    args.append("".join(current))
    return [a.strip() for a in args]


def variable_query_expression(query):
    """The PromQL inside a Prometheus template variable's query, or None when it selects no
    metric (label_values(label), label_names(), metrics(regex))."""
    query = query.strip()
    m = re.fullmatch(r"(label_values|query_result)\s*\((.*)\)", query, re.S)
    if not m:
        return None if re.match(r"(label_names|metrics)\s*\(", query) else query
    if m.group(1) == "query_result":
        return m.group(2)
    args = split_arguments(m.group(2))
    return args[0] if len(args) == 2 else None


# ---- where the expressions are


def dashboard_panels(panels):
    """Every panel, those inside a (collapsed) row included."""
    for panel in panels:
        yield panel
        yield from dashboard_panels(panel.get("panels", []))


def dashboard_expressions(dashboard):
    """(where, expression) of every PromQL expression of a Grafana dashboard."""
    for panel in dashboard_panels(dashboard.get("panels", [])):
        for target in panel.get("targets", []) or []:
            if isinstance(target, dict) and isinstance(target.get("expr"), str):
                yield ("panel %r, target %s" % (panel.get("title"), target.get("refId")),
                       target["expr"])
    for variable in dashboard.get("templating", {}).get("list", []):
        if variable.get("type") != "query":
            continue
        query = variable.get("query")
        if isinstance(query, dict):
            query = query.get("query", "")
        expression = variable_query_expression(query or "")
        if expression:
            yield "variable %r" % variable.get("name"), expression
    for annotation in dashboard.get("annotations", {}).get("list", []):
        if isinstance(annotation.get("expr"), str):
            yield "annotation %r" % annotation.get("name"), annotation["expr"]


KEY_LINE = re.compile(r"^(\s*)(?:-\s+)?(alert|record|expr):\s*(.*?)\s*$")


def unquote_yaml(value):
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1].replace("''", "'")
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return json.loads(value)
    return value


def rules_expressions(text, source):
    """(where, expression) of every `expr:` of a Prometheus rules file."""
    lines = text.splitlines()
    rule = "?"
    out = []
    for number, line in enumerate(lines):
        m = KEY_LINE.match(line)
        if not m:
            continue
        indent, key, value = len(m.group(1)), m.group(2), m.group(3)
        if key != "expr":
            rule = "%s %s" % (key, unquote_yaml(value))
            continue
        # The lines below that are indented deeper belong to the value (a block or a plain or
        # quoted scalar that goes on).
        more = []
        for following in lines[number + 1:]:
            if following.strip() and len(following) - len(following.lstrip()) <= indent:
                break
            more.append(following.strip())
        if re.fullmatch(r"[|>][+-]?[0-9]?", value):
            expression = "\n".join(more)
        else:
            expression = unquote_yaml(" ".join([value] + [m for m in more if m]))
        out.append(("%s:%d (%s)" % (source, number + 1, rule), expression.strip()))
    return out


# ---- what the daemon exports

METRIC_ROW = re.compile(r"^\|\s*`(presplit_[A-Za-z0-9_:]*)(?:\{[^`]*\})?`\s*\|(.*)$")


def exported_metrics(markdown):
    """{name: row text} of the metric rows of docs/reference/metrics.md."""
    metrics = {}
    for line in markdown.splitlines():
        m = METRIC_ROW.match(line.strip())
        if m:
            metrics[m.group(1)] = m.group(2).lower()
    return metrics


def known(name, metrics):
    if name in metrics:
        return True
    for suffix, types in (("_bucket", ("histogram",)), ("_sum", ("histogram", "summary")),
                          ("_count", ("histogram", "summary"))):
        base = name[:-len(suffix)]
        if name.endswith(suffix) and base in metrics and \
                any(re.search(r"\b%s\b" % t, metrics[base]) for t in types):
            return True
    return False


def unknown_metrics(expressions, metrics):
    """Problems: every name not exported, with where it is used."""
    problems = []
    for where, expression in expressions:
        names, unreadable = metric_names(expression)
        problems += ["%s: %s" % (where, p) for p in unreadable]
        for name in sorted(names):
            if not known(name, metrics):
                problems.append("%s: %s is not a metric presplitd exports" % (where, name))
    return problems


# ---- the modes


def check_model(dashboard):
    problems = []
    if not isinstance(dashboard, dict):
        return ["the dashboard is not a JSON object"]
    for key in ("title", "uid", "panels", "schemaVersion", "templating"):
        if key not in dashboard:
            problems.append("no %r" % key)
    variables = {v.get("name"): v for v in dashboard.get("templating", {}).get("list", [])}
    ds = variables.get("DS_PROMETHEUS")
    if not ds or ds.get("type") != "datasource" or ds.get("query") != "prometheus":
        problems.append("no datasource variable DS_PROMETHEUS of plugin prometheus")
    instance = variables.get("instance")
    if not instance or instance.get("type") != "query":
        problems.append("no query variable 'instance'")
    ids = set()

    def datasource_ok(datasource):
        if isinstance(datasource, str):
            return datasource == DATASOURCE_UID
        return isinstance(datasource, dict) and datasource.get("uid") == DATASOURCE_UID and \
            datasource.get("type") == "prometheus"

    if isinstance(instance, dict) and not datasource_ok(instance.get("datasource")):
        problems.append("variable 'instance': datasource is not %s" % DATASOURCE_UID)
    panels = list(dashboard_panels(dashboard.get("panels", [])))
    if not any(p.get("type") != "row" for p in panels):
        problems.append("no panel")
    for panel in panels:
        where = "panel %r" % panel.get("title")
        if panel.get("id") in ids:
            problems.append("%s: id %s used twice" % (where, panel.get("id")))
        ids.add(panel.get("id"))
        grid = panel.get("gridPos", {})
        if not all(isinstance(grid.get(k), int) for k in ("h", "w", "x", "y")):
            problems.append("%s: no gridPos h, w, x, y" % where)
        elif grid["x"] + grid["w"] > GRID_WIDTH:
            problems.append("%s: wider than the grid" % where)
        if panel.get("type") == "row":
            continue
        if not panel.get("title"):
            problems.append("%s: no title" % where)
        if not datasource_ok(panel.get("datasource")):
            problems.append("%s: datasource is not %s" % (where, DATASOURCE_UID))
        targets = panel.get("targets")
        if not isinstance(targets, list) or not targets:
            problems.append("%s: no targets" % where)
            continue
        refs = set()
        for target in targets:
            ref = target.get("refId")
            if not ref or ref in refs:
                problems.append("%s: target without a refId of its own" % where)
            refs.add(ref)
            if not isinstance(target.get("expr"), str) or not target["expr"].strip():
                problems.append("%s, target %s: no expression" % (where, ref))
            if "datasource" in target and not datasource_ok(target["datasource"]):
                problems.append("%s, target %s: datasource is not %s" % (where, ref,
                                                                         DATASOURCE_UID))
    return problems


def check_names(metrics_path, dashboard_path, rules_paths):
    if not os.path.isfile(metrics_path):
        return ["%s: not found (the list of the metrics presplitd exports)" % metrics_path]
    with open(metrics_path, encoding="utf-8") as f:
        metrics = exported_metrics(f.read())
    if not metrics:
        return ["%s: no row | `presplit_...` | found" % metrics_path]
    with open(dashboard_path, encoding="utf-8") as f:
        expressions = list(dashboard_expressions(json.load(f)))
    problems = [] if expressions else ["%s: no expression found" % dashboard_path]
    for path in rules_paths:
        with open(path, encoding="utf-8") as f:
            found = rules_expressions(f.read(), os.path.basename(path))
        if not found:
            problems.append("%s: no expr found" % path)
        expressions += found
    problems += unknown_metrics(expressions, metrics)
    used = set()
    for _, expression in expressions:
        used |= metric_names(expression)[0]
    print("%d expressions, %d metrics used of the %d %s lists" %
          (len(expressions), len(used), len(metrics), os.path.basename(metrics_path)))
    return problems


def grafana_to_promql(expression):
    expression = re.sub(r"\$\{?__\w+\}?", "5m", expression)
    return GRAFANA_VARIABLE.sub(".*", expression)


def check_promql(promtool, dashboard_path):
    with open(dashboard_path, encoding="utf-8") as f:
        expressions = list(dashboard_expressions(json.load(f)))
    lines = ["groups:", "  - name: dashboard", "    rules:"]
    for index, (where, expression) in enumerate(expressions):
        lines.append("      # %s" % where.replace("\n", " "))
        lines.append("      - record: dashboard:expression_%d" % index)
        lines.append("        expr: %s" % json.dumps(grafana_to_promql(expression)))
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "dashboard-expressions.yml")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        run = subprocess.run([promtool, "check", "rules", path], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
    if run.returncode != 0:
        # promtool names the rule by its index: say which panel it is.
        text = re.sub(r"dashboard:expression_(\d+)",
                      lambda m: "dashboard:expression_%s, %s" % (
                          m.group(1), expressions[int(m.group(1))][0]), run.stdout)
        return ["promtool: " + line for line in text.splitlines() if line.strip()]
    print("%d expressions parse" % len(expressions))
    return check_panel_values(promtool, expressions)


# A migration copying 10 regions: one more done every 10 minutes, 1000 rows a minute. At 60
# minutes 6 are done with 60,000 rows (10,000 a region): 40,000 rows left at 1000/60 rows/s is
# 2400 s; the progress is 0.6.
ETA_SERIES = [
    ('presplit_migration_phase{instance="m1:9464",table="ns:t",phase="copying"}', "1x90"),
    ('presplit_migration_regions_total{instance="m1:9464",table="ns:t"}', "10x90"),
    ('presplit_migration_regions_done{instance="m1:9464",table="ns:t"}',
     " ".join(str(min(10, minute // 10)) for minute in range(91))),
    ('presplit_migration_rows{instance="m1:9464",table="ns:t"}', "0+1000x90"),
]
ETA_PANELS = {"Copy ETA": [('{table="ns:t"}', 2400)],
              "Migration progress": [('{table="ns:t"}', 0.6)]}

# presplit_tables: m2 led until minute 30 (its series then end, as a scrape marks them), m1
# leads since, with 8 documents: 5 ready, 1 drifting, 2 in error. The standby exports only
# presplit_leader 0. At 60 minutes: 3 not ready, and each phase counted once.
TABLE_PHASES = {"creating": 0, "ready": 5, "drift": 1, "invalid": 0, "error": 2, "missing": 0}
TABLES_SERIES = [
    ('presplit_leader{instance="m1:9464"}', "0x30 1x60"),
    ('presplit_leader{instance="m2:9464"}', "1x30 0x60"),
] + [('presplit_tables{instance="m1:9464",phase="%s"}' % phase, "_x30 %dx60" % count)
     for phase, count in TABLE_PHASES.items()] + \
    [('presplit_tables{instance="m2:9464",phase="%s"}' % phase, "%dx30 stale" % (count + 1))
     for phase, count in TABLE_PHASES.items()]
BY_PHASE = [('{phase="%s"}' % phase, count) for phase, count in TABLE_PHASES.items()]
TABLES_PANELS = {"Tables not ready": [("{}", 3)], "Tables by phase": BY_PHASE,
                 "Tables by phase over time": BY_PHASE}

# (input series, {panel title: [(labels, value) its one expression computes at 60 minutes]})
PANEL_FIXTURES = [(ETA_SERIES, ETA_PANELS), (TABLES_SERIES, TABLES_PANELS)]


def check_panel_values(promtool, expressions):
    """The panels of PANEL_FIXTURES compute, on their series, the values expected."""
    tests = []
    for series, panels in PANEL_FIXTURES:
        checks = []
        for title, samples in panels.items():
            found = [e for where, e in expressions if where.startswith("panel %r," % title)]
            if len(found) != 1:
                return ["panel %r: expected one expression, found %d" % (title, len(found))]
            checks.append({"expr": grafana_to_promql(found[0]), "eval_time": "60m",
                           "exp_samples": [{"labels": labels, "value": value}
                                           for labels, value in samples]})
        tests.append({"interval": "1m",
                      "input_series": [{"series": s, "values": v} for s, v in series],
                      "promql_expr_test": checks})
    test = {"rule_files": [], "evaluation_interval": "1m", "tests": tests}
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "panels_test.yml")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(test, f, indent=1)  # JSON is YAML
        run = subprocess.run([promtool, "test", "rules", path], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
    if run.returncode != 0:
        return ["promtool test rules: " + line for line in run.stdout.splitlines()
                if line.strip()]
    print("the panels %s compute the values expected" % ", ".join(
        repr(title) for _, panels in PANEL_FIXTURES for title in panels))
    return []


def self_test():
    problems = []

    def expect(expression, names):
        got = metric_names(expression)[0]
        if got != set(names):
            problems.append("%r: got %s, expected %s" % (expression, sorted(got), sorted(names)))

    expect('sum by (table) (rate(presplit_a_total{instance=~"$instance",x="y"}'
           '[$__rate_interval])) * 60', ["presplit_a_total"])
    expect("(sum(presplit_leader) or vector(0)) == 0", ["presplit_leader"])
    expect("max by (table) (presplit_x{phase=\"copying\"}) and on (table) max by (table) "
           "(changes(presplit_y[30m])) == 0", ["presplit_x", "presplit_y"])
    expect('{__name__="presplit_z", table="t"}', ["presplit_z"])
    expect("histogram_quantile(0.9, sum without (instance) (rate(presplit_h_bucket[5m])))",
           ["presplit_h_bucket"])
    expect("a / ignoring (instance) group_left (table) b offset 5m", ["a", "b"])
    expect("a * on (x) group_left b", ["a", "b"])
    expect("# presplit_commented\npresplit_d > Inf", ["presplit_d"])
    expect('label_replace(presplit_e, "dst", "$1", "src", "(presplit_.*)")', ["presplit_e"])
    expect("sum(increase(presplit_f[$__range])) / sum(presplit_g[${__interval}:1m])",
           ["presplit_f", "presplit_g"])
    expect("deriv(presplit_rows[10m]) > 0 unless presplit_paused", ["presplit_rows",
                                                                     "presplit_paused"])
    expect("up == 0", ["up"])
    expect("vector(1) + 1e3 + 0x1f", [])
    if metric_names('{__name__=~"presplit_.*"}')[1] == []:
        problems.append("a __name__ regular expression went unnoticed")
    if variable_query_expression("label_values(presplit_leader, instance)") != "presplit_leader":
        problems.append("label_values(metric, label): the metric is missed")
    if variable_query_expression("label_values(instance)") is not None:
        problems.append("label_values(label) taken for a metric")

    markdown = ("| metric | type | what |\n| --- | --- | --- |\n"
                "| `presplit_leader` | gauge | 1 on the leader |\n"
                "| `presplit_passes_total` | counter | passes |\n"
                "| `presplit_latency_seconds` | histogram | how long |\n")
    metrics = exported_metrics(markdown)
    if set(metrics) != {"presplit_leader", "presplit_passes_total", "presplit_latency_seconds"}:
        problems.append("metric rows read as %s" % sorted(metrics))
    dashboard = {"panels": [{"type": "row", "title": "r", "panels": [
        {"title": "good", "targets": [{"refId": "A", "expr": "sum(presplit_leader)"}]},
        {"title": "buckets", "targets": [
            {"refId": "A", "expr": "rate(presplit_latency_seconds_bucket[5m])"},
            {"refId": "B", "expr": "rate(presplit_passes_total_count[5m])"}]},
        {"title": "bogus", "targets": [
            {"refId": "A", "expr": "rate(presplit_no_such_metric_total[5m])"}]}]}],
        "templating": {"list": [{"name": "instance", "type": "query",
                                 "query": {"query": "label_values(presplit_bogus_var, instance)"}}]}}
    rules = ("groups:\n  - name: g\n    rules:\n"
             "      - alert: Good\n        expr: presplit_leader == 0\n"
             "      - alert: Quoted\n        expr: 'sum(presplit_passes_total) > 0'\n"
             "      - alert: Block\n        expr: |\n          presplit_leader\n"
             "            and on () presplit_bogus_in_block > 0\n        for: 5m\n"
             "      - alert: Folded\n        expr: >-\n          presplit_leader\n"
             "          unless presplit_bogus_folded\n        labels:\n          severity: x\n")
    found = unknown_metrics(list(dashboard_expressions(dashboard)) +
                            rules_expressions(rules, "rules.yml"), metrics)
    wanted = ["presplit_passes_total_count", "presplit_no_such_metric_total",
              "presplit_bogus_var", "presplit_bogus_in_block", "presplit_bogus_folded"]
    for name in wanted:
        if not any(" %s " % name in p for p in found):
            problems.append("the unknown metric %s went unnoticed" % name)
    if len(found) != len(wanted):
        problems.append("expected %d problems, got: %s" % (len(wanted), found))
    if not problems:
        print("self-test: %d unknown metrics found as expected, e.g. %s" % (len(found), found[0]))
    return problems


def main(argv):
    modes = {"model": 1, "names": 2, "promql": 2, "self-test": 0}
    if len(argv) < 2 or argv[1] not in modes or len(argv) - 2 < modes[argv[1]]:
        sys.stderr.write(__doc__)
        return 2
    mode = argv[1]
    if mode == "model":
        try:
            with open(argv[2], encoding="utf-8") as f:
                dashboard = json.load(f)
        except (OSError, ValueError) as e:
            problems = ["%s: %s" % (argv[2], e)]
        else:
            problems = check_model(dashboard)
            if not problems:
                print("%d panels, each with its datasource and targets" % sum(
                    1 for p in dashboard_panels(dashboard["panels"]) if p.get("type") != "row"))
    elif mode == "names":
        problems = check_names(argv[2], argv[3], argv[4:])
    elif mode == "promql":
        problems = check_promql(argv[2], argv[3])
    else:
        problems = self_test()
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
