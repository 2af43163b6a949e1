"""What packaging/Containerfile says, and the daemon's flags, for the packaging tests."""

import http.client
import json
import re
import time

# The line the daemon prints once it listens on a loopback port (docs/BEHAVIOUR.md 13).
LISTENING = re.compile(r"apollod listening on 127\.0\.0\.1:([0-9]+)")


def instruction(path, name):
    """The rest of the first line of the Containerfile at PATH that starts with NAME (an
    instruction: CMD, USER, LABEL, ...); raises AssertionError when there is none."""
    with open(path) as f:
        for line in f:
            if line.startswith(name + " "):
                return line[len(name) + 1:].strip()
    raise AssertionError("no %s line in %s" % (name, path))


def command(path):
    """The Containerfile's CMD, a JSON array of strings, as a list."""
    return json.loads(instruction(path, "CMD"))


def flag_value(args, flag):
    """The word after FLAG in the list ARGS, which must hold it."""
    assert flag in args, "%s not in %s" % (flag, args)
    return args[args.index(flag) + 1]


def health_once_up(port, seconds):
    """Asks 127.0.0.1:PORT for /health on a new connection each time, as a startup probe
    does, until it answers 200 `ok`; returns that answer as (status, body), or the last
    one after SECONDS. Until then only `503 draining` is taken: the first start hands over
    to the generation that made the gzip forms (docs/BEHAVIOUR.md 10.10), and a check on a
    connection the first one accepted just before its drain began gets that (section 11)."""
    deadline = time.monotonic() + seconds
    while True:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        try:
            conn.request("GET", "/health")
            resp = conn.getresponse()
            answer = (resp.status, resp.read())
        finally:
            conn.close()
        if answer != (503, b"draining\n") or time.monotonic() > deadline:
            return answer
        time.sleep(0.05)
