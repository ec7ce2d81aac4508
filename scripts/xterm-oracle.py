#!/usr/bin/env python3
r"""Real xterm as the judge of the conformance suite's expected screens.

Every case of wterm-core/tests/fixtures/conformance/*.txt (format: the top of
wterm-core/tests/conformance.rs) is fed to xterm under Xvfb, and what xterm then shows is
compared with what the case expects:

  screen:   the rows xterm prints with Media Copy `CSI i` (print the screen) after DECPEX
            (`CSI ? 19 h`, the whole screen rather than the scroll region);
  history:  the rows before the screen that `CSI ? 11 i` (print all pages) prints, on the
            main screen (on the alternate screen it prints that screen only);
  cell R,C: the same printed rows, split into cells (see `cells`);
  cursor:   a cursor position report (`CSI 6 n`), made absolute with DECRQM 6/69 and
            DECRQSS `r`/`s` when origin mode is on;
  style:    the SGR that the print (`printAttributes: 2`) puts before a cell, where it tells
            (see `styled_cells`);
  modes:    DECRQM for the DEC private modes and IRM, DECRQSS for the cursor style (DECSCUSR);
            the kitty flags and synchronized output (2026) xterm does not have;
  title:    `CSI 21 t`, in UTF-8; the title xterm reports after an empty OSC 2 (its own name)
            is `(none)`;
  replies:  the bytes xterm sent back while it read the case's input.

`wrapped` and `cwd` are not compared: neither the print nor a query shows them. A case that
expects none of the compared things is counted as "not comparable".

How: one xterm per screen size (`-geometry COLSxROWS`, checked with TIOCGWINSZ in the child)
runs this script with `--inside`; the child puts its tty in raw mode (so xterm's replies are
not echoed and output bytes reach xterm unchanged) and, for each case of that size, resets
xterm (RESET: both screens cleared, RIS), writes the case's input, CAN (ends any sequence the
input left open), then the queries, and reads xterm's replies up to the last query's answer (`CSI 0 n`).
xterm answers in order, so everything before the queries' answers is the case's own replies.
Then it asks for the print, which xterm pipes to `printerCommand` (`cat >> FILE`); each print
ends with a form feed (`printerFormFeed`), so the child knows when a print has arrived.
`printerNewLine` ends each row. The xterm resources that differ from the defaults are in
XTERM_RESOURCES, each with its reason.

Usage:
  scripts/xterm-oracle.py [--out FILE] [--jobs N] [--case SUBSTRING]
      compare every case and print one line per disagreement, then
      `xterm oracle: N of M cases agree with xterm`. Disagreements listed in
      wterm-core/tests/fixtures/conformance/XTERM_DIFFERENCES (`file: case name -- reason`)
      are reported as documented. Exits 1 on an undocumented disagreement, on a documented
      one that no longer happens, or when the oracle is broken (xterm did not start, fewer
      than 90% of the comparable cases were compared).
"""

import argparse
import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
import unicodedata

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURE_DIR = os.path.join(REPO, "wterm-core", "tests", "fixtures", "conformance")
DIFFERENCES_FILE = os.path.join(FIXTURE_DIR, "XTERM_DIFFERENCES")
REASON_SEPARATOR = " -- "

# How long xterm gets to answer one case's queries, or to deliver one print, in seconds.
CASE_TIMEOUT_S = 10.0
# How long one xterm (one screen size) may take for all its cases, in seconds.
GROUP_TIMEOUT_S = 120.0
# Pause between two looks at the print file, in seconds.
POLL_INTERVAL_S = 0.005
# Fewest compared cases, as a share of the comparable ones, for the run to count.
MIN_COMPARED_SHARE = 0.9
# Saved lines xterm keeps; more than any case scrolls off (the suite's terminal keeps 1000).
SAVE_LINES = 1000

