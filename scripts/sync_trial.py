#!/usr/bin/env python3
"""Trial of `marginalia sync FOLDER` through real file-sync tools on one machine.

How to run
----------
    python3 scripts/sync_trial.py [--seed N] [--ops N] [--bin PATH]
                                  [--no-unison] [--no-rsync] [--keep]

Needs `syncthing` (v1.x, the `generate`/`serve` sub-commands or the older
`-generate` flag forms), `faketime`, and for the secondary variants `unison`
and `rsync` (Debian: `apt-get install -y syncthing unison rsync faketime`).
The marginalia binary is `--bin` (default: $MARGINALIA_BIN, else the
package's .build/release or .build/debug one, else `marginalia` on PATH).  Everything lives in a
fresh temporary directory (kept with `--keep`); the seed is printed so a run
can be repeated.  Exit status 0 when every check passed, 1 otherwise.

What it does and checks
-----------------------
Syncthing (the main trial):
  * three Syncthing instances on loopback only (own --home, GUI/REST on
    127.0.0.1:<port> with its own API key, listening on tcp://127.0.0.1:<port>;
    global and local discovery, relays, NAT, usage and crash reporting and
    auto-upgrade off), introduced to each other by explicit addresses, sharing
    one send-receive folder (each instance its own path, fs watcher with a 1 s
    delay, rescan every 5 s);
  * three marginalia stores, one per instance, each outside its folder, made
    one roster first (every folder has one: the first store founds it with
    `device invite FILE`, each other store runs `device join FILE` and a
    round, the first admits it at its round, the new one learns it at its
    next; the sync tool carries the files between rounds); checked with
    `device roster --json` on the first;
  * a seeded random workload: notes, edits, deletes on random passages of
    random stores, `sync` rounds on random stores, some `sync --compact` under
    `faketime -f +2h`, with short sleeps so Syncthing moves files mid-workload.
    Every acknowledged write (exit 0) is recorded;
  * settling: wait until Syncthing reports every folder idle with nothing
    needed and the three folders hold the same files, then a sync round on
    every store, repeated until a whole pass writes and applies nothing (at
    most 10 passes);
  * checks: the three stores list the same annotations (`list --json
    --deleted`, sorted), `verify` is ok on each, every acknowledged write is
    there with its expected deleted state (and its note is one acknowledged for
    it; the last one when only one store wrote it), no store reports a pending
    or damaged file once the folder is quiet, nothing at the top of a folder
    but `devices/`, `.stfolder`, `.stignore`, each change stored at most 1.5
    times in a folder (`"type":"change"` records across devices/*/*.jsonl.gz
    divided by distinct change ids), no `.syncthing.*.tmp` left over; the
    Syncthing log lines saying "pull: no such file" or "file modified but not
    rescanned" are counted and reported (not a failure by themselves);
  * damage: one store writes 5 notes and syncs, one bit in the middle of that
    new segment is flipped in its own folder copy (Syncthing carries the
    damaged file); the other stores must call it "damaged" (not "pending"),
    and after ordinary rounds on every store (Syncthing settling in between)
    the 5 notes must be in every store, and the stores must converge again.

Unison variant (secondary): two replicas, two stores (one roster, as above),
the same kind of workload, `unison -batch -times` (ignoring `Name .syncthing.*`) between
rounds, then the same convergence checks.

rsync variant (secondary): three replicas (one roster, as above), each
device's own directory copied
from its owner to the other replicas with `rsync -a --delete
--exclude='.syncthing.*'` (once with `--inplace`, once while the receiving
store runs a round), then the same convergence checks.
"""

import argparse
import collections
import glob
import gzip
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET

FOLDER_ID = "marginalia-trial"
FAILURES = []


def log(msg=""):
    print(msg, flush=True)


def check(ok, what, detail=""):
    """Print one check's outcome and remember failures."""
    log(("  PASS  " if ok else "  FAIL  ") + what + (f": {detail}" if detail else ""))
    if not ok:
        FAILURES.append(what + (f": {detail}" if detail else ""))
    return ok


# --------------------------------------------------------------------------
# marginalia
# --------------------------------------------------------------------------

class Marginalia:
    def __init__(self, binary):
        self.binary = binary
        self.calls = 0
        self.sync_stderr = collections.Counter()  # what sync rounds said on stderr

    def run(self, store, *args, faketime=None, check_rc=True):
        cmd = [self.binary, "--store", store, *args]
        env = dict(os.environ)
        if faketime:
            cmd = ["faketime", "-f", faketime] + cmd
            env["FAKETIME_DONT_FAKE_MONOTONIC"] = "1"
        self.calls += 1
        p = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if args and args[0] == "sync" and p.stderr.strip():
            for line in p.stderr.strip().splitlines():
                self.sync_stderr[line[:200]] += 1
        if check_rc and p.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} exited {p.returncode}\n"
                               f"stdout: {p.stdout}\nstderr: {p.stderr}")
        return p

    def json(self, store, *args, **kw):
        p = self.run(store, *args, "--json", **kw)
        return json.loads(p.stdout)

    def sync(self, store, folder, compact=False, faketime=None):
        args = ["sync", folder] + (["--compact"] if compact else [])
        return self.json(store, *args, faketime=faketime)

    def listing(self, store):
        return self.json(store, "list", "--deleted")


