"""The tiers the comparison measures: //bazel:tiers.bzl's one list, seen as (name, binary
label) pairs. Adding a tier there adds its column here."""

load("//bazel:tiers.bzl", ALL_TIERS = "TIERS", "tier_label")

# name: the column heading; binary: the tier's daemon cc_binary.
TIERS = [{"name": t["name"], "binary": tier_label(t)} for t in ALL_TIERS]
