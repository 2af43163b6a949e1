"""packaging/kubernetes/ checked offline, with no cluster:
- its YAML against the Kubernetes API's field names and types for the part of the API it
  uses (a misspelt field, which a cluster would reject or silently drop, fails here);
- what the project needs of it: probes on /health at the port the daemon listens on, a
  termination grace longer than preStop plus --drain-timeout, the Prometheus scrape
  annotations, the image this tree builds (the Containerfile's title, the binary's
  version) run as the Containerfile's user with a locked-down securityContext, a Service
  that selects the pods;
- its args start the built daemon (--root and --listen moved to the stand-in site and a
  free loopback port), which then answers the probe and the scrape and drains on SIGTERM;
- `kubectl kustomize` builds it to the same objects (skipped, saying why, without kubectl).

Usage: kubernetes_test.py MANIFEST KUSTOMIZATION CONTAINERFILE DAEMON SITE_INDEX
"""

import http.client
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import yaml

from containerfile import LISTENING, flag_value, health_once_up, instruction

MANIFEST, KUSTOMIZATION, CONTAINERFILE, DAEMON, SITE_INDEX = sys.argv[1:6]
del sys.argv[1:6]

LISTEN_SECONDS = 30  # the daemon's "listening" line (under qemu-user on --config=aarch64)
TOOL_SECONDS = 60  # one kubectl command

# The Kubernetes API's fields for the objects and parts the example uses, each with its
# type: a dict is an object of those fields, a one-element list a list of that, and the
# leaves str, int, bool, INT_OR_STRING and STRING_MAP. Names and types as in the API
# reference (apps/v1 Deployment, core/v1 Service and PodSpec); a field the example starts
# to use must be added here after checking it there.
INT_OR_STRING = (int, str)
STRING_MAP = "map[string]string"
OBJECT_META = {"name": str, "namespace": str, "labels": STRING_MAP, "annotations": STRING_MAP}
LABEL_SELECTOR = {"matchLabels": STRING_MAP}
HTTP_GET = {"path": str, "port": INT_OR_STRING, "scheme": str, "host": str}
PROBE = {
    "httpGet": HTTP_GET,
    "initialDelaySeconds": int,
    "periodSeconds": int,
    "timeoutSeconds": int,
    "successThreshold": int,
    "failureThreshold": int,
    "terminationGracePeriodSeconds": int,
}
LIFECYCLE_HANDLER = {"httpGet": HTTP_GET, "sleep": {"seconds": int}}
RESOURCE_LIST = {"cpu": str, "memory": str, "ephemeral-storage": str}
CONTAINER = {
    "name": str,
    "image": str,
    "imagePullPolicy": str,
    "command": [str],
    "args": [str],
    "ports": [{"name": str, "containerPort": int, "protocol": str}],
    "startupProbe": PROBE,
    "readinessProbe": PROBE,
    "livenessProbe": PROBE,
    "lifecycle": {"preStop": LIFECYCLE_HANDLER, "postStart": LIFECYCLE_HANDLER},
    "resources": {"requests": RESOURCE_LIST, "limits": RESOURCE_LIST},
    "securityContext": {
        "readOnlyRootFilesystem": bool,
        "runAsNonRoot": bool,
        "runAsUser": int,
        "runAsGroup": int,
        "allowPrivilegeEscalation": bool,
        "privileged": bool,
        "capabilities": {"drop": [str], "add": [str]},
        "seccompProfile": {"type": str, "localhostProfile": str},
    },
}
POD_SPEC = {
    "containers": [CONTAINER],
    "terminationGracePeriodSeconds": int,
    "automountServiceAccountToken": bool,
    "enableServiceLinks": bool,
    "securityContext": {
        "runAsNonRoot": bool,
        "runAsUser": int,
        "runAsGroup": int,
        "fsGroup": int,
        "seccompProfile": {"type": str, "localhostProfile": str},
    },
}
DEPLOYMENT = {
    "apiVersion": str,
    "kind": str,
    "metadata": OBJECT_META,
    "spec": {
        "replicas": int,
        "selector": LABEL_SELECTOR,
        "strategy": {"type": str, "rollingUpdate": {"maxSurge": INT_OR_STRING, "maxUnavailable": INT_OR_STRING}},
        "template": {"metadata": OBJECT_META, "spec": POD_SPEC},
    },
}
SERVICE = {
    "apiVersion": str,
    "kind": str,
    "metadata": OBJECT_META,
    "spec": {
        "type": str,
        "selector": STRING_MAP,
        "ports": [{"name": str, "port": int, "targetPort": INT_OR_STRING, "protocol": str}],
    },
}
KINDS = {("apps/v1", "Deployment"): DEPLOYMENT, ("v1", "Service"): SERVICE}