XTERM_RESOURCES = [
    "XTerm*printerCommand: cat >> {print_file}",
    "XTerm*printerFormFeed: true",
    "XTerm*printerNewLine: true",
    "XTerm*printAttributes: 2",
    f"XTerm*saveLines: {SAVE_LINES}",
    # With jump scroll xterm defers scrolling until it next draws, and a print of all pages
    # made before that misses the rows that just scrolled into the saved lines.
    "XTerm*jumpScroll: false",
    # With bold colors on, xterm prints a bold cell's foreground above 8 as 8 less (its print
    # code maps bright colours back for bold text); the resource only changes how bold text is
    # drawn.
    "XTerm*boldColors: false",
    # The title is read back with `CSI 21 t`, which xterm refuses by default (the default list
    # is "20,21,SetXprop,SetSelection"); no case uses the other window operations.
    "XTerm*disallowedWindowOps: 20,SetXprop,SetSelection",
    # Titles set and reported in UTF-8 (the title modes `CSI > 2 t` and `CSI > 3 t`).
    "XTerm*utf8Title: true",
]
# Written before each case: an empty title (xterm then shows its own name); RIS does not
# clear xterm's alternate screen, so it is cleared (`CSI ? 47 h`, ED 2, `CSI ? 47 l`); then
# RIS, and ED 3 for good measure (RIS clears the saved lines too); then DSR 5, whose answer
# says all of it is done.
RESET = b"\x1b]2;\x1b\\\x1bc\x1b[?47h\x1b[2J\x1b[?47l\x1bc\x1b[3J\x1b[5n"

# ---------------------------------------------------------------------------------------------
# Fixtures (the subset of tests/conformance.rs's parser this oracle needs).


def unescape(s):
    r"""A fixture value's escapes (`\e \xNN \r \n \t \\ \u{...}`) decoded to bytes."""
    out = bytearray()
    i = 0
    while i < len(s):
        c = s[i]
        i += 1
        if c != "\\":
            out += c.encode()
            continue
        e = s[i]
        i += 1
        if e in "ernt\\":
            out += {"e": b"\x1b", "r": b"\r", "n": b"\n", "t": b"\t", "\\": b"\\"}[e]
        elif e == "x":
            out.append(int(s[i:i + 2], 16))
            i += 2
        elif e == "u":
            end = s.index("}", i)
            out += chr(int(s[i + 1:end], 16)).encode()
            i = end + 1
        else:
            raise ValueError(f"unknown escape \\{e}")
    return bytes(out)


def unescape_text(s):
    return unescape(s).decode("utf-8")


def parse_fixture(path):
    """The cases of one fixture file: dicts with file, name, line, rows, cols, input and the
    expectations this oracle compares (screen, history, cursor, cells, replies) plus the set
    of every expectation key the case states."""
    file = os.path.basename(path)
    cases = []
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line.strip() or (line.startswith("#") and not line.startswith("## ")):
            continue
        if line.startswith("## "):
            cases.append({"file": file, "name": line[3:].strip(), "line": i, "input": b"",
                          "cells": [], "styles": [], "modes": [], "keys": set()})
            continue
        case = cases[-1]
        key, _, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if key in ("screen", "history"):
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(unescape_text(lines[i][1:]).rstrip(" "))
                i += 1
            case[key] = rows
            case["keys"].add(key)
        elif key == "size":
            r, c = value.split("x")
            case["rows"], case["cols"] = int(r), int(c)
        elif key == "input":
            case["input"] += unescape(value)
        elif key == "cursor":
            r, c = value.split(",")
            case["cursor"] = (int(r), int(c))
            case["keys"].add(key)
        elif key == "replies":
            case["replies"] = b"" if value == "(none)" else unescape(value)
            case["keys"].add(key)
        elif key == "replies-prefix":
            case["replies_prefix"] = unescape(value)
            case["keys"].add(key)
        elif key.startswith("cell "):
            r, c = key[5:].split(",")
            want = value if value in ("(none)", "(blank)") else unescape_text(value)
            case["cells"].append((int(r), int(c), want))
            case["keys"].add("cell")
        elif key.startswith("style "):
            r, c = key[6:].split(",")
            case["styles"].append((int(r), int(c), value))
            case["keys"].add("style")
        elif key == "title":
            case["title"] = "" if value == "(none)" else unescape_text(value)
            case["keys"].add(key)
        elif key == "modes":
            case["modes"] += [tuple(kv.split("=", 1)) for kv in value.split()]
            case["keys"].add(key)
        else:
            case["keys"].add(key)
    return cases


def all_cases():
    cases = []
    for name in sorted(os.listdir(FIXTURE_DIR)):
        if name.endswith(".txt"):
            cases.extend(parse_fixture(os.path.join(FIXTURE_DIR, name)))
    return cases


COMPARED_KEYS = {"screen", "history", "cursor", "cell", "style", "modes", "title", "replies",
                 "replies-prefix"}