def sync_did_something(rep):
    return bool(rep.get("written") or rep.get("compactedInto") or rep.get("removed")
                or rep.get("changesApplied") or rep.get("republished")
                or rep.get("releasedFromQuarantine"))


def report_files(rep, key):
    """Files of kind `key` (pending/damaged/leftovers/refused/gone) named anywhere in a report."""
    out = []
    for item in rep.get(key, []) or []:
        out.append(item)
    for dev in rep.get("devices", []) or []:
        for item in dev.get(key, []) or []:
            out.append(item)
    names = set()
    for item in out:
        names.add(item if isinstance(item, str) else json.dumps(item, sort_keys=True))
    return sorted(names)


class Ledger:
    """Every acknowledged write: annotation id -> expected state."""

    def __init__(self):
        self.items = {}

    def created(self, ann_id, store, text):
        self.items[ann_id] = {"deleted": False, "texts": [text], "writers": {store},
                              "last": text}

    def edited(self, ann_id, store, text):
        it = self.items.setdefault(ann_id, {"deleted": False, "texts": [], "writers": set(),
                                            "last": None})
        it["texts"].append(text)
        it["writers"].add(store)
        it["last"] = text

    def deleted(self, ann_id):
        self.items.setdefault(ann_id, {"deleted": False, "texts": [], "writers": set(),
                                       "last": None})["deleted"] = True


def passages_pool(m, store, rng, documents=8):
    docs = [d["id"] for d in m.json(store, "content", "documents")]
    pool = []
    for doc in rng.sample(docs, min(documents, len(docs))):
        pool += [p["id"] for p in m.json(store, "content", "passages", doc)]
    return pool


class Workload:
    """Random notes / edits / deletes / sync rounds over a set of stores."""

    def __init__(self, m, rng, stores, folders, pool, ledger, label):
        self.m, self.rng, self.stores, self.folders = m, rng, stores, folders
        self.pool, self.ledger, self.label = pool, ledger, label
        self.counts = collections.Counter()
        self.seen = collections.defaultdict(set)  # pending/damaged/... named mid-workload
        for store in stores:
            m.run(store, "init")

    def note(self, i):
        text = f"{self.label} note {self.counts['note']} by s{i} #{self.rng.randrange(10**6)}"
        a = self.m.json(self.stores[i], "note", self.rng.choice(self.pool), text)
        self.ledger.created(a["id"], i, text)
        self.counts["note"] += 1
        return a["id"]

    def edit_or_delete(self, i, delete):
        live = [a for a in self.m.listing(self.stores[i]) if not a["deleted"]]
        if not live:
            return self.note(i)
        a = self.rng.choice(live)
        if delete:
            self.m.run(self.stores[i], "delete", a["id"])
            self.ledger.deleted(a["id"])
            self.counts["delete"] += 1
        else:
            text = f"{self.label} edit {self.counts['edit']} by s{i} #{self.rng.randrange(10**6)}"
            self.m.run(self.stores[i], "edit", a["id"], "--note", text)
            self.ledger.edited(a["id"], i, text)
            self.counts["edit"] += 1

    def sync(self, i, compact=False):
        rep = self.m.sync(self.stores[i], self.folders[i], compact=compact,
                          faketime="+2h" if compact else None)
        self.counts["sync --compact" if compact else "sync"] += 1
        for key in ("pending", "damaged", "leftovers", "refused", "gone"):
            for f in report_files(rep, key):
                self.seen[key].add(f)
        if rep.get("compactedInto"):
            self.counts["compactions"] += 1
        self.counts["changes applied by sync"] += rep.get("changesApplied", 0)
        return rep

    def step(self, between=None):
        i = self.rng.randrange(len(self.stores))
        r = self.rng.random()
        if r < 0.35:
            self.note(i)
        elif r < 0.52:
            self.edit_or_delete(i, delete=False)
        elif r < 0.60:
            self.edit_or_delete(i, delete=True)
        elif r < 0.92:
            self.sync(i)
        else:
            self.sync(i, compact=True)
        if between:
            between(self.rng)

    def summary(self):
        return ", ".join(f"{k} {v}" for k, v in sorted(self.counts.items()))


# --------------------------------------------------------------------------
# Folder inspection
# --------------------------------------------------------------------------

def folder_files(folder):
    """Relative path -> (size, bytes) of every regular file, without Syncthing's own."""
    out = {}
    for root, dirs, files in os.walk(folder):
        rel_root = os.path.relpath(root, folder)
        if rel_root.split(os.sep)[0] in (".stfolder", ".stversions"):
            continue
        for f in files:
            if f.startswith(".syncthing.") or f == ".stignore":
                continue
            p = os.path.join(root, f)
            with open(p, "rb") as fh:
                out[os.path.normpath(os.path.join(rel_root, f))] = fh.read()
    return out


