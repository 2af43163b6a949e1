"""The container image (packaging/Containerfile, built by packaging/build_image.sh) built
and run with podman: it holds the daemon and the stand-in site and nothing else, runs as
a non-root user, serves, logs to standard output, and drains on `podman stop` (SIGTERM to
the container's pid 1). Without podman, or where podman cannot start a container (no
privilege for namespaces, a cgroup layout its runtime refuses), the checks that need it
skip with podman's own words; every podman call is bounded in time.

Usage: image_test.py BUILD_IMAGE_SH DAEMON CONTAINERFILE SITE_INDEX
"""

import hashlib
import http.client
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tarfile
import time
import unittest

from containerfile import LISTENING, command, flag_value, health_once_up

BUILD_IMAGE, DAEMON, CONTAINERFILE, SITE_INDEX = sys.argv[1:5]
del sys.argv[1:5]

# Bounds, so a podman that hangs (a stuck storage lock, say) fails or skips, never waits on.
PODMAN_SECONDS = 60  # one podman command (a build, a run, a stop): a few seconds here
LISTEN_SECONDS = 30  # the container's "listening" line, after `podman run` returned
STOP_SECONDS = 20  # `podman stop -t`: SIGTERM, then SIGKILL after this long
RELOAD_WATCH_SECONDS = 3  # after a reload, the container must go on serving this long

# e_machine (ELF header offset 18, little-endian) to the image platform's architecture.
ELF_ARCH = {b"\x3e\x00": "amd64", b"\xb7\x00": "arm64"}
HOST_ARCH = {"x86_64": "amd64", "aarch64": "arm64"}


def podman(*args, timeout=PODMAN_SECONDS, check=True, runtime=None):
    """Runs podman with ARGS (through --runtime RUNTIME if given); returns the completed
    process (text). check: raise AssertionError, with podman's stderr, on a non-zero exit."""
    cmd = ["podman"] + (["--runtime", runtime] if runtime else []) + list(args)
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if check and done.returncode != 0:
        raise AssertionError("%s: exit %d: %s" % (" ".join(cmd), done.returncode, done.stderr.strip()))
    return done


