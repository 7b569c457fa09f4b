"""redact_check.py -- the oracles of test_redact.sh.

  redact_check.py absent SECRETS FILE...   no secret in any file's bytes
  redact_check.py present SECRETS FILE     every secret in the file's bytes
  redact_check.py same-report A.json B.json [--findings]
      two `mprof report --json` outputs agree: the same structure, numbers
      and kinds, and their texts in a one-to-one correspondence (a text of
      A is always the same text of B, and no two texts of A one of B);
      with --findings, A must have findings
  redact_check.py unredact MAP A.json B.json
      B's texts with every pseudonym of MAP put back are A's: the map says
      what became what, all of it and truly
  redact_check.py metadata A.ctf B.ctf
      B's metadata is A's with another process name, a label-xxxx
  redact_check.py legacy OUT SECRETS
      write a mirage-profile trace of two packets whose strings are
      private (labels, one of 64 KiB, a should_resolve mark, a failure
      reason, counter names), and those strings to SECRETS
"""
import json
import re
import struct
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


def map_lines(path):
    """(original, pseudonym) of each line of a map, \\xHH unescaped."""
    unescape = lambda t: re.sub(r"\\x([0-9a-f]{2})",
                                lambda m: chr(int(m.group(1), 16)), t)
    with open(path) as f:
        return [tuple(unescape(x) for x in line.rstrip("\n").split("\t")[1:])
                for line in f]


def unredact(map_path, path_a, path_b):
    back = {to: original for original, to in map_lines(map_path)}
    names = sorted(back, key=len, reverse=True)
    pseudonym = re.compile(r"(?<![0-9A-Za-z_.-])(%s)(?![0-9A-Za-z_-])" %
                           "|".join(re.escape(n) for n in names))

    def put_back(x):
        if isinstance(x, dict):
            return {k: put_back(v) for k, v in x.items() if k != "trace"}
        if isinstance(x, list):
            return [put_back(v) for v in x]
        if isinstance(x, str):
            return pseudonym.sub(lambda m: back[m.group(1)], x)
        return x

    a = json.load(open(path_a))
    a = {k: v for k, v in a.items() if k != "trace"}
    b = put_back(json.load(open(path_b)))
    if a == b:
        return 0
    print("FAIL: unredact: %s put back through %s is not %s" %
          (path_b, map_path, path_a))
    for k in a:
        if a[k] != b.get(k):
            print("  %s: %r\n  against %r" % (k, str(a[k])[:300],
                                               str(b.get(k))[:300]))
    return 1


def metadata_of(path):
    data = contents(path)
    size, = struct.unpack_from("<I", data, 36)
    offset, = struct.unpack_from("<Q", data, 40)
    return data[offset:offset + size].decode()


def metadata(path_a, path_b):
    name = re.compile(r'(\tprocname = ")([^"]*)(")')
    a, b = metadata_of(path_a), metadata_of(path_b)
    found = name.search(b)
    if name.sub(r"\1\3", a) == name.sub(r"\1\3", b) and found and \
            re.fullmatch("label-[a-z]{4}", found.group(2)):
        return 0
    print("FAIL: metadata: %r against %r" % (a, b))
    return 1


LEGACY_SECRETS = ["GET /alice/inbox", "password of erin", "frank's debt",
                  "grace's quota", "heidi " + "Z" * 65536]


def legacy_event(ts, op, *fields):
    out = struct.pack("<QB", ts, op)
    for f in fields:
        out += f.encode() + b"\0" if isinstance(f, str) else \
            struct.pack("<B" if f < 0 else "<q", -f if f < 0 else f)
    return out


def legacy_packet(counter, events):
    body = b"".join(events)
    size = (30 + len(body)) * 8
    return struct.pack("<I16sIHI", 0xC1FC1FC1, b"U" * 16, size, counter,
                       size) + body


def legacy(out_path, secrets_path):
    # thread type: a negative field is one u8 (1: task)
    first = [legacy_event(10, 0, 0, 1, -1),                # creates
             legacy_event(20, 5, 1, "__should_resolve"),   # label
             legacy_event(30, 5, 1, LEGACY_SECRETS[0]),    # label
             legacy_event(40, 0, 0, 2, -1),
             legacy_event(50, 3, 0, 2, LEGACY_SECRETS[1]),  # fails
             legacy_event(55, 5, 2, LEGACY_SECRETS[4])]     # label
    second = [legacy_event(60, 6, 0, 5, LEGACY_SECRETS[2]),  # increase
              legacy_event(70, 11, 0, 9, LEGACY_SECRETS[3]),  # counter
              legacy_event(80, 7, 1)]                          # switch
    with open(out_path, "wb") as f:
        f.write(legacy_packet(0, first) + legacy_packet(1, second))
    with open(secrets_path, "w") as f:
        for text in LEGACY_SECRETS:
            f.write(text.encode().hex() + "\n")
    return 0


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    if command == "absent":
        sys.exit(absent(args[0], args[1:]))
    if command == "present":
        sys.exit(present(args[0], args[1]))
    if command == "unredact":
        sys.exit(unredact(*args))
    if command == "metadata":
        sys.exit(metadata(*args))
    if command == "legacy":
        sys.exit(legacy(*args))
    sys.exit(same_report(args[0], args[1], "--findings" in args[2:]))
