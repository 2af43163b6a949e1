#!/usr/bin/env python3
"""Writes the fuzz seed corpus: one file per row of the conformance table
(test/wire/data/conformance_cases.tsv), its `raw` column unescaped the way the wire suite
does (C string escapes: \\r \\n \\t \\\\ \\" \\? and three-digit octal).

usage: make_seeds.py CONFORMANCE_TSV OUT_DIR [PREFIX_BYTE]
PREFIX_BYTE (0-255) is prepended to every seed: the answer target reads its first byte
as connection state."""
import os
import sys

SIMPLE = {"r": "\r", "n": "\n", "t": "\t", "\\": "\\", '"': '"', "?": "?"}
# Seeds at the target limit (BEHAVIOUR 6.1), which no corpus row reaches: 8,000 bytes
# (routed) and 8,001 (414), the second with a query.
TARGET_MAX = 8000
LONG_TARGETS = {
    "long-target-8000": b"GET /" + b"a" * (TARGET_MAX - 1) + b" HTTP/1.1\r\nHost: a\r\n\r\n",
    "long-target-8001-query": b"GET /?" + b"q" * (TARGET_MAX - 1) + b" HTTP/1.1\r\n\r\n",
}


def unescape(literal):
    """The bytes a C string literal's body stands for."""
    out, i = bytearray(), 0
    while i < len(literal):
        c = literal[i]
        if c != "\\":
            out += c.encode("latin-1")
            i += 1
        elif literal[i + 1] in SIMPLE:
            out += SIMPLE[literal[i + 1]].encode("latin-1")
            i += 2
        else:
            out.append(int(literal[i + 1:i + 4], 8))
            i += 4
    return bytes(out)


def main():
    tsv, out_dir = sys.argv[1], sys.argv[2]
    prefix = bytes([int(sys.argv[3])]) if len(sys.argv) > 3 else b""
    os.makedirs(out_dir, exist_ok=True)
    with open(tsv, encoding="latin-1") as f:
        rows = [line.rstrip("\n").split("\t") for line in f][1:]
    for row in rows:
        with open(os.path.join(out_dir, row[0]), "wb") as seed:
            seed.write(prefix + unescape(row[2]))
    for name, raw in LONG_TARGETS.items():
        with open(os.path.join(out_dir, name), "wb") as seed:
            seed.write(prefix + raw)
    print(f"{len(rows) + len(LONG_TARGETS)} seeds in {out_dir}")


if __name__ == "__main__":
    main()
