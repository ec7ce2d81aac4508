#!/usr/bin/env python3
r"""The reference screens of wterm-core's recorded cases, as tmux draws them.

For a case directory (see scripts/record-session.py) this feeds input.bin, up to each offset of
checkpoints.txt, into a fresh tmux pane of exactly size.json's size, and writes what tmux shows
to expected.txt (text and cursor) and styles.txt (every row with its attributes):

  # header comments (tmux version, how it was made)
  @checkpoint offset=N cursor_row=R cursor_col=C cursor_visible=0|1 alternate_screen=0|1 label=TEXT
  |row 0 text (capture-pane -p -e without its SGR, DEC line drawing as Unicode, trailing
  |            spaces trimmed, a wide character once)
  |... one line per screen row

styles.txt has the same checkpoints (`@checkpoint label=TEXT`), each row as `capture-pane -p -e
-N` printed it: the SGR sequences that give each cell tmux stores its colors and attributes
(carried from one row to the next, as capture-pane does), SO/SI around line drawing, trailing
spaces kept. Escaped to stay one line of text: backslash as `\\`, ESC as `\e`, other controls
as `\xNN`.

How the bytes reach tmux unchanged: the pane runs `stty raw -echo; cat PREFIX` under /bin/sh,
so the pane's PTY neither rewrites output (no ONLCR) nor echoes the replies tmux itself sends to
the queries in the recording (the pane reads no input, so the replies are dropped). The end of
the prefix is known without sleeping: an OSC 2 title carrying a unique token follows it, and
tmux parses the pane's output in order, so once `#{pane_title}` is the token every byte before
it has been drawn. tmux runs on its own socket (-L), with no configuration (-f /dev/null) and
no status line, detached, so the outer terminal (or the lack of one in CI) does not matter.

Usage:
  scripts/tmux-oracle.py [CASE_DIR...]          write expected.txt (default: every case)
  scripts/tmux-oracle.py --check [CASE_DIR...]  regenerate into a temporary directory and diff
                                                with the committed expected.txt; exit 1 on any
                                                difference
"""

import argparse
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REF_ROOT = os.path.join(REPO, "wterm-core", "tests", "ref")

# How long tmux gets to draw one prefix, in seconds, before the case fails.
DRAW_TIMEOUT_S = 20.0
# Pause between two polls of the pane title, in seconds.
POLL_INTERVAL_S = 0.02
# How long each pane's `sleep` keeps it alive after `cat`, in seconds; the server is killed
# long before, this only bounds a leak if the script itself is killed.
PANE_LINGER_S = 600


# The DEC special graphics set (`ESC ( 0`), as xterm draws it: 0x60-0x7e become these.
DEC_SPECIAL_GRAPHICS = dict(zip("`abcdefghijklmnopqrstuvwxyz{|}~",
                                "◆▒␉␌␍␊°±␤␋┘┐┌└┼⎺⎻─⎼⎽├┤┴┬│≤≥π≠£·"))
SGR_RE = re.compile(r"\x1b\[[0-9;:]*m")


def plain_rows(lines, case_dir):
    """The rows of `capture-pane -p -e` as text. tmux keeps a line-drawing cell as its ASCII
    letter with a charset flag, which plain `-p` prints as the letter ("lqqk"); `-e` marks those
    cells with SO/SI, so they are translated here to what the screen shows ("┌──┐"). tmux emits
    SO/SI only where the flag changes, so the state carries from one row to the next. The SGR
    sequences `-e` adds are dropped, then trailing spaces, as plain `-p` does."""
    state = [False]
    return [plain_row(line, case_dir, state) for line in lines]


def plain_row(line, case_dir, state):
    text = SGR_RE.sub("", line)
    out = []
    graphics = state[0]
    for ch in text:
        if ch == "\x0e":
            graphics = True
        elif ch == "\x0f":
            graphics = False
        else:
            out.append(DEC_SPECIAL_GRAPHICS.get(ch, ch) if graphics else ch)
    state[0] = graphics
    row = "".join(out).rstrip(" ")
    if any(ord(ch) < 0x20 for ch in row):
        raise SystemExit(f"{case_dir}: capture-pane -e gave a control character: {line!r}")
    return row