# ---------------------------------------------------------------------------------------------
# Inside xterm: feed each case, read back replies, cursor and prints.

ANY_CSI = rb"(?:\x1b\[|\x9b|\xc2\x9b)"
ANY_DCS = rb"(?:\x1bP|\x90|\xc2\x90)"
ANY_ST = rb"(?:\x1b\\|\x9c|\xc2\x9c)"
# DEC private modes read back with DECRQM after each case, by the `modes:` field they give.
PRIVATE_MODES = {"application_cursor": [1], "origin": [6], "autowrap": [7],
                 "hide_cursor": [25], "application_keypad": [66], "lrmm": [69],
                 "alternate_screen": [47, 1047, 1049], "mouse_reporting": [9, 1000, 1002, 1003],
                 "bracketed_paste": [2004]}
# Written after the case's input: CAN ends a sequence the input left open; then a CPR, DECRQM
# for every mode above and IRM, DECRQSS for the margins and the cursor style, the title (in
# UTF-8), and DSR 5, whose answer comes last. xterm answers in this order.
QUERIES = (b"\x18\x1b[6n"
           + b"".join(b"\x1b[?%d$p" % m for ms in PRIVATE_MODES.values() for m in ms)
           + b"\x1b[4$p"
           + b"\x1bP$qr\x1b\\\x1bP$qs\x1b\\\x1bP$q q\x1b\\"
           + b"\x1b[>2;3t\x1b[21t"
           + b"\x1b[5n")
ANSWERS = re.compile(
    ANY_CSI + rb"(?P<row>\d+);(?P<col>\d+)R"
    + b"".join(ANY_CSI + rb"\?%d;(?P<m%d>\d)\$y" % (m, m)
               for ms in PRIVATE_MODES.values() for m in ms)
    + ANY_CSI + rb"4;(?P<irm>\d)\$y"
    + ANY_DCS + rb"\d\$r(?:(?P<top>\d+);(?P<bottom>\d+))?r" + ANY_ST
    + ANY_DCS + rb"\d\$r(?:(?P<left>\d+);(?P<right>\d+))?s" + ANY_ST
    + ANY_DCS + rb"\d\$r(?P<cursor_style>\d*) q" + ANY_ST
    + rb"(?:\x1b\]|\x9d|\xc2\x9d)l(?P<title>.*?)" + ANY_ST
    + ANY_CSI + rb"0n$", re.S)
SYNC_ANSWER = re.compile(ANY_CSI + rb"0n$")


class Timeout(Exception):
    pass


def read_until(pattern, deadline):
    buf = b""
    while True:
        m = pattern.search(buf)
        if m:
            return buf, m
        left = deadline - time.monotonic()
        if left <= 0:
            raise Timeout(f"no answer; got {buf[-200:]!r}")
        ready, _, _ = select.select([0], [], [], left)
        if ready:
            chunk = os.read(0, 65536)
            if not chunk:
                raise Timeout("xterm closed the tty")
            buf += chunk


def write_all(data):
    while data:
        n = os.write(1, data)
        data = data[n:]


def wait_print(print_file, count, deadline):
    """The print file's text once it holds `count` form feeds."""
    while True:
        try:
            with open(print_file, "rb") as f:
                data = f.read()
            if data.count(b"\f") >= count:
                return data
        except FileNotFoundError:
            pass
        if time.monotonic() > deadline:
            raise Timeout(f"print {count} did not arrive")
        time.sleep(POLL_INTERVAL_S)


