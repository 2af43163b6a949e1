"""Compressed responses side by side (issue 29): one real HTML page of about 190 KB and
one real script of about 70 KB, asked for with `Accept-Encoding: gzip, deflate, br` over
keep-alive by 16 connections, from apollod's `full` tier (the gzip it made at load, at its
default level) and from the peers compressing their own way: nginx `gzip on` at its
default level 1 and at `gzip_comp_level 6` (on every request), nginx `gzip_static on`
with a `gzip -9` file beside each (made once, as a build step would), h2o `compress: ON`
and lighttpd `mod_deflate` (on every request; without a cache directory).

Each server is one row: server CPU per response (schedstat of its whole process tree over
the wrk run, as bench/load.py reads it), bytes per response (wrk's bytes read, heads
included, over its responses), requests/s, and the Content-Encoding and body length one
request got before the load (checked: a gzip body inflates to the file's bytes). The
servers take turns within a scenario, the order rotating, over several rounds; the
figures are medians (rps) and totals over the rounds (CPU, bytes), as in bench/load.py.

//compare:table runs it with the other rows, or alone with
`--scenario "190 KB HTML page, gzip, keep-alive c=16"` (and/or the script's name).
"""

import gzip
import os
import shutil

from bench import load
from bench import servers

ACCEPT = "Accept-Encoding: gzip, deflate, br"
CONNECTIONS = 16
GZIP_STATIC_LEVEL = 9  # the .gz beside each file for gzip_static, as `gzip -9 -n` makes

# The served files: real text from Debian packages on these machines (nodejs's API docs,
# libjs-underscore; the bootstrap installs both, and without them the rows are skipped with a
# note), copied into the tree under these names.
SOURCES = {
    "page.html": "/usr/share/doc/nodejs/api/tls.html",
    "script.js": "/usr/share/javascript/underscore/underscore.js",
}
SCENARIOS = [
    {"name": "190 KB HTML page, gzip, keep-alive c=16", "family": "compressed",
     "connections": CONNECTIONS, "headers": [ACCEPT], "path": "/page.html"},
    {"name": "70 KB script, gzip, keep-alive c=16", "family": "compressed",
     "connections": CONNECTIONS, "headers": [ACCEPT], "path": "/script.js"},
]
NAMES = [s["name"] for s in SCENARIOS]

NGINX_MIME_TYPES = "/etc/nginx/mime.types"
NGINX_TYPES = "text/css application/javascript text/javascript"  # text/html always
LIGHTTPD_DEFLATE = os.path.join(servers.LIGHTTPD_MODULES, "mod_deflate.so")


def _nginx(directives):
    """A conf_edit for nginx: the real types (so the script is application/javascript)
    and directives, in the http block."""
    types = "include %s;\n    " % NGINX_MIME_TYPES if os.path.exists(NGINX_MIME_TYPES) else ""
    return lambda text: text.replace("    sendfile on;\n",
                                     "    sendfile on;\n    %s%s\n" % (types, directives))


def _h2o(text):
    return "compress: ON\n" + text


def _lighttpd(text):
    return text + """\
server.modules += ("mod_deflate")
mimetype.assign = (".html" => "text/html", ".js" => "text/javascript")
deflate.mimetypes = ("text/html", "text/javascript")
deflate.allowed-encodings = ("br", "gzip", "deflate")
"""


# The rows: label, peer (None: apollod's full tier), the peer's conf_edit, whether its
# tree has the .gz files beside, and why it cannot run here (None when it can).
def setups():
    return [
        ("apollod full (gzip made at load, level 7)", None, None, False, None),
        ("nginx gzip on (level 1, its default)", "nginx",
         _nginx("gzip on;\n    gzip_types %s;" % NGINX_TYPES), False, None),
        ("nginx gzip on, gzip_comp_level 6", "nginx",
         _nginx("gzip on;\n    gzip_comp_level 6;\n    gzip_types %s;" % NGINX_TYPES),
         False, None),
        ("nginx gzip_static on (gzip -9 file beside)", "nginx", _nginx("gzip_static on;"),
         True, None),
        ("h2o compress: ON", "h2o", _h2o, False, None),
        ("lighttpd mod_deflate", "lighttpd", _lighttpd, False,
         None if os.path.exists(LIGHTTPD_DEFLATE) else
         "%s is not installed (Debian's lighttpd-mod-deflate)" % LIGHTTPD_DEFLATE),
    ]


