"""The tiers the comparison measures: the one list. Adding a tier is one line here."""

# name: the column heading; binary: the tier's daemon cc_binary.
TIERS = [
    {"name": "full", "binary": "//variants/full:apollod"},
    {"name": "min", "binary": "//variants/min:apollod-min"},
    {"name": "nodeadline", "binary": "//variants/nodeadline:apollod"},
    {"name": "asm-hotpath", "binary": "//variants/asm-hotpath:apollod"},
]