def inside(job_file, result_file):
    import fcntl
    import struct
    import termios
    import tty
    with open(job_file) as f:
        job = json.load(f)
    results = {"cases": []}
    try:
        tty.setraw(0)
        rows, cols = struct.unpack("HHHH", fcntl.ioctl(0, termios.TIOCGWINSZ, b"\0" * 8))[:2]
        results["size"] = [rows, cols]
        prints = 0
        # The title xterm reports when none is set (its own name), which reads as `(none)`.
        write_all(RESET + QUERIES)
        _, m = read_until(ANSWERS, time.monotonic() + CASE_TIMEOUT_S)
        no_title = m.group("title").decode("utf-8", "replace")
        for case in job["cases"]:
            res = {"id": case["id"]}
            results["cases"].append(res)
            try:
                deadline = time.monotonic() + CASE_TIMEOUT_S
                write_all(RESET)
                read_until(SYNC_ANSWER, deadline)
                write_all(bytes.fromhex(case["input"]) + QUERIES)
                buf, m = read_until(ANSWERS, deadline)
                res["replies"] = buf[:m.start()].hex()
                res["answers"] = {k: int(v) for k, v in m.groupdict().items()
                                  if v and k != "title"}
                title = m.group("title").decode("utf-8", "replace")
                res["title"] = "" if title == no_title else title
                for query in [b"\x1b[i"] + ([b"\x1b[?11i"] if case["history"] else []):
                    # DECPEX first: without it xterm prints only the scroll region (`CSI ? 10 i`
                    # too, although ctlseqs says it ignores DECPEX).
                    write_all(b"\x1b[?19h" + query + b"\x1b[5n")
                    read_until(SYNC_ANSWER, deadline)
                    prints += 1
                    data = wait_print(job["print_file"], prints, deadline)
                    start = data.rfind(b"\f", 0, len(data) - 1) + 1
                    res["print" if query == b"\x1b[i" else "print_all"] = \
                        data[start:-1].decode("utf-8", "replace")
            except Timeout as e:
                res["error"] = str(e)
                # Whatever xterm still sends for this case is read and dropped.
                write_all(b"\x18\x1bc\x1b[5n")
                try:
                    read_until(SYNC_ANSWER, time.monotonic() + CASE_TIMEOUT_S)
                except Timeout:
                    results["error"] = "xterm stopped answering"
                    break
    finally:
        with open(result_file, "w") as f:
            json.dump(results, f)


# ---------------------------------------------------------------------------------------------
# Outside: Xvfb, one xterm per size, comparison.


def start_xvfb(log):
    """Xvfb on the first display number from 50 with neither a lock file nor a socket (a stale
    socket of a dead server would take xterm's connection), once its socket accepts a
    connection. `-noreset`: the server outlives each xterm."""
    import socket
    for n in range(50, 200):
        path = f"/tmp/.X11-unix/X{n}"
        if os.path.exists(f"/tmp/.X{n}-lock") or os.path.exists(path):
            continue
        proc = subprocess.Popen(["Xvfb", f":{n}", "-screen", "0", "1024x768x24", "-nolisten",
                                 "tcp", "-noreset"], stdout=subprocess.DEVNULL, stderr=log)
        deadline = time.monotonic() + 20
        while proc.poll() is None and time.monotonic() < deadline:
            try:
                with socket.socket(socket.AF_UNIX) as s:
                    s.connect(path)
                return proc, f":{n}"
            except OSError:
                time.sleep(0.05)
        proc.kill()
        proc.wait()
    raise SystemExit("xterm oracle: Xvfb did not start")


def run_group(display, work, rows, cols, cases):
    tag = f"{rows}x{cols}"
    if os.path.exists(os.path.join(work, f"job-{tag}.json")):
        tag += "-again"  # a second try gets files of its own (the print file is appended to)
    job_file = os.path.join(work, f"job-{tag}.json")
    result_file = os.path.join(work, f"result-{tag}.json")
    print_file = os.path.join(work, f"print-{tag}.txt")
    with open(job_file, "w") as f:
        json.dump({"print_file": print_file,
                   "cases": [{"id": c["id"], "input": c["input"].hex(),
                              "history": "history" in c} for c in cases]}, f)
    args = ["xterm", "-geometry", f"{cols}x{rows}"]
    for res in XTERM_RESOURCES:
        args += ["-xrm", res.format(print_file=print_file)]
    args += ["-e", sys.executable, os.path.abspath(__file__), "--inside", job_file, result_file]
    # HOME is the scratch directory, so that no ~/.Xdefaults or ~/XTerm changes a resource.
    env = dict(os.environ, DISPLAY=display, LANG="C.UTF-8", LC_ALL="C.UTF-8", HOME=work)
    env.pop("XENVIRONMENT", None)
    env.pop("XUSERFILESEARCHPATH", None)
    env.pop("XAPPLRESDIR", None)
    return subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL,
                            stderr=open(os.path.join(work, f"xterm-{tag}.log"), "w")), result_file


SGR_RE = re.compile(r"\x1b\[([0-9;:]*)m")
PLAIN = {"bold": False, "dim": False, "italic": False, "underline": False, "inverse": False,
         "blink": False, "hidden": False, "strikethrough": False, "fg": "default",
         "bg": "default"}
