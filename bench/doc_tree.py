#!/usr/bin/env python3
"""Builds a documentation-like tree for measuring the loader (issue 29, "A faster loader").

The tree stands in for the real one the issue measured (51,906 files, 782 MB, 48,625
HTML pages): about 800 MB in 50,000 files under nested directories of about 100 entries:
  - 48,000 HTML pages, sizes log-normal (median about 9 KiB, a tail to about 1 MiB,
    mean about 13 KiB) of markup and English-like prose, code blocks and tables, so that
    gzip saves what it saves on real pages (about 4-6x);
  - 1,000 stylesheets and scripts (about 40 KiB each on average);
  - 1,000 images: random bytes (incompressible, like PNG and JPEG), about 110 KiB each.
Deterministic: one seeded random.Random drives every choice, so a tree made twice with
the same seed has the same bytes. Bounded: a fixed number of files, each of bounded
size, and the whole run stops with an error past --max-seconds.

A stamp file (DIR/.doc_tree) records the parameters; a DIR that already has the same
stamp is left as it is (dotfiles are not served, so the stamp is never loaded).

  python3 -m bench.doc_tree DIR [--seed 29] [--pages 48000] [--max-seconds 600]
"""
import argparse
import itertools
import math
import os
import random
import sys
import time

STAMP_NAME = ".doc_tree"
FILES_PER_DIR = 100
PAGE_MEDIAN = 9 * 1024
PAGE_SIGMA = 0.85
PAGE_MAX = 1 << 20
ASSET_MEAN = 40 * 1024
IMAGE_MEAN = 110 * 1024
PARAGRAPHS = 6000  # the pool pages draw from: many distinct paragraphs per page

SYLLABLES = ("al be co de el fi ga hi in jo ka lo me no or pa que re si ta un ve wa xi yo "
             "za ber con dis ent for gra ion ker lin mod nat ove pro que ret str tex und "
             "ver win ach ble cal dor fer gen hol ish lat men nor pol ran sen tor").split()
CODE_WORDS = ("return if else for while struct int char const static void size_t "
              "uint64_t self def class import from None True False lambda yield "
              "async await match case").split()


def make_words(rng, count):
    """count distinct-ish words of 1 to 4 syllables, Zipf-weighted by position."""
    words = set()
    while len(words) < count:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(1, 4))))
    return sorted(words)


_CUM_WEIGHTS = {}


def zipf_choices(rng, words, k):
    """k words drawn with weight 1/rank (a natural language's shape)."""
    cum = _CUM_WEIGHTS.get(len(words))
    if cum is None:
        cum = list(itertools.accumulate(1.0 / (i + 1) for i in range(len(words))))
        _CUM_WEIGHTS[len(words)] = cum
    return rng.choices(words, cum_weights=cum, k=k)


def paragraph(rng, vocab):
    """One HTML block: prose, a code block, a list or a table."""
    kind = rng.random()
    if kind < 0.6:
        sentences = []
        for _ in range(rng.randint(2, 8)):
            w = zipf_choices(rng, vocab, rng.randint(6, 22))
            w[0] = w[0].capitalize()
            if rng.random() < 0.3:
                i = rng.randrange(len(w))
                w[i] = '<a href="../%s/%s.html">%s</a>' % (w[i], w[-1], w[i])
            if rng.random() < 0.3:
                w[-1] = "<code>%s()</code>" % w[-1]
            sentences.append(" ".join(w) + ".")
        return "<p>" + " ".join(sentences) + "</p>\n"
    if kind < 0.8:
        lines = []
        for _ in range(rng.randint(3, 20)):
            w = zipf_choices(rng, vocab + CODE_WORDS * 20, rng.randint(2, 9))
            lines.append("    " * rng.randint(0, 3) + " ".join(w) + rng.choice(
                (";", ":", " {", "}", "", "(x, y)")))
        return ('<div class="highlight"><pre><span></span>' + "\n".join(lines) +
                "</pre></div>\n")
    if kind < 0.9:
        items = ["<li><p>%s</p></li>" % " ".join(zipf_choices(rng, vocab, rng.randint(3, 12)))
                 for _ in range(rng.randint(2, 9))]
        return '<ul class="simple">\n' + "\n".join(items) + "\n</ul>\n"
    rows = ["<tr><td><p>%s</p></td><td><p>%s</p></td></tr>" % (
        rng.choice(vocab), " ".join(zipf_choices(rng, vocab, rng.randint(4, 14))))
        for _ in range(rng.randint(3, 12))]
    return '<table class="docutils">\n<tbody>\n' + "\n".join(rows) + "\n</tbody>\n</table>\n"