def copies_per_change(folder):
    total, ids, conflict_copies = 0, set(), []
    for path in sorted(glob.glob(os.path.join(folder, "devices", "*", "*"))):
        name = os.path.basename(path)
        if "sync-conflict" in name:
            conflict_copies.append(name)
        if not name.endswith(".jsonl.gz"):
            continue
        try:
            with gzip.open(path, "rt", encoding="utf-8") as fh:
                for line in fh:
                    line = line.strip()
                    if not line:
                        continue
                    rec = json.loads(line)
                    if rec.get("type") == "change":
                        total += 1
                        ids.add(rec["changeId"])
        except (OSError, EOFError, ValueError) as e:
            log(f"    (unreadable segment {path}: {e})")
    return total, len(ids), conflict_copies


def tmp_leftovers(folders):
    out = []
    for folder in folders:
        for root, _dirs, files in os.walk(folder):
            out += [os.path.join(root, f) for f in files
                    if f.startswith(".syncthing.") and f.endswith(".tmp")]
    return out


def converge_checks(m, label, stores, folders, ledger, allowed_top=("devices", ".stfolder",
                                                                    ".stignore")):
    """The checks common to every variant; returns nothing, records failures."""
    log(f"\n== {label}: checks")
    listings = []
    for s in stores:
        lst = sorted(m.listing(s), key=lambda a: a["id"])
        listings.append(lst)
    canon = [json.dumps(l, sort_keys=True) for l in listings]
    counts = [(len(l), sum(1 for a in l if a["deleted"])) for l in listings]
    same = all(c == canon[0] for c in canon)
    detail = "; ".join(f"s{i}: {n} annotations, {d} deleted" for i, (n, d) in enumerate(counts))
    if not same:
        ids = [set(a["id"] for a in l) for l in listings]
        detail += f"; ids only in some stores: {len(set.union(*ids) - set.intersection(*ids))}"
        by_id = [{a["id"]: a for a in l} for l in listings]
        for aid in sorted(set.intersection(*ids)):
            vals = [json.dumps(b[aid], sort_keys=True) for b in by_id]
            if len(set(vals)) > 1:
                detail += f"; first differing annotation {aid}: " + " | ".join(vals)
                break
    check(same, f"{label}: stores identical (list --json --deleted)", detail)

    for i, s in enumerate(stores):
        p = m.run(s, "verify", "--json", check_rc=False)
        try:
            ok = p.returncode == 0 and json.loads(p.stdout).get("ok") is True
        except ValueError:
            ok = False
        check(ok, f"{label}: verify ok on s{i}", "" if ok else (p.stdout + p.stderr)[:500])

    missing, wrong_deleted, wrong_text = [], [], []
    for i, lst in enumerate(listings):
        by_id = {a["id"]: a for a in lst}
        for aid, exp in ledger.items.items():
            a = by_id.get(aid)
            if a is None:
                missing.append((i, aid))
                continue
            if a["deleted"] != exp["deleted"]:
                wrong_deleted.append((i, aid, a["deleted"], exp["deleted"]))
            if exp["texts"] and a.get("note") not in exp["texts"]:
                wrong_text.append((i, aid, a.get("note")))
            elif len(exp["writers"]) == 1 and exp["last"] is not None and a.get("note") != exp["last"]:
                wrong_text.append((i, aid, a.get("note"), "expected", exp["last"]))
    check(not missing, f"{label}: every acknowledged write present ({len(ledger.items)} annotations)",
          f"{len(missing)} missing, e.g. {missing[:3]}" if missing else "")
    check(not wrong_deleted, f"{label}: deleted state as acknowledged",
          str(wrong_deleted[:3]) if wrong_deleted else
          f"{sum(1 for e in ledger.items.values() if e['deleted'])} deleted")
    check(not wrong_text, f"{label}: note texts are acknowledged values (last one for a single writer)",
          str(wrong_text[:3]) if wrong_text else "")

    # Quiet folder: one more round per store must name nothing pending or damaged.
    quiet = []
    for i, s in enumerate(stores):
        rep = m.sync(s, folders[i])
        quiet.append({k: report_files(rep, k) for k in ("pending", "damaged", "leftovers",
                                                        "refused")})
        quiet[-1]["did"] = sync_did_something(rep)
    pend = {f"s{i}": q["pending"] for i, q in enumerate(quiet) if q["pending"]}
    dmg = {f"s{i}": q["damaged"] for i, q in enumerate(quiet) if q["damaged"]}
    other = {f"s{i}": (q["leftovers"], q["refused"]) for i, q in enumerate(quiet)
             if q["leftovers"] or q["refused"]}
    check(not pend, f"{label}: no pending file once the folder is quiet", json.dumps(pend)[:600])
    check(not dmg, f"{label}: no damaged file once the folder is quiet", json.dumps(dmg)[:600])
    if other:
        log(f"  note  {label}: leftovers/refused named at the end: {json.dumps(other)[:600]}")
    idle_writes = [f"s{i}" for i, q in enumerate(quiet) if q["did"]]
    check(not idle_writes, f"{label}: a round on a quiet folder writes/applies nothing",
          ",".join(idle_writes))

    for i, f in enumerate(folders):
        top = sorted(os.listdir(f))
        extra = [n for n in top if n not in allowed_top]
        check(not extra, f"{label}: folder {i} top level holds only {'/'.join(allowed_top)}",
              f"found {top}")

    worst = 0.0
    for i, f in enumerate(folders):
        total, distinct, conflicts = copies_per_change(f)
        ratio = total / distinct if distinct else 0.0
        worst = max(worst, ratio)
        log(f"  info  {label}: folder {i}: {total} change records, {distinct} distinct change ids, "
            f"{ratio:.3f} copies per change" + (f", conflict copies {conflicts}" if conflicts else ""))
        check(not conflicts, f"{label}: no sync-conflict copies in folder {i}", str(conflicts[:5]))
    check(worst <= 1.5, f"{label}: each change stored at most 1.5 times", f"worst {worst:.3f}")

    left = tmp_leftovers(folders)
    check(not left, f"{label}: no leftover .syncthing.*.tmp files", str(left[:5]))
    return worst


