#!/usr/bin/env python3
"""The relay's layers, read from its `use` lines and `crate::`/`super::` paths.

    python3 scripts/layers.py            check: exit 1 on an import from a higher layer or a
                                         circle between modules of the crate
    python3 scripts/layers.py --picture  print the layers and who imports whom (README, Layout)
    python3 scripts/layers.py --self-test  the check finds an upward import and a circle in a
                                           small made-up tree, and passes a clean one

A module is a file (`broker/ops/read.rs` is `broker::ops::read`, `session/mod.rs` is `session`).
An edge A -> B is a path in A that names B (the longest known module prefix of the path),
`use` lines and inline paths alike; `mod x;` declarations are not edges. Each file's
`#[cfg(test)]` tail is skipped: tests may reach anywhere below. The layers, bottom up, are given
by the top-level module (LAYERS below); the binary's `main.rs` sits above them all.
"""

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent / "relay" / "src"
if "--root" in sys.argv:
    ROOT = pathlib.Path(sys.argv[sys.argv.index("--root") + 1]).resolve()

# Bottom up. A module may import from its own layer (without a circle) and from layers below.
LAYERS = [
    ("ground", ["ground"]),
    ("sessions", ["session"]),
    ("broker", ["broker"]),
    ("fronts", ["guard", "http", "mcp", "cli", "state", "crate"]),
]


def module_of(path: pathlib.Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts == ["lib"]:
        return "crate"
    if parts[-1] == "mod":
        parts = parts[:-1]
    return "::".join(parts)


def strip(text: str) -> str:
    """The code of a file without its test tail, comments and string literals."""
    m = re.search(r"^#\[cfg\(test\)\]\s*\n\s*mod tests", text, re.M)
    if m:
        text = text[: m.start()]
    text = re.sub(r'\br(#*)"(?:.|\n)*?"\1', '""', text)  # raw strings
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)
    text = re.sub(r"'(?:\\.|[^'\\])'", "''", text)  # char literals, not lifetimes
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*(?:.|\n)*?\*/", "", text)
    return text


def expand(tree: str) -> list:
    """`a::{b, c::{d, e}}` -> ["a::b", "a::c::d", "a::c::e"]."""
    tree = tree.strip()
    i = tree.find("{")
    if i < 0:
        return [tree.split(" as ")[0].strip()]
    prefix, body = tree[:i], tree[i + 1 : tree.rfind("}")]
    items, depth, cur = [], 0, ""
    for ch in body:
        if ch == "," and depth == 0:
            items.append(cur)
            cur = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        cur += ch
    items.append(cur)
    out = []
    for item in items:
        if item.strip():
            for sub in expand(item):
                out.append((prefix + sub).replace("::self", ""))
    return out


def resolve(here: str, path: str, modules: set) -> str | None:
    """The module a path in module `here` names, or None when it is outside the crate."""
    segs = [s for s in path.split("::") if s]
    if not segs:
        return None
    base = [] if here == "crate" else here.split("::")
    if segs[0] == "crate":
        abs_ = segs[1:]
    elif segs[0] in ("super", "self"):
        cur = list(base)
        while segs and segs[0] in ("super", "self"):
            if segs.pop(0) == "super":
                cur = cur[:-1]
        abs_ = cur + segs
    elif "::".join(base + segs[:1]) in modules:
        abs_ = base + segs  # a child module named without `self::`
    else:
        return None
    for n in range(len(abs_), 0, -1):
        cand = "::".join(abs_[:n])
        if cand in modules:
            return cand
    return "crate"


def edges() -> dict:
    files = {module_of(p): p for p in ROOT.rglob("*.rs") if p.name != "main.rs"}
    modules = set(files)
    graph = {m: set() for m in modules}
    for here, path in files.items():
        code = strip(path.read_text())
        paths = []
        for m in re.finditer(r"\buse\s+([^;]+);", code):
            paths += expand(m.group(1))
        code_wo_use = re.sub(r"\buse\s+[^;]+;", "", code)
        paths += re.findall(r"\b(?:crate|super|self)(?:::\w+)+", code_wo_use)
        children = {m.rsplit("::", 1)[-1] for m in modules if m.startswith(here + "::")
                    and "::" not in m[len(here) + 2 :]} if here != "crate" else {
                        m for m in modules if "::" not in m}
        for child in children:
            paths += re.findall(r"(?<![:\w])" + child + r"::\w+", code_wo_use)
        for p in paths:
            target = resolve(here, p, modules | {"crate"})
            if target and target != here:
                graph[here].add(target)
    return graph


