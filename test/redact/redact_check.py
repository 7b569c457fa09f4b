"""redact_check.py -- the oracles of test_redact.sh.

  redact_check.py absent SECRETS FILE...   no secret in any file's bytes
  redact_check.py present SECRETS FILE     every secret in the file's bytes
  redact_check.py same-report A.json B.json [--findings]
      two `mprof report --json` outputs agree: the same structure, numbers
      and kinds, and their texts in a one-to-one correspondence (a text of
      A is always the same text of B, and no two texts of A one of B);
      with --findings, A must have findings
"""
import json
import sys


def secrets(path):
    with open(path) as f:
        return [bytes.fromhex(line.strip()) for line in f if line.strip()]


def contents(path):
    with open(path, "rb") as f:
        return f.read()


def absent(secret_file, files):
    found = [(s, f) for f in files for s in secrets(secret_file)
             if s in contents(f)]
    for s, f in found:
        print("FAIL: %s holds %r" % (f, s))
    return 1 if found else 0


def present(secret_file, path):
    data = contents(path)
    missing = [s for s in secrets(secret_file) if s not in data]
    for s in missing:
        print("FAIL: %s lacks %r (the search cannot see it)" % (path, s))
    return 1 if missing else 0


# Texts that are structure, not names: they must be equal.
SAME_TEXT_KEYS = {"type", "via", "severity"}


def compare(a, b, where, pairs, problems):
    if type(a) is not type(b):
        problems.append("%s: %r against %r" % (where, a, b))
    elif isinstance(a, dict):
        if sorted(a) != sorted(b):
            problems.append("%s: keys %s against %s" % (where, sorted(a), sorted(b)))
        for k in a:
            if k in b and k != "trace":
                compare(a[k], b[k], where + "." + k, pairs, problems)
    elif isinstance(a, list):
        if len(a) != len(b):
            problems.append("%s: %d items against %d" % (where, len(a), len(b)))
        for i, (x, y) in enumerate(zip(a, b)):
            compare(x, y, "%s[%d]" % (where, i), pairs, problems)
    elif isinstance(a, str):
        key = where.rsplit(".", 1)[-1]
        if key in SAME_TEXT_KEYS and a != b:
            problems.append("%s: %r against %r" % (where, a, b))
        pairs.add((a, b))
    elif a != b:
        problems.append("%s: %r against %r" % (where, a, b))


def same_report(path_a, path_b, need_findings):
    a, b = json.load(open(path_a)), json.load(open(path_b))
    pairs, problems = set(), []
    compare(a, b, "report", pairs, problems)
    for side in (0, 1):
        seen = {}
        for pair in pairs:
            other = seen.setdefault(pair[side], pair[1 - side])
            if other != pair[1 - side]:
                problems.append("text %r is both %r and %r" %
                                (pair[side], other, pair[1 - side]))
    for p in problems[:20]:
        print("FAIL: report: " + p)
    if need_findings and not a.get("findings"):
        print("FAIL: report: no findings to compare")
        return 1
    kinds = [[f["kind"] for f in r["findings"]] for r in (a, b)]
    if kinds[0] != kinds[1]:
        problems.append("findings %s against %s" % tuple(kinds))
    return 1 if problems else 0


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    if command == "absent":
        sys.exit(absent(args[0], args[1:]))
    if command == "present":
        sys.exit(present(args[0], args[1]))
    sys.exit(same_report(args[0], args[1], "--findings" in args[2:]))
