#!/usr/bin/env python3
"""README.md and docs/*.md point only inside the repository.

Every Markdown link that is not a URL must name a file or folder of the
repository that exists, and its #anchor, if any, a heading of that file
(GitHub's rule: lower case, punctuation dropped, spaces as hyphens). Nor may
the text name a path that climbs out of the repository (../shared/...), which
a reader of the repository alone cannot follow. Prints each bad link with its
file and line; exits 1 if there is one.
"""
import os
import re
import sys

root = os.path.realpath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
files = [os.path.join(root, "README.md")]
docs = os.path.join(root, "docs")
files += sorted(os.path.join(docs, f) for f in os.listdir(docs) if f.endswith(".md"))

link = re.compile(r"\]\(([^)\s]+)\)")
outside = re.compile(r"(?<![\w.])\.\./")


def anchors(path):
    out = set()
    in_code = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("```"):
                in_code = not in_code
            if in_code or not line.startswith("#"):
                continue
            title = line.lstrip("#").strip().lower()
            title = re.sub(r"[^\w\- ]", "", title)
            out.add(title.replace(" ", "-"))
    return out


problems = []
for path in files:
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for n, line in enumerate(lines, 1):
        where = f"{os.path.relpath(path, root)}:{n}"
        for target in link.findall(line):
            if re.match(r"^[a-z]+:", target):
                continue  # http:, https:, mailto:
            file_part, _, anchor = target.partition("#")
            dest = os.path.realpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
            if dest != root and not dest.startswith(root + os.sep):
                problems.append(f"{where}: '{target}' leaves the repository")
                continue
            if not os.path.exists(dest):
                problems.append(f"{where}: '{target}' names nothing in the repository")
                continue
            if anchor and dest.endswith(".md") and anchor not in anchors(dest):
                problems.append(f"{where}: '{target}': no heading gives #{anchor}")
        if outside.search(line):
            problems.append(f"{where}: names a path outside the repository: {line.strip()[:80]}")

for p in problems:
    print(p)
sys.exit(1 if problems else 0)