def layer_of(module: str) -> int:
    top = module.split("::")[0]
    for i, (_, tops) in enumerate(LAYERS):
        if top in tops:
            return i
    raise SystemExit(f"layers.py: module {module} is in no layer; add its top-level name to LAYERS")


def cycles(graph: dict) -> list:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
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

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def check(graph: dict) -> int:
    problems = []
    for a in sorted(graph):
        for b in sorted(graph[a]):
            if layer_of(b) > layer_of(a):
                problems.append(
                    f"upward import: {a} ({LAYERS[layer_of(a)][0]}) uses {b} ({LAYERS[layer_of(b)][0]})"
                )
    for comp in cycles(graph):
        problems.append("circle: " + " <-> ".join(comp))
    readme = ROOT.parent.parent / "README.md"
    if readme.is_file() and picture_text(graph) not in readme.read_text():
        problems.append("README.md's picture of the layers is stale: paste in the output of "
                        "python3 scripts/layers.py --picture")
    for p in problems:
        print(p)
    n = sum(len(v) for v in graph.values())
    print(f"layers: {len(graph)} modules, {n} imports, {len(problems)} problems")
    return 1 if problems else 0


def picture(graph: dict) -> None:
    print(picture_text(graph), end="")


def picture_text(graph: dict) -> str:
    """Layers top down; each module with what it imports. Modules three deep are shown as their
    parent's `::*` (one line for the operations of `broker::ops`)."""
    def short(m: str) -> str:
        parts = m.split("::")
        return m if len(parts) < 3 else "::".join(parts[:2]) + "::*"

    merged = {}
    for a, bs in graph.items():
        merged.setdefault(short(a), set()).update(short(b) for b in bs)
    for a in merged:
        merged[a].discard(a)
    width = max(len(m) for m in merged) + 1
    out = []
    for i, (name, _) in reversed(list(enumerate(LAYERS))):
        out.append(f"{name}")
        for m in sorted(x for x in merged if layer_of(x) == i):
            uses = sorted(merged[m], key=lambda t: (-layer_of(t), t))
            out.append(f"  {m:<{width}}-> {', '.join(uses) if uses else '(nothing)'}")
    return "\n".join(out) + "\n"


def self_test() -> int:
    import subprocess
    import tempfile

    def run(files: dict) -> str:
        with tempfile.TemporaryDirectory() as d:
            for name, text in files.items():
                p = pathlib.Path(d, name)
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_text(text)
            out = subprocess.run([sys.executable, __file__, "--root", d],
                                 capture_output=True, text=True)
            return out.stdout + f"exit {out.returncode}"

    base = {"lib.rs": "pub mod ground; pub mod session; pub mod broker;\n",
            "ground/mod.rs": "pub mod limits;\n", "ground/limits.rs": "pub const X: u8 = 1;\n",
            "session/mod.rs": "use crate::ground::limits::X;\n",
            "broker/mod.rs": "pub mod a; pub mod b;\n",
            "broker/a.rs": "use super::b::B;\npub struct A;\n",
            "broker/b.rs": "pub struct B;\n#[cfg(test)]\nmod tests {\n    use super::super::a::A;\n}\n"}
    clean = run(base)
    upward = run({**base, "session/mod.rs": "use crate::broker::a::A;\n"})
    circle = run({**base, "broker/b.rs": "pub struct B(crate::broker::a::A);\n"})
    ok = (clean.endswith("exit 0") and "upward import: session" in upward
          and upward.endswith("exit 1") and "circle: broker::a <-> broker::b" in circle)
    print("layers self-test:", "ok" if ok else f"FAILED\n{clean}\n{upward}\n{circle}")
    return 0 if ok else 1


if __name__ == "__main__":
    if "--self-test" in sys.argv:
        sys.exit(self_test())
    g = edges()
    if "--picture" in sys.argv:
        picture(g)
    else:
        sys.exit(check(g))