SGR_FLAGS = {1: "bold", 2: "dim", 3: "italic", 4: "underline", 5: "blink", 7: "inverse",
             8: "hidden", 9: "strikethrough", 21: "underline"}


def apply_sgr(style, params):
    """`style` after the SGR `params` as xterm prints them (`0;1;38:2::1:2:3`)."""
    groups = [g.split(":") for g in (params or "0").split(";")]
    i = 0
    while i < len(groups):
        g = [int(x) if x else 0 for x in groups[i]]
        n = g[0]
        i += 1
        if n == 0:
            style = dict(PLAIN)
        elif n in SGR_FLAGS:
            style[SGR_FLAGS[n]] = True
        elif 30 <= n <= 37 or 90 <= n <= 97:
            style["fg"] = n - 30 if n < 90 else n - 82
        elif 40 <= n <= 47 or 100 <= n <= 107:
            style["bg"] = n - 40 if n < 100 else n - 92
        elif n in (39, 49):
            style["fg" if n == 39 else "bg"] = "default"
        elif n in (38, 48):
            if len(g) == 1:  # 38;5;N or 38;2;R;G;B
                g = g + [int(x[0] or 0) for x in groups[i:i + 4]]
                i += 2 if g[1] == 5 else 4
            elif g[1] == 2 and len(g) == 6:  # 38:2::R:G:B (empty colour space)
                g = [g[0], 2] + g[3:]
            style["fg" if n == 38 else "bg"] = g[2] if g[1] == 5 else tuple(g[2:5])
    return style


def styled_cells(row):
    """A printed row (printAttributes 2) as [text, style] cells: a character with the
    combining marks and joiners after it is one cell; xterm prints the right half of a wide
    character as U+FFFF, which becomes `(none)`, and a combining mark on a wide character after
    that half. The style is None where the print does not tell it: xterm prints no SGR when the
    attributes drop to none (`CSI 1 m a CSI 0 m b` prints as bold "ab"), so a cell that follows
    attributes without an SGR of its own may be plain; and a blank is printed without its
    attributes."""
    out = []
    style = dict(PLAIN)
    pos = 0
    fresh = True
    for m in list(SGR_RE.finditer(row)) + [None]:
        for ch in row[pos:m.start() if m else len(row)]:
            joins = unicodedata.combining(ch) or ch in "\u200d\ufe0f"
            known = fresh or not any(v is True for v in style.values())
            if ch == "\uffff":
                out.append(["(none)", out[-1][1] if out else None])
            elif out and joins:
                base = len(out) - 2 if out[-1][0] == "(none)" and len(out) > 1 else len(out) - 1
                out[base][0] += ch
            elif out and out[-1][0].endswith("\u200d"):
                out[-1][0] += ch
            else:
                out.append([ch, dict(style) if known and ch != " " else None])
                fresh = False
        if m:
            style = apply_sgr(style, m.group(1))
            pos = m.end()
            fresh = True
    return out


def cells(row):
    return [text for text, _ in styled_cells(row)]


def parse_style(text):
    """A fixture's `style R,C:` value as a PLAIN-shaped dict; a link is not compared (xterm
    prints none)."""
    style = dict(PLAIN)
    for word in text.split():
        key, _, value = word.partition("=")
        if key in ("fg", "bg"):
            rgb = re.fullmatch(r"rgb\((\d+),(\d+),(\d+)\)", value)
            style[key] = tuple(int(v) for v in rgb.groups()) if rgb else \
                (value if value == "default" else int(value))
        elif key in style:
            style[key] = True
    return style


def style_text(style):
    words = [k for k, v in style.items() if v is True]
    for k in ("fg", "bg"):
        v = style[k]
        if v != "default":
            words.append(f"{k}=" + (f"rgb({v[0]},{v[1]},{v[2]})" if isinstance(v, tuple)
                                    else str(v)))
    return " ".join(words) or "plain"


def screen_rows(text):
    """A print's rows: line-size prefixes (`ESC # 5`) and the row's trailing SGR reset
    dropped; SGR sequences kept (see `styled_cells`)."""
    rows = re.split("\r?\n", text)
    if rows and rows[-1] == "":
        rows.pop()
    return [re.sub(r"\x1b#[3-6]", "", r) for r in rows]