# --------------------------------------------------------------------------
# Syncthing
# --------------------------------------------------------------------------

def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def syncthing_has_subcommands():
    p = subprocess.run(["syncthing", "--help"], capture_output=True, text=True)
    return "serve" in (p.stdout + p.stderr) and "generate" in (p.stdout + p.stderr)


class SyncthingInstance:
    def __init__(self, index, home, folder, logfile):
        self.index, self.home, self.folder, self.logfile = index, home, folder, logfile
        self.gui_port, self.listen_port = free_port(), free_port()
        self.api_key = f"trial-key-{index}-{random.SystemRandom().randrange(10**12)}"
        self.proc = None
        self.device_id = None

    def generate(self, modern):
        cmd = (["syncthing", "generate", f"--home={self.home}", "--no-default-folder"] if modern
               else ["syncthing", f"-generate={self.home}"])
        subprocess.run(cmd, check=True, capture_output=True,
                       env=dict(os.environ, STNODEFAULTFOLDER="1"))
        root = ET.parse(os.path.join(self.home, "config.xml")).getroot()
        self.device_id = root.find("device").get("id")

    def configure(self, peers):
        path = os.path.join(self.home, "config.xml")
        tree = ET.parse(path)
        root = tree.getroot()
        gui = root.find("gui")
        gui.set("tls", "false")
        gui.find("address").text = f"127.0.0.1:{self.gui_port}"
        gui.find("apikey").text = self.api_key
        opts = root.find("options")

        def opt(name, value):
            el = opts.find(name)
            if el is None:
                el = ET.SubElement(opts, name)
            el.text = value

        opt("listenAddress", f"tcp://127.0.0.1:{self.listen_port}")
        opt("globalAnnounceEnabled", "false")
        opt("localAnnounceEnabled", "false")
        opt("relaysEnabled", "false")
        opt("natEnabled", "false")
        opt("urAccepted", "-1")
        opt("crashReportingEnabled", "false")
        opt("autoUpgradeIntervalH", "0")
        opt("startBrowser", "false")
        opt("setLowPriority", "false")
        opt("reconnectionIntervalS", "2")
        opt("minHomeDiskFree", "0")
        # own device: explicit address; peers likewise
        own = root.find("device")
        own.find("address").text = f"tcp://127.0.0.1:{self.listen_port}"
        defaults = root.find("defaults")
        dev_template = defaults.find("device") if defaults is not None else None
        insert_at = list(root).index(own) + 1
        for peer in peers:
            dev = ET.fromstring(ET.tostring(dev_template)) if dev_template is not None \
                else ET.Element("device")
            dev.set("id", peer.device_id)
            dev.set("name", f"st{peer.index}")
            addr = dev.find("address")
            if addr is None:
                addr = ET.SubElement(dev, "address")
            addr.text = f"tcp://127.0.0.1:{peer.listen_port}"
            root.insert(insert_at, dev)
            insert_at += 1
        # the shared folder, from the defaults' folder template
        ftpl = defaults.find("folder") if defaults is not None else None
        folder = ET.fromstring(ET.tostring(ftpl)) if ftpl is not None else ET.Element("folder")
        folder.set("id", FOLDER_ID)
        folder.set("label", FOLDER_ID)
        folder.set("path", self.folder)
        folder.set("type", "sendreceive")
        folder.set("rescanIntervalS", "5")
        folder.set("fsWatcherEnabled", "true")
        folder.set("fsWatcherDelayS", "1")
        for d in folder.findall("device"):
            folder.remove(d)
        for dev_id in [self.device_id] + [p.device_id for p in peers]:
            d = ET.Element("device", {"id": dev_id, "introducedBy": ""})
            ET.SubElement(d, "encryptionPassword").text = ""
            folder.insert(0, d)
        mdf = folder.find("minDiskFree")
        if mdf is not None:
            mdf.text = "0"
        root.insert(insert_at, folder)
        tree.write(path, encoding="utf-8", xml_declaration=False)
        os.makedirs(os.path.join(self.folder, ".stfolder"), exist_ok=True)

    def start(self, modern):
        cmd = (["syncthing", "serve", f"--home={self.home}", "--no-browser", "--no-restart",
                "--no-upgrade", "--logflags=3"] if modern
               else ["syncthing", f"-home={self.home}", "-no-browser", "-no-restart",
                     "-logflags=3"])
        self.logfh = open(self.logfile, "w")
        env = dict(os.environ, STNORESTART="1", STNOUPGRADE="1", STNODEFAULTFOLDER="1")
        self.proc = subprocess.Popen(cmd, stdout=self.logfh, stderr=subprocess.STDOUT, env=env,
                                     start_new_session=True)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        if getattr(self, "logfh", None):
            self.logfh.close()

    def api(self, path, method="GET"):
        req = urllib.request.Request(f"http://127.0.0.1:{self.gui_port}{path}", method=method,
                                     headers={"X-API-Key": self.api_key})
        with urllib.request.urlopen(req, timeout=10) as r:
            body = r.read()
        return json.loads(body) if body.strip() else None

    def log_count(self, needle):
        with open(self.logfile, errors="replace") as fh:
            return sum(1 for line in fh if needle in line)


