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
    print(f"{len(rows)} seeds in {out_dir}")


if __name__ == "__main__":
    main()
