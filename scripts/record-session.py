#!/usr/bin/env python3
"""Record what a program prints in a PTY, as a wterm-core reference case.

A case is a directory (alacritty's `tests/ref/<name>/` layout) holding:

  input.bin        every byte the program wrote to the PTY, in order (after the PTY's own
                   output processing, i.e. exactly what a terminal emulator would receive)
  size.json        {"rows":R,"cols":C}, the PTY size set with TIOCSWINSZ before exec
  checkpoints.txt  one "OFFSET<TAB>LABEL" line per moment worth comparing: OFFSET bytes of
                   input.bin were written when the program had been quiet for QUIET_MS after
                   the scripted keys before it; the last line is always the end of input.bin
  README           how the case was recorded (command, environment, keys)

The expected screens are not made here: `scripts/tmux-oracle.sh` feeds input.bin to tmux.

Nothing is ever sent back to the program's queries (DA, DSR, XTVERSION, ...): the program
sees a terminal that does not answer, and the recording holds program output only.

Usage:
  scripts/record-session.py --list
  scripts/record-session.py NAME...            # built-in sessions into wterm-core/tests/ref/NAME
  scripts/record-session.py --all
  scripts/record-session.py --dir DIR --keys KEYS.json [--rows R --cols C] -- CMD ARG...
      KEYS.json: a list of steps, each one of {"send": "text"}, {"expect": "regex"},
      {"sleep": seconds}, {"checkpoint": "label"}.

Python 3 standard library only.
"""

import argparse
import fcntl
import json
import os
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import termios
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REF_ROOT = os.path.join(REPO, "wterm-core", "tests", "ref")

# A fixed HOME (recreated for every recording) so paths and prompts do not depend on the user.
HOME = "/tmp/wterm-rec-home"
# The prompt of every shell in the recordings; short and free of user or host names.
PS1 = "$ "

# Default PTY size, in rows and columns (the VT100's screen).
DEFAULT_ROWS = 24
DEFAULT_COLS = 80
# Quiet time, in milliseconds, that ends a checkpoint wait and the final drain: the program is
# taken to have finished drawing when it printed nothing for this long.
QUIET_MS = 300
# How long an "expect" step waits for its pattern, in seconds, before the recording fails.
EXPECT_TIMEOUT_S = 15.0
# How long the program gets to exit after the last step, in seconds, before it is killed
# (which fails the recording).
EXIT_TIMEOUT_S = 10.0
# A recording larger than this, in bytes, is refused: reference cases are committed.
MAX_INPUT_BYTES = 200 * 1024
# Bytes read from the PTY master per read() call.
READ_CHUNK_BYTES = 65536
# Pause between keystrokes of one "send" step, in seconds, so each key arrives as its own
# read() in the program, as typing would.
KEY_DELAY_S = 0.01

# What one key sends: CSI or SS3 sequence, ESC + byte (Alt), a UTF-8 character, or a byte.
KEY_RE = re.compile(rb"\x1b\[[0-9;?]*[@-~]|\x1bO.|\x1b.|[\xc0-\xff][\x80-\xbf]*|.", re.DOTALL)