def escape_row(line):
    """A styles.txt row: backslash, ESC and other C0 controls written out (see the module doc)."""
    out = []
    for ch in line:
        if ch == "\\":
            out.append("\\\\")
        elif ch == "\x1b":
            out.append("\\e")
        elif ord(ch) < 0x20 or ch == "\x7f":
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return "".join(out)


def capture(socket, target, rows, case_dir, flags):
    """`capture-pane -p` with `flags` of `target`: exactly `rows` lines."""
    screen = tmux(socket, "capture-pane", "-p", *flags, "-t", target).split("\n")
    # capture-pane ends every row with a newline, so the split leaves one empty tail.
    if screen and screen[-1] == "":
        screen.pop()
    if len(screen) != rows:
        raise SystemExit(f"{case_dir}: capture-pane gave {len(screen)} rows, not {rows}")
    return screen


def tmux(socket, *args, check=True):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8",
           "LC_ALL": "C.UTF-8", "TERM": "xterm-256color", "HOME": os.environ.get("HOME", "/")}
    out = subprocess.run(["tmux", "-L", socket, "-f", "/dev/null", *args], env=env,
                         capture_output=True, check=False)
    if check and out.returncode != 0:
        raise SystemExit(f"tmux {' '.join(args)}: {out.stderr.decode(errors='replace').strip()}")
    return out.stdout.decode("utf-8", errors="replace")


def tmux_version():
    return subprocess.run(["tmux", "-V"], capture_output=True, text=True, check=True).stdout.strip()


def read_case(case_dir):
    with open(os.path.join(case_dir, "size.json")) as f:
        size = json.load(f)
    with open(os.path.join(case_dir, "input.bin"), "rb") as f:
        data = f.read()
    checkpoints = []
    with open(os.path.join(case_dir, "checkpoints.txt")) as f:
        for line in f:
            if line.strip():
                off, label = line.rstrip("\n").split("\t", 1)
                checkpoints.append((int(off), label))
    if not checkpoints or checkpoints[-1][0] != len(data):
        raise SystemExit(f"{case_dir}: checkpoints.txt must end at the end of input.bin "
                         f"({len(data)} bytes)")
    return size["rows"], size["cols"], data, checkpoints


