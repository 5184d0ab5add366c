#!/usr/bin/python3
"""A LAVA server's REST API (api/v0.2), the part 'latwatt lab' uses, for
tests/integration/lab.sh.  lava_fake.py DIR: listens on 127.0.0.1 (a free
port, written to DIR/port), wants the token of DIR/token, serves two qemu
devices tagged with their own names (dev-a, dev-b); job N takes two looks to
finish; job 3 is Incomplete (an infrastructure error in its log); the
others' logs carry a console upload: job 1 DIR/run-a.tar.gz, jobs 2 and 4
DIR/run-b.tar.gz, job 5 DIR/evil.tar.gz; their test cases (jobs/N/tests/)
carry a p99 with its units, job 4's budget on it failed.  Every request is counted in
DIR/requests.json (those without the token as unauthorized).

With DIR/versions.json ({"VERSION": SCALE or "fail", ...}: a lab for
'latwatt bisect --lava-job'), a job's fate follows its definition's
"job_name: bisect VERSION" instead: "fail" is Incomplete (an infrastructure
error: boot failed), else its upload is a run made here of 2000 cyclic
samples, log-normal around 22 us times SCALE (seeded by the job id), with
DIR/manifest.json's manifest.

lava_fake.py DIR --seeds OUT writes these answers as the seed corpus of
fuzz/fuzz_lava.c into OUT (DIR holding run-a.tar.gz), and serves nothing."""
import base64
import io
import json
import os
import random
import re
import struct
import sys
import tarfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

top = sys.argv[1]
token = open(os.path.join(top, "token")).read().strip() if len(sys.argv) == 2 else None
lock = threading.Lock()
state = {"requests": 0, "unauthorized": 0, "definitions": []}
looks = {}
UPLOAD = {1: "run-a", 2: "run-b", 4: "run-b", 5: "evil"}


versions_file = os.path.join(top, "versions.json")
VERSIONS = json.load(open(versions_file)) if os.path.exists(versions_file) else None


def version_of(job):
    m = re.search(r"^job_name: bisect (\S+)", state["definitions"][job - 1], re.M)
    return m.group(1) if m else None


def fails(job):
    if VERSIONS is None:
        return job == 3
    return VERSIONS.get(version_of(job)) == "fail"


def made_run(job):
    """A run directory of 2000 cyclic samples as a tar.gz (latwatt-run/)."""
    n = 2000
    scale = float(VERSIONS[version_of(job)])
    rng = random.Random(job)
    lats = [int(rng.lognormvariate(10.0, 0.3) * scale) for _ in range(n)]
    m = json.load(open(os.path.join(top, "manifest.json")))
    m["samples"]["written"] = n
    m["cpus"] = "0"
    m["duration_ns"] = n * 1000000
    m["end"]["monotonic_ns"] = m["start"]["monotonic_ns"] + n * 1000000
    m["probes"]["cyclic"]["cpus"] = "0"
    m["probes"]["cyclic"]["threads"] = [{
        "cpu": 0, "interval_ns": 1000000, "samples": n, "dropped": 0, "missed_periods": 0,
        "over_threshold": 0, "min_ns": min(lats), "max_ns": max(lats)}]
    start = m["start"]["monotonic_ns"]
    samples = b"LWSAMPLE" + struct.pack("<IIQ", 1, 24, start) + bytes(40)
    samples += b"".join(struct.pack("<QQIHBB", start + (i + 1) * 1000000, lat, 0, 0, 1, 0)
                        for i, lat in enumerate(lats))
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as t:
        d = tarfile.TarInfo("latwatt-run")
        d.type, d.mode = tarfile.DIRTYPE, 0o755
        t.addfile(d)
        for name, data in (("manifest.json", json.dumps(m).encode()), ("samples", samples)):
            f = tarfile.TarInfo("latwatt-run/" + name)
            f.size, f.mode = len(data), 0o644
            t.addfile(f, io.BytesIO(data))
    return buf.getvalue()


