"""The tiers the comparison measures: the one list. Adding a tier is one line here."""

# name: the column heading; binary: the tier's daemon cc_binary; files: it serves a tree
# with --root DIR (the file scenarios leave the tiers without it out: "—").
TIERS = [
    {"name": "full", "binary": "//variants/full:apollod", "files": True},
    {"name": "min", "binary": "//variants/min:apollod-min", "files": False},
    {"name": "nodeadline", "binary": "//variants/nodeadline:apollod", "files": True},
    {"name": "asm-hotpath", "binary": "//variants/asm-hotpath:apollod", "files": True},
]
