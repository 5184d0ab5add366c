#!/usr/bin/env python3
# Add to a copy of a fixture run's analysis.json every optional section a
# report reads (spikes, idle, power, tradeoff, workloads), with made-up
# values in the shapes reports/README.md documents, so that the tests see
# each section render before the analyses that produce them exist.
# Usage: extend-analysis.py RUN   (rewrites RUN/analysis.json)
import json, sys
run = sys.argv[1]
m = json.load(open(run + "/manifest.json"))
a = json.load(open(run + "/analysis.json"))
t0 = m["start"]["monotonic_ns"]
S = 1_000_000_000
# spikes: the shape of analysis/attrib.c's lw_attrib_json(); the second
# top spike carries an explicit "timeline" of events instead
E1 = t0 + S // 2
a["spikes"] = {"spikes_total": 54, "attributed": 52, "unattributable": 2, "total_latency_ns": 13000000,
  "causes": [{"cause": "irq:virtio0-input", "kind": "irq", "name": "virtio0-input", "count": 30, "ns": 6000000, "share": 6 / 13},
             {"cause": "softirq:NET_RX", "kind": "softirq", "name": "NET_RX", "count": 14, "ns": 4000000, "share": 4 / 13},
             {"cause": "idle-exit:C1", "kind": "idle-exit", "name": "C1", "count": 6, "ns": 1500000, "share": 1.5 / 13},
             {"cause": "preempt:kworker/1:1 & <co>", "kind": "preempt", "name": "kworker/1:1 & <co>", "count": 2, "ns": 1000000, "share": 1 / 13},
             {"cause": "unattributable", "kind": "unattributable", "name": "", "count": 2, "ns": 500000, "share": 0.5 / 13}],
  "top": [{"cpu": 1, "probe": 1, "expected_ns": E1, "latency_ns": 812000, "sample": 400,
           "cause": "irq:virtio0-input", "cause_share": 0.59,
           "components": [{"cause": "idle-exit:C1", "kind": "idle-exit", "name": "C1", "ns": 20000, "share": 0.025},
                          {"cause": "irq:virtio0-input", "kind": "irq", "name": "virtio0-input", "ns": 480000, "share": 0.59},
                          {"cause": "softirq:NET_RX", "kind": "softirq", "name": "NET_RX", "ns": 290000, "share": 0.357},
                          {"cause": "probe", "kind": "probe", "name": "", "ns": 22000, "share": 0.027}],
           "idle_state": 1, "idle_since_ns": E1 - 50000, "woken_ns": E1 + 790000, "switched_in_ns": E1 + 800000,
           "tick_stopped": True, "freq_changes": 0, "migrations": 0},
          {"probe": "cyclic", "cpu": 0, "expected_ns": t0 + S, "latency_ns": 400000, "cause": "softirq:TIMER", "detail": "TIMER softirq",
           "timeline": [{"kind": "task", "name": "stress", "start_ns": t0 + S - 10000, "end_ns": t0 + S + 5000},
                        {"kind": "softirq", "name": "TIMER", "start_ns": t0 + S + 5000, "end_ns": t0 + S + 380000},
                        {"kind": "task", "name": "latwatt-cyclic", "start_ns": t0 + S + 380000, "end_ns": t0 + S + 400000}]},
          {"cpu": 0, "probe": 1, "expected_ns": t0 + S + S // 4, "latency_ns": 300000, "cause": "unattributable",
           "unattributable": "trace events lost in the window", "components": []}]}
# the threshold each probe's spikes were taken above, and the time no event explains
a["spikes"]["thresholds"] = {"cyclic": {"threshold_ns": 150000, "source": "the run's --threshold", "above": 54}}
a["spikes"]["unexplained"] = {"idle_late": [{"state": "state1", "exit_latency_ns": None, "ns": 400000, "spikes": 3}],
                              "idle_late_ns": 400000, "running_ns": 120000, "running_spikes": 2}
a["spikes"]["steal"] = {"source": "/proc/stat", "cpus": [{"cpu": 1, "steal_ns": 3000000}], "total_ns": 3000000}
# latency by idle state, as the trace pass writes it; residency in RUN/idle.json's shape
a["idle_latency"] = {"cyclic": [{"state": "POLL", "index": 0, "count": 1000, "p50_ns": 20000, "p99_ns": 90000, "p99.9_ns": 200000, "max_ns": 300000},
                                {"state": "C1", "index": 1, "count": 1979, "p50_ns": 35000, "p99_ns": 250000, "p99.9_ns": 900000, "max_ns": 3113000}]}