def norm(row):
    """A row's text: SGR and U+FFFF (right halves of wide characters) dropped, NFC (xterm
    stores a base and a combining mark as the precomposed character when one exists),
    trailing spaces trimmed."""
    row = SGR_RE.sub("", row)
    return unicodedata.normalize("NFC", row.replace("\uffff", "")).rstrip(" ")


def esc(text):
    if isinstance(text, bytes):
        text = text.decode("utf-8", "backslashreplace")
    out = []
    for ch in text:
        if ch == "\x1b":
            out.append("\\e")
        elif ch == "\\":
            out.append("\\\\")
        elif ord(ch) < 0x20 or 0x7f <= ord(ch) < 0xa0:
            out.append(f"\\x{ord(ch):02X}")
        else:
            out.append(ch)
    return "".join(out)


# DECSCUSR values as the `cursor_style` mode's text.
CURSOR_STYLES = {0: "block,blink", 1: "block,blink", 2: "block,steady", 3: "underline,blink",
                 4: "underline,steady", 5: "bar,blink", 6: "bar,steady"}


def xterm_modes(ans):
    """The `modes:` fields xterm's answers give: DECRQM 1 or 3 is set, 2 or 4 reset, 0 (not
    recognized) gives nothing."""
    def on(mode):
        v = ans.get(mode)
        return None if v not in (1, 2, 3, 4) else v in (1, 3)
    modes = {}
    for key, numbers in PRIVATE_MODES.items():
        states = [on(f"m{n}") for n in numbers]
        if all(st is not None for st in states):
            modes[key] = any(states)
    if "hide_cursor" in modes:
        modes["hide_cursor"] = not modes["hide_cursor"]
    if on("irm") is not None:
        modes["insert"] = on("irm")
    if ans.get("cursor_style", 0) in CURSOR_STYLES:
        modes["cursor_style"] = CURSOR_STYLES[ans.get("cursor_style", 0)]
    return {k: str(v).lower() if isinstance(v, bool) else v for k, v in modes.items()}


def compare(case, res, skipped):
    """(the first disagreement of `case` with xterm's result as text or None, the number of
    expectations compared); counts the expectations xterm's answers do not show in
    `skipped`, by kind."""
    rows = case["rows"]
    printed = screen_rows(res["print"])
    if len(printed) != rows:
        return f"print gave {len(printed)} rows, not {rows}", 1
    n = 0
    if "screen" in case:
        n += 1
        for i, (want, got) in enumerate(zip(case["screen"], printed)):
            if norm(want) != norm(got):
                return f"row {i}: {esc(want)!r} vs xterm {esc(norm(got))!r}", n
    on_alternate = any(res["answers"].get(f"m{m}") == 1 for m in (47, 1047, 1049))
    if "history" in case and on_alternate:
        # On the alternate screen, print all pages prints that screen only.
        skipped["history"] = skipped.get("history", 0) + 1
    elif "history" in case:
        n += 1
        every = screen_rows(res["print_all"])
        got = [norm(r) for r in every[:len(every) - rows]]
        want = [norm(r) for r in case["history"]]
        if got != want:
            return f"history: {[esc(r) for r in want]} vs xterm {[esc(r) for r in got]}", n
    for r, c, want in case["cells"]:
        n += 1
        row = cells(printed[r]) if r < len(printed) else []
        got = row[c] if c < len(row) else "(blank)"
        if got == " ":
            got = "(blank)"
        if unicodedata.normalize("NFC", want) != unicodedata.normalize("NFC", got):
            return f"cell {r},{c}: {esc(want)!r} vs xterm {esc(got)!r}", n
    for r, c, want in case["styles"]:
        row = styled_cells(printed[r]) if r < len(printed) else []
        got = row[c][1] if c < len(row) else None
        if got is None:
            skipped["style"] = skipped.get("style", 0) + 1
            continue  # the print does not tell (see styled_cells)
        n += 1
        want = parse_style(want)
        if want != got:
            return f"style {r},{c}: {style_text(want)!r} vs xterm {style_text(got)!r}", n
    if "cursor" in case:
        n += 1
        ans = res["answers"]
        row, col = ans["row"] - 1, ans["col"] - 1
        if ans["m6"] == 1:
            row += ans.get("top", 1) - 1
            if ans["m69"] == 1:
                col += ans.get("left", 1) - 1
        if (row, col) != tuple(case["cursor"]):
            return f"cursor: {case['cursor'][0]},{case['cursor'][1]} vs xterm {row},{col}", n
    got_modes = xterm_modes(res["answers"])
    for key, want in case["modes"]:
        if key not in got_modes:
            skipped[f"modes {key}"] = skipped.get(f"modes {key}", 0) + 1
        else:
            n += 1
            if got_modes[key] != want:
                return f"modes: {key}={want} vs xterm {key}={got_modes[key]}", n
    if "title" in case:
        n += 1
        if res["title"] != case["title"]:
            return f"title: {esc(case['title'])!r} vs xterm {esc(res['title'])!r}", n
    replies = bytes.fromhex(res["replies"])
    if "replies" in case:
        n += 1
        if replies != case["replies"]:
            return f"replies: {esc(case['replies'])!r} vs xterm {esc(replies)!r}", n
    if "replies_prefix" in case:
        n += 1
        if not replies.startswith(case["replies_prefix"]):
            return (f"replies-prefix: {esc(case['replies_prefix'])!r} vs xterm "
                    f"{esc(replies)!r}", n)
    return None, n