def page_head(title, depth):
    up = "../" * depth
    return ('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8" />\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1.0" />\n'
            '<title>%s &#8212; Documentation</title>\n'
            '<link rel="stylesheet" type="text/css" href="%s_static/pygments.css" />\n'
            '<link rel="stylesheet" type="text/css" href="%s_static/basic.css" />\n'
            '<script src="%s_static/doctools.js"></script>\n</head>\n<body>\n'
            '<div class="document"><div class="body" role="main">\n<h1>%s</h1>\n'
            % (title, up, up, up, title))


PAGE_TAIL = ('</div></div>\n<div class="footer">&#169; Copyright. Created using Sphinx.'
             '</div>\n</body>\n</html>\n')


def page_size(rng):
    """A page's target size: log-normal around PAGE_MEDIAN, at most PAGE_MAX."""
    return min(PAGE_MAX, int(PAGE_MEDIAN * math.exp(rng.gauss(0.0, PAGE_SIGMA))))


def page(rng, pool, title, depth):
    """One HTML page of about page_size bytes (str)."""
    target = page_size(rng)
    parts = [page_head(title, depth)]
    size = len(parts[0]) + len(PAGE_TAIL)
    while size < target:
        p = pool[rng.randrange(len(pool))]
        parts.append(p)
        size += len(p)
    parts.append(PAGE_TAIL)
    return "".join(parts)


def asset(rng, vocab, ext):
    """A stylesheet or script of about ASSET_MEAN bytes (str)."""
    target = int(rng.expovariate(1.0 / ASSET_MEAN)) + 256
    out, size = [], 0
    while size < target:
        w = zipf_choices(rng, vocab, 4)
        if ext == "css":
            s = ".%s-%s .%s {\n  margin: %dpx %dpx;\n  color: #%06x;\n}\n" % (
                w[0], w[1], w[2], rng.randint(0, 40), rng.randint(0, 40), rng.getrandbits(24))
        else:
            s = "function %s_%s(%s, %s) {\n  return %s.%s(%s) || %d;\n}\n" % (
                w[0], w[1], w[2], w[3], w[2], w[1], w[3], rng.randint(0, 999))
        out.append(s)
        size += len(s)
    return "".join(out)


def layout(pages, assets, images):
    """[(relative path, kind)] in creation order: pages in nested directories of
    FILES_PER_DIR, assets under _static/, images under _images/."""
    out = []
    for i in range(pages):
        d = i // FILES_PER_DIR
        out.append(("api/m%02d/s%03d/page%05d.html" % (d // 40, d % 40, i), "page"))
    for i in range(assets):
        ext = "css" if i % 2 else "js"
        out.append(("_static/d%02d/asset%04d.%s" % (i // FILES_PER_DIR, i, ext), ext))
    for i in range(images):
        out.append(("_images/d%02d/figure%04d.png" % (i // FILES_PER_DIR, i), "image"))
    return out


def build(root, seed, pages, assets, images, max_seconds):
    """Writes the tree; returns (files, bytes)."""
    start = time.monotonic()
    rng = random.Random(seed)
    vocab = make_words(rng, 3000)
    pool = [paragraph(rng, vocab) for _ in range(PARAGRAPHS)]
    files = total = 0
    for rel, kind in layout(pages, assets, images):
        if time.monotonic() - start > max_seconds:
            sys.exit("doc_tree: over --max-seconds %d after %d files" % (max_seconds, files))
        if kind == "page":
            data = page(rng, pool, os.path.basename(rel)[:-5], rel.count("/")).encode()
        elif kind == "image":
            data = rng.randbytes(int(rng.expovariate(1.0 / IMAGE_MEAN)) + 512)
        else:
            data = asset(rng, vocab, kind).encode()
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        files += 1
        total += len(data)
    with open(os.path.join(root, "index.html"), "wb") as f:
        f.write(page(rng, pool, "index", 0).encode())
    return files + 1, total


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--seed", type=int, default=29)
    ap.add_argument("--pages", type=int, default=48000)
    ap.add_argument("--assets", type=int, default=1000)
    ap.add_argument("--images", type=int, default=1000)
    ap.add_argument("--max-seconds", type=int, default=600)
    a = ap.parse_args()
    stamp = "seed=%d pages=%d assets=%d images=%d v1\n" % (a.seed, a.pages, a.assets, a.images)
    stamp_path = os.path.join(a.dir, STAMP_NAME)
    if os.path.exists(stamp_path) and open(stamp_path).read() == stamp:
        print("doc_tree: %s is already built (%s)" % (a.dir, stamp.strip()))
        return
    if os.path.exists(a.dir) and os.listdir(a.dir):
        sys.exit("doc_tree: %s exists and is not this tree: remove it first" % a.dir)
    os.makedirs(a.dir, exist_ok=True)
    files, total = build(a.dir, a.seed, a.pages, a.assets, a.images, a.max_seconds)
    with open(stamp_path, "w") as f:
        f.write(stamp)
    print("doc_tree: %d files, %.1f MB in %s" % (files, total / 1e6, a.dir))


if __name__ == "__main__":
    main()
