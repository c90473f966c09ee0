#!/usr/bin/env python3
"""Keeps the operator's book usable: every relative link and anchor resolves, README.md stays a
short front page, and the guides keep their paragraphs short.

  check_docs.py links REPO        every relative link in README.md, docs/, conf/ and bench/*.md
                                  names a file that exists and, with '#anchor', a heading (or an
                                  explicit <a id>) of that file
  check_docs.py readme REPO       README.md has at most 200 lines
  check_docs.py paragraphs REPO   no paragraph (or list item) of README.md or docs/ is longer
                                  than 120 words; tables, code blocks and headings do not count

Each mode prints every problem as FILE:LINE: what, and exits 1 if there is one.
"""
import os
import re
import sys

README_MAX_LINES = 200
PARAGRAPH_MAX_WORDS = 120

LINK = re.compile(r"(?<!!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")
EXPLICIT_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")


def markdown_files(repo, roots):
    for root in roots:
        path = os.path.join(repo, root)
        if os.path.isfile(path):
            yield path
            continue
        for directory, _, names in os.walk(path):
            for name in sorted(names):
                if name.endswith(".md"):
                    yield os.path.join(directory, name)


def prose_lines(path):
    """(line number, text) of the lines outside fenced code blocks."""
    in_fence = False
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if FENCE.match(line):
                in_fence = not in_fence
                continue
            if not in_fence:
                yield number, line.rstrip("\n")


def github_anchor(heading):
    """The id GitHub gives a heading: lower case, markup and punctuation dropped, spaces -> '-'."""
    text = re.sub(r"`([^`]*)`", r"\1", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"<[^>]+>", "", text).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors_of(path, cache={}):
    if path not in cache:
        found, seen = set(), {}
        for _, line in prose_lines(path):
            for explicit in EXPLICIT_ANCHOR.findall(line):
                found.add(explicit)
            match = HEADING.match(line)
            if match:
                anchor = github_anchor(match.group(2))
                count = seen.get(anchor, 0)
                seen[anchor] = count + 1
                found.add(anchor if count == 0 else f"{anchor}-{count}")
        cache[path] = found
    return cache[path]


def strip_inline_code(line):
    return re.sub(r"`[^`]*`", "", line)


def check_links(repo):
    problems, checked = [], 0
    for path in markdown_files(repo, ["README.md", "docs", "conf", "bench"]):
        for number, line in prose_lines(path):
            text = strip_inline_code(line)
            for target in LINK.findall(text) + IMAGE.findall(text):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                    continue
                file_part, _, anchor = target.partition("#")
                resolved = (os.path.normpath(os.path.join(os.path.dirname(path), file_part))
                            if file_part else path)
                checked += 1
                where = f"{os.path.relpath(path, repo)}:{number}"
                if not os.path.exists(resolved):
                    problems.append(f"{where}: link to {target}: no such file")
                    continue
                if anchor and resolved.endswith(".md") and anchor not in anchors_of(resolved):
                    problems.append(f"{where}: link to {target}: no heading #{anchor} there")
    print(f"links: {checked} relative links checked")
    return problems


def check_readme(repo):
    with open(os.path.join(repo, "README.md"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    if len(lines) > README_MAX_LINES:
        return [f"README.md: {len(lines)} lines, more than {README_MAX_LINES}: move details to docs/"]
    return []


def paragraphs(path):
    """(first line, words) of every paragraph and list item outside code, tables and headings.
    A nested list belongs to the item it is indented under: a reader takes them in together."""
    current, start = [], 0
    for number, line in prose_lines(path):
        stripped = line.strip()
        starts_item = re.match(r"^([-*+]|\d+\.)\s", line)  # top level only
        boundary = (not stripped or stripped.startswith("|") or HEADING.match(stripped)
                    or stripped.startswith("<"))
        if boundary or starts_item:
            if current:
                yield start, current
            current, start = [], 0
            if boundary:
                continue
        if not current:
            start = number
        current.extend(stripped.split())
    if current:
        yield start, current


def check_paragraphs(repo):
    problems = []
    for path in markdown_files(repo, ["README.md", "docs"]):
        for start, words in paragraphs(path):
            if len(words) > PARAGRAPH_MAX_WORDS:
                problems.append(f"{os.path.relpath(path, repo)}:{start}: a paragraph of "
                                f"{len(words)} words (at most {PARAGRAPH_MAX_WORDS}): split it")
    return problems


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("links", "readme", "paragraphs"):
        print(__doc__, file=sys.stderr)
        return 2
    mode, repo = sys.argv[1], sys.argv[2]
    problems = {"links": check_links, "readme": check_readme,
                "paragraphs": check_paragraphs}[mode](repo)
    for problem in problems:
        print(problem)
    print(f"{mode}: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