class SyncthingCluster:
    def __init__(self, base, n=3):
        self.modern = syncthing_has_subcommands()
        self.instances = []
        for i in range(n):
            home = os.path.join(base, f"st-home-{i}")
            folder = os.path.join(base, f"st-folder-{i}")
            os.makedirs(home)
            os.makedirs(folder)
            self.instances.append(SyncthingInstance(i, home, folder,
                                                    os.path.join(base, f"syncthing-{i}.log")))

    def start(self):
        for st in self.instances:
            st.generate(self.modern)
        for st in self.instances:
            st.configure([p for p in self.instances if p is not st])
        for st in self.instances:
            st.start(self.modern)
        deadline = time.time() + 60
        for st in self.instances:
            while True:
                try:
                    st.api("/rest/system/ping")
                    break
                except (urllib.error.URLError, ConnectionError, OSError):
                    if st.proc.poll() is not None or time.time() > deadline:
                        raise RuntimeError(f"syncthing {st.index} did not start; see {st.logfile}")
                    time.sleep(0.3)
        while True:
            ok = True
            for st in self.instances:
                conns = st.api("/rest/system/connections")["connections"]
                for p in self.instances:
                    if p is not st and not conns.get(p.device_id, {}).get("connected"):
                        ok = False
            if ok:
                break
            if time.time() > deadline:
                raise RuntimeError("syncthing instances did not connect to each other")
            time.sleep(0.5)
        for st in self.instances:
            ver = st.api("/rest/system/version")["version"]
        log(f"  syncthing {ver}: 3 instances connected "
            f"(listen {[st.listen_port for st in self.instances]}, "
            f"gui {[st.gui_port for st in self.instances]})")

    def stop(self):
        for st in self.instances:
            st.stop()

    def settle(self, timeout=180):
        """Wait until every folder is idle, needs nothing, every peer is 100 % complete,
        and the three folders hold the same files (twice in a row)."""
        t0 = time.time()
        for st in self.instances:
            try:
                st.api(f"/rest/db/scan?folder={FOLDER_ID}", method="POST")
            except urllib.error.HTTPError:
                pass
        stable = 0
        while True:
            ok = True
            for st in self.instances:
                s = st.api(f"/rest/db/status?folder={FOLDER_ID}")
                if s.get("state") != "idle" or s.get("needFiles", 0) or s.get("needTotalItems", 0):
                    ok = False
                    break
                for p in self.instances:
                    if p is st:
                        continue
                    c = st.api(f"/rest/db/completion?folder={FOLDER_ID}&device={p.device_id}")
                    if c.get("completion", 0) < 100 or c.get("needItems", 0):
                        ok = False
                        break
                if not ok:
                    break
            if ok:
                contents = [folder_files(st.folder) for st in self.instances]
                ok = all(c == contents[0] for c in contents)
            stable = stable + 1 if ok else 0
            if stable >= 2:
                return time.time() - t0
            if time.time() - t0 > timeout:
                raise RuntimeError(f"syncthing did not settle within {timeout}s")
            time.sleep(0.5)

    def folder_errors(self):
        out = {}
        for st in self.instances:
            try:
                e = st.api(f"/rest/folder/errors?folder={FOLDER_ID}")
                if e and e.get("errors"):
                    out[st.index] = e["errors"]
            except urllib.error.HTTPError:
                pass
        return out

    def log_counts(self):
        needles = ("pull: no such file", "file modified but not rescanned")
        return {n: [st.log_count(n) for st in self.instances] for n in needles}