def base_env(rows, cols):
    """The whole environment of the recorded program: nothing is inherited but PATH."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": HOME,
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PS1": PS1,
        "SHELL": "/bin/bash",
        "USER": "rec",
        "LOGNAME": "rec",
        "TZ": "UTC",
        "LINES": str(rows),
        "COLUMNS": str(cols),
        "LESSHISTFILE": "-",
        "GIT_PAGER": "cat",
        "PAGER": "cat",
        "PYTHONSTARTUP": "",
    }


class Recorder:
    """One program in one PTY: keys in, every output byte kept."""

    def __init__(self, argv, rows, cols, env, cwd):
        self.out = bytearray()
        self.checkpoints = []
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        pid = os.fork()
        if pid == 0:
            try:
                os.close(master)
                # Python ignores SIGPIPE; the program must get the default (`ls | head`).
                signal.signal(signal.SIGPIPE, signal.SIG_DFL)
                os.setsid()
                fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
                for fd in (0, 1, 2):
                    os.dup2(slave, fd)
                if slave > 2:
                    os.close(slave)
                os.chdir(cwd)
                os.execvpe(argv[0], argv, env)
            finally:
                os._exit(127)
        os.close(slave)
        self.pid = pid
        self.fd = master
        self.status = None

    def _read_for(self, seconds):
        """Reads output for up to `seconds`; returns False once the PTY is closed."""
        ready, _, _ = select.select([self.fd], [], [], max(seconds, 0))
        if not ready:
            return True
        try:
            data = os.read(self.fd, READ_CHUNK_BYTES)
        except OSError:  # EIO: the slave side is closed, the program has exited.
            return False
        if not data:
            return False
        self.out += data
        return True

    def send(self, text):
        data = text.encode() if isinstance(text, str) else text
        # One write per key, as typing does: an escape sequence (arrow, Alt+letter) or a UTF-8
        # character is one key, so no program takes its ESC for the Escape key.
        for key in KEY_RE.findall(data):
            os.write(self.fd, key)
            self.pump(KEY_DELAY_S)

    def pump(self, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if not self._read_for(end - time.monotonic()):
                return

    def expect(self, pattern, since):
        """Waits until output after byte `since` matches `pattern` (a regex over bytes)."""
        rx = re.compile(pattern.encode() if isinstance(pattern, str) else pattern)
        end = time.monotonic() + EXPECT_TIMEOUT_S
        while not rx.search(self.out, since):
            left = end - time.monotonic()
            if left <= 0 or not self._read_for(left) and not rx.search(self.out, since):
                tail = bytes(self.out[-400:])
                raise SystemExit(f"expect {pattern!r} failed; output tail: {tail!r}")

    def settle(self):
        """Reads until the program has been quiet for QUIET_MS."""
        quiet = QUIET_MS / 1000.0
        while True:
            before = len(self.out)
            if not self._read_for(quiet):
                return
            if len(self.out) == before:
                return

    def finish(self):
        end = time.monotonic() + EXIT_TIMEOUT_S
        while time.monotonic() < end:
            if not self._read_for(0.05):
                break
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = status
                self.settle()
                break
        else:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            raise SystemExit(f"program did not exit within {EXIT_TIMEOUT_S} s")
        if self.status is None:
            _, self.status = os.waitpid(self.pid, 0)
        os.close(self.fd)


def run_steps(rec, steps):
    mark = 0
    for step in steps:
        (kind, arg), = step.items()
        if kind == "send":
            mark = len(rec.out)
            rec.send(arg)
        elif kind == "expect":
            rec.expect(arg, mark)
        elif kind == "sleep":
            rec.pump(float(arg))
        elif kind == "checkpoint":
            rec.settle()
            rec.checkpoints.append((len(rec.out), arg))
        else:
            raise SystemExit(f"unknown step {kind!r}; accepted: send, expect, sleep, checkpoint")


def fresh_home():
    shutil.rmtree(HOME, ignore_errors=True)
    os.makedirs(HOME)


def record(out_dir, argv, steps, rows, cols, env, cwd, notes=""):
    rec = Recorder(argv, rows, cols, env, cwd)
    run_steps(rec, steps)
    rec.finish()
    data = bytes(rec.out)
    if len(data) > MAX_INPUT_BYTES:
        raise SystemExit(f"{out_dir}: {len(data)} bytes recorded, at most {MAX_INPUT_BYTES}")
    checkpoints = [c for c in rec.checkpoints if c[0] < len(data)] + [(len(data), "end")]
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "input.bin"), "wb") as f:
        f.write(data)
    with open(os.path.join(out_dir, "size.json"), "w") as f:
        f.write(json.dumps({"rows": rows, "cols": cols}, separators=(",", ":")) + "\n")
    with open(os.path.join(out_dir, "checkpoints.txt"), "w") as f:
        for off, label in checkpoints:
            f.write(f"{off}\t{label}\n")
    versions = tool_versions(argv[0])
    with open(os.path.join(out_dir, "README"), "w") as f:
        f.write(
            f"Recorded by scripts/record-session.py in a PTY of {rows} rows x {cols} columns "
            f"(TIOCSWINSZ\nbefore exec) on {time.strftime('%Y-%m-%d', time.gmtime())} with {versions}.\n\n"
            f"Command: {' '.join(argv)}\n"
            f"Working directory: {cwd}\n"
            f"Environment (nothing else inherited): "
            f"{' '.join(f'{k}={v!r}' for k, v in sorted(env.items()))}\n"
        )
        if notes:
            f.write(f"\n{notes.strip()}\n")
        f.write("\nKeys and waits, in order:\n")
        for step in steps:
            (kind, arg), = step.items()
            f.write(f"  {kind:<10} {arg!r}\n")
        f.write(
            "\ninput.bin is program output only: no reply was ever sent to the program's "
            "queries\n(DA, DSR, XTVERSION, ...), so programs that probe the terminal saw no "
            "answer.\nThe expected screens (expected.txt) come from tmux: "
            "scripts/tmux-oracle.sh.\n"
        )
    print(f"{out_dir}: {len(data)} bytes, {len(checkpoints)} checkpoints, exit status "
          f"{rec.status}")


def tool_versions(program):
    flag = {"tmux": "-V", "top": "-V", "watch": "-v"}.get(os.path.basename(program), "--version")
    try:
        out = subprocess.run([program, flag], capture_output=True, text=True, timeout=5)
        line = (out.stdout or out.stderr).strip().splitlines()[0].strip()
        if out.returncode == 0 and line:
            return line
    except (OSError, IndexError, subprocess.TimeoutExpired):
        pass
    return "the tools installed on the recording machine"


# ----- built-in sessions -------------------------------------------------------------------

BASH = ["bash", "--norc", "--noprofile", "-i"]
PROMPT = r"(\x1b\[\?2004h)?\$ $"


def shell_line(cmd):
    """Type a command line, then wait for the next prompt."""
    return [{"send": cmd + "\r"}, {"expect": r"\n" + PROMPT}]


def session_bash_colors():
    steps = [{"expect": PROMPT}]
    steps += shell_line("ls --color=always -la /usr/bin | head")
    steps += [{"checkpoint": "ls"}]
    steps += shell_line("printf 'alpha\\nbeta\\ngamma\\ndelta\\n' | grep --color=always -E 'a|e'")
    steps += shell_line(
        "for i in $(seq 30 37) $(seq 90 97); do printf '\\e[%dm%4d\\e[0m' $i $i; done; echo"
    )
    steps += shell_line(
        "for i in $(seq 40 47) $(seq 100 107); do printf '\\e[%d;1m%4d\\e[0m' $i $i; done; echo"
    )
    steps += [{"checkpoint": "16 colors"}]
    steps += shell_line(
        "for i in $(seq 0 255); do printf '\\e[48;5;%dm%4d' $i $i; done; printf '\\e[0m\\n'"
    )
    steps += [{"checkpoint": "256 colors"}]
    steps += shell_line(
        "for i in $(seq 0 4 255); do printf '\\e[38;2;%d;%d;128m#' $i $((255-i)); done; "
        "printf '\\e[0m\\n'"
    )
    steps += shell_line("printf '\\e[1mbold\\e[22m \\e[3mitalic\\e[23m \\e[4munder\\e[24m "
                        "\\e[7minverse\\e[27m \\e[9mstrike\\e[0m\\n'")
    steps += [{"send": "exit\r"}]
    return dict(argv=BASH, steps=steps)


VIM_TEXT = [
    "def greet(name):",
    "    # Say hello.",
    "    return f\"hello, {name}!\"",
    "",
    "for n in range(3):",
    "    print(greet(\"wterm\"), n)",
]


def session_vim_edit():
    steps = [{"expect": r"demo\.py"}, {"checkpoint": "start"}, {"send": "i"}]
    steps += [{"send": line + "\r"} for line in VIM_TEXT]
    steps += [{"send": "\x1b"}, {"sleep": 1.2}, {"checkpoint": "inserted"}]
    steps += [{"send": ":syntax on\r"}, {"sleep": 0.3}]
    steps += [{"send": ":set number\r"}, {"checkpoint": "number"}]
    steps += [{"send": ":split\r"}, {"checkpoint": "split"}]
    steps += [{"send": "ggdd"}, {"checkpoint": "deleted line"}]
    steps += [{"send": ":w\r"}, {"expect": "written"}, {"checkpoint": "written"}]
    # Sixty more lines, then scroll the upper window: vim scrolls it with a scroll region.
    steps += [{"send": "G:put =range(1, 60)\r"}, {"checkpoint": "put"}]
    steps += [{"send": "gg"}, {"sleep": 0.2}, {"send": "\x04"}, {"checkpoint": "ctrl-d"}]
    steps += [{"send": "\x05"}, {"sleep": 0.2}, {"send": "\x05"}, {"sleep": 0.2},
              {"send": "\x05"}, {"checkpoint": "ctrl-e"}]
    steps += [{"send": "\x19"}, {"sleep": 0.2}, {"send": "\x19"}, {"checkpoint": "ctrl-y"}]
    steps += [{"send": "Ostart of a line that vim inserts above\x1b"}, {"sleep": 1.2},
              {"checkpoint": "line opened"}]
    steps += [{"send": ":wqa\r"}]
    return dict(argv=["vim", "-u", "NONE", "-N", "-i", "NONE", "-n", "demo.py"], steps=steps)


def write_less_file():
    """A long text file with tabs, long (wrapping) lines and wide characters."""
    lines = []
    for i in range(1, 301):
        if i % 17 == 0:
            lines.append(f"{i:04d}\tneedle\there is a tab-separated line")
        elif i % 23 == 0:
            lines.append(f"{i:04d} " + "long line that wraps " * 6)
        elif i % 29 == 0:
            lines.append(f"{i:04d} 中文字符 wide characters 日本語 and ASCII after")
        else:
            lines.append(f"{i:04d} the quick brown fox jumps over the lazy dog")
    with open(os.path.join(HOME, "long.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def session_less():
    steps = [{"expect": r"0001"}, {"checkpoint": "first page"}]
    steps += [{"send": " "}, {"checkpoint": "page 2"}]
    steps += [{"send": " "}, {"checkpoint": "page 3"}]
    steps += [{"send": "/needle\r"}, {"checkpoint": "search"}]
    steps += [{"send": "n"}, {"checkpoint": "next match"}]
    steps += [{"send": "k"}, {"sleep": 0.2}, {"send": "k"}, {"sleep": 0.2}, {"send": "k"},
              {"checkpoint": "back 3 lines"}]
    steps += [{"send": "b"}, {"checkpoint": "back a page"}]
    steps += [{"send": "G"}, {"checkpoint": "end of file"}]
    steps += [{"send": "q"}]
    return dict(argv=["less", "long.txt"], steps=steps, prepare=write_less_file)


def session_top():
    steps = [{"expect": r"PID"}, {"sleep": 1.0}, {"checkpoint": "refreshed"}]
    steps += [{"sleep": 1.0}, {"checkpoint": "refreshed again"}]
    steps += [{"send": "q"}]
    return dict(argv=["top", "-d", "0.5"], steps=steps,
                notes="top lists this machine's processes: the content is not reproducible, "
                      "only the kind of output is.")


TMUX_INNER_SOCKET = "wterm-rec-inner"


def session_tmux():
    # tmux does not hand PS1 from its client to the panes' shells; set it again.
    inner_shell = f"env PS1='{PS1}' bash --norc --noprofile"
    argv = ["tmux", "-L", TMUX_INNER_SOCKET, "-f", "/dev/null", "new-session", "-s", "rec",
            inner_shell, ";", "set", "-g", "default-command", inner_shell, ";",
            "set", "-g", "status-right", "rec-status"]
    steps = [{"expect": r"\$ "}, {"sleep": 0.5}]
    steps += [{"send": "seq 1 40\r"}, {"expect": r"40"}, {"checkpoint": "seq"}]
    steps += [{"send": "\x02%"}, {"sleep": 0.5}, {"checkpoint": "split"}]
    steps += [{"send": "printf '\\e[31mred\\e[0m %s\\n' one two three; "
                       "ls --color=always /usr/share | head -8\r"},
              {"sleep": 0.5}, {"checkpoint": "right pane"}]
    steps += [{"send": "\x02o"}, {"sleep": 0.3}, {"send": "seq 100 130\r"}, {"sleep": 0.5},
              {"checkpoint": "left pane scrolled"}]
    steps += [{"send": "exit\r"}, {"sleep": 0.5}, {"checkpoint": "one pane left"}]
    steps += [{"send": "exit\r"}]
    return dict(argv=argv, steps=steps,
                notes=f"A nested tmux with its own socket (-L {TMUX_INNER_SOCKET}) and no "
                      f"configuration; its status line shows the clock when it was recorded.",
                cleanup=lambda: subprocess.run(["tmux", "-L", TMUX_INNER_SOCKET, "kill-server"],
                                               capture_output=True))


GIT_DATE = "2024-01-01T12:00:00+00:00"


def write_git_repo():
    """A throwaway repository with branches and merges, with fixed names and dates."""
    repo = os.path.join(HOME, "repo")
    os.makedirs(repo)
    env = dict(base_env(DEFAULT_ROWS, DEFAULT_COLS), GIT_AUTHOR_NAME="Rec", GIT_COMMITTER_NAME="Rec",
               GIT_AUTHOR_EMAIL="rec@example.invalid", GIT_COMMITTER_EMAIL="rec@example.invalid",
               GIT_AUTHOR_DATE=GIT_DATE, GIT_COMMITTER_DATE=GIT_DATE, GIT_CONFIG_NOSYSTEM="1",
               GIT_CONFIG_GLOBAL="/dev/null")

    def git(*args):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)

    def commit(msg):
        # One new file per commit, so merges never conflict.
        with open(os.path.join(repo, msg.replace(" ", "-") + ".txt"), "w") as f:
            f.write(msg + "\n")
        git("add", "-A")
        git("commit", "-q", "-m", msg)

    git("init", "-q", "-b", "main")
    commit("init repository")
    commit("base add readme")
    git("checkout", "-q", "-b", "feature")
    commit("feature one")
    commit("feature two")
    git("checkout", "-q", "main")
    commit("main hotfix")
    git("checkout", "-q", "-b", "topic")
    commit("topic work")
    git("checkout", "-q", "main")
    git("merge", "-q", "--no-ff", "-m", "merge feature", "feature")
    git("checkout", "-q", "feature")
    commit("feature three")
    git("checkout", "-q", "main")
    git("merge", "-q", "--no-ff", "-m", "merge topic", "topic")
    git("merge", "-q", "--no-ff", "-m", "merge feature again", "feature")
    git("checkout", "-q", "-b", "experiment", "HEAD~2")
    commit("experiment x")
    git("checkout", "-q", "main")


def session_git_log_graph():
    steps = [{"expect": PROMPT}]
    steps += shell_line("cd repo && git log --graph --color --oneline --all")
    steps += [{"checkpoint": "oneline"}]
    steps += shell_line("git log --graph --color --all --format='%C(yellow)%h%Creset %s "
                        "%C(auto)%d' -n 8")
    steps += [{"send": "exit\r"}]
    env_extra = dict(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null")
    return dict(argv=BASH, steps=steps, prepare=write_git_repo, env_extra=env_extra)


def session_python_repl():
    steps = [{"expect": r">>> $"}]
    for line in ["1 + 1", "[x * x for x in range(25)]", "print('中文 wide', 'é', sep='|')",
                 "'ab' * 50",
                 "len('a line long enough that readline has to wrap it past the last column')",
                 # Up arrow recalls it (readline redraws the wrapped line); Home, then edit.
                 "\x1b[A\x01# ",
                 "def f(x):", "    return 1 / x", "", "f(0)"]:
        steps += [{"send": line + "\r"}, {"expect": r"(>>>|\.\.\.) $"}]
    steps += [{"checkpoint": "traceback"}]
    steps += [{"send": "\x0c"}, {"expect": r">>> $"}, {"send": "'after ctrl-l'\r"},
              {"expect": r">>> $"}, {"checkpoint": "cleared"}]
    steps += [{"send": "exit()\r"}]
    return dict(argv=["/usr/bin/python3", "-q", "-i"], steps=steps,
                notes="python3 is the basic readline REPL (3.11 here).")


def session_bash_edit():
    """Shell utilities whose output needs more than plain text: tab stops, line editing,
    autowrap off, line drawing, wide and combining characters."""
    steps = [{"expect": PROMPT}]
    steps += shell_line("ls -C /usr/share/zoneinfo | head -12")
    steps += shell_line("tabs 4; printf 'a\\tbb\\tccc\\tdddd\\teeeee\\tf\\n'; tabs -8; "
                        "printf 'a\\tbb\\tccc\\n'")
    steps += [{"checkpoint": "tabs"}]
    # Readline editing in the middle of a line: Home, forward a word, insert, delete a word.
    steps += [{"send": "echo one two three four"}, {"sleep": 0.2}, {"send": "\x01"},
              {"sleep": 0.1}, {"send": "\x1bf\x1bf"}, {"sleep": 0.1}, {"send": " inserted"},
              {"sleep": 0.1}, {"send": "\x1bf\x1bd"}, {"sleep": 0.1}, {"send": "\x05 five"},
              {"sleep": 0.1}, {"checkpoint": "line edited"}]
    steps += [{"send": "\r"}, {"expect": r"\n" + PROMPT}]
    steps += shell_line("tput rmam; printf 'nowrap:%0100d|\\n' 0; tput smam; "
                        "printf 'wrap:%0100d|\\n' 0")
    steps += shell_line("printf '%79s\\xe4\\xb8\\xad|\\n' wide-at-last-column; "
                        "printf 'e\\xcc\\x81 a\\xcc\\x8a n\\xcc\\x83 combining\\n'")
    steps += [{"checkpoint": "wrap"}]
    steps += shell_line("tput smacs; printf 'lqqqwqqqk\\nx   x   x\\ntqqqnqqqu\\nmqqqvqqqj\\n'; "
                        "tput rmacs; echo back to ASCII: lqk")
    steps += shell_line("sleep 30 & sleep 31 & pstree -G -l $$; kill %1 %2")
    steps += [{"checkpoint": "line drawing"}]
    steps += shell_line("printf 'abcdefgh\\r\\e[3X\\e[2C\\e[2P\\e[3@\\n'; printf 'x\\e[8b\\n'")
    steps += [{"send": "exit\r"}]
    return dict(argv=BASH, steps=steps)


def session_dialog():
    steps = [{"expect": r"Pick"}, {"checkpoint": "menu"}]
    # Down arrow in application cursor mode (dialog sets DECCKM), as a terminal sends it.
    steps += [{"send": "\x1bOB"}, {"sleep": 0.3}, {"send": "\x1bOB"}, {"checkpoint": "moved"}]
    steps += [{"send": "\r"}, {"expect": r"menu done"}, {"checkpoint": "infobox"}]
    script = ("dialog --menu 'Pick one' 14 50 5 a Alpha b Beta c Gamma d Delta 2>/dev/null; "
              "dialog --infobox 'menu done' 8 30; sleep 2")
    return dict(argv=["bash", "--norc", "--noprofile", "-c", script], steps=steps,
                notes="dialog draws its boxes with the DEC line-drawing set (ncurses).")


def session_nano():
    steps = [{"expect": r"GNU nano"}, {"checkpoint": "start"}]
    steps += [{"send": line + "\r"} for line in VIM_TEXT]
    steps += [{"checkpoint": "typed"}]
    steps += [{"send": "\x1b\\"}, {"sleep": 0.3}, {"send": "\x0b"}, {"sleep": 0.3},
              {"send": "\x0b"}, {"checkpoint": "cut two lines"}]
    steps += [{"send": "\x1b/"}, {"sleep": 0.3}, {"send": "\x15"},
              {"checkpoint": "pasted at the end"}]
    for i in range(1, 41):
        steps += [{"send": f"filler line {i}\r"}]
    steps += [{"checkpoint": "scrolled"}]
    steps += [{"send": "\x1b\\"}, {"checkpoint": "top again"}]
    steps += [{"send": "\x18"}, {"expect": "Save modified"}, {"send": "n"}]
    return dict(argv=["nano", "--ignorercfile", "notes.txt"], steps=steps)


def session_htop():
    steps = [{"expect": r"PID"}, {"sleep": 1.5}, {"checkpoint": "running"}]
    steps += [{"send": "\x1b[B\x1b[B"}, {"sleep": 0.5}, {"checkpoint": "selection moved"}]
    steps += [{"send": "q"}]
    return dict(argv=["htop", "-d", "5"], steps=steps,
                notes="htop lists this machine's processes: the content is not reproducible, "
                      "only the kind of output is.")


def session_watch():
    # /proc/uptime changes every refresh, so watch redraws part of the screen each time.
    cmd = ("seq 1 6; cat /proc/uptime; printf '%.0s=' $(seq 1 70); echo; "
           "printf '%.0s-' $(seq 1 30); echo end")
    steps = [{"expect": r"end"}, {"sleep": 1.2}, {"checkpoint": "refreshed"}]
    steps += [{"send": "q"}, {"sleep": 0.2}, {"send": "\x03"}]
    return dict(argv=["watch", "-t", "-d", "-n", "0.5", cmd], steps=steps,
                notes="watch (procps, ncurses) redraws the same screen every 0.5 s; "
                      "ctrl-c ends it.")


SESSIONS = {
    "bash_colors": session_bash_colors,
    "vim_edit": session_vim_edit,
    "less": session_less,
    "top": session_top,
    "tmux": session_tmux,
    "git_log_graph": session_git_log_graph,
    "python_repl": session_python_repl,
    "bash_edit": session_bash_edit,
    "dialog": session_dialog,
    "nano": session_nano,
    "htop": session_htop,
    "watch": session_watch,
}


def record_builtin(name):
    spec = SESSIONS[name]()
    fresh_home()
    if "prepare" in spec:
        spec["prepare"]()
    env = dict(base_env(DEFAULT_ROWS, DEFAULT_COLS), **spec.get("env_extra", {}))
    try:
        record(os.path.join(REF_ROOT, name), spec["argv"], spec["steps"], DEFAULT_ROWS,
               DEFAULT_COLS, env, HOME, spec.get("notes", ""))
    finally:
        if "cleanup" in spec:
            spec["cleanup"]()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("names", nargs="*", help="built-in sessions to record")
    ap.add_argument("--all", action="store_true", help="record every built-in session")
    ap.add_argument("--list", action="store_true", help="list the built-in sessions")
    ap.add_argument("--dir", help="output directory (with --keys and a command)")
    ap.add_argument("--keys", help="JSON list of steps (with --dir and a command)")
    ap.add_argument("--rows", type=int, default=DEFAULT_ROWS)
    ap.add_argument("--cols", type=int, default=DEFAULT_COLS)
    args, rest = ap.parse_known_args()
    if args.list:
        print("\n".join(SESSIONS))
        return
    if args.dir or args.keys:
        if not (args.dir and args.keys):
            ap.error("--dir and --keys go together")
        # The command follows `--`; argparse leaves it in `names` and `rest`.
        cmd = args.names + [a for a in rest if a != "--"]
        if not cmd:
            ap.error("a command to run is needed after --")
        with open(args.keys) as f:
            steps = json.load(f)
        fresh_home()
        record(args.dir, cmd, steps, args.rows, args.cols, base_env(args.rows, args.cols), HOME)
        return
    names = list(SESSIONS) if args.all else args.names
    unknown = [n for n in names if n not in SESSIONS]
    if unknown or not names:
        ap.error(f"unknown session(s) {unknown}; known: {', '.join(SESSIONS)}")
    for name in names:
        record_builtin(name)


if __name__ == "__main__":
    main()
