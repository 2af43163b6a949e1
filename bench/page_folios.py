#!/usr/bin/env python3
"""How a file's pages sit in the page cache: order-0 pages or large folios (issue 34,
benchmarks/reports/2026-12-06-send-pipes.md, section 8).

Maps each FILE read-only, touches every 4 KiB page (a read fault brings it in, through
readahead when it is not cached), then reads /proc/self/pagemap for each page's frame
and /proc/kpageflags for that frame's flags: KPF_COMPOUND_HEAD (bit 15) and
KPF_COMPOUND_TAIL (bit 16) mark the pages of a large folio. Prints, per file, its pages,
the large folios (heads), the pages inside them and the order-0 pages. Needs root (the
frame numbers in pagemap are zero otherwise). Linux only; standard library only.

  sudo python3 bench/page_folios.py FILE...
"""
import ctypes
import mmap
import os
import struct
import sys

PAGE = mmap.PAGESIZE
KPF_COMPOUND_HEAD = 15
KPF_COMPOUND_TAIL = 16
PFN_MASK = (1 << 55) - 1
PRESENT = 1 << 63


def folios(path):
    """(pages, heads, pages in large folios, order-0 pages) of path."""
    size = os.path.getsize(path)
    pages = (size + PAGE - 1) // PAGE
    if size == 0:
        return 0, 0, 0, 0
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    fd = os.open(path, os.O_RDONLY)
    start = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
    os.close(fd)
    if start in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), "mmap " + path)
    byte = ctypes.cast(start, ctypes.POINTER(ctypes.c_ubyte))
    for i in range(pages):  # fault every page in
        byte[i * PAGE]
    heads = large = small = 0
    with open("/proc/self/pagemap", "rb") as pm, open("/proc/kpageflags", "rb") as kf:
        for i in range(pages):
            pm.seek((start // PAGE + i) * 8)
            entry = struct.unpack("Q", pm.read(8))[0]
            if not entry & PRESENT:
                continue
            kf.seek((entry & PFN_MASK) * 8)
            flags = struct.unpack("Q", kf.read(8))[0]
            if flags >> KPF_COMPOUND_HEAD & 1:
                heads += 1
                large += 1
            elif flags >> KPF_COMPOUND_TAIL & 1:
                large += 1
            else:
                small += 1
    libc.munmap(start, size)
    return pages, heads, large, small


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    for path in sys.argv[1:]:
        pages, heads, large, small = folios(path)
        print(f"{path}: {pages} pages, {heads} large folios holding {large}, {small} order-0")
    return 0


if __name__ == "__main__":
    sys.exit(main())