def enroll(m, stores, folders, wait, label):
    """Make the stores one roster, as every sync folder has one: `device invite FILE` on
    the first (founding it), then for each other store `device join FILE` and a round,
    `wait()` for the sync tool, a round on the first (it admits the new one), `wait()`,
    and a round on the new one (it learns it is admitted)."""
    for i in range(1, len(stores)):
        invitation = os.path.join(os.path.dirname(stores[0]), f"invitation-{i}.json")
        m.run(stores[0], "device", "invite", invitation)
        m.run(stores[i], "device", "join", invitation)
        m.sync(stores[i], folders[i])
        wait()
        m.sync(stores[0], folders[0])
        wait()
        m.sync(stores[i], folders[i])
        wait()
    roster = m.json(stores[0], "device", "roster")
    active = sorted(d["id"] for d in roster.get("devices", []) if d.get("active"))
    check(len(active) == len(stores), f"{label}: the {len(stores)} stores are one roster",
          json.dumps(roster)[:600])


def settle_rounds(m, stores, folders, wait, label, cap=10):
    """Sync rounds on every store, `wait()` for the sync tool in between, until one pass
    writes and applies nothing."""
    for n in range(1, cap + 1):
        did = []
        for i, s in enumerate(stores):
            rep = m.sync(s, folders[i])
            if sync_did_something(rep):
                did.append(f"s{i}")
        wait()
        log(f"  {label}: settle pass {n}: " + (("activity on " + ",".join(did)) if did else "quiet"))
        if not did:
            return n
    check(False, f"{label}: settles within {cap} passes")
    return cap


def syncthing_trial(m, base, rng, ops, results):
    log("\n== Syncthing trial: 3 instances on loopback")
    cluster = SyncthingCluster(base)
    try:
        cluster.start()
        folders = [st.folder for st in cluster.instances]
        stores = []
        for i in range(3):
            d = os.path.join(base, f"st-store-{i}")
            os.makedirs(d)
            stores.append(os.path.join(d, "user.db"))
        ledger = Ledger()
        wl = Workload(m, rng, stores, folders, passages_pool_cache, ledger, "st")
        enroll(m, stores, folders, cluster.settle, "syncthing")
        t0 = time.time()
        for _ in range(ops):
            wl.step(between=lambda r: time.sleep(r.choice([0, 0, 0.05, 0.1, 0.3, 0.8])))
        log(f"  workload ({time.time() - t0:.1f}s): {wl.summary()}")
        for key in ("pending", "damaged", "leftovers", "refused", "gone"):
            log(f"  mid-workload {key}: {len(wl.seen[key])}" +
                (f" e.g. {sorted(wl.seen[key])[:2]}" if wl.seen[key] else ""))
        results["mid-workload"] = {k: len(v) for k, v in wl.seen.items()}
        check(not wl.seen["damaged"], "syncthing: no file called damaged mid-workload",
              str(sorted(wl.seen["damaged"])[:3]))
        check(not wl.seen["refused"], "syncthing: no file refused mid-workload",
              str(sorted(wl.seen["refused"])[:3]))

        wait = lambda: cluster.settle()
        log(f"  syncthing settled in {wait():.1f}s")
        results["settle passes"] = settle_rounds(m, stores, folders, wait, "syncthing")
        results["copies per change"] = converge_checks(m, "syncthing", stores, folders, ledger)
        counts = cluster.log_counts()
        results["syncthing log lines (workload)"] = counts
        for needle, per in counts.items():
            log(f"  info  syncthing log lines with '{needle}': {sum(per)} (per instance {per})")
        errs = cluster.folder_errors()
        if errs:
            log(f"  note  syncthing folder errors now: {json.dumps(errs)[:600]}")

        damage_scenario(m, rng, cluster, stores, folders, ledger, results)
        counts = cluster.log_counts()
        results["syncthing log lines (total)"] = counts
        for needle, per in counts.items():
            log(f"  info  syncthing log lines with '{needle}' (whole run): {sum(per)} "
                f"(per instance {per})")
    finally:
        cluster.stop()
        log("  syncthing instances stopped")


