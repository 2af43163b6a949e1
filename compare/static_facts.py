"""The static rows of the comparison: facts read from sources, objects and ELF files.

Request path (instructions a `GET /` can execute, counted statically): objdump -d is
parsed into instructions; the walk starts at every instruction that loads accept4's
syscall number (x86_64: 288 into a register; aarch64: 242 into x8, the number register
of `svc #0`), the first step of serving a connection in every epoll tier (the uring tier
has no accept4: there the walk starts at conn_open and conn_event, where the loop hands
the connection code a connection or a completion), and follows control
flow: fall-through, direct jumps and calls into the called function, jump tables (x86_64:
read from the ELF, 8-byte entries that point into the same function). It stops at ret.
Calls through a register (the vDSO clock) lead outside the binary and are not followed;
any other indirect jump (every aarch64 `br`: its tables hold scaled offsets) counts its
whole function. The
set is everything the serving loop can reach, so it over-approximates one `GET /`
(error branches and the other routes are in it) and leaves out start-up code (command
line, listener set-up) that runs before the first accept. Padding nops are not counted
here nor in the total."""

import os
import re
import struct
import subprocess

# The min tier is the floor (BEHAVIOUR 8): on every arch at most this many instructions
# in the whole binary and on the request path. The original apollod-min (seed document
# 000): 66 and 22. check_table.py and aarch64_section.py --check hold min to it.
MIN_BUDGET = {"instructions_total": 100, "request_path_instructions": 25}

# Every function that reads a binary takes arch: "x86_64" (the default) or "aarch64".
ARCHES = ("x86_64", "aarch64")
ACCEPT4_NR = {"x86_64": 288, "aarch64": 242}
OBJDUMP = {"x86_64": "objdump", "aarch64": "aarch64-linux-gnu-objdump"}
SECTIONS = (".text", ".rodata", ".data", ".bss")
_PREFIXES = {"addr32", "data16", "bnd", "notrack", "rep", "repz", "repe", "repnz", "repne",
             "lock", "cs", "ds", "ss", "es", "fs", "gs"}
_STOPS = {"ret", "retq", "ud2", "hlt", "brk", "udf"}
# aarch64 control flow: branches whose last operand is the target, and the unconditional
# ones that do not fall through.
_A64_BRANCHES = {"b", "bl", "cbz", "cbnz", "tbz", "tbnz"}
_A64_NO_FALL = {"b", "br", "ret", "brk", "udf"}
_INSN = re.compile(r"^\s*([0-9a-f]+):\t(.*)$")
_FUNC = re.compile(r"^([0-9a-f]+) <(.+)>:$")
_TARGET = re.compile(r"^([0-9a-f]+)(?: <.*>)?$")
_A64_TARGET = re.compile(r"(?:^|, )([0-9a-f]+)(?: <[^>]*>)?$")
_TABLE = re.compile(r"^\*(0x[0-9a-f]+)\(,%\w+,8\)$")


def _tool(*argv):
    return subprocess.run(argv, capture_output=True, text=True, check=True).stdout


# ---- ELF ------------------------------------------------------------------------------

class Elf:
    """The section headers of an ELF64 little-endian file: {name: (addr, offset, size,
    type)}; SHT_NOBITS (.bss) occupies no file bytes."""

    SHT_NOBITS = 8

    def __init__(self, path):
        with open(path, "rb") as f:
            self.data = f.read()
        d = self.data
        if d[:4] != b"\x7fELF" or d[4] != 2 or d[5] != 1:
            raise ValueError(path + " is not an ELF64 little-endian file")
        shoff, = struct.unpack_from("<Q", d, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3A)
        headers = [struct.unpack_from("<IIQQQQ", d, shoff + i * shentsize)
                   for i in range(shnum)]
        strtab_off = headers[shstrndx][4]
        self.sections = {}
        for name_off, sh_type, _flags, addr, offset, size in headers:
            end = d.index(b"\0", strtab_off + name_off)
            name = d[strtab_off + name_off:end].decode()
            self.sections[name] = (addr, offset, size, sh_type)

    def size(self, name):
        """Bytes of section name (0 if absent)."""
        return self.sections.get(name, (0, 0, 0, 0))[2]

    def read_u64(self, vaddr):
        """The 8-byte word at virtual address vaddr, or None if no file-backed section
        holds it."""
        for addr, offset, size, sh_type in self.sections.values():
            if sh_type != self.SHT_NOBITS and addr and addr <= vaddr and vaddr + 8 <= addr + size:
                return struct.unpack_from("<Q", self.data, offset + vaddr - addr)[0]
        return None


def needed_libraries(path):
    """Number of DT_NEEDED entries: shared libraries the loader maps (0 when static)."""
    return sum(1 for line in _tool("readelf", "-d", path).splitlines() if "(NEEDED)" in line)