def make_tree(root, beside):
    """Copies SOURCES into root; with beside, a .gz of each made at GZIP_STATIC_LEVEL
    (no name, mtime 0, as `gzip -9 -n`)."""
    os.makedirs(root, exist_ok=True)
    for name, source in SOURCES.items():
        shutil.copyfile(source, os.path.join(root, name))
        if beside:
            with open(source, "rb") as f:
                data = gzip.compress(f.read(), GZIP_STATIC_LEVEL, mtime=0)
            with open(os.path.join(root, name + ".gz"), "wb") as f:
                f.write(data)


def probe(port, scenario):
    """One request of the scenario on a connection of its own: (status, Content-Encoding
    or "identity", body bytes, whether a gzip or identity body is the file's bytes; None
    for a coding this cannot decode)."""
    path = scenario["path"]
    request = ("GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%s\r\nConnection: close\r\n\r\n"
               % (path, ACCEPT)).encode()
    head, _, body = servers.fetch(port, request).partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    fields = {k.strip().lower(): v.strip() for k, _, v in (l.partition(":") for l in lines[1:])}
    coding = fields.get("content-encoding", "identity")
    if fields.get("transfer-encoding", "").lower() == "chunked":
        body = _unchunk(body)
    with open(SOURCES[path.lstrip("/")], "rb") as f:
        want = f.read()
    exact = {"identity": lambda b: b == want,
             "gzip": lambda b: gzip.decompress(b) == want}.get(coding)
    return int(lines[0].split()[1]), coding, len(body), exact(body) if exact else None


def _unchunk(body):
    """The data of a chunked body (h2o and lighttpd stream what they compress)."""
    out, at = b"", 0
    while True:
        end = body.index(b"\r\n", at)
        size = int(body[at:end].split(b";")[0], 16)
        if size == 0:
            return out
        out += body[end + 2:end + 2 + size]
        at = end + 2 + size + 2


def start(label, peer, conf_edit, beside, full, peer_binaries, work):
    """Starts one row's server on its own tree under work; returns a Server named label."""
    base = os.path.join(work, "%d" % len(os.listdir(work)))
    root = os.path.join(base, "www")
    make_tree(root, beside)
    os.chmod(base, 0o755)
    if peer is None:
        server = servers.start_tier("full", full, extra_args=[
            "--root", root, "--cache-bytes", str(servers.TIER_CACHE_BYTES)])
    else:
        server = servers.start_peer(peer, peer_binaries[peer], base, root, files_only=True,
                                    conf_edit=conf_edit)
    server.name = label
    return server


def measure(full, peer_binaries, duration_s, rounds, scenarios=SCENARIOS, log=None):
    """Starts every row's server (full: apollod's full tier binary; peer_binaries: peer
    name -> binary), probes each scenario once, runs the scenarios (bench/load.py's
    run_scenarios) and stops them. Returns {"scenarios": {scenario: {label: result}},
    "probes": {scenario: {label: probe()}}, "skipped": {label: reason}}."""
    absent = [path for path in SOURCES.values() if not os.path.exists(path)]
    if absent:  # not from the bootstrap's packages: the rows say so instead of failing
        return {"scenarios": {}, "probes": {},
                "skipped": {"every row": "%s not installed" % ", ".join(absent)}}
    work = servers.public_tempdir("apollod-compressed-")
    running, skipped = [], {}
    try:
        for label, peer, conf_edit, beside, missing in setups():
            if missing:
                skipped[label] = missing
                continue
            running.append(start(label, peer, conf_edit, beside, full, peer_binaries, work))
        probes = {s["name"]: {r.name: probe(r.port, s) for r in running} for s in scenarios}
        results = load.run_scenarios(running, scenarios, duration_s, rounds, log=log)
    finally:
        servers.stop_all(running)
        shutil.rmtree(work, ignore_errors=True)
    return {"scenarios": results, "probes": probes, "skipped": skipped}
