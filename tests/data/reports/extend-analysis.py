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
a["spikes"] = {"threshold_ns": 100000, "count": 54,
  "causes": [{"cause": "irq", "count": 30, "share": 30/54}, {"cause": "softirq", "count": 14, "share": 14/54},
             {"cause": "idle exit", "count": 6, "share": 6/54}, {"cause": "task <preempt> & co", "count": 4, "share": 4/54}],
  "top": [{"probe": "cyclic", "cpu": 1, "expected_ns": t0 + S//2, "latency_ns": 812000, "cause": "irq", "detail": "irq 24 virtio0-input",
           "timeline": [{"kind": "idle", "name": "C1", "start_ns": t0 + S//2 - 50000, "end_ns": t0 + S//2 + 20000},
                        {"kind": "irq", "name": "virtio0-input", "start_ns": t0 + S//2 + 20000, "end_ns": t0 + S//2 + 500000},
                        {"kind": "softirq", "name": "NET_RX", "start_ns": t0 + S//2 + 500000, "end_ns": t0 + S//2 + 790000},
                        {"kind": "task", "name": "latwatt-cyclic", "start_ns": t0 + S//2 + 790000, "end_ns": t0 + S//2 + 812000}]},
          {"probe": "cyclic", "cpu": 0, "expected_ns": t0 + S, "latency_ns": 400000, "cause": "softirq", "detail": "TIMER", "timeline": []}]}
a["idle"] = {"by_state": [{"probe": "cyclic", "state": "POLL", "count": 1000, "p50_ns": 20000, "p99_ns": 90000, "max_ns": 300000},
                          {"probe": "cyclic", "state": "C1", "count": 1979, "p50_ns": 35000, "p99_ns": 250000, "max_ns": 3113000}],
             "residency": [{"cpu": 0, "states": [{"state": "POLL", "time_ns": 1, "share": 0.1}, {"state": "C1", "time_ns": 1, "share": 0.7}]},
                           {"cpu": 1, "states": [{"state": "POLL", "time_ns": 1, "share": 0.2}, {"state": "C1", "time_ns": 1, "share": 0.5}]}]}
a["power"] = {"rails": [{"name": "soc", "source": "measured", "mean_mw": 1500.5, "max_mw": 2100, "energy_mj": 2250,
                          "series": [[t0 + i * S // 10, 1400 + (i % 3) * 100] for i in range(16)]},
                         {"name": "cpu", "source": "estimated", "mean_mw": 700, "series": [[t0 + i * S // 10, 650 + (i % 4) * 30] for i in range(16)]}]}
a["tradeoff"] = {"probe": "cyclic", "stat": "p99", "recommended_pm_qos_us": 20, "reason": "lowest power with p99 under 100 us",
                 "points": [{"pm_qos_us": 0, "latency_ns": 40000, "power_mw": 2600}, {"pm_qos_us": 20, "latency_ns": 70000, "power_mw": 1900},
                            {"pm_qos_us": 100, "latency_ns": 160000, "power_mw": 1500}, {"pm_qos_us": 2000000000, "latency_ns": 240000, "power_mw": 1400}]}
a["workloads"] = {"audio": {"type": "audio", "total": 750, "misses": 2, "miss_name": "xruns",
                            "events": [{"t_ns": t0 + S//2, "cause": "irq", "detail": "virtio0-input 480us"}, {"t_ns": t0 + S + S//5, "cause": "softirq", "detail": "NET_RX"}]},
                  "video": {"type": "video", "total": 90, "misses": 1, "miss_name": "dropped frames",
                            "events": [{"t_ns": t0 + S, "cause": "idle exit", "detail": "C1 exit"}]}}
json.dump(a, open(run + "/analysis.json", "w"), indent=1)