def get(port, path):
    """GET PATH from 127.0.0.1:PORT; returns (status, content type, body)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path)
        resp = conn.getresponse()
        return resp.status, resp.getheader("Content-Type"), resp.read()
    finally:
        conn.close()


class ImageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if shutil.which("podman") is None:
            raise unittest.SkipTest("podman is not installed (scripts/bootstrap.sh installs it)")
        try:
            info = podman("info", check=False)
        except subprocess.TimeoutExpired:
            raise unittest.SkipTest("`podman info` did not answer within %d s" % PODMAN_SECONDS)
        if info.returncode != 0:
            raise unittest.SkipTest("podman cannot work here: `podman info`: " + info.stderr.strip())
        with open(DAEMON, "rb") as f:
            cls.daemon = f.read()
        cls.arch = ELF_ARCH[cls.daemon[18:20]]
        emulator = os.environ.get("APOLLOD_EMULATOR", "")
        cls.version_line = subprocess.run(
            emulator.split() + [DAEMON, "--version"], capture_output=True, text=True, timeout=60, check=True
        ).stdout.strip()
        cls.repo = "localhost/apollod-image-test-%d" % os.getpid()
        try:
            built = subprocess.run(
                [BUILD_IMAGE, DAEMON, cls.repo], capture_output=True, text=True, timeout=PODMAN_SECONDS
            )
        except subprocess.TimeoutExpired:
            raise unittest.SkipTest("build_image.sh did not finish within %d s (podman stuck?)" % PODMAN_SECONDS)
        if built.returncode != 0:
            raise AssertionError("build_image.sh failed: " + built.stderr)
        cls.image = built.stdout.strip().splitlines()[-1]
        cls.containers = []

    @classmethod
    def tearDownClass(cls):
        for name in cls.containers:
            podman("rm", "--force", name, check=False)
        podman("rmi", "--force", cls.image, check=False)

    def inspect(self, fmt):
        return podman("image", "inspect", "--format", fmt, self.image).stdout.strip()

    def test_config_names_user_port_command_and_version(self):
        """The image's configuration: a numeric non-root user, the Containerfile's command,
        port 8080 exposed and listened on, the version and tier of the binary it holds."""
        user = self.inspect("{{.Config.User}}")
        self.assertRegex(user, r"^[0-9]+:[0-9]+$")
        self.assertNotEqual(user.split(":")[0], "0")
        self.assertEqual(json.loads(self.inspect("{{json .Config.Entrypoint}}")), ["/apollod"])
        cmd = json.loads(self.inspect("{{json .Config.Cmd}}"))
        self.assertEqual(cmd, command(CONTAINERFILE))
        port = flag_value(cmd, "--listen").rsplit(":", 1)[1]
        self.assertIn(port + "/tcp", json.loads(self.inspect("{{json .Config.ExposedPorts}}")))
        self.assertEqual(self.inspect("{{.Architecture}}"), self.arch)
        labels = json.loads(self.inspect("{{json .Config.Labels}}"))
        _, version, tier = re.fullmatch(r"(\S+) (\S+) \(tier (\S+)\)", self.version_line).groups()
        self.assertEqual(labels["org.opencontainers.image.title"], "apollod")
        self.assertEqual(labels["org.opencontainers.image.version"], version)
        self.assertIn("tier %s" % tier, labels["org.opencontainers.image.description"])
        self.assertEqual(self.image, "%s:%s" % (self.repo, version))

    def test_holds_the_daemon_and_site_only(self):
        """FROM scratch: the image's file system is exactly /apollod (the built binary,
        byte for byte) and /srv/index.html, owned by root and writable by no one else."""
        name = "apollod-image-test-export-%d" % os.getpid()
        self.containers.append(name)
        podman("create", "--name", name, self.image)
        exported = subprocess.run(["podman", "export", name], capture_output=True, timeout=PODMAN_SECONDS, check=True)
        path = os.path.join(os.environ.get("TEST_TMPDIR", "/tmp"), "rootfs.tar")
        with open(path, "wb") as f:
            f.write(exported.stdout)
        with tarfile.open(path) as tar:
            members = {m.name.rstrip("/"): m for m in tar.getmembers()}
            self.assertEqual(sorted(members), ["apollod", "srv", "srv/index.html"])
            self.assertEqual(tar.extractfile("apollod").read(), self.daemon)
            with open(SITE_INDEX, "rb") as f:
                self.assertEqual(tar.extractfile("srv/index.html").read(), f.read())
        for m in members.values():  # the serving user may read them, never change them
            self.assertEqual((m.uid, m.gid), (0, 0), m.name)
            self.assertEqual(m.mode & 0o022, 0, m.name + " is writable by group or others")
        self.assertEqual(members["apollod"].mode & 0o777, 0o555)
        size = int(self.inspect("{{.Size}}"))
        print("image %s: %d bytes (podman image inspect --format '{{.Size}}'), daemon %d bytes, sha256 %s"
              % (self.image, size, len(self.daemon), hashlib.sha256(self.daemon).hexdigest()[:16]))

    def start(self, args):
        """Starts the image with ARGS as its command, on the host's network (loopback only:
        ARGS' --listen says 127.0.0.1), through the first OCI runtime that can; skips with
        every runtime's error when none can. Returns the container's name."""
        # podman asks the runtime for higher descriptor and process limits than the caller's
        # own; without CAP_SYS_RESOURCE (a sandboxed root) that is refused, so ask for what
        # the daemon needs (its 4096-slot table) within the caller's hard limit.
        nofile = min(4096, resource.getrlimit(resource.RLIMIT_NOFILE)[1])
        nproc = min(1024, resource.getrlimit(resource.RLIMIT_NPROC)[0])
        run = ["--ulimit", "nofile=%d:%d" % (nofile, nofile), "--ulimit", "nproc=%d:%d" % (nproc, nproc)]
        if self.arch != HOST_ARCH.get(os.uname().machine):
            # A binary for another architecture (--config=aarch64): the emulator the tests
            # run it under (bazel/aarch64/qemu_run.sh), mounted in as the entrypoint.
            words = os.environ.get("APOLLOD_EMULATOR", "").split()
            if not words:
                self.skipTest("the image is for %s, this host is %s, and no APOLLOD_EMULATOR is set"
                              % (self.arch, os.uname().machine))
            if "-L" in words:
                del words[words.index("-L"):words.index("-L") + 2]  # host paths: not in the image
            run += ["--volume", "%s:%s:ro" % (words[0], words[0]), "--entrypoint", json.dumps(words + ["/apollod"])]
        errors = []
        # The default runtime first; runc as well, which takes the hybrid cgroup v1/v2
        # layout that crun 1.8 refuses ("cgroups in hybrid mode not supported").
        for runtime in [None] + (["runc"] if shutil.which("runc") else []):
            name = "apollod-image-test-%d-%d" % (os.getpid(), len(self.containers))
            self.containers.append(name)
            try:
                done = podman("run", "--detach", "--name", name, "--network", "host", *run, self.image, *args,
                              check=False, runtime=runtime)
            except subprocess.TimeoutExpired:
                errors.append("%s: `podman run` did not return within %d s" % (runtime or "default runtime", PODMAN_SECONDS))
                continue
            if done.returncode == 0:
                self.runtime = runtime
                return name
            errors.append("%s: %s" % (runtime or "default runtime", done.stderr.strip()))
        self.skipTest("podman cannot start a container here: " + " | ".join(errors))

    def logs(self, name):
        """What the container wrote so far, its standard output then its standard error."""
        done = podman("logs", name, runtime=self.runtime)
        return done.stdout + done.stderr

    def serve(self):
        """Starts the Containerfile's command with its --listen moved to a free loopback
        port of the host's network, and waits for its listening line; returns the
        container's name and the port."""
        args = command(CONTAINERFILE)
        args[args.index("--listen") + 1] = "127.0.0.1:0"
        name = self.start(args)
        deadline = time.monotonic() + LISTEN_SECONDS
        while True:
            listening = LISTENING.search(self.logs(name))
            if listening:
                return name, int(listening.group(1))
            self.assertEqual(self.state(name), "running", "the container stopped before listening: " + self.logs(name))
            self.assertLess(time.monotonic(), deadline, "no listening line within %d s" % LISTEN_SECONDS)
            time.sleep(0.1)

    def state(self, name):
        return podman("inspect", "--format", "{{.State.Status}}", name, runtime=self.runtime).stdout.strip()

    def host_pid(self, name):
        """The host's pid of the container's pid 1."""
        return podman("inspect", "--format", "{{.State.Pid}}", name, runtime=self.runtime).stdout.strip()

    def children(self, name):
        """The host's pids of the container's pid 1's children: its generations."""
        pid = self.host_pid(name)
        kids = []
        for task in os.listdir("/proc/%s/task" % pid):
            with open("/proc/%s/task/%s/children" % (pid, task)) as f:
                kids += f.read().split()
        return kids

    def stop(self, name):
        """`podman stop` (SIGTERM, then SIGKILL after STOP_SECONDS): the container must end
        with exit 0 after the drain, long before the SIGKILL. Returns the seconds taken."""
        began = time.monotonic()
        podman("stop", "--time", str(STOP_SECONDS), name, runtime=self.runtime, timeout=STOP_SECONDS + PODMAN_SECONDS)
        took = time.monotonic() - began
        code = podman("inspect", "--format", "{{.State.ExitCode}}", name, runtime=self.runtime).stdout.strip()
        self.assertEqual(code, "0", "exit code after podman stop (137 is SIGKILL): " + self.logs(name))
        self.assertIn("apollod: stopped: every response finished", self.logs(name))
        self.assertLess(took, STOP_SECONDS, "stop waited for SIGKILL")
        return took

    def test_serves_logs_and_drains_as_a_container(self):
        """The Containerfile's command (its --listen moved to a free loopback port of the
        host's network): the site, /health and the Prometheus exposition are served by a
        process of the image's user, each request is a line in `podman logs`, and `podman
        stop` (SIGTERM to pid 1) ends it with exit 0 after the drain, long before SIGKILL."""
        name, port = self.serve()
        self.assertEqual(health_once_up(port, LISTEN_SECONDS), (200, b"ok"))
        status, ctype, body = get(port, "/")
        with open(SITE_INDEX, "rb") as f:
            self.assertEqual((status, ctype, body), (200, "text/html; charset=utf-8", f.read()))
        status, _, body = get(port, "/metrics?format=prometheus")
        self.assertEqual(status, 200)
        self.assertRegex(body.decode(), r'apollod_requests_total\{method="GET"\} 3\b')

        with open("/proc/%s/status" % self.host_pid(name)) as f:
            ids = dict(line.split(":", 1) for line in f.read().splitlines() if line.startswith(("Uid", "Gid")))
        user = self.inspect("{{.Config.User}}")
        self.assertEqual(ids["Uid"].split(), [user.split(":")[0]] * 4)
        self.assertEqual(ids["Gid"].split(), [user.split(":")[1]] * 4)

        # The access log's lines reach standard output, where podman keeps them.
        self.assertIn('"GET /health HTTP/1.1" 200 2 ', self.logs(name))

        took = self.stop(name)
        print("podman%s: served, logged and stopped in %.2f s with exit 0"
              % (" --runtime " + self.runtime if self.runtime else "", took))

    def test_reload_keeps_the_container_serving(self):
        """`podman kill --signal HUP` (SIGHUP to pid 1) reloads: `reloads` reaches 1, and the
        container keeps running and answering, with the same pid 1, for RELOAD_WATCH_SECONDS
        after, longer than the old image's drain of an idle daemon takes."""
        if self.arch != HOST_ARCH.get(os.uname().machine):
            self.skipTest("under an emulator the new image would be the emulator (as in test/wire/reload_test.cc)")
        name, port = self.serve()
        pid = self.host_pid(name)
        podman("kill", "--signal", "HUP", name, runtime=self.runtime)
        deadline = time.monotonic() + LISTEN_SECONDS
        while not re.search(rb"^apollod_reloads_total 1$", self.scrape(port), re.M):
            self.assertEqual(self.state(name), "running", self.logs(name))
            self.assertLess(time.monotonic(), deadline,
                            "no reload counted within %d s: %s" % (LISTEN_SECONDS, self.logs(name)))
            time.sleep(0.1)
        # The old generation accepts until its retire signal, and a check on a connection
        # it accepted just before its drain began gets 503 draining (docs/BEHAVIOUR.md
        # 11): the watch begins once it has gone, pid 1's one child the new one.
        while len(self.children(name)) != 1:
            self.assertLess(time.monotonic(), deadline, "the old generation stays: " + self.logs(name))
            time.sleep(0.1)
        watch_until = time.monotonic() + RELOAD_WATCH_SECONDS
        while time.monotonic() < watch_until:
            self.assertEqual(self.state(name), "running", self.logs(name))
            self.assertEqual(get(port, "/health")[0::2], (200, b"ok"))
            time.sleep(0.2)
        self.assertEqual(self.host_pid(name), pid)
        self.stop(name)

    def scrape(self, port):
        """The Prometheus exposition, or b"" while nothing answers at PORT."""
        try:
            return get(port, "/metrics?format=prometheus")[2]
        except OSError:
            return b""


if __name__ == "__main__":
    unittest.main(verbosity=2)