def save():
    with open(os.path.join(top, "requests.json"), "w") as f:
        json.dump(state, f)


def rec(lvl, msg):
    return "- " + json.dumps({"dt": "2026-12-06T10:00:00", "lvl": lvl, "msg": msg}) + "\n"


def log_of(job):
    out = rec("info", "lava-dispatcher, installed at version: 2023.01")
    out += rec("target", "latwatt-guest:~# ")
    if fails(job):
        why = "boot timed out" if VERSIONS is None else "boot failed: kernel panic"
        out += rec("error", "InfrastructureError: " + why)
        out += rec("results", {"case": "job", "definition": "lava", "error_type": "Infrastructure",
                               "error_msg": why, "result": "fail"})
        return out
    if VERSIONS is not None:
        data = made_run(job)
    else:
        data = open(os.path.join(top, UPLOAD[job] + ".tar.gz"), "rb").read()
    out += rec("target", "latwatt-upload-begin latwatt-run.tar.gz %d" % len(data))
    b64 = base64.b64encode(data).decode()
    for i in range(0, len(b64), 76):
        out += rec("target", b64[i:i + 76])
        if i // 76 == 3:
            out += rec("target", "<LAVA_SIGNAL_LATWATT_UPLOAD 200>")
    out += rec("target", "latwatt-upload-end latwatt-run.tar.gz")
    return out


class H(BaseHTTPRequestHandler):
    def log_message(self, fmt, *args):
        pass

    def reply(self, code, body, ctype="application/json"):
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def authorized(self):
        with lock:
            state["requests"] += 1
            ok = self.headers.get("Authorization") == "Token " + token
            if not ok:
                state["unauthorized"] += 1
            save()
        if not ok:
            self.reply(401, {"detail": "Invalid token."})
        return ok

    def do_POST(self):
        if not self.authorized():
            return
        if self.path != "/api/v0.2/jobs/":
            return self.reply(404, "<html>not found</html>", "text/html")
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with lock:
            state["definitions"].append(body["definition"])
            n = len(state["definitions"])
            save()
        self.reply(201, {"message": "job(s) successfully submitted", "job_ids": [n]})

    def do_GET(self):
        if not self.authorized():
            return
        self.reply(*answer_get(self.path))


def paged(path, items):
    """LAVA's PageNumberPagination (two a page here): ?page=N, "next"."""
    q = path.split("?")[1] if "?" in path else ""
    page = int(dict(x.split("=", 1) for x in q.split("&") if "=" in x).get("page", "1"))
    more = len(items) > 2 * page
    nxt = "http://127.0.0.1%s?page=%d" % (path.split("?")[0], page + 1) if more else None
    return 200, {"count": len(items), "next": nxt, "previous": None,
                 "results": items[2 * (page - 1):2 * page]}


