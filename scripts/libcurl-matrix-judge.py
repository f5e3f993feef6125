"""Judges one variant of scripts/libcurl-matrix.sh against scripts/libcurl-matrix.expected.

Arguments: the expectations file, the variant, its run directory (the probes' outputs and
statuses, the access-log marks, one log and exit status per test module) and the modules.
Prints every difference and exits 1 if there is one. The rules are in the expectations file's
header; a crash, a hang, or a request that reached a server whose certificate the policy
rejects is a failure on every variant.
"""
import os
import re
import sys

expectations_path, variant, run, *modules = sys.argv[1:]

outcome = None
refusal = None
named_failures = {}
intermittent = set()
for number, line in enumerate(open(expectations_path), 1):
    line = line.split("#", 1)[0].strip()
    if not line:
        continue
    words = line.split(None, 2)
    if len(words) < 3:
        sys.exit(f"{expectations_path}:{number}: expected VARIANT KEYWORD VALUE")
    if words[0] != variant:
        continue
    keyword, value = words[1], words[2]
    if keyword == "outcome":
        if value not in ("full", "refused", "full-or-refused"):
            sys.exit(f"{expectations_path}:{number}: outcome is full, refused or full-or-refused")
        outcome = value
    elif keyword == "refusal":
        refusal = re.compile(value)
    elif keyword in ("fails", "may-fail"):
        test, _, reason = value.partition(" ")
        if not reason.strip():
            sys.exit(f"{expectations_path}:{number}: a named failure says why")
        named_failures[test] = reason.strip()
        if keyword == "may-fail":
            intermittent.add(test)
    else:
        sys.exit(f"{expectations_path}:{number}: unknown keyword {keyword}")
if outcome is None:
    sys.exit(f"{expectations_path}: no outcome for {variant}")
if outcome != "full" and refusal is None:
    sys.exit(f"{expectations_path}: {variant} may refuse, but no refusal reason is written down")

differences = []


def differ(text):
    differences.append(text)
    print(f"libcurl-matrix: {variant}: UNEXPECTED: {text}")


def read(name):
    with open(os.path.join(run, name), errors="replace") as file:
        return file.read()


# Where each TLS server's access log stood before the variant ran.
marks = {}
for line in read("access-logs").splitlines():
    name, path, count = line.split()
    marks[name] = (path, int(count))


def requests_since_mark(name):
    path, count = marks[name]
    with open(path, errors="replace") as file:
        return file.read().splitlines()[count:]


def reached(name, probe):
    return any(f"probe={probe} " in line for line in requests_since_mark(name))


def probe(name):
    """The probe's exit status and its output's last 300 characters on one line."""
    return int(read(f"probe-{name}.status")), " ".join(read(f"probe-{name}.out").split())[-300:]


def describe_status(status):
    if status == 124 or status == 137:
        return "hung (stopped by timeout)"
    if status > 128:
        return f"crashed (signal {status - 128})"
    return f"exit {status}"


# The policy probes: what must never get through, on any variant. The trusted-* probes run where
# the system's trust store holds the fixture root: libcurl's own verification passes there, so
# only the manager's policy (or the transport's refusal) stands between the request and the server.
for name, server in (("pin-mismatch", "LOCALHOST"), ("other-host-under-ca", "WRONG_HOST"),
                     ("other-host-default", "WRONG_HOST"), ("self-signed-default", "SELF_SIGNED"),
                     ("trusted-other-host", "WRONG_HOST"), ("trusted-pin-mismatch", "LOCALHOST"),
                     ("trusted-proxy-anchors", "LOCALHOST")):
    status, output = probe(name)
    if status != 2:
        differ(f"probe {name}: {describe_status(status)}, expected the request to fail (exit 2): {output}")
    if reached(server, name):
        differ(f"probe {name}: the server received the request although the policy rejects a certificate on its way")

# The default policy works everywhere: through the transport, or through URLSession's own
# protocol when the transport refuses.
status, output = probe("trusted-default")
if status != 0 or not reached("LOCALHOST", "trusted-default"):
    differ(f"probe trusted-default: {describe_status(status)}, expected a default manager's request to a certificate "
           f"the system trusts to succeed: {output}")

# The pinned probe tells a working transport from a refusing one.
status, output = probe("pinned")
if status == 0 and reached("LOCALHOST", "pinned"):
    judged = "full"
elif status == 2 and refusal is not None and refusal.search(output) and not reached("LOCALHOST", "pinned"):
    judged = "refused"
else:
    judged = None
    differ(f"probe pinned: {describe_status(status)}, neither a pinned request that succeeds nor a refusal "
           f"matching {refusal.pattern if refusal else '(none written down)'}: {output}")
if judged is not None and outcome != "full-or-refused" and judged != outcome:
    differ(f"the transport is {judged} here, {outcome} is expected")
print(f"libcurl-matrix: {variant}: the transport is {judged or 'neither working nor refusing'}"
      + (f": {output}" if judged == "refused" else ""))

# The tests.
failed = {}
executed = 0
for module in modules:
    # A module the variant does not run (the session tests where the transport refuses).
    if not os.path.exists(os.path.join(run, f"{module}.status")):
        continue
    log = read(f"{module}.log")
    status = int(read(f"{module}.status"))
    started, finished = [], set()
    errors = {}
    for line in log.splitlines():
        match = re.match(r"Test Case '([^.']+)\.([^']+)' (started|passed|failed)", line)
        if match:
            test = f"{module}.{match.group(1)}/{match.group(2)}"
            if match.group(3) == "started":
                started.append(test)
            else:
                finished.add(test)
                if match.group(3) == "failed":
                    failed.setdefault(test, errors.get(test, []))
            continue
        match = re.search(r": error: ([^.\s]+)\.([^\s]+) : (.*)", line)
        if match:
            errors.setdefault(f"{module}.{match.group(1)}/{match.group(2)}", []).append(match.group(3))
    summary = re.findall(r"Test Suite 'Selected tests' (?:passed|failed).*\n\s*Executed (\d+) tests?", log)
    if status not in (0, 1) or not summary:
        unfinished = [test for test in started if test not in finished]
        differ(f"{module}: {describe_status(status)}" + (f" in {unfinished[-1]}" if unfinished else "")
               + (f"; the log's tail: {log.strip()[-400:]}" if not unfinished else ""))
    else:
        executed += int(summary[-1])
    for test in failed:
        if test in errors:
            failed[test] = errors[test]

for test, messages in sorted(failed.items()):
    if test in named_failures:
        continue
    if judged == "refused" and any(refusal.search(message) for message in messages):
        continue
    differ(f"{test} failed: {' | '.join(messages)[:400] or '(no message)'}")
if judged != "refused":
    for test, reason in sorted(named_failures.items()):
        if test not in failed and test not in intermittent:
            differ(f"{test} passed, but is written down as failing here ({reason}): update the expectations")

# A refusing transport sends nothing: no test request may reach a TLS test server, whose
# certificates only the tests' policies accept (the trusted-default probe's, sent by URLSession's
# own protocol to a certificate the system trusts there, is the one that may).
if judged == "refused":
    for name in marks:
        for line in requests_since_mark(name):
            if "probe=trusted-default " in line:
                continue
            differ(f"the {name} TLS server received a request although the transport refuses: {line[:200]}")

print(f"libcurl-matrix: {variant}: {executed} tests run, {len(failed)} failed "
      f"({len([t for t in failed if t in named_failures])} written down), {len(differences)} unexpected")
sys.exit(1 if differences else 0)
