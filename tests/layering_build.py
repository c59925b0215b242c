#!/usr/bin/env python3
"""The compiler keeps the layers (docs/architecture.md): for every pair of
layers, a source file of the first that includes a header of the second
compiles only when the second is the first itself or below it.

    layering_build.py BUILD_DIR SOURCE_DIR

For each layer it takes the flags its own sources compile with (from
compile_commands.json), and preprocesses a one-line file that includes a
header of each other layer: a layer below must be found, any other must
fail with "No such file". A mismatch either way fails the test, naming the
pair. (Preprocessing is enough: it is where an include is found or not.)
"""
import json
import os
import shlex
import subprocess
import sys
import tempfile


def closure(deps, layer):
    seen, todo = set(), [layer]
    while todo:
        for d in deps[todo.pop()]:
            if d not in seen:
                seen.add(d)
                todo.append(d)
    return seen


def flags_of(command):
    words = shlex.split(command)
    out, i = [], 0
    while i < len(words):
        w = words[i]
        if w in ("-I", "-isystem", "-iquote", "-D"):
            out += [w, words[i + 1]]
            i += 2
            continue
        if w.startswith(("-I", "-D", "-std=", "-isystem")):
            out.append(w)
        i += 1
    return out


def main():
    build, source = sys.argv[1], sys.argv[2]
    deps = {}
    with open(os.path.join(build, "layers", "layers.txt")) as f:
        for line in f:
            words = line.split()
            if words:
                deps[words[0]] = words[1:]
    with open(os.path.join(build, "compile_commands.json")) as f:
        commands = json.load(f)
    compiler = shlex.split(commands[0]["command"])
    # The compiler is the first word after any launcher (cmake -E env ... ccache).
    cxx = next(w for w in compiler if w.endswith(("c++", "g++", "clang++")))
    src = os.path.join(os.path.realpath(source), "src")
    flags, header = {}, {}
    for layer in deps:
        mine = [c for c in commands if os.path.realpath(c["file"]).startswith(os.path.join(src, layer) + os.sep)]
        if not mine:
            print(f"no compile command for a source of {layer}/")
            return 1
        flags[layer] = flags_of(mine[0]["command"])
        headers = sorted(h for h in os.listdir(os.path.join(src, layer)) if h.endswith(".h"))
        header[layer] = f"{layer}/{headers[0]}"
    bad = 0
    checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        probe = os.path.join(tmp, "probe.cc")
        for layer in deps:
            below = closure(deps, layer) | {layer}
            for other in deps:
                with open(probe, "w") as f:
                    f.write(f'#include "{header[other]}"\n')
                r = subprocess.run([cxx, *flags[layer], "-E", "-o", os.devnull, probe],
                                   capture_output=True, text=True)
                checked += 1
                if other in below and r.returncode != 0:
                    print(f"{layer}/ cannot include {header[other]} though {other}/ is below it:")
                    print(r.stderr.strip()[:600])
                    bad = 1
                elif other not in below and (r.returncode == 0 or "No such file" not in r.stderr):
                    print(f"{layer}/ could include {header[other]}, but {other}/ is not below it"
                          + ("" if r.returncode == 0 else ": " + r.stderr.strip()[:300]))
                    bad = 1
    print(f"{checked} layer pairs checked, {len(deps)} layers")
    return bad


if __name__ == "__main__":
    sys.exit(main())
