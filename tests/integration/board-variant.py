#!/usr/bin/python3
"""A test's or bench's copy of a QEMU board file, for the runs to judge the
test's budget alone:

    board-variant.py SRC DST [--single-thread] [--idle-states EXIT_US RESIDENCY_US]

DST's board is named after its file (a board's name is its file's), and has
no budgets of its own (a maximum needs 30 s of runs to extrapolate).
--single-thread: QEMU's single-threaded TCG (accel tcg,thread=single).
--idle-states: the energy model given latwatt_idle's planted states (POLL
1000 mW, LW-HALT 500, LW-DEEP 100 with its exit latency and residency;
tests/kmod/latwatt_idle.c)."""
import argparse, os, re, sys

ap = argparse.ArgumentParser()
ap.add_argument("src")
ap.add_argument("dst")
ap.add_argument("--single-thread", action="store_true")
ap.add_argument("--idle-states", nargs=2, metavar=("EXIT_US", "RESIDENCY_US"))
a = ap.parse_args()
s = open(a.src).read()
name = os.path.basename(a.dst)
if not name.endswith(".yaml"):
    sys.exit("board-variant.py: %s: a board file ends in .yaml" % a.dst)
s, n = re.subn(r"(?m)^name: .*$", "name: " + name[:-5], s, count=1)
assert n == 1, "no name: in " + a.src
s, n = re.subn(r"(?ms)^budgets:\n.*?(?=^\S)", "", s, count=1)
assert n == 1, "no budgets: in " + a.src
if a.single_thread:
    s, n = re.subn(r"(?m)^  accel: tcg,thread=multi$", "  accel: tcg,thread=single", s, count=1)
    assert n == 1, "no multi-threaded accel in " + a.src
if a.idle_states:
    states = """idle_states:
  - name: POLL
    exit_latency_us: 0
    target_residency_us: 0
    power_mw: 1000
  - name: LW-HALT
    exit_latency_us: 1
    target_residency_us: 1
    power_mw: 500
  - name: LW-DEEP
    exit_latency_us: %s
    target_residency_us: %s
    power_mw: 100
""" % tuple(a.idle_states)
    s, n = re.subn(r"(?ms)^idle_states:\n.*?(?=^\S)", states + "\n", s, count=1)
    assert n == 1, "no idle_states: in " + a.src
open(a.dst, "w").write(s)