def damage_scenario(m, rng, cluster, stores, folders, ledger, results):
    log("\n== Syncthing damage scenario")
    w = rng.randrange(3)
    others = [i for i in range(3) if i != w]
    ids = []
    for k in range(5):
        text = f"damage note {k} by s{w}"
        a = m.json(stores[w], "note", rng.choice(passages_pool_cache), text)
        ledger.created(a["id"], w, text)
        ids.append(a["id"])
    rep = m.sync(stores[w], folders[w])
    seg = rep["written"]["path"]
    path = os.path.join(folders[w], seg)
    with open(path, "r+b") as fh:
        data = fh.read()
        pos = len(data) // 2
        fh.seek(pos)
        fh.write(bytes([data[pos] ^ 0x10]))
    log(f"  s{w} wrote 5 notes into {seg} ({len(data)} bytes); flipped bit 4 of byte {pos} "
        f"in its own copy")
    cluster.settle()
    damaged_copies = []
    for st in cluster.instances:
        with open(os.path.join(st.folder, seg), "rb") as fh:
            damaged_copies.append(fh.read() != data)
    log(f"  after Syncthing settled, copies differing from the original: {damaged_copies}")
    if not all(damaged_copies):
        log("  Syncthing did not carry the flipped file; flipping it in another instance's copy")
        o = others[0]
        p2 = os.path.join(folders[o], seg)
        with open(p2, "r+b") as fh:
            fh.seek(pos)
            fh.write(bytes([data[pos] ^ 0x10]))
        cluster.settle()
    verdicts = {}
    for i in others:
        rep = m.sync(stores[i], folders[i])
        dmg = report_files(rep, "damaged")
        pend = report_files(rep, "pending")
        verdicts[f"s{i}"] = {"damaged": dmg, "pending": pend}
        named_damaged = any(os.path.basename(seg) in d for d in dmg)
        named_pending = any(os.path.basename(seg) in p for p in pend)
        check(named_damaged and not named_pending,
              f"damage: s{i} calls the flipped segment damaged (not pending)",
              json.dumps(verdicts[f"s{i}"])[:700])
    results["damage verdicts"] = verdicts
    cluster.settle()
    passes = settle_rounds(m, stores, folders, cluster.settle, "damage")
    results["damage settle passes"] = passes
    for i, s in enumerate(stores):
        got = {a["id"]: a for a in m.listing(s)}
        have = [aid for aid in ids if aid in got and not got[aid]["deleted"]]
        check(len(have) == 5, f"damage: the 5 notes arrived in s{i}", f"{len(have)}/5")
    results["copies per change after damage"] = converge_checks(m, "syncthing after damage",
                                                                stores, folders, ledger)
    still = os.path.exists(path)
    log(f"  info  damaged segment still in the writer's folder: {still}")


passages_pool_cache = []


# --------------------------------------------------------------------------
# Unison and rsync variants
# --------------------------------------------------------------------------

def unison_trial(m, base, rng, ops, results):
    log("\n== Unison variant: 2 replicas")
    if not shutil.which("unison"):
        log("  unison not installed; skipped")
        return
    udir = os.path.join(base, "unison-home")
    os.makedirs(udir)
    folders = [os.path.join(base, f"un-folder-{i}") for i in range(2)]
    stores = []
    for i in range(2):
        os.makedirs(folders[i])
        os.makedirs(os.path.join(base, f"un-store-{i}"))
        stores.append(os.path.join(base, f"un-store-{i}", "user.db"))
    env = dict(os.environ, UNISON=udir, HOME=udir)
    runs = collections.Counter()

    def unison(rng_=None):
        p = subprocess.run(["unison", folders[0], folders[1], "-batch", "-times",
                            "-ignore", "Name .syncthing.*", "-ui", "text", "-confirmbigdel=false"],
                           capture_output=True, text=True, env=env)
        runs[p.returncode] += 1
        if p.returncode not in (0, 1):  # 1: nothing to do / some skipped
            log(f"  unison exit {p.returncode}: {(p.stdout + p.stderr)[-400:]}")

    ledger = Ledger()
    wl = Workload(m, rng, stores, folders, passages_pool_cache, ledger, "un")
    enroll(m, stores, folders, unison, "unison")
    for _ in range(ops):
        wl.step(between=lambda r: unison() if r.random() < 0.3 else None)
    log(f"  workload: {wl.summary()}; unison runs by exit status {dict(runs)}")
    log(f"  mid-workload: " + ", ".join(f"{k} {len(v)}" for k, v in sorted(wl.seen.items())))
    unison()
    results["unison settle passes"] = settle_rounds(m, stores, folders, unison, "unison")
    results["unison copies per change"] = converge_checks(m, "unison", stores, folders, ledger,
                                                          allowed_top=("devices",))


