#!/usr/bin/env python3
# lava-log.py - wraps a run's console.log as LAVA 2023.01 writes its job log
# (a YAML list of {dt, lvl, msg}), with LAVA's own lines around and between
# and one long target line split in two, as LAVA does when a read ends
# mid-line.  Usage: lava-log.py CONSOLE.LOG [--incomplete] > job.yaml
import datetime, json, sys

def entry(t, lvl, msg):
    dt = (datetime.datetime(2023, 1, 12, 10, 11, 12) + datetime.timedelta(milliseconds=t)).isoformat()
    # LAVA writes each entry as a flow mapping on one line; JSON strings are YAML
    if isinstance(msg, dict):
        return '- {"dt": %s, "lvl": "%s", "msg": %s}' % (json.dumps(dt), lvl, json.dumps(msg))
    return '- {"dt": %s, "lvl": "%s", "msg": %s}' % (json.dumps(dt), lvl, json.dumps(msg))

incomplete = "--incomplete" in sys.argv
lines = open(sys.argv[1], "rb").read().decode("utf-8", "replace").split("\n")
out = [entry(0, "info", "start: 0 validate"),
       entry(1, "debug", "Start time: 2023-01-12 10:11:12.000000+00:00 (UTC)"),
       entry(2, "info", "start: 1 deployimages (timeout 00:05:00) [common]"),
       entry(3, "info", "start: 2.1 execute-qemu (timeout 00:10:00) [common]"),
       entry(4, "debug", "Boot command: /usr/bin/qemu-system-x86_64 -nographic ..."),
       entry(5, "input", "")]
split_done = False
if incomplete:
    lines = lines[: len(lines) // 2]
for i, l in enumerate(lines):
    l = l.rstrip("\r")
    if not l:
        continue
    if i % 97 == 5:
        out.append(entry(10 + i, "debug", "lava-test-monitor: still waiting"))
    if not split_done and l.startswith("SLRT ") and len(l) > 80:
        # LAVA read the console in the middle of this line
        out.append(entry(10 + i, "target", l[:37]))
        out.append(entry(10 + i, "target", l[37:]))
        split_done = True
        continue
    out.append(entry(10 + i, "target", l))
if incomplete:
    out.append(entry(99998, "error", "lava-test-monitor timed out after 600 seconds"))
    out.append(entry(99999, "results", {"definition": "lava", "case": "job", "result": "fail",
                                        "error_msg": "lava-test-monitor timed out after 600 seconds",
                                        "error_type": "Test"}))
else:
    out.append(entry(99998, "info", "end: 2.1 execute-qemu (duration 00:00:30) [common]"))
    out.append(entry(99999, "results", {"definition": "lava", "case": "job", "result": "pass"}))
print("\n".join(out))
