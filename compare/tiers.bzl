"""The tiers the comparison measures: //bazel:tiers.bzl's one list, seen as (name, binary
label, files) entries. Adding a tier there adds its column here."""

load("//bazel:tiers.bzl", ALL_TIERS = "TIERS", "tier_label")

# name: the column heading; binary: the tier's daemon cc_binary; files: it serves a tree
# with --root DIR (the file scenarios leave the tiers without it out: "—").
TIERS = [
    {"name": t["name"], "binary": tier_label(t), "files": "files" in t["features"]}
    for t in ALL_TIERS
]
