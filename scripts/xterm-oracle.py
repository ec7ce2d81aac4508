#!/usr/bin/env python3
r"""Real xterm as the judge of the conformance suite's expected screens.

Every case of wterm-core/tests/fixtures/conformance/*.txt (format: the top of
wterm-core/tests/conformance.rs) is fed to xterm under Xvfb, and what xterm then shows is
compared with what the case expects:

  screen:   the rows xterm prints with Media Copy `CSI i` (print the screen) after DECPEX
            (`CSI ? 19 h`, the whole screen rather than the scroll region);
  history:  the rows before the screen that `CSI ? 11 i` (print all pages) prints;
  cell R,C: the same printed rows, split into cells (see `cells`);
  cursor:   a cursor position report (`CSI 6 n`), made absolute with DECRQM 6/69 and
            DECRQSS `r`/`s` when origin mode is on;
  replies:  the bytes xterm sent back while it read the case's input.

`style`, `wrapped`, `modes`, `title` and `cwd` are not compared: xterm's print-screen does not
show them all, and no query reads them back reliably. A case that expects none of the compared
things is counted as "not comparable".

How: one xterm per screen size (`-geometry COLSxROWS`, checked with TIOCGWINSZ in the child)
runs this script with `--inside`; the child puts its tty in raw mode (so xterm's replies are
not echoed and output bytes reach xterm unchanged) and, for each case of that size, resets
xterm (RESET: both screens cleared, RIS), writes the case's input, CAN (ends any sequence the input left
open), then the queries, and reads xterm's replies up to the last query's answer (`CSI 0 n`).
xterm answers in order, so everything before the queries' answers is the case's own replies.
Then it asks for the print, which xterm pipes to `printerCommand` (`cat >> FILE`); each print
ends with a form feed (`printerFormFeed`), so the child knows when a print has arrived.
Attributes are not printed (`printAttributes: 0`); `printerNewLine` ends each row.

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
    "XTerm*printAttributes: 0",
    f"XTerm*saveLines: {SAVE_LINES}",
    # With jump scroll xterm defers scrolling until it next draws, and a print of all pages
    # made before that misses the rows that just scrolled into the saved lines.
    "XTerm*jumpScroll: false",
]
# Written before each case: RIS does not clear xterm's alternate screen, so it is cleared
# first (`CSI ? 47 h`, ED 2, `CSI ? 47 l`); then RIS, and ED 3 for good measure (RIS clears
# the saved lines too); then DSR 5, whose answer says all of it is done.
RESET = b"\x1bc\x1b[?47h\x1b[2J\x1b[?47l\x1bc\x1b[3J\x1b[5n"

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
                          "cells": [], "keys": set()})
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
        else:
            case["keys"].add(key.split(" ")[0])
    return cases


def all_cases():
    cases = []
    for name in sorted(os.listdir(FIXTURE_DIR)):
        if name.endswith(".txt"):
            cases.extend(parse_fixture(os.path.join(FIXTURE_DIR, name)))
    return cases


COMPARED_KEYS = {"screen", "history", "cursor", "cell", "replies", "replies-prefix"}

# ---------------------------------------------------------------------------------------------
# Inside xterm: feed each case, read back replies, cursor and prints.

ANY_CSI = rb"(?:\x1b\[|\x9b|\xc2\x9b)"
ANY_DCS = rb"(?:\x1bP|\x90|\xc2\x90)"
ANY_ST = rb"(?:\x1b\\|\x9c|\xc2\x9c)"
# The answers to QUERIES, in order, at the very end of what xterm sent.
QUERIES = (b"\x18"                    # CAN: ends a sequence the case's input left open
           b"\x1b[6n"                 # CPR
           b"\x1b[?6$p"               # DECRQM origin mode
           b"\x1b[?69$p"              # DECRQM left/right margin mode
           b"\x1bP$qr\x1b\\"          # DECRQSS top/bottom margins
           b"\x1bP$qs\x1b\\"          # DECRQSS left/right margins
           b"\x1b[5n")                # DSR: the last answer
ANSWERS = re.compile(
    ANY_CSI + rb"(\d+);(\d+)R"
    + ANY_CSI + rb"\?6;(\d)\$y"
    + ANY_CSI + rb"\?69;(\d)\$y"
    + ANY_DCS + rb"(\d)\$r(?:(\d+);(\d+))?r" + ANY_ST
    + ANY_DCS + rb"(\d)\$r(?:(\d+);(\d+))?s" + ANY_ST
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
                res["answers"] = [g and int(g) for g in m.groups()]
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
    env = dict(os.environ, DISPLAY=display, LANG="C.UTF-8", LC_ALL="C.UTF-8")
    return subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL,
                            stderr=open(os.path.join(work, f"xterm-{tag}.log"), "w")), result_file


def cells(row):
    """A printed row as cells: a character with the combining marks and joiners after it is one
    cell; xterm prints the right half of a wide character as U+FFFF, which becomes `(none)`,
    and a combining mark on a wide character after that half."""
    out = []
    for ch in row:
        joins = unicodedata.combining(ch) or ch in "\u200d\ufe0f"
        if ch == "\uffff":
            out.append("(none)")
        elif out and joins:
            base = len(out) - 2 if out[-1] == "(none)" and len(out) > 1 else len(out) - 1
            out[base] += ch
        elif out and out[-1].endswith("\u200d"):
            out[-1] += ch
        else:
            out.append(ch)
    return out


def screen_rows(text):
    """A print's rows: line-size prefixes (`ESC # 5`) dropped, U+FFFF (right halves of wide
    characters) dropped, NFC (xterm stores a base and a combining mark as the precomposed
    character when one exists), trailing spaces trimmed."""
    rows = re.split("\r?\n", text)
    if rows and rows[-1] == "":
        rows.pop()
    return [re.sub(r"\x1b#[3-6]", "", r) for r in rows]


def norm(row):
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


def compare(case, res):
    """The first disagreement of `case` with xterm's result, as text, or None."""
    rows = case["rows"]
    printed = screen_rows(res["print"])
    if len(printed) != rows:
        return f"print gave {len(printed)} rows, not {rows}"
    if "screen" in case:
        for i, (want, got) in enumerate(zip(case["screen"], printed)):
            if norm(want) != norm(got):
                return f"row {i}: {esc(want)!r} vs xterm {esc(norm(got))!r}"
    if "history" in case:
        every = screen_rows(res["print_all"])
        got = [norm(r) for r in every[:len(every) - rows]]
        want = [norm(r) for r in case["history"]]
        if got != want:
            return f"history: {[esc(r) for r in want]} vs xterm {[esc(r) for r in got]}"
    for r, c, want in case["cells"]:
        row = cells(printed[r]) if r < len(printed) else []
        got = row[c] if c < len(row) else "(blank)"
        if got == " ":
            got = "(blank)"
        if want == "(none)" and got == "(none)":
            continue
        if unicodedata.normalize("NFC", want) != unicodedata.normalize("NFC", got):
            return f"cell {r},{c}: {esc(want)!r} vs xterm {esc(got)!r}"
    if "cursor" in case:
        crow, ccol, origin, lrmm, _, top, _, _, left, _ = res["answers"]
        row, col = crow - 1, ccol - 1
        if origin == 1:
            row += (top or 1) - 1
            if lrmm == 1:
                col += (left or 1) - 1
        if (row, col) != tuple(case["cursor"]):
            return f"cursor: {case['cursor'][0]},{case['cursor'][1]} vs xterm {row},{col}"
    replies = bytes.fromhex(res["replies"])
    if "replies" in case and replies != case["replies"]:
        return f"replies: {esc(case['replies'])!r} vs xterm {esc(replies)!r}"
    if "replies_prefix" in case and not replies.startswith(case["replies_prefix"]):
        return f"replies-prefix: {esc(case['replies_prefix'])!r} vs xterm {esc(replies)!r}"
    return None


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
                if got.get("error"):
                    problems.append(f"xterm {rows}x{cols}: {got['error']}")
                for r in got["cases"]:
                    results[r["id"]] = r
    finally:
        # SIGTERM, so that Xvfb removes its socket and lock file.
        xvfb.terminate()
        xvfb.wait()
        if problems:
            with open(os.path.join(work, "xvfb.log")) as f:
                problems.append(f"Xvfb {display} said: {f.read()[-1000:]}")
        shutil.rmtree(work, ignore_errors=True)

    docs = load_differences()
    agree, differ, undocumented, uncompared, report = 0, 0, [], [], []
    seen_docs = set()
    for c in comparable:
        key = f"{c['file']}: {c['name']}"
        res = results.get(c["id"])
        if res is None or "error" in res:
            why = res["error"] if res else "no result"
            uncompared.append(f"{key} -- {why}")
            report.append(f"NOT COMPARED {key} -- {why}")
            continue
        diff = compare(c, res)
        if diff is None:
            agree += 1
            report.append(f"agree {key}")
            if key in docs:
                seen_docs.add(key)
                undocumented.append(f"{key} -- listed in XTERM_DIFFERENCES but agrees now")
            continue
        differ += 1
        line = f"{key} -- first difference: ours {diff}"
        report.append(f"DIFFER {line}")
        report.append(f"    xterm print: {[esc(r) for r in screen_rows(res['print'])]}")
        if "print_all" in res:
            report.append(f"    xterm print all: {[esc(r) for r in screen_rows(res['print_all'])]}")
        report.append(f"    xterm replies: {esc(bytes.fromhex(res['replies']))!r}, answers: "
                      f"{res['answers']}")
        if key in docs:
            seen_docs.add(key)
            print(f"documented: {line}")
        else:
            undocumented.append(line)
            print(f"UNDOCUMENTED: {line}")
    for key in sorted(set(docs) - seen_docs):
        if args.case in key:
            undocumented.append(f"{key} -- listed in XTERM_DIFFERENCES but no such case compared")
    compared = agree + differ
    not_comparable = len(cases) - len(comparable)
    summary = (f"xterm oracle: {agree} of {compared} cases agree with xterm ({version}); "
               f"{differ - len([u for u in undocumented if 'first difference' in u])} "
               f"differences documented in XTERM_DIFFERENCES; {len(uncompared)} not compared "
               f"(no answer from xterm); {not_comparable} expect only what xterm cannot show "
               f"(style, wrapped, modes, title, cwd); "
               f"{time.monotonic() - started:.1f} s")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("\n".join(report + problems + [summary]) + "\n")
    for p in problems:
        print(f"oracle problem: {p}")
    for u in uncompared:
        print(f"not compared: {u}")
    for u in undocumented:
        if "first difference" not in u:
            print(f"stale: {u}")
    print(f"full results: {args.out}")
    print(summary)
    broken = problems or (comparable and compared < MIN_COMPARED_SHARE * len(comparable))
    if broken:
        raise SystemExit("xterm oracle: broken (see the problems above)")
    if undocumented:
        raise SystemExit(f"xterm oracle: {len(undocumented)} disagreement(s) not in "
                         f"XTERM_DIFFERENCES (or listed there but gone)")


if __name__ == "__main__":
    main()