a["idle"] = {"format": "latwatt-idle", "version": 1, "duration_ns": 1500000000,
             "sysfs": {"cpus": [{"cpu": 0, "active": 0.2, "states": [{"index": 0, "name": "POLL", "residency": 0.1}, {"index": 1, "name": "C1", "residency": 0.7}]},
                                {"cpu": 1, "active": 0.3, "states": [{"index": 0, "name": "POLL", "residency": 0.2}, {"index": 1, "name": "C1", "residency": 0.5}]}]}}
# power: the summary power/power.h's lw_power_summarize() writes, and the
# samples behind it in RUN/power (its text format)
a["power"] = {"format": "latwatt-power", "version": 1, "kind": "measured", "estimated": False,
              "total": {"average_w": 1.5005, "energy_j": 2.25, "duration_s": 1.5, "rails": 1},
              "rails": [{"name": "soc", "source": "hwmon", "kind": "measured", "total": True, "samples": 16,
                         "gaps": 1, "average_w": 1.5005, "min_w": 1.4, "max_w": 2.1, "energy_j": 2.25, "duration_s": 1.5},
                        {"name": "cpu", "source": "model", "kind": "estimated", "total": False, "samples": 16,
                         "gaps": 0, "average_w": 0.7, "min_w": 0.65, "max_w": 0.74, "energy_j": 1.05, "duration_s": 1.5}]}
with open(run + "/power", "w") as f:
    f.write("latwatt-power\t1\nstart_ns\t%d\n" % t0)
    f.write("rail\t0\tsoc\thwmon\tmeasured\ttotal\tina219 on the 5 V input\n")
    f.write("rail\t1\tcpu\tmodel\testimated\t-\tboard energy model\n")
    for i in range(16):
        ts = t0 + i * S // 10
        if i == 8:
            f.write("gap\t0\t%d\tread failed\n" % ts)
        else:
            f.write("s\t0\t%d\t%.3f\t-\t5.0\t-\n" % (ts, 1.4 + (i % 3) * 0.1))
        f.write("s\t1\t%d\t%.3f\t-\t-\t-\n" % (ts, 0.65 + (i % 4) * 0.03))
    f.write("end_ns\t%d\n" % (t0 + 16 * S // 10))
# power over time as the analysis draws it from that file (analysis/timeline.c):
# the mean of each bucket per rail, a gap breaking the line
a["power"]["timeline"] = {"bucket_ns": S // 10, "rails": [
    {"name": "soc", "kind": "measured", "points": [[i * S // 10 + S // 20, (1.4 + (i % 3) * 0.1) * 1e3, 1 if i == 9 else 0]
                                                   for i in range(16) if i != 8]},
    {"name": "cpu", "kind": "estimated", "points": [[i * S // 10 + S // 20, (0.65 + (i % 4) * 0.03) * 1e3, 0]
                                                    for i in range(16)]}]}
a["tradeoff"] = {"probe": "cyclic", "stat": "p99", "recommended_pm_qos_us": 20, "reason": "lowest power with p99 under 100 us",
                 "points": [{"pm_qos_us": 0, "latency_ns": 40000, "power_mw": 2600}, {"pm_qos_us": 20, "latency_ns": 70000, "power_mw": 1900},
                            {"pm_qos_us": 100, "latency_ns": 160000, "power_mw": 1500}, {"pm_qos_us": 2000000000, "latency_ns": 240000, "power_mw": 1400}]}
# workloads: workloads/summary.c's shape, with the cause the trace pass
# gave each miss (analysis/tracepass.c): the xrun on CPU 1 at E1 falls in
# top spike 1, the dropped frame on CPU 0 in no spike
a["workloads"] = {"audio": {"kind": "audio", "records": 750, "periods": 750, "xruns": 2, "skipped": 0,
                            "xrun_list": [{"boundary_ns": E1 + 100000, "period": 187, "stream": 0, "cpu": 1, "lateness_ns": 300000, "skipped": False, "cause": "irq:virtio0-input"},
                                          {"boundary_ns": t0 + S + S // 5, "period": 450, "stream": 0, "cpu": 1, "lateness_ns": 90000, "skipped": True, "cause": "irq:virtio0-input"}],
                            "miss_causes": {"irq:virtio0-input": 2}},
                  "video": {"kind": "video", "records": 90, "frames": 90, "dropped": 1, "skipped": 0,
                            "dropped_list": [{"vsync_ns": t0 + S // 4, "frame": 22, "cpu": 0, "lateness_ns": 2000000, "skipped": False,
                                              "cause": "no spike on its CPU in that period"}],
                            "miss_causes": {"no spike on its CPU in that period": 1}},
                  "stress-cpu": {"kind": "cpu", "stressor": "cpu", "ops_per_s": 12345.0}}
json.dump(a, open(run + "/analysis.json", "w"), indent=1)