def undefined_symbols(path):
    """Undefined symbols in the static and the dynamic symbol table (nm -u, nm -D -u)."""
    count = 0
    for flags in (["-u"], ["-D", "-u"]):
        out = subprocess.run(["nm"] + flags + [path], capture_output=True, text=True).stdout
        count += sum(1 for line in out.splitlines() if line.split()[:1] == ["U"]
                     or (len(line.split()) == 2 and line.split()[0] in ("U", "w", "v")))
    return count


# ---- disassembly ----------------------------------------------------------------------

class Insn:
    __slots__ = ("addr", "mnemonic", "operand", "func")

    def __init__(self, addr, mnemonic, operand, func):
        self.addr = addr
        self.mnemonic = mnemonic  # prefixes (addr32, bnd, rep ...) stripped
        self.operand = operand
        self.func = func          # name of the enclosing symbol


def disassemble(path, arch="x86_64"):
    """objdump -d of path as a list of Insn in address order, and the functions as
    {name: (start, end)} (end: the address after its last instruction)."""
    return parse_objdump(_tool(OBJDUMP[arch], "-d", "--no-show-raw-insn", "-w", path), arch)


def parse_objdump(text, arch="x86_64"):
    """The text of `objdump -d --no-show-raw-insn -w` -> (list of Insn in address order,
    {function name: (start, end)}). aarch64 operands lose objdump's `// #242` comments;
    literal data (.word, .inst) is dropped."""
    insns = []
    func = None
    for line in text.splitlines():
        m = _FUNC.match(line)
        if m:
            func = m.group(2)
            continue
        m = _INSN.match(line)
        if not m:
            continue
        line_text = m.group(2)
        if arch == "aarch64":
            line_text = line_text.split("//")[0]
        words = line_text.split()
        if words and words[0] in (".word", ".inst", ".short", ".byte"):
            continue
        while words and words[0] in _PREFIXES:
            words = words[1:]
        if not words:
            continue
        insns.append(Insn(int(m.group(1), 16), words[0], " ".join(words[1:]), func))
    funcs = {}
    for i, insn in enumerate(insns):
        end = insns[i + 1].addr if i + 1 < len(insns) else insn.addr + 1
        start, _ = funcs.get(insn.func, (insn.addr, end))
        funcs[insn.func] = (start, end)
    return insns, funcs


def is_padding(insn):
    return "nop" in insn.mnemonic or insn.mnemonic in ("int3", "udf")


def instruction_count(insns):
    """Instructions that are not padding nops."""
    return sum(1 for insn in insns if not is_padding(insn))


def _direct_target(operand):
    m = _TARGET.match(operand)
    return int(m.group(1), 16) if m else None


def _jump_table(elf, operand, func_range):
    """Targets of `jmp *TABLE(,%reg,8)`: entries read while they point into the function."""
    m = _TABLE.match(operand)
    if not m:
        return []
    base = int(m.group(1), 16)
    targets = []
    for k in range(1024):
        entry = elf.read_u64(base + 8 * k)
        if entry is None or not func_range[0] <= entry < func_range[1]:
            break
        targets.append(entry)
    return targets


COMPLETION_ROOTS = ("conn_open", "conn_event")


def _a64_successors(insn, insns, funcs):
    """(targets, falls through) of one aarch64 instruction."""
    op = insn.mnemonic
    base = op.split(".")[0]  # b.ne -> b
    targets = []
    if op == "br":
        start, end = funcs[insn.func]
        targets = [a.addr for a in insns if start <= a.addr < end]
    elif base in _A64_BRANCHES or op.startswith("b."):
        m = _A64_TARGET.search(insn.operand)
        if m:
            targets = [int(m.group(1), 16)]
    # blr (the vDSO clock) leaves the binary: fall through only
    return targets, op not in _A64_NO_FALL


def request_path(path, arch="x86_64"):
    """Walks control flow from the accept4 sites (see the module comment). Returns
    (instructions reached, excluding padding; sorted names of the functions touched)."""
    insns, funcs = disassemble(path, arch)
    return walk_request_path(insns, funcs, Elf(path), path, arch)


