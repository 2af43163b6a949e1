"""tier_inputs(): everything the comparison reads about each tier, taken from Bazel itself.

For each tier binary it collects, through an aspect, the compile actions' outputs (the
object files and the compiler's .d dependency files, which name every source and header
that was really compiled) and the source files, and writes a JSON manifest that the
driver reads from its runfiles. The binaries are built with -c opt whatever the command
line says (a transition), so the table always measures optimised code, and for the CPU
the rule's `arch` names (x86_64, or aarch64 with bazel/aarch64's toolchain), whatever
--config says."""

TierFilesInfo = provider(
    doc = "Files a tier's compile actions produced and read.",
    fields = {
        "objects": "depset of object files (.o)",
        "depfiles": "depset of compiler dependency files (.d)",
        "sources": "depset of source and header files",
    },
)

def _tier_files_aspect_impl(target, ctx):
    # The objects in the binary: the link action's own object inputs, and for each layer
    # library (common/*/BUILD) its static archive's members. Bazel also declares PIC twins
    # (.pic.o, .pic.a) it never builds for a static link; each object's compile action
    # wrote a .d file.
    linked = {}
    for action in target.actions:
        if action.mnemonic not in ("CppArchive", "CppLink"):
            continue
        for f in action.inputs.to_list():
            if f.extension == "o" and not f.basename.endswith(".pic.o"):
                linked[f.path] = True
    objects = []
    depfiles = []
    for action in target.actions:
        if action.mnemonic != "CppCompile":
            continue
        outputs = action.outputs.to_list()
        if not [f for f in outputs if f.path in linked]:
            continue
        for f in outputs:
            if f.extension == "o":
                objects.append(f)
            elif f.extension == "d":
                depfiles.append(f)
    sources = []
    for attr in ("srcs", "hdrs", "textual_hdrs"):
        sources += getattr(ctx.rule.files, attr, [])
    transitive = [dep[TierFilesInfo] for dep in getattr(ctx.rule.attr, "deps", []) if TierFilesInfo in dep]
    return [TierFilesInfo(
        objects = depset(objects, transitive = [t.objects for t in transitive]),
        depfiles = depset(depfiles, transitive = [t.depfiles for t in transitive]),
        sources = depset(sources, transitive = [t.sources for t in transitive]),
    )]

tier_files_aspect = aspect(
    implementation = _tier_files_aspect_impl,
    attr_aspects = ["deps"],
)

# The --cpu and --crosstool_top that build for each arch (.bazelrc's --config=aarch64).
_ARCH_SETTINGS = {
    "x86_64": {"cpu": "k8", "crosstool_top": "@bazel_tools//tools/cpp:toolchain"},
    "aarch64": {"cpu": "aarch64", "crosstool_top": "//bazel/aarch64:toolchain"},
}

def _force_opt_impl(settings, attr):
    arch = _ARCH_SETTINGS[attr.arch]
    return {
        "//command_line_option:compilation_mode": "opt",
        "//command_line_option:cpu": arch["cpu"],
        "//command_line_option:crosstool_top": arch["crosstool_top"],
    }

force_opt = transition(
    implementation = _force_opt_impl,
    inputs = [],
    outputs = [
        "//command_line_option:compilation_mode",
        "//command_line_option:cpu",
        "//command_line_option:crosstool_top",
    ],
)

def _tier_inputs_impl(ctx):
    by_name = {}
    files = []
    for target, name in ctx.attr.binaries.items():
        info = target[TierFilesInfo]
        binary = target[DefaultInfo].files_to_run.executable
        objects = info.objects.to_list()
        depfiles = info.depfiles.to_list()
        if ctx.attr.arch != "x86_64":
            # Runfiles paths carry no configuration: an aarch64 binary or object would
            # land on the x86_64 one's path in any runfiles tree holding both manifests
            # (//compare:table). So the binary gets a path of its own under this
            # target's name, and objects and .d files (read for x86_64 rows only) stay out.
            link = ctx.actions.declare_file("%s/%s/%s" % (ctx.label.name, name, binary.basename))
            ctx.actions.symlink(output = link, target_file = binary)
            binary = link
            objects = []
            depfiles = []
        by_name[name] = struct(
            name = name,
            binary = binary.short_path,
            objects = [f.short_path for f in objects],
            depfiles = [f.short_path for f in depfiles],
            sources = [f.short_path for f in info.sources.to_list()],
            files = name in ctx.attr.serve_files,
        )
        files += [binary] + objects + depfiles + info.sources.to_list()
    tiers = [by_name[name] for name in ctx.attr.order]
    manifest = ctx.actions.declare_file(ctx.label.name + ".json")
    ctx.actions.write(manifest, struct(tiers = tiers).to_json())
    return [DefaultInfo(
        files = depset([manifest]),
        runfiles = ctx.runfiles(files = [manifest] + files),
    )]

tier_inputs = rule(
    implementation = _tier_inputs_impl,
    doc = "Writes <name>.json: per tier, its binary, objects, depfiles and sources (runfiles paths), and whether it serves files.",
    attrs = {
        "binaries": attr.label_keyed_string_dict(
            doc = "tier binary -> tier name",
            cfg = force_opt,
            aspects = [tier_files_aspect],
        ),
        "order": attr.string_list(doc = "tier names in column order"),
        "serve_files": attr.string_list(doc = "tier names that serve a tree with --root DIR"),
        "arch": attr.string(
            doc = "the CPU the binaries are built for",
            default = "x86_64",
            values = ["x86_64", "aarch64"],
        ),
        "_allowlist_function_transition": attr.label(
            default = "@bazel_tools//tools/allowlists/function_transition_allowlist",
        ),
    },
)
