"""wire_test: a tier's over-the-wire suite, the test harness built for the machine that
runs the tests and the daemon for the configuration asked for.

The harness is a client: it connects, sends bytes and reads what comes back. Only the
daemon's architecture is under test, so the harness is built in the exec configuration
(x86_64 on these machines) by both halves of the README's test command: under
--config=aarch64 it runs natively and only the daemon runs under qemu (the harness puts
APOLLOD_EMULATOR before it, bazel/aarch64/qemu_run.sh), and the aarch64 half compiles none
of the suite again (docs/BUILDING.md, "How long it takes")."""

def _shell_quote(word):
    return "'" + word.replace("'", "'\\''") + "'"

def _wire_test_impl(ctx):
    harness = ctx.executable.harness
    daemon = ctx.file.daemon
    launcher = ctx.actions.declare_file(ctx.label.name + ".sh")

    # Bazel runs a test from its runfiles' workspace folder, where every short_path is.
    words = [harness.short_path, daemon.short_path] + ctx.attr.harness_args
    ctx.actions.write(
        output = launcher,
        content = "#!/bin/sh\nexec %s \"$@\"\n" % " ".join([_shell_quote(w) for w in words]),
        is_executable = True,
    )
    runfiles = ctx.runfiles(files = [harness, daemon] + ctx.files.data)
    runfiles = runfiles.merge(ctx.attr.harness[DefaultInfo].default_runfiles)
    return [DefaultInfo(executable = launcher, runfiles = runfiles)]

wire_test = rule(
    implementation = _wire_test_impl,
    test = True,
    attrs = {
        "harness": attr.label(
            doc = "The suite's cc_binary, built for the machine that runs the tests.",
            executable = True,
            cfg = "exec",
            mandatory = True,
        ),
        "daemon": attr.label(
            doc = "The tier's daemon, built for the configuration under test.",
            allow_single_file = True,
            mandatory = True,
        ),
        "harness_args": attr.string_list(
            doc = "Words after the daemon's path: the tier's --features (and a gtest filter).",
        ),
        "data": attr.label_list(
            doc = "Files and host programs the suite reads or runs (the corpus, seccomp_refuse).",
            allow_files = True,
            cfg = "exec",
        ),
    },
)