def walk_request_path(insns, funcs, elf, what="the binary", arch="x86_64"):
    """request_path's walk over parse_objdump's result; elf (an Elf, or anything with
    read_u64) resolves jump tables (x86_64 only)."""
    index = {insn.addr: i for i, insn in enumerate(insns)}
    if arch == "aarch64":
        accept_load = re.compile(r"^[wx]8, #0x%x$" % ACCEPT4_NR[arch])
    else:
        accept_load = re.compile(r"^\$0x%x,%%\w+$" % ACCEPT4_NR[arch])
    roots = [i for i, insn in enumerate(insns)
             if insn.mnemonic.startswith("mov") and accept_load.match(insn.operand)]
    if not roots:
        # A completion backend (the uring tier) has no accept4: connections and requests
        # enter the connection code at conn_open and conn_event, called by the loop.
        roots = [i for i, insn in enumerate(insns)
                 if insn.func in COMPLETION_ROOTS and funcs[insn.func][0] == insn.addr]
    if not roots:
        raise RuntimeError("no accept4 site (%d) in %s" % (ACCEPT4_NR[arch], what))
    seen = set()
    work = list(roots)
    while work:
        i = work.pop()
        if i in seen:
            continue
        seen.add(i)
        insn = insns[i]
        op = insn.mnemonic
        targets = []
        falls_through = op not in _STOPS and op not in ("jmp", "jmpq")
        if arch == "aarch64":
            targets, a64_falls = _a64_successors(insn, insns, funcs)
            falls_through = falls_through and a64_falls
        elif op.startswith("j") or op in ("call", "callq"):
            if insn.operand.startswith("*"):
                if op in ("jmp", "jmpq"):
                    start, end = funcs[insn.func]
                    targets = (_jump_table(elf, insn.operand, (start, end))
                               or [a.addr for a in insns if start <= a.addr < end])
                # an indirect call leaves the binary (vDSO): fall through only
            else:
                target = _direct_target(insn.operand)
                if target is not None:
                    targets = [target]
        for target in targets:
            if target in index:
                work.append(index[target])
        if falls_through and i + 1 < len(insns):
            work.append(i + 1)
    reached = [insns[i] for i in seen]
    return (sum(1 for insn in reached if not is_padding(insn)),
            sorted({insn.func for insn in reached}))


# ---- sources and objects --------------------------------------------------------------

def depfile_sources(depfile):
    """The project files a compiler .d file names (the object it describes, compiler and
    system headers left out): paths relative to the workspace."""
    with open(depfile) as f:
        words = f.read().replace("\\\n", " ").split()
    return [w for w in words[1:]
            if not w.endswith(":") and not os.path.isabs(w)
            and not w.startswith(("external/", "bazel-out/"))]


def source_totals(depfiles, root):
    """(bytes, lines, files) over the union of the project files the depfiles name."""
    files = sorted({p for d in depfiles for p in depfile_sources(d)})
    total_bytes = total_lines = 0
    for rel in files:
        with open(os.path.join(root, rel), "rb") as f:
            data = f.read()
        total_bytes += len(data)
        total_lines += data.count(b"\n")
    return total_bytes, total_lines, files


def _global_symbols(path, defined_only):
    """The names of the global (or, for an ELF, every) symbols nm lists for path."""
    argv = ["nm", "--defined-only", "-g", path] if defined_only else ["nm", path]
    return {line.split()[-1] for line in _tool(*argv).splitlines() if line.strip()}


def linked_objects(tier):
    """The (object, depfile) pairs that are part of the tier's binary. The layers come as
    static archives (bazel/layers.bzl), and the linker takes a member only when something
    refers to it: a member counts when one of its global symbols is in the binary."""
    in_binary = _global_symbols(tier["binary"], defined_only=False)
    depfile_of = {os.path.splitext(d)[0]: d for d in tier["depfiles"]}
    pairs = []
    for obj in tier["objects"]:
        if _global_symbols(obj, defined_only=True) & in_binary:
            pairs.append((obj, depfile_of.get(os.path.splitext(obj)[0])))
    return pairs


def tier_facts(tier, root, arch="x86_64"):
    """Every static row for one tier (a tier_manifest entry)."""
    pairs = linked_objects(tier)
    depfiles = [d for _, d in pairs if d]
    src_bytes, src_lines, files = source_totals(depfiles, root)
    facts = {"source_bytes": src_bytes, "source_lines": src_lines, "source_files": files,
             "object_bytes": sum(os.path.getsize(o) for o, _ in pairs)}
    facts.update(binary_facts(tier["binary"], arch))
    path_insns, path_funcs = request_path(tier["binary"], arch)
    facts["request_path_instructions"] = path_insns
    facts["request_path_functions"] = path_funcs
    return facts


def binary_facts(path, arch="x86_64"):
    """The rows any ELF has (also the nginx binary): sizes, libraries, symbols, code."""
    elf = Elf(path)
    facts = {"elf_bytes": os.path.getsize(path)}
    for name in SECTIONS:
        facts[name.lstrip(".") + "_bytes"] = elf.size(name)
    facts["shared_libraries"] = needed_libraries(path)
    facts["undefined_symbols"] = undefined_symbols(path)
    facts["instructions_total"] = instruction_count(disassemble(path, arch)[0])
    return facts