def schema_errors(value, schema, where):
    """The ways VALUE breaks SCHEMA (see KINDS), each naming its path from WHERE."""
    if schema == STRING_MAP:
        if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
            return ["%s: a map of strings to strings (quote numbers and booleans)" % where]
        return []
    if isinstance(schema, dict):
        if not isinstance(value, dict):
            return ["%s: an object" % where]
        errors = []
        for key, item in value.items():
            if key not in schema:
                errors.append("%s.%s: not a field here" % (where, key))
            else:
                errors += schema_errors(item, schema[key], "%s.%s" % (where, key))
        return errors
    if isinstance(schema, list):
        if not isinstance(value, list):
            return ["%s: a list" % where]
        return [e for i, item in enumerate(value) for e in schema_errors(item, schema[0], "%s[%d]" % (where, i))]
    kinds = schema if isinstance(schema, tuple) else (schema,)
    if type(value) not in kinds:  # type(): a bool is no int here, as in the API
        return ["%s: %s, not %r" % (where, " or ".join(k.__name__ for k in kinds), value)]
    return []


def load(path):
    with open(path) as f:
        return [doc for doc in yaml.safe_load_all(f) if doc is not None]


class KubernetesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.docs = load(MANIFEST)
        kinds = [doc.get("kind") for doc in cls.docs]
        assert sorted(kinds) == ["Deployment", "Service"], kinds
        cls.deployment = cls.docs[kinds.index("Deployment")]
        cls.service = cls.docs[kinds.index("Service")]
        cls.pod = cls.deployment["spec"]["template"]
        (cls.container,) = cls.pod["spec"]["containers"]
        cls.args = cls.container["args"]
        cls.port = int(flag_value(cls.args, "--listen").rsplit(":", 1)[1])
        cls.emulator = os.environ.get("APOLLOD_EMULATOR", "").split()

    def test_fields_are_the_apis(self):
        for doc in self.docs:
            schema = KINDS.get((doc.get("apiVersion"), doc.get("kind")))
            self.assertIsNotNone(schema, "unexpected object %s %s" % (doc.get("apiVersion"), doc.get("kind")))
            self.assertEqual(schema_errors(doc, schema, doc["kind"]), [])

    def test_the_schema_check_refuses_a_misspelt_or_mistyped_field(self):
        """The check above can fail: a misspelt probe and a string grace period."""
        broken = yaml.safe_load(yaml.safe_dump(self.deployment))
        spec = broken["spec"]["template"]["spec"]
        spec["containers"][0]["readinesProbe"] = spec["containers"][0].pop("readinessProbe")
        spec["terminationGracePeriodSeconds"] = "30"
        errors = schema_errors(broken, DEPLOYMENT, "Deployment")
        self.assertEqual(len(errors), 2, errors)

    def test_probes_ask_for_health_at_the_listening_port(self):
        ports = {p["name"]: p["containerPort"] for p in self.container["ports"]}
        self.assertEqual(list(ports.values()), [self.port])
        for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
            get = self.container[probe]["httpGet"]
            self.assertEqual(get["path"], "/health", probe)
            self.assertEqual(ports.get(get["port"], get["port"]), self.port, probe)

    def test_grace_outlasts_prestop_and_drain(self):
        drain = int(flag_value(self.args, "--drain-timeout"))
        pre_stop = self.container.get("lifecycle", {}).get("preStop", {}).get("sleep", {}).get("seconds", 0)
        grace = self.pod["spec"]["terminationGracePeriodSeconds"]
        self.assertGreater(grace, pre_stop + drain, "SIGKILL would cut the drain short")

    def test_prometheus_scrapes_metrics_at_the_port(self):
        annotations = self.pod["metadata"]["annotations"]
        self.assertEqual(annotations["prometheus.io/scrape"], "true")
        self.assertEqual(annotations["prometheus.io/port"], str(self.port))
        self.assertEqual(annotations["prometheus.io/path"], "/metrics")

    def test_runs_the_image_this_tree_builds(self):
        """localhost/<the Containerfile's title>:<the built daemon's version>, as
        packaging/build_image.sh tags it, as the Containerfile's user."""
        title = re.search(r'org\.opencontainers\.image\.title="([^"]+)"', instruction(CONTAINERFILE, "LABEL")).group(1)
        line = subprocess.run(self.emulator + [DAEMON, "--version"], capture_output=True, text=True,
                              timeout=LISTEN_SECONDS, check=True).stdout
        version = line.split()[1]
        self.assertEqual(self.container["image"], "localhost/%s:%s" % (title, version))
        uid, gid = (int(n) for n in instruction(CONTAINERFILE, "USER").split(":"))
        pod_security = self.pod["spec"]["securityContext"]
        self.assertEqual((pod_security["runAsUser"], pod_security["runAsGroup"]), (uid, gid))
        self.assertEqual(self.container["imagePullPolicy"], "IfNotPresent")

    def test_container_is_locked_down(self):
        security = self.container["securityContext"]
        self.assertIs(security["readOnlyRootFilesystem"], True)
        self.assertIs(security["runAsNonRoot"], True)
        self.assertIs(security["allowPrivilegeEscalation"], False)
        self.assertEqual(security["capabilities"]["drop"], ["ALL"])
        self.assertNotIn("add", security["capabilities"])
        self.assertNotEqual(self.pod["spec"]["securityContext"]["runAsUser"], 0)
        resources = self.container["resources"]
        for kind in ("requests", "limits"):
            self.assertEqual(sorted(resources[kind]), ["cpu", "memory"], kind)

    def test_service_selects_the_pods(self):
        labels = self.pod["metadata"]["labels"]
        selector = self.service["spec"]["selector"]
        self.assertEqual(self.deployment["spec"]["selector"]["matchLabels"], selector)
        self.assertTrue(set(selector.items()) <= set(labels.items()), (selector, labels))
        names = [p["name"] for p in self.container["ports"]]
        for port in self.service["spec"]["ports"]:
            self.assertIn(port["targetPort"], names + [self.port])

    def test_args_start_the_built_daemon(self):
        """The Deployment's args, with --root the stand-in site and --listen a free
        loopback port: the daemon starts, answers /health and a Prometheus scrape, logs
        each to standard output, and a SIGTERM ends it with exit 0."""
        # A copy of the site: the runfiles' symbolic links are files --root never follows.
        site = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, site)
        shutil.copy(SITE_INDEX, os.path.join(site, "index.html"))
        args = list(self.args)
        args[args.index("--root") + 1] = site
        args[args.index("--listen") + 1] = "127.0.0.1:0"
        log = tempfile.TemporaryFile()
        self.addCleanup(log.close)
        daemon = subprocess.Popen(self.emulator + [DAEMON] + args, stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + LISTEN_SECONDS
            while True:
                log.seek(0)
                out = log.read().decode()
                listening = LISTENING.search(out)
                if listening:
                    break
                self.assertIsNone(daemon.poll(), "the daemon exited: " + out)
                self.assertLess(time.monotonic(), deadline, "no listening line: " + out)
                time.sleep(0.05)
            port = int(listening.group(1))
            self.assertEqual(health_once_up(port, LISTEN_SECONDS), (200, b"ok"))
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            # What a Prometheus server sends (docs/BEHAVIOUR.md 7.2).
            path = self.pod["metadata"]["annotations"]["prometheus.io/path"]
            conn.request("GET", path, headers={"Accept": "text/plain;version=0.0.4;q=1,*/*;q=0.1"})
            resp = conn.getresponse()
            self.assertEqual(resp.status, 200)
            self.assertIn(b"# TYPE apollod_requests_total counter", resp.read())
            conn.close()
        finally:
            daemon.send_signal(signal.SIGTERM)
            code = daemon.wait(timeout=int(flag_value(self.args, "--drain-timeout")) + LISTEN_SECONDS)
        log.seek(0)
        out = log.read().decode()
        self.assertEqual(code, 0, out)
        self.assertIn('"GET /health HTTP/1.1" 200 2 ', out)
        self.assertIn("apollod: stopped: every response finished", out)

    def test_kustomize_builds_the_same_objects(self):
        kubectl = shutil.which("kubectl")
        if kubectl is None:
            self.skipTest("kubectl is not installed (scripts/bootstrap.sh installs kubernetes-client)")
        with tempfile.TemporaryDirectory() as root:
            # Copies: kustomize refuses files whose real path (the runfiles' symlinks lead
            # to the source tree) is outside the kustomization's directory.
            shutil.copy(KUSTOMIZATION, os.path.join(root, "kustomization.yaml"))
            shutil.copy(MANIFEST, os.path.join(root, os.path.basename(MANIFEST)))
            # No kubeconfig: kubectl must not reach for a cluster (its default server is
            # localhost:8080, apollod's own default address).
            env = dict(os.environ, KUBECONFIG=os.path.join(root, "none"))
            done = subprocess.run([kubectl, "kustomize", root], capture_output=True, text=True,
                                  timeout=TOOL_SECONDS, env=env)
        self.assertEqual(done.returncode, 0, done.stderr)
        built = [doc for doc in yaml.safe_load_all(done.stdout) if doc is not None]
        key = lambda doc: doc["kind"]
        self.assertEqual(sorted(built, key=key), sorted(self.docs, key=key))


if __name__ == "__main__":
    unittest.main(verbosity=2)
