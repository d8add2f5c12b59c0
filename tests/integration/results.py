#!/usr/bin/env python3
"""results.py - checks on lab run directories that several integration
tests share; each prints what it saw, and exits non-zero with the reason.

  results.py same-shape A B
      run B has the same cases as run A, its cases.json the same key shape
      (every path of keys, lists folded), and no case of B failed.
  results.py host-actions FILE KIND:ACTION...
      every action in the host-faults.jsonl FILE is ok and each given
      kind:action pair is among them.
"""
import json
import sys


def key_paths(o, prefix=""):
    if isinstance(o, dict):
        out = set()
        for k, v in o.items():
            out |= {prefix + "/" + k} | key_paths(v, prefix + "/" + k)
        return out
    if isinstance(o, list):
        return set().union(*[key_paths(v, prefix + "[]") for v in o]) if o else set()
    return set()


def same_shape(a, b):
    ca = json.load(open(a + "/cases.json"))
    cb = json.load(open(b + "/cases.json"))
    ka, kb = key_paths(ca), key_paths(cb)
    assert ka == kb, ("keys only in %s" % a, sorted(ka - kb)[:10],
                      "keys only in %s" % b, sorted(kb - ka)[:10])
    names = [[c["case"] for c in x["cases"]] for x in (ca, cb)]
    assert names[0] == names[1], names
    bad = [c["case"] for c in cb["cases"] if c["verdict"] not in ("PASS", "SKIP")]
    assert not bad, ("cases that did not pass", bad)
    print("cases.json: %d cases, %d keys, the same shape in both runs" % (len(names[1]), len(kb)))


def host_actions(path, wanted):
    acts = [json.loads(line) for line in open(path)]
    assert all(a["ok"] for a in acts), [a for a in acts if not a["ok"]]
    seen = {(a["kind"], a["action"]) for a in acts}
    for w in wanted:
        kind, _, action = w.partition(":")
        assert (kind, action) in seen, ((kind, action), "not in", sorted(seen))
    print("%d host actions, all ok: %s" % (len(acts), sorted(seen)))


def main(argv):
    try:
        if len(argv) == 4 and argv[1] == "same-shape":
            same_shape(argv[2], argv[3])
        elif len(argv) >= 3 and argv[1] == "host-actions":
            host_actions(argv[2], argv[3:])
        else:
            sys.exit("usage: results.py same-shape A B | host-actions FILE KIND:ACTION...")
    except (AssertionError, OSError, ValueError, KeyError) as e:
        sys.exit("results.py %s: %r" % (argv[1], e))


if __name__ == "__main__":
    main(sys.argv)
