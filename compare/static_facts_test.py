"""Unit tests for compare/static_facts.py: the objdump parser and the request-path walk
on captured disassemblies (an earlier min tier with the shared command line, listener
and error lines, compare/testdata/objdump_min.txt, and its aarch64 build,
objdump_min_aarch64.txt; the min tier as the floor, its program in assembly,
objdump_min_floor.txt and objdump_min_floor_aarch64.txt) and on small hand-written ones
whose answer is known, and the ELF reader on this machine's python3."""

import os
import struct
import sys
import unittest

from compare import static_facts

TESTDATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testdata")


def sample(name):
    with open(os.path.join(TESTDATA, name)) as f:
        return f.read()


def walk_sample(name, arch="x86_64"):
    """(instructions, request path, functions reached) of the captured disassembly name,
    without jump tables."""
    insns, funcs = static_facts.parse_objdump(sample(name), arch)
    count, reached = static_facts.walk_request_path(insns, funcs, NoTables(), arch=arch)
    return static_facts.instruction_count(insns), count, reached


class NoTables:
    """An Elf stand-in with no file-backed data: every jump table is empty."""

    def read_u64(self, vaddr):
        return None


class Tables:
    """An Elf stand-in holding {address: 8-byte word}."""

    def __init__(self, words):
        self.words = words

    def read_u64(self, vaddr):
        return self.words.get(vaddr)


class ObjdumpTest(unittest.TestCase):
    def test_synthetic_parse(self):
        insns, funcs = static_facts.parse_objdump(sample("objdump_synthetic.txt"))
        self.assertEqual(len(insns), 17)
        self.assertEqual(static_facts.instruction_count(insns), 15)  # a nop, an int3
        self.assertEqual(funcs["start_up"], (0x401030, 0x401040))
        by_addr = {i.addr: i for i in insns}
        self.assertEqual(by_addr[0x401020].mnemonic, "jmp")  # "bnd" prefix stripped
        self.assertEqual(by_addr[0x401020].operand, "401000 <serve_loop>")

    def test_synthetic_walk(self):
        insns, funcs = static_facts.parse_objdump(sample("objdump_synthetic.txt"))
        # The jump table is empty: the indirect jmp counts its whole function, so
        # serve_loop's 8 instructions (padding out) and answer's 3 reached through the
        # call; start_up is never reached and hlt follows a ret.
        count, reached = static_facts.walk_request_path(insns, funcs, NoTables())
        self.assertEqual((count, reached), (11, ["answer", "serve_loop"]))
        # A table whose entries point back into serve_loop, ended by one outside it.
        table = Tables({0x402000: 0x401007, 0x402008: 0x401025, 0x402010: 0x401030})
        count, reached = static_facts.walk_request_path(insns, funcs, table)
        self.assertEqual((count, reached), (11, ["answer", "serve_loop"]))

    def test_no_accept4_site(self):
        insns, funcs = static_facts.parse_objdump(
            "0000000000401000 <f>:\n  401000:\tmov    $0x1,%eax\n  401005:\tret\n")
        with self.assertRaises(RuntimeError):
            static_facts.walk_request_path(insns, funcs, NoTables())

    def test_min_tier(self):
        self.assertEqual(walk_sample("objdump_min.txt"), (643, 38, ["apollod_main"]))

    def test_min_floor(self):
        # The loop from accept4's number to its jmp back, and the accept4 failure's exit:
        # 19 + 1 + 3 of the 91 (objdump names the assembly's labels as functions).
        self.assertEqual(walk_sample("objdump_min_floor.txt"),
                         (91, 23, ["accept_failed", "leave", "serve"]))


# A hand-written aarch64 disassembly: serve loops back through b.ne and b, calls answer
# (bl), whose blr leaves the binary and falls through; start_up is never reached; the nop
# is padding and the .inst literal is no instruction.
A64_SYNTHETIC = """\
0000000000400000 <serve>:
  400000:\tmov\tx8, #0xf2                  \t// #242
  400004:\tsvc\t#0x0
  400008:\tcbz\tx0, 400018 <serve+0x18>
  40000c:\tbl\t400030 <answer>
  400010:\tb.ne\t400000 <serve>  // b.any
  400014:\tb\t400000 <serve>
  400018:\tret
  40001c:\tnop
  400020:\t.inst\t0x00000000 ; undefined

0000000000400024 <start_up>:
  400024:\tmov\tx8, #0xdd                  \t// #221
  400028:\tsvc\t#0x0
  40002c:\tbrk\t#0x3e8

0000000000400030 <answer>:
  400030:\ttbz\tw1, #3, 400038 <answer+0x8>
  400034:\tblr\tx3
  400038:\tret
"""


class Aarch64Test(unittest.TestCase):
    def test_synthetic_parse(self):
        insns, funcs = static_facts.parse_objdump(A64_SYNTHETIC, "aarch64")
        self.assertEqual(len(insns), 14)  # the .inst line dropped
        self.assertEqual(static_facts.instruction_count(insns), 13)  # the nop
        by_addr = {i.addr: i for i in insns}
        self.assertEqual(by_addr[0x400000].operand, "x8, #0xf2")  # "// #242" dropped
        self.assertEqual(funcs["serve"], (0x400000, 0x400024))

    def test_synthetic_walk(self):
        insns, funcs = static_facts.parse_objdump(A64_SYNTHETIC, "aarch64")
        count, reached = static_facts.walk_request_path(insns, funcs, NoTables(),
                                                        arch="aarch64")
        self.assertEqual((count, reached), (10, ["answer", "serve"]))

    def test_x86_64_rules_find_no_site(self):
        insns, funcs = static_facts.parse_objdump(A64_SYNTHETIC, "aarch64")
        with self.assertRaises(RuntimeError):
            static_facts.walk_request_path(insns, funcs, NoTables())

    def test_min_tier(self):
        self.assertEqual(walk_sample("objdump_min_aarch64.txt", "aarch64"),
                         (671, 30, ["apollod_main"]))

    def test_min_floor(self):
        # The loop from `mov x8, #242` to its b back (20), and the exit (4) that its tbnz
        # reaches, of the 86.
        self.assertEqual(walk_sample("objdump_min_floor_aarch64.txt", "aarch64"),
                         (86, 24, ["leave", "serve"]))


class ElfTest(unittest.TestCase):
    def test_sections_of_a_real_binary(self):
        path = os.path.realpath(sys.executable)
        elf = static_facts.Elf(path)
        self.assertGreater(elf.size(".text"), 0)
        self.assertEqual(elf.size(".no-such-section"), 0)
        addr, offset, size, _ = elf.sections[".rodata"]
        with open(path, "rb") as f:
            f.seek(offset)
            first = struct.unpack("<Q", f.read(8))[0]
        self.assertEqual(elf.read_u64(addr), first)

    def test_not_an_elf(self):
        with self.assertRaises(ValueError):
            static_facts.Elf(os.path.join(TESTDATA, "objdump_synthetic.txt"))


if __name__ == "__main__":
    unittest.main()