def rsync_trial(m, base, rng, ops, results):
    log("\n== rsync variant: 3 replicas, each device directory copied from its owner")
    if not shutil.which("rsync"):
        log("  rsync not installed; skipped")
        return
    folders = [os.path.join(base, f"rs-folder-{i}") for i in range(3)]
    stores = []
    for i in range(3):
        os.makedirs(folders[i])
        os.makedirs(os.path.join(base, f"rs-store-{i}"))
        stores.append(os.path.join(base, f"rs-store-{i}", "user.db"))
    owners = {}  # device id -> index of the replica whose store writes it
    state = {"inplace_done": False, "runs": 0}

    def rsync_cmd(src, dst, inplace=False):
        return ["rsync", "-a", "--delete", "--exclude=.syncthing.*"] + \
               (["--inplace"] if inplace else []) + [src + "/", dst + "/"]

    def spread(inplace=False):
        for i, f in enumerate(folders):
            for d in glob.glob(os.path.join(f, "devices", "*")):
                owners.setdefault(os.path.basename(d), i)
        for dev, i in owners.items():
            src = os.path.join(folders[i], "devices", dev)
            for j, f in enumerate(folders):
                if j == i:
                    continue
                os.makedirs(os.path.join(f, "devices"), exist_ok=True)
                subprocess.run(rsync_cmd(src, os.path.join(f, "devices", dev), inplace),
                               check=True, capture_output=True)
        state["runs"] += 1

    concurrent = {}

    def between(r):
        if r.random() >= 0.3:
            return
        if not state["inplace_done"] and state["runs"] >= 3:
            state["inplace_done"] = True
            spread(inplace=True)
            log("  (one spread with --inplace)")
        elif not concurrent and state["runs"] >= 5:
            # one spread while the receiving store runs a round at the same time
            j = r.randrange(3)
            procs = []
            for dev, i in owners.items():
                if i == j:
                    continue
                procs.append(subprocess.Popen(
                    rsync_cmd(os.path.join(folders[i], "devices", dev),
                              os.path.join(folders[j], "devices", dev)),
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            rep = m.sync(stores[j], folders[j])
            for p in procs:
                p.wait()
            concurrent.update({k: report_files(rep, k) for k in ("pending", "damaged")})
            log(f"  (one spread concurrent with a round on s{j}: pending {len(concurrent['pending'])}, "
                f"damaged {len(concurrent['damaged'])})")
        else:
            spread()

    ledger = Ledger()
    wl = Workload(m, rng, stores, folders, passages_pool_cache, ledger, "rs")
    enroll(m, stores, folders, spread, "rsync")
    for _ in range(ops):
        wl.step(between=between)
    log(f"  workload: {wl.summary()}; spreads {state['runs']}")
    log(f"  mid-workload: " + ", ".join(f"{k} {len(v)}" for k, v in sorted(wl.seen.items())))
    spread()
    results["rsync settle passes"] = settle_rounds(m, stores, folders, spread, "rsync")
    results["rsync copies per change"] = converge_checks(m, "rsync", stores, folders, ledger,
                                                         allowed_top=("devices",))


# --------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--ops", type=int, default=150, help="workload steps (Syncthing trial)")
    ap.add_argument("--bin", default=None)
    ap.add_argument("--no-unison", action="store_true")
    ap.add_argument("--no-rsync", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = ap.parse_args()

    built = [os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".build", kind, "marginalia")
             for kind in ("release", "debug")]
    binary = args.bin or os.environ.get("MARGINALIA_BIN") or next(
        (path for path in built if os.path.exists(path)), None) or shutil.which("marginalia")
    for tool in ("syncthing", "faketime"):
        if not shutil.which(tool):
            sys.exit(f"{tool} is not installed (apt-get install -y syncthing faketime)")
    seed = args.seed if args.seed is not None else int(time.time())
    log(f"seed {seed}  (repeat with --seed {seed})")
    log(f"marginalia {binary}")
    base = tempfile.mkdtemp(prefix="marginalia-sync-trial-")
    log(f"work dir {base}")
    # keep the bundled sample's cache inside the work dir, so the trial touches nothing of the user's
    os.environ["XDG_CACHE_HOME"] = os.path.join(base, "cache")
    os.environ.pop("MARGINALIA_STORE", None)
    m = Marginalia(binary)
    rng = random.Random(seed)
    results = {"seed": seed}
    t0 = time.time()
    try:
        scratch = os.path.join(base, "scratch.db")
        passages_pool_cache.extend(passages_pool(m, scratch, random.Random(seed)))
        try:
            syncthing_trial(m, base, random.Random(seed), args.ops, results)
        except Exception as e:  # report and carry on with the variants
            check(False, "syncthing trial ran to its end", repr(e)[:800])
        if not args.no_unison:
            try:
                unison_trial(m, base, random.Random(seed + 1), max(40, args.ops // 2), results)
            except Exception as e:
                check(False, "unison variant ran to its end", repr(e)[:800])
        if not args.no_rsync:
            try:
                rsync_trial(m, base, random.Random(seed + 2), max(40, args.ops // 2), results)
            except Exception as e:
                check(False, "rsync variant ran to its end", repr(e)[:800])
    finally:
        log(f"\n== Summary (seed {seed}, {time.time() - t0:.0f}s, {m.calls} marginalia calls)")
        if m.sync_stderr:
            log(f"  sync rounds said on stderr ({sum(m.sync_stderr.values())} lines), e.g.:")
            for line, n in m.sync_stderr.most_common(8):
                log(f"    {n} x {line}")
        for k, v in results.items():
            if k != "seed":
                log(f"  {k}: {v if not isinstance(v, float) else round(v, 3)}")
        if FAILURES:
            log(f"\n{len(FAILURES)} check(s) FAILED:")
            for f in FAILURES:
                log(f"  - {f}")
        else:
            log("\nall checks passed")
        if args.keep or FAILURES:
            log(f"work dir kept: {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)
    sys.exit(1 if FAILURES else 0)


if __name__ == "__main__":
    main()
