"""Every #include of a common/ header names the including file's own layer or one below
it (bazel/layers.bzl's LAYERS, bottom first). The build already rejects an upward include
(the header is not among the compile action's inputs); this check says which line did it
and also covers headers no daemon target compiles.

usage: layering_check.py LAYER... -- FILE...   (FILEs under common/<layer>/)
Exit 0 when every include points down or sideways, 1 naming each one that points up."""
import os
import re
import sys
import tempfile

INCLUDE = re.compile(r'^\s*#\s*include\s+"common/([A-Za-z0-9_]+)/')


def layer_of(path):
    """The layer folder a path under common/ lies in, or None for common/ itself."""
    parts = os.path.normpath(path).split(os.sep)
    if "common" not in parts:
        return None
    rest = parts[parts.index("common") + 1:]
    return rest[0] if len(rest) > 1 else None


def violations(layers, files):
    """Lines 'FILE:LINE: LAYER includes HIGHER (...)' for every upward or unknown include,
    and for every file that sits in no known layer."""
    rank = {name: i for i, name in enumerate(layers)}
    found = []
    for path in files:
        own = layer_of(path)
        if own not in rank:
            found.append("%s: not in a layer folder (%s)" % (path, ", ".join(layers)))
            continue
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = m.group(1)
                if target not in rank:
                    found.append("%s:%d: includes common/%s/, which is no layer"
                                 % (path, number, target))
                elif rank[target] > rank[own]:
                    found.append("%s:%d: layer %s includes the higher layer %s: %s"
                                 % (path, number, own, target, line.strip()))
    return found


def self_test(layers):
    """The check fails on a planted upward include and passes a downward one."""
    with tempfile.TemporaryDirectory() as tmp:
        low = os.path.join(tmp, "common", layers[1])
        os.makedirs(low)
        up = os.path.join(low, "planted.c")
        with open(up, "w") as f:
            f.write('#include "common/%s/x.h"\n#include "common/%s/y.h"\n'
                    % (layers[0], layers[-1]))
        found = violations(layers, [up])
        assert len(found) == 1 and ("includes the higher layer " + layers[-1]) in found[0], found


def main(argv):
    split = argv.index("--")
    layers, files = argv[1:split], argv[split + 1:]
    self_test(layers)
    found = violations(layers, files)
    for line in found:
        print(line)
    print("layering: %d files, %d upward includes" % (len(files), len(found)))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