def render(case_dir, work_dir):
    """Returns the texts of expected.txt and styles.txt for `case_dir`, using `work_dir` for
    scratch files."""
    rows, cols, data, checkpoints = read_case(case_dir)
    socket = f"wterm-oracle-{os.getpid()}-{os.path.basename(os.path.normpath(case_dir))}"
    blocks = []
    style_blocks = []
    try:
        # A placeholder session starts the server, so the options below are set before any
        # measured pane exists.
        tmux(socket, "new-session", "-d", "-s", "placeholder", "-x", str(cols), "-y", str(rows),
             f"exec sleep {PANE_LINGER_S}")
        for opt, val in [("status", "off"), ("default-shell", "/bin/sh"),
                         ("history-limit", "0"), ("alternate-screen", "on"),
                         ("default-size", f"{cols}x{rows}")]:
            tmux(socket, "set-option", "-g", opt, val)
        # No `window-size manual`: with it, tmux 3.3a's server crashes on the next
        # `new-session -d -x -y`. Detached sessions keep their -x/-y size anyway (checked below).
        tmux(socket, "set-option", "-gw", "automatic-rename", "off")
        tokens = []
        for i, (off, _label) in enumerate(checkpoints):
            token = f"wterm-oracle-done-{os.getpid()}-{i}"
            prefix = os.path.join(work_dir, f"prefix-{i}.bin")
            with open(prefix, "wb") as f:
                f.write(data[:off] + b"\x1b]2;" + token.encode() + b"\x07")
            cmd = f"stty raw -echo; cat '{prefix}'; exec sleep {PANE_LINGER_S}"
            tmux(socket, "new-session", "-d", "-s", f"cp{i}", "-x", str(cols), "-y", str(rows),
                 cmd)
            tokens.append(token)
        for i, (off, label) in enumerate(checkpoints):
            target = f"cp{i}:0.0"
            end = time.monotonic() + DRAW_TIMEOUT_S
            while tmux(socket, "display-message", "-p", "-t", target,
                       "#{pane_title}").strip() != tokens[i]:
                if time.monotonic() > end:
                    raise SystemExit(f"{case_dir}: tmux did not finish drawing checkpoint "
                                     f"{label!r} within {DRAW_TIMEOUT_S} s")
                time.sleep(POLL_INTERVAL_S)
            info = tmux(socket, "display-message", "-p", "-t", target,
                        "#{pane_width} #{pane_height} #{cursor_x} #{cursor_y} "
                        "#{cursor_flag} #{alternate_on}").split()
            width, height, cx, cy, visible, alt = (int(v) for v in info)
            if (height, width) != (rows, cols):
                raise SystemExit(f"{case_dir}: tmux pane is {height}x{width}, "
                                 f"not {rows}x{cols}")
            screen = capture(socket, target, rows, case_dir, ["-e"])
            styled = capture(socket, target, rows, case_dir, ["-e", "-N"])
            style_blocks.append(f"@checkpoint label={label}\n")
            style_blocks.extend(f"|{escape_row(row)}\n" for row in styled)
            blocks.append(f"@checkpoint offset={off} cursor_row={cy} cursor_col={cx} "
                          f"cursor_visible={visible} alternate_screen={alt} label={label}\n")
            blocks.extend(f"|{row}\n" for row in plain_rows(screen, case_dir))
    finally:
        tmux(socket, "kill-server", check=False)
    header = (f"# Expected screens of this case: {tmux_version()}, capture-pane -p and the "
              f"cursor,\n# after feeding input.bin up to each checkpoint. Made by "
              f"scripts/tmux-oracle.py; do not edit.\n")
    style_header = (f"# Expected styles of this case: {tmux_version()}, capture-pane -p -e -N "
                    f"(escaped),\n# after feeding input.bin up to each checkpoint. Made by "
                    f"scripts/tmux-oracle.py; do not edit.\n")
    return header + "".join(blocks), style_header + "".join(style_blocks)


def case_dirs(args):
    if args:
        return args
    return sorted(os.path.join(REF_ROOT, d) for d in os.listdir(REF_ROOT)
                  if os.path.isfile(os.path.join(REF_ROOT, d, "input.bin")))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="diff regenerated screens with the committed expected.txt")
    ap.add_argument("cases", nargs="*", help="case directories (default: all)")
    args = ap.parse_args()
    if shutil.which("tmux") is None:
        raise SystemExit("tmux is not installed (Debian package: tmux)")
    failed = 0
    work = tempfile.mkdtemp(prefix="wterm-oracle-")
    try:
        for case in case_dirs(args.cases):
            texts = render(case, work)
            for name, text in zip(("expected.txt", "styles.txt"), texts):
                path = os.path.join(case, name)
                if args.check:
                    try:
                        with open(path) as f:
                            committed = f.read()
                    except FileNotFoundError:
                        committed = ""
                    if committed != text:
                        failed += 1
                        sys.stdout.writelines(difflib.unified_diff(
                            committed.splitlines(True), text.splitlines(True),
                            f"{path} (committed)", f"{path} (tmux now)"))
                        print(f"MISMATCH {path}")
                    else:
                        print(f"ok {path}")
                else:
                    with open(path, "w") as f:
                        f.write(text)
                    print(f"wrote {path}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if failed:
        raise SystemExit(f"{failed} case(s) differ from what tmux draws now")


if __name__ == "__main__":
    main()
