#!/usr/bin/env python3
# Planted causes of latency on one CPU, each logging when it held the CPU,
# for the attribution tests (tests/integration/*attribution*.sh) and
# bench/attribution-recall.  Every line of a log is "KIND START_NS END_NS"
# (CLOCK_MONOTONIC): the span in which a spike may have been caused by it.
#
#   plant.py hog CPU LOG SECS      SCHED_FIFO 98 task "lw-hog" spinning 200 us
#                                  every 100 ms (kind hog; its wake-ups: held)
#   plant.py storm CPU LOG SECS    task "lw-storm" (SCHED_FIFO 98) arming N
#                                  timerfds to expire at one instant every 50 ms:
#                                  their callbacks run back to back in one timer
#                                  interrupt (kind storm: from that instant until
#                                  its own timer, due just after, wakes it;
#                                  held: its own arming)
#   plant.py spin CPU LOG SECS     SCHED_FIFO 85 task "lw-spin" (above the audio
#                                  threads, 80, below their interrupt thread,
#                                  90) spinning 2 to 6 ms at a random moment of
#                                  every 100 ms (kind spin)
#   plant.py stop CPU LOG SECS     task "lw-stop" stopping the audio workload's
#                                  interrupt thread (lw-audio-irq, the first
#                                  found) through ptrace for 2 to 6 ms at a
#                                  random moment of every 100 ms, then letting
#                                  it go on (kind stop: from the moment it was
#                                  stopped to the one it was let go); CPU unused
#   plant.py idle CPU LOG SECS     alternate 500 ms phases on CPU: "held" (PM QoS
#                                  0 through /dev/cpu_dma_latency, and a
#                                  SCHED_OTHER nice 19 spinner "lw-busy" that
#                                  keeps the CPU out of idle) and "released"
#                                  (nothing: the CPU idles)
#
# An optional READY path is created once the planter is set up (its policy
# and CPU set, its timers made), and an optional STOP path ends it early when
# it appears: a test starts the planter, waits for READY, measures, then
# creates STOP, so the plant covers the whole measurement however slowly a
# busy machine starts either program. SECS is then the most it runs.
import ctypes, os, struct, sys, time

libc = ctypes.CDLL(None, use_errno=True)
SPIN_NS = 200_000


def name(comm):
    libc.prctl(15, comm.encode(), 0, 0, 0)      # PR_SET_NAME: the trace's comm


def fifo(prio):
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(prio))


READY = STOP = None


def ready():
    if READY:
        open(READY, "w").close()


def stopped():
    return STOP is not None and os.path.exists(STOP)


def sleep_until(t):
    left = (t - time.monotonic_ns()) / 1e9
    if left > 0:
        time.sleep(left)


def hog(cpu, log, secs):
    name("lw-hog")
    # SCHED_FIFO before moving onto the CPU: there, a real-time probe (the
    # noise loop) would leave a SCHED_OTHER task only the throttling slack
    fifo(98)
    os.sched_setaffinity(0, {cpu})
    out = []
    ready()
    end = time.monotonic_ns() + int(secs * 1e9)
    nxt = time.monotonic_ns() + 50_000_000
    while nxt < end and not stopped():
        sleep_until(nxt)
        t0 = time.monotonic_ns()
        while time.monotonic_ns() - t0 < SPIN_NS:
            pass
        out.append(("hog", t0, time.monotonic_ns()))
        nxt += 100_000_000
    return out


def spin(cpu, log, secs):
    import random
    name("lw-spin")
    fifo(85)
    os.sched_setaffinity(0, {cpu})
    rnd = random.Random(cpu * 7919 + os.getpid())
    out = []
    ready()
    end = time.monotonic_ns() + int(secs * 1e9)
    slot = time.monotonic_ns() + 50_000_000
    while slot + 100_000_000 < end and not stopped():
        # a random moment of the slot, so that the spins fall at every phase
        # of the audio period
        sleep_until(slot + rnd.randrange(0, 90_000_000))
        length = rnd.randrange(2_000_000, 6_000_000)
        t0 = time.monotonic_ns()
        while time.monotonic_ns() - t0 < length:
            pass
        out.append(("spin", t0, time.monotonic_ns()))
        slot += 100_000_000
    return out


def find_thread(comm):
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            for tid in os.listdir("/proc/%s/task" % pid):
                with open("/proc/%s/task/%s/comm" % (pid, tid)) as f:
                    if f.read().strip() == comm:
                        return int(tid)
        except OSError:
            pass
    return None