def answer_get(path):
    """The answer to GET @path: status, body (JSON or text), content type."""
    p = path.split("?")[0]
    if p == "/api/v0.2/tags/":
        return 200, {"count": 2, "results": [{"id": 7, "name": "dev-a"}, {"id": 9, "name": "dev-b"}]}
    if p == "/api/v0.2/devices/":
        return 200, {"count": 2, "results": [
            {"hostname": "dev-b", "health": "Good", "tags": [9]},
            {"hostname": "dev-a", "health": "Good", "tags": [7]}]}
    parts = p.strip("/").split("/")
    if len(parts) >= 4 and parts[2] == "jobs" and parts[3].isdigit():
        job = int(parts[3])
        if job > len(state["definitions"]):
            return 404, {"detail": "Not found."}
        if len(parts) == 5 and parts[4] == "logs":
            return 200, log_of(job), "application/yaml"
        if len(parts) == 5 and parts[4] == "suites":
            return 200, {"count": 3, "next": None, "results": [
                {"id": 10 * job + 1, "name": "0_latwatt", "job": job},
                {"id": 10 * job + 2, "name": "1_budgets", "job": job},
                {"id": 10 * job + 3, "name": "2_metrics", "job": job}]}
        if len(parts) == 5 and parts[4] == "tests":
            # as boards/lava/latwatt-lava.sh reports them; job 4 breaks
            # its p99 budget
            p99 = "120.5000000000" if job == 4 else "35.2500000000"
            return paged(path, [
                {"id": 1, "name": "run", "suite": 10 * job + 1, "result": "pass",
                 "measurement": None, "unit": ""},
                {"id": 2, "name": "budget.cyclic.p99", "suite": 10 * job + 2,
                 "result": "fail" if job == 4 else "pass", "measurement": p99, "unit": "us"},
                {"id": 3, "name": "cyclic.p99", "suite": 10 * job + 3, "result": "pass",
                 "measurement": p99, "unit": "us"}])
        d = state["definitions"][job - 1]
        dev = d.split("tags:\n- ")[-1].strip() if "tags:\n- " in d else "dev-a"
        with lock:
            looks[job] = looks.get(job, 0) + 1
            seen = looks[job]
        start = 60 * ((job - 1) // 2)
        done = seen >= 2
        return 200, {
            "id": job, "state": "Finished" if done else "Running",
            "health": ("Incomplete" if fails(job) else "Complete") if done else "Unknown",
            "actual_device": dev, "failure_comment": None,
            "start_time": "2026-12-06T10:%02d:%02d.000000Z" % (start // 60, start % 60),
            "end_time": ("2026-12-06T10:%02d:50.000000Z" % (start // 60)) if done else None}
    return 404, "<html>not found</html>", "text/html"


def seeds(out):
    """fuzz/corpus/lava/: these answers as fuzz/fuzz_lava.c takes them, one
    file per job (1 complete with its upload, 2 running and the token
    refused, 3 Incomplete, 4 a failed budget), parts separated by "\n--8<--\n" lines."""
    def body(ans):
        return ans[1] if isinstance(ans[1], str) else json.dumps(ans[1])
    UPLOAD.update({2: "run-a", 4: "run-a"})  # one upload for all
    state["definitions"] = ["device_type: qemu\njob_name: seed\nactions: []\ntags:\n- dev-b\n"] * 5
    for job, name in ((1, "complete"), (3, "incomplete"), (4, "budget-failed"), (2, "running")):
        looks[job] = 1 if job != 2 else 0  # job 2 at its first look: Running
        api = "/api/v0.2/jobs/%d/" % job
        devices = body(answer_get("/api/v0.2/devices/"))
        if job == 2:  # the token refused, as authorized() answers
            devices = "HTTP 401\n" + json.dumps({"detail": "Invalid token."})
        parts = [body(answer_get(api)), devices,
                 body(answer_get("/api/v0.2/tags/")), body(answer_get(api + "tests/?page=1")),
                 body(answer_get(api + "tests/?page=2")), body(answer_get(api + "suites/")),
                 body(answer_get(api + "logs/")),
                 json.dumps({"message": "job(s) successfully submitted", "job_ids": [job]}),
                 "" if job != 3 else json.dumps({
                     "schema": "latwatt-lab-jobs", "version": 1, "lab": "farm",
                     "url": "http://127.0.0.1:1/", "jobs": [
                         {"id": 3, "kernel": "6.1-rt", "repeat": 2, "placed_on": "dev-b"}]})]
        with open(os.path.join(out, name), "w") as f:
            f.write("\n--8<--\n".join(parts))


if len(sys.argv) > 2 and sys.argv[2] == "--seeds":
    seeds(sys.argv[3])
    sys.exit(0)
srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
with open(os.path.join(top, "port.tmp"), "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(os.path.join(top, "port.tmp"), os.path.join(top, "port"))
srv.serve_forever()
