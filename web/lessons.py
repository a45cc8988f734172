#!/usr/bin/env python3
"""Writes lessons.js for the playground (web/build.sh): the programs of
examples/ with their first comment line as a title, the literate lessons
(programs with `-- >` directives), and the notebooks' code cells, as one
JavaScript module, so that they are one click away with no request."""

import json
import pathlib
import re
import sys


def title(text):
    for line in text.splitlines():
        m = re.match(r"--\s*[|#]?\s*(.*)", line)
        if m and m.group(1).strip():
            return m.group(1).strip().rstrip(":,")
    return ""


def main(folder):
    lessons = []
    for path in sorted(pathlib.Path(folder).glob("*.fut")):
        text = path.read_text(encoding="utf-8")
        # A lesson for `urchin literate` has directives: `-- > ...`.
        kind = "lesson" if re.search(r"^-- > ", text, re.M) else "example"
        lessons.append({"file": path.name, "title": title(text), "kind": kind, "text": text})
    for path in sorted(pathlib.Path(folder).glob("*.ipynb")):
        nb = json.loads(path.read_text(encoding="utf-8"))
        cells = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
        heading = next(
            ("".join(c["source"]).splitlines()[0].lstrip("# ") for c in nb["cells"]
             if c["cell_type"] == "markdown"),
            path.stem,
        )
        lessons.append({"file": path.name, "title": heading, "kind": "lesson", "cells": cells})
    print("// Written by web/lessons.py from examples/; do not edit.")
    print(f"export const LESSONS = {json.dumps(lessons, ensure_ascii=False, indent=1)};")


if __name__ == "__main__":
    main(sys.argv[1])