def stop(cpu, log, secs):
    import random
    PTRACE_CONT, PTRACE_SEIZE, PTRACE_INTERRUPT, WALL = 7, 0x4206, 0x4207, 0x40000000
    name("lw-stop")
    fifo(50)
    libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
    rnd = random.Random(os.getpid())
    out = []
    ready()
    end = time.monotonic_ns() + int(secs * 1e9)
    tid = None
    while tid is None and time.monotonic_ns() < end and not stopped():
        tid = find_thread("lw-audio-irq")
        time.sleep(0.02)
    if tid is None:
        return out
    if libc.ptrace(PTRACE_SEIZE, tid, None, None) < 0:
        raise OSError(ctypes.get_errno(), "ptrace seize %d" % tid)
    status = ctypes.c_int()
    slot = time.monotonic_ns() + 200_000_000
    while slot + 100_000_000 < end and not stopped():
        sleep_until(slot + rnd.randrange(0, 90_000_000))
        length = rnd.randrange(2_000_000, 6_000_000)
        if libc.ptrace(PTRACE_INTERRUPT, tid, None, None) < 0:
            break                               # the thread is gone
        if libc.waitpid(tid, ctypes.byref(status), WALL) != tid:
            break
        t0 = time.monotonic_ns()
        sleep_until(t0 + length)
        t1 = time.monotonic_ns()
        if libc.ptrace(PTRACE_CONT, tid, None, None) < 0:
            break
        out.append(("stop", t0, t1))
        slot += 100_000_000
    return out                                  # exiting detaches it


class itimerspec(ctypes.Structure):
    _fields_ = [("i_s", ctypes.c_long), ("i_ns", ctypes.c_long),
                ("v_s", ctypes.c_long), ("v_ns", ctypes.c_long)]


def storm(cpu, log, secs, n=2000):
    name("lw-storm")
    # SCHED_FIFO before moving onto the CPU: there, a real-time probe (the
    # noise loop) would leave a SCHED_OTHER task only the throttling slack
    fifo(98)
    os.sched_setaffinity(0, {cpu})
    fds = []
    for _ in range(n):
        fd = libc.timerfd_create(1, 0o4000)     # CLOCK_MONOTONIC, TFD_NONBLOCK
        if fd < 0:
            raise OSError(ctypes.get_errno(), "timerfd_create")
        fds.append(fd)
    out, storms = [], []
    ready()
    end = time.monotonic_ns() + int(secs * 1e9)
    nxt = time.monotonic_ns() + 50_000_000
    while nxt + 10_000_000 < end and not stopped():
        sleep_until(nxt)
        t0 = time.monotonic_ns()
        at = t0 + 15_000_000                    # the storm: 15 ms later, all at once
        spec = itimerspec(0, 0, at // 1_000_000_000, at % 1_000_000_000)
        for fd in fds:
            libc.timerfd_settime(fd, 1, ctypes.byref(spec), None)   # TFD_TIMER_ABSTIME
        out.append(("held", t0, time.monotonic_ns()))
        # its own timer expires just after theirs: it runs once the storm is over
        sleep_until(at)
        t1 = time.monotonic_ns()
        storms.append((at, t1))
        nxt += 50_000_000
    for fd in fds:
        os.close(fd)
    # a storm whose end it saw late (its own wake-up delayed by something
    # else) counts for twice the typical storm at most
    if storms:
        cap = 2 * sorted(b - a for a, b in storms)[len(storms) // 2]
        out += [("storm", a, min(b, a + cap)) for a, b in storms]
    return out


def idle(cpu, log, secs):
    name("lw-idle")
    out = []
    end = time.monotonic_ns() + int(secs * 1e9)
    t = start = time.monotonic_ns()
    qos = None
    try:
        qos = os.open("/dev/cpu_dma_latency", os.O_WRONLY)
    except OSError:
        pass
    phase = 0
    ready()
    while t + 500_000_000 <= end and not stopped():
        if phase % 2 == 0:
            # held: PM QoS 0 and a spinner of the lowest priority on the CPU
            stop = t + 500_000_000
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:
                name("lw-busy")
                os.sched_setaffinity(0, {cpu})
                os.nice(19)
                os.write(w, b"1")       # spinning from now on: the CPU cannot idle
                while time.monotonic_ns() < stop:
                    pass
                os._exit(0)
            if qos is not None:
                os.write(qos, struct.pack("i", 0))
            os.read(r, 1)
            t0 = time.monotonic_ns()
            os.close(r)
            os.close(w)
            os.waitpid(pid, 0)
            # held from the spinner's start to its stop, not beyond
            out.append(("held", t0, min(stop, time.monotonic_ns())))
            if qos is not None:
                os.close(qos)
                qos = os.open("/dev/cpu_dma_latency", os.O_WRONLY)
        else:
            sleep_until(t + 500_000_000)
        t += 500_000_000
        phase += 1
    if qos is not None:
        os.close(qos)
    # released: whenever the spinner did not hold the CPU (it may idle then)
    edges = [start] + [x for _, a, b in out for x in (a, b)] + [time.monotonic_ns()]
    out += [("released", edges[i], edges[i + 1]) for i in range(0, len(edges) - 1, 2)
            if edges[i + 1] > edges[i]]
    return out


def main():
    global READY, STOP
    kind, cpu, log, secs = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
    READY = sys.argv[5] if len(sys.argv) > 5 else None
    STOP = sys.argv[6] if len(sys.argv) > 6 else None
    spans = {"hog": hog, "storm": storm, "idle": idle, "spin": spin,
             "stop": stop}[kind](cpu, log, secs)
    with open(log, "w") as f:
        for k, a, b in spans:
            f.write("%s %d %d\n" % (k, a, b))


if __name__ == "__main__":
    main()
