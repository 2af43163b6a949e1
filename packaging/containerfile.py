"""What packaging/Containerfile says, and the daemon's flags, for the packaging tests."""

import json
import re

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
