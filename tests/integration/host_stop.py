#!/usr/bin/python3
# host_stop.py PID N STOP_MS GAP_MS LOG: stop process PID (a QEMU guest:
# SIGSTOP holds every thread of it, its vCPU threads with the rest) N times
# for STOP_MS each, GAP_MS apart, and log each stop on the host's
# CLOCK_MONOTONIC: "start_ns end_ns" a line (from just before SIGSTOP to
# just after SIGCONT).  The guest's clock moves on meanwhile (QEMU's virtual
# clock follows the host's), so each stop is a gap the guest sees.
import os
import signal
import sys
import time


def now():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


def main():
    pid, n = int(sys.argv[1]), int(sys.argv[2])
    stop_ns, gap_s = int(float(sys.argv[3]) * 1e6), float(sys.argv[4]) / 1e3
    with open(sys.argv[5], "w") as log:
        log.write("# host CLOCK_MONOTONIC ns: start end of each SIGSTOP..SIGCONT of pid %d\n" % pid)
        for _ in range(n):
            t0 = now()
            os.kill(pid, signal.SIGSTOP)
            try:
                end = t0 + stop_ns
                while now() < end - 2000000:
                    time.sleep(0.001)
                while now() < end:
                    pass
            finally:
                os.kill(pid, signal.SIGCONT)
            log.write("%d %d\n" % (t0, now()))
            log.flush()
            time.sleep(gap_s)


if __name__ == "__main__":
    main()