def load_differences():
    docs = {}
    if os.path.exists(DIFFERENCES_FILE):
        with open(DIFFERENCES_FILE, encoding="utf-8") as f:
            for line in f:
                line = line.rstrip("\n")
                if line.strip() and not line.startswith("#"):
                    case, _, reason = line.partition(REASON_SEPARATOR)
                    docs[case.strip()] = reason.strip()
    return docs


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--inside":
        inside(sys.argv[2], sys.argv[3])
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(REPO, "target", "xterm-oracle.txt"),
                    help="where the full results go (default: target/xterm-oracle.txt)")
    ap.add_argument("--jobs", type=int, default=2, help="xterms running at once (default 2)")
    ap.add_argument("--case", default="", help="only cases whose `file: name` contains this")
    args = ap.parse_args()
    for prog, pkg in (("xterm", "xterm"), ("Xvfb", "xvfb")):
        if shutil.which(prog) is None:
            raise SystemExit(f"xterm oracle: {prog} is not installed (Debian package: {pkg})")
    version = subprocess.run(["xterm", "-version"], capture_output=True, text=True).stdout.strip()
    started = time.monotonic()
    cases = [c for c in all_cases() if args.case in f"{c['file']}: {c['name']}"]
    for i, c in enumerate(cases):
        c["id"] = i
    comparable = [c for c in cases if c["keys"] & COMPARED_KEYS]
    groups = {}
    for c in comparable:
        groups.setdefault((c["rows"], c["cols"]), []).append(c)
    results = {}
    problems = []
    work = tempfile.mkdtemp(prefix="wterm-xterm-oracle-")
    xvfb_log = open(os.path.join(work, "xvfb.log"), "w")
    xvfb, display = start_xvfb(xvfb_log)
    try:
        pending = sorted(groups.items(), key=lambda kv: -len(kv[1]))
        running = []
        retried = set()
        while pending or running:
            while pending and len(running) < args.jobs:
                (rows, cols), group = pending.pop(0)
                proc, result_file = run_group(display, work, rows, cols, group)
                running.append((proc, result_file, rows, cols, time.monotonic()))
            time.sleep(0.05)
            for item in list(running):
                proc, result_file, rows, cols, t0 = item
                if proc.poll() is None and time.monotonic() - t0 < GROUP_TIMEOUT_S:
                    continue
                if proc.poll() is None:
                    proc.kill()
                    problems.append(f"xterm {rows}x{cols} did not finish within "
                                    f"{GROUP_TIMEOUT_S:.0f} s")
                proc.wait()
                running.remove(item)
                try:
                    with open(result_file) as f:
                        got = json.load(f)
                except (FileNotFoundError, json.JSONDecodeError):
                    log = open(os.path.join(work, f"xterm-{rows}x{cols}.log")).read().strip()
                    problems.append(f"xterm {rows}x{cols} gave no results (exit "
                                    f"{proc.returncode}; {log[-300:]})")
                    continue
                if got.get("size") != [rows, cols]:
                    problems.append(f"xterm asked for {rows}x{cols} was {got.get('size')}")
                    continue
                for r in got["cases"]:
                    results[r["id"]] = r
                # An xterm that stopped answering (seen once in CI under load, on a case it
                # answers in every other run) is given one more try, in a new xterm, with the
                # cases it left unanswered; a second stop is a problem.
                unanswered = [c for c in groups[(rows, cols)]
                              if "error" in results.get(c["id"], {"error": ""})]
                if got.get("error") and unanswered and (rows, cols) not in retried:
                    retried.add((rows, cols))
                    print(f"xterm oracle: xterm {rows}x{cols} {got['error']}; trying its "
                          f"{len(unanswered)} unanswered cases again", file=sys.stderr)
                    pending.append(((rows, cols), unanswered))
                elif got.get("error"):
                    problems.append(f"xterm {rows}x{cols}: {got['error']}")
    finally:
        # SIGTERM, so that Xvfb removes its socket and lock file.
        xvfb.terminate()
        xvfb.wait()
        if problems:
            with open(os.path.join(work, "xvfb.log")) as f:
                problems.append(f"Xvfb {display} said: {f.read()[-1000:]}")
        shutil.rmtree(work, ignore_errors=True)

    docs = load_differences()
    agree, documented, undocumented, stale, no_answer, unreadable = 0, 0, [], [], [], 0
    skipped = {}
    report = []
    for c in comparable:
        key = f"{c['file']}: {c['name']}"
        res = results.get(c["id"])
        if res is None or "error" in res:
            why = res["error"] if res else "no result"
            no_answer.append(f"{key} -- {why}")
            report.append(f"NO ANSWER {key} -- {why}")
            continue
        diff, n = compare(c, res, skipped)
        if n == 0:
            unreadable += 1
            report.append(f"not comparable {key} -- xterm shows none of what it expects "
                          f"(styles of blanks or of cells after attributes, modes xterm "
                          f"lacks)")
            continue
        if diff is None:
            agree += 1
            report.append(f"agree {key}")
            if key in docs:
                stale.append(f"{key} -- listed in XTERM_DIFFERENCES but agrees with xterm now")
            continue
        line = f"{key} -- first difference: ours {diff}"
        report.append(f"DIFFER {line}")
        report.append(f"    xterm print: {[esc(r) for r in screen_rows(res['print'])]}")
        if "print_all" in res:
            report.append(f"    xterm print all: "
                          f"{[esc(r) for r in screen_rows(res['print_all'])]}")
        report.append(f"    xterm replies: {esc(bytes.fromhex(res['replies']))!r}, answers: "
                      f"{res['answers']}")
        if key in docs:
            documented += 1
            print(f"documented: {line}")
        else:
            undocumented.append(line)
            print(f"UNDOCUMENTED: {line}")
    names = {f"{c['file']}: {c['name']}" for c in cases}
    for key in sorted(set(docs) - names):
        if not args.case:
            stale.append(f"{key} -- listed in XTERM_DIFFERENCES but there is no such case")
    compared = agree + documented + len(undocumented)
    not_comparable = len(cases) - len(comparable) + unreadable
    summary = (f"xterm oracle: {agree} of {compared} cases agree with xterm ({version}; "
               f"{documented} differ as XTERM_DIFFERENCES says, {len(undocumented)} "
               f"undocumented); not compared: {not_comparable} expect only what xterm cannot "
               f"show (wrapped, cwd, kitty flags, synchronized output, styles of blank "
               f"cells and of cells after attributes), {len(no_answer)} got no answer from xterm; "
               f"{time.monotonic() - started:.1f} s")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        never = sorted(set().union(*(c["keys"] for c in cases)) - COMPARED_KEYS)
        f.write("\n".join(report + problems + stale + [
            f"expectations not compared: {skipped} (xterm's answers do not show them), and "
            f"every {', '.join(never)} line", summary]) + "\n")
    for p in problems:
        print(f"oracle problem: {p}")
    for u in no_answer[:10]:
        print(f"no answer: {u}")
    if len(no_answer) > 10:
        print(f"no answer: {len(no_answer) - 10} more (see {args.out})")
    for u in stale:
        print(f"STALE: {u}")
    print(f"full results: {args.out}")
    print(summary)
    if problems or compared < MIN_COMPARED_SHARE * (compared + len(no_answer)):
        raise SystemExit("xterm oracle: broken (see the problems above)")
    if undocumented or stale:
        raise SystemExit(f"xterm oracle: {len(undocumented)} disagreement(s) not in "
                         f"XTERM_DIFFERENCES, {len(stale)} line(s) of it no longer true")


if __name__ == "__main__":
    main()
