# Writes about N MB of 80-byte lines, each starting with the wall-clock time in ms, as fast as
# the terminal takes them; then an end marker.
import sys, time
n = int(sys.argv[1]) * 1_000_000
pad = "y" * 64
out = sys.stdout
written = 0
while written < n:
    lines = []
    t = int(time.time() * 1000)
    for _ in range(50):
        lines.append(f"{t:>14d} {pad}\n")
    s = "".join(lines)
    out.write(s)
    written += len(s)
out.write("__FLOOD" + "_END__\n")
out.flush()
