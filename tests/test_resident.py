"""The resident process that serves the hooks (doors/resident.py, hook_client.py):
a hook it serves prints and writes exactly what the cold path does; a resident
that is dead, stopped, or goes quiet or away in the middle of a hook leaves the
hook to the cold path; it goes away when its code changes; and it is used only
from a folder that is this user's alone."""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from helpers import ROOT, clean_env  # noqa: E402

NOTES = {
    "MEMORY.md": "# Long-term\n\n- The blog's RSS feed is served from /feed.xml.\n",
    "memory/2026-02-19.md": "# 2026-02-19\n\n- 博客的RSS配置改成了每小时更新一次。\n- Passport pick-up slip number is 4471.\n",
}


def _write_notes(folder):
    for rel, text in NOTES.items():
        path = os.path.join(folder, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


def _transcript(path):
    with open(path, "w", encoding="utf-8") as f:
        for role, text in (("user", "Remember that my locker code is 5521."), ("assistant", "Noted: 5521.")):
            f.write(json.dumps({"type": role, "message": {"role": role, "content": text}}) + "\n")


class ResidentCase(unittest.TestCase):
    suite = ROOT

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="res-")
        self.run_dir = os.path.join(self.tmp, "run")
        os.makedirs(self.run_dir, mode=0o700)
        self.home = os.path.join(self.tmp, "home")
        os.makedirs(self.home)

    def tearDown(self):
        for pid in self.resident_pids():
            try:
                os.kill(pid, signal.SIGCONT)
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        shutil.rmtree(self.tmp, ignore_errors=True)

    def env(self, memory, resident=True, **extra):
        return clean_env(MEMORY_DIR=memory, HOME=self.home, XDG_RUNTIME_DIR=self.run_dir,
                         XDG_CACHE_HOME=os.path.join(self.home, "cache"),
                         MEMORY_RESIDENT="1" if resident else "0", **extra)

    def folder(self, name):
        path = os.path.join(self.tmp, name, "notes")  # one name: what a hook prints may carry it
        _write_notes(path)
        return path

    def hook(self, memory, event, args=(), resident=True, **extra):
        p = subprocess.run([os.path.join(self.suite, "search.sh"), "hook"] + list(args),
                           input=json.dumps(event).encode(), capture_output=True, timeout=60,
                           env=self.env(memory, resident, **extra), cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout.decode("utf-8")

    def sockets(self, folders=None):
        found = []
        for folder in folders or (os.path.join(self.run_dir, "memory-suite"),
                                  os.path.join(self.home, "cache", "memory-suite", "run")):
            if os.path.isdir(folder):
                found += [os.path.join(folder, n) for n in sorted(os.listdir(folder)) if n.endswith(".sock")]
        return found

    def resident_pids(self):
        from memsuite.doors.resident import read_pid_file
        return [pid for pid, _ in (read_pid_file(sock + ".pid") for sock in self.sockets()) if pid]

    def wait_for_resident(self, other_than=None):
        """Its pid, once a hook started one and it answers (other_than: a
        killed one's, whose pid file may outlive it until the next writes its own)."""
        for _ in range(200):
            pids = self.resident_pids()
            if pids and pids[0] != other_than and self._answers(self.sockets()[0]):
                return pids[0]
            time.sleep(0.05)
        self.fail("no resident came up")

    @staticmethod
    def _answers(path):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
            return True
        except OSError:
            return False
        finally:
            s.close()

    def started(self, memory):
        """A resident started by one hook, and its pid."""
        self.hook(memory, {"hook_event_name": "UserPromptSubmit", "session_id": "starter", "prompt": "hello there"})
        return self.wait_for_resident()


class SameAsColdTest(ResidentCase):
    def events(self, folder):
        transcript = os.path.join(folder, "session.jsonl")
        _transcript(transcript)
        common = {"session_id": "s-1", "cwd": folder, "transcript_path": transcript}
        return [
            ({"hook_event_name": "SessionStart", "source": "startup"}, ()),
            ({"hook_event_name": "UserPromptSubmit", "prompt": "What was my passport pick-up slip number?"}, ()),
            ({"hook_event_name": "UserPromptSubmit", "prompt": "博客RSS配置"}, ()),
            ({"hook_event_name": "PreCompact", "trigger": "manual"}, ()),
            ({"hook_event_name": "SessionStart", "source": "compact"}, ()),
        ], common

    def test_each_event_prints_and_writes_what_the_cold_path_does(self):
        outputs = {}
        same = lambda text, folder: re.sub(r"\b\d\d:\d\d\b", "HH:MM", text.replace(folder, "FOLDER"))  # noqa: E731
        for mode in ("cold", "resident"):
            folder = self.folder(mode)
            if mode == "resident":
                self.started(folder)
                before = self.served()
            events, common = self.events(folder)
            printed = [same(self.hook(folder, dict(e, **common), args, resident=mode == "resident"), folder)
                       for e, args in events]
            files = {}
            for base, _, names in os.walk(os.path.join(folder, "memory")):
                for n in names:
                    with open(os.path.join(base, n), encoding="utf-8") as f:
                        files[os.path.relpath(os.path.join(base, n), folder)] = same(f.read(), folder)
            outputs[mode] = (printed, files)
        self.assertEqual(self.served(before + len(events)) - before, len(events))  # every one through the resident, none alone
        self.assertTrue(any("4471" in p for p in outputs["cold"][0]), outputs["cold"][0])  # recall found it at all
        self.assertTrue(any("5521" in t for t in outputs["cold"][1].values()), outputs["cold"][1])  # the capture
        self.assertEqual(outputs["cold"], outputs["resident"])

    def served(self, expected=0):
        """The resident's count of hooks served, once it reaches `expected`:
        a fork counts its hook just after the client has its answer."""
        from memsuite.doors.resident import read_pid_file
        count = None
        for _ in range(60):
            counts = [read_pid_file(sock + ".pid")[1] for sock in self.sockets()]
            count = counts[0] if counts else None
            if count is not None and count >= expected:
                break
            time.sleep(0.05)
        if count is None:
            self.fail("no resident counts its hooks")
        return count

    def test_the_hooks_time_zone_not_the_residents(self):
        """A day boundary lies between UTC-12 and UTC+14 at every hour: the
        capture's file is named for the hook's own day."""
        names = {}
        for mode in ("cold", "resident"):
            folder = self.folder("tz-" + mode)
            if mode == "resident":
                self.hook(folder, {"hook_event_name": "UserPromptSubmit", "session_id": "tz", "prompt": "hi there"},
                          TZ="Etc/GMT+12")
                self.wait_for_resident()
            transcript = os.path.join(folder, "t.jsonl")
            _transcript(transcript)
            self.hook(folder, {"hook_event_name": "PreCompact", "session_id": "tz-1", "transcript_path": transcript},
                      resident=mode == "resident", TZ="Etc/GMT-14")
            names[mode] = sorted(n for n in os.listdir(os.path.join(folder, "memory")) if "session" in n)
        self.assertTrue(names["cold"])
        self.assertEqual(names["cold"], names["resident"])

    def test_detach_on_a_prompt_is_ignored_as_alone(self):
        folder = self.folder("detach-prompt")
        self.started(folder)
        ask = {"hook_event_name": "UserPromptSubmit", "session_id": "dp", "prompt": "passport pick-up slip number"}
        self.assertIn("4471", self.hook(folder, ask, args=["--detach"]))

    def test_each_hook_gets_its_own_environment_and_folder(self):
        first, second = self.folder("one"), self.folder("two")
        with open(os.path.join(second, "memory", "2026-02-20.md"), "w", encoding="utf-8") as f:
            f.write("# 2026-02-20\n\n- The tram pass renewal code is QX-88.\n")
        self.started(first)
        ask = {"hook_event_name": "UserPromptSubmit", "session_id": "e-1", "prompt": "tram pass renewal code"}
        self.assertNotIn("QX-88", self.hook(first, ask))
        self.assertIn("QX-88", self.hook(second, dict(ask, session_id="e-2")))

    def test_a_detached_capture_is_done_by_the_resident(self):
        folder = self.folder("detached")
        self.started(folder)
        transcript = os.path.join(folder, "t.jsonl")
        _transcript(transcript)
        self.hook(folder, {"hook_event_name": "SessionEnd", "session_id": "d-1", "transcript_path": transcript},
                  args=["--detach"])
        for _ in range(200):
            found = [n for n in os.listdir(os.path.join(folder, "memory")) if "session" in n]
            if found:
                break
            time.sleep(0.05)
        self.assertTrue(found, "the detached capture wrote nothing")


class StatusTest(ResidentCase):
    def status(self, memory, resident=True):
        p = subprocess.run([os.path.join(self.suite, "search.sh"), "status", "--json"], capture_output=True,
                           timeout=60, env=self.env(memory, resident))
        return json.loads(p.stdout)["resident"]

    def test_status_says_whether_the_resident_serves_the_hooks(self):
        folder = self.folder("status")
        self.assertEqual(self.status(folder)["state"], "none")
        pid = self.started(folder)
        self.hook(folder, {"hook_event_name": "UserPromptSubmit", "session_id": "st", "prompt": "RSS feed"})
        shown = self.status(folder)
        self.assertEqual((shown["state"], shown["pid"]), ("running", pid))
        self.assertGreaterEqual(shown["served"], 1)
        self.assertEqual(self.status(folder, resident=False)["state"], "off")


class FallBackTest(ResidentCase):
    ask = {"hook_event_name": "UserPromptSubmit", "session_id": "f-1",
           "prompt": "What was my passport pick-up slip number?"}

    def test_a_killed_resident_leaves_the_hook_to_the_cold_path_and_is_started_again(self):
        folder = self.folder("killed")
        pid = self.started(folder)
        os.kill(pid, signal.SIGKILL)
        time.sleep(0.1)
        self.assertIn("4471", self.hook(folder, self.ask))
        self.wait_for_resident(other_than=pid)  # a new one comes up (it fails when none does)

    def test_a_stopped_resident_does_not_hold_the_hook(self):
        folder = self.folder("stopped")
        pid = self.started(folder)
        # the spare it forked waits for the next hook: stop the whole group, as a wedged machine would
        os.killpg(os.getpgid(pid), signal.SIGSTOP)
        try:
            self.assertIn("4471", self.hook(folder, self.ask))
        finally:
            os.killpg(os.getpgid(pid), signal.SIGCONT)

    def test_off_switch_starts_nothing(self):
        folder = self.folder("off")
        self.assertIn("4471", self.hook(folder, self.ask, resident=False))
        time.sleep(0.3)
        self.assertEqual(self.resident_pids(), [])

    def test_a_folder_others_can_enter_is_not_used(self):
        os.chmod(self.run_dir, 0o755)
        os.makedirs(os.path.join(self.run_dir, "memory-suite"), mode=0o755)
        os.chmod(os.path.join(self.run_dir, "memory-suite"), 0o755)
        folder = self.folder("open")
        self.assertIn("4471", self.hook(folder, self.ask))
        time.sleep(0.3)
        self.assertEqual(self.sockets([os.path.join(self.run_dir, "memory-suite")]), [])


class GivenUpTest(ResidentCase):
    def children(self, pid):
        """Its forks still running (a zombie has ended: the resident collects it later)."""
        try:
            with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
                kids = [int(n) for n in f.read().split()]
        except OSError:
            self.skipTest("no /proc children list here")
        running = []
        for kid in kids:
            try:
                with open("/proc/%d/stat" % kid) as f:
                    if f.read().rsplit(")", 1)[1].split()[0] != "Z":
                        running.append(kid)
            except OSError:
                pass
        return running

    def test_a_fork_whose_client_gave_up_stops(self):
        from memsuite.doors import hook_client
        folder = self.folder("given-up")
        pid = self.started(folder)
        transcript = os.path.join(folder, "long.jsonl")
        with open(transcript, "w", encoding="utf-8") as f:
            for i in range(60000):  # a capture that takes a few seconds
                f.write(json.dumps({"type": "user", "message": {"role": "user", "content":
                                    "Remember that batch %d goes to bucket %d of the eu-west store." % (i, i)}}) + "\n")
        event = {"hook_event_name": "PreCompact", "session_id": "gu", "transcript_path": transcript, "cwd": folder}
        saved = dict(os.environ)
        try:
            os.environ.clear()
            os.environ.update(self.env(folder))
            request = hook_client.request_bytes([], json.dumps(event).encode())
            path = self.sockets()[0]
        finally:
            os.environ.clear()
            os.environ.update(saved)
        before = set(self.children(pid))
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.connect(path)
        conn.sendall(request)
        self.assertEqual(conn.recv(1), b"R")
        working = [c for c in self.children(pid) if c in before]  # the spare that took it
        self.assertTrue(working)
        conn.close()  # as a client that ran out of patience does
        for _ in range(100):
            if not set(working) & set(self.children(pid)):
                break
            time.sleep(0.05)
        else:
            self.fail("the fork went on with nobody waiting")


class MidTurnTest(ResidentCase):
    """A made-up resident on the socket the hook looks for: it takes the request,
    then dies or goes quiet; the hook's answer is then the cold path's."""

    def fake(self, behaviour):
        from memsuite.doors import hook_client
        env = self.env("/unused")
        saved = dict(os.environ)
        saved_path = sys.path[0]
        try:
            os.environ.clear()
            os.environ.update(env)
            sys.path[0] = os.path.realpath(ROOT)  # as search.sh finds its folder
            path = hook_client.socket_path()
        finally:
            os.environ.clear()
            os.environ.update(saved)
            sys.path[0] = saved_path
        if not path:
            self.skipTest("no private socket folder")
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(path)
        server.listen(4)
        self.addCleanup(server.close)
        with open(path + ".starting", "w"):
            pass  # the hook must not start a real one beside the fake

        def serve():
            try:
                conn, _ = server.accept()
                conn.recv(1 << 20)
                conn.sendall(b"R..")
                if behaviour == "quiet":
                    time.sleep(3)
                conn.close()
            except OSError:
                pass
        threading.Thread(target=serve, daemon=True).start()
        return path

    def check(self, behaviour):
        quiet, served = self.folder(behaviour + "-cold"), self.folder(behaviour)
        cold = self.hook(quiet, FallBackTest.ask, resident=False).replace(quiet, "FOLDER")
        self.fake(behaviour)
        self.assertEqual(self.hook(served, FallBackTest.ask).replace(served, "FOLDER"), cold)
        self.assertIn("4471", cold)

    def test_dies_in_the_middle(self):
        self.check("dies")

    def test_goes_quiet_in_the_middle(self):
        self.check("quiet")


class CodeChangeTest(ResidentCase):
    def setUp(self):
        super().setUp()
        self.suite = os.path.join(self.tmp, "suite")
        os.makedirs(self.suite)
        for name in ("search.sh", "memory_search.py", "memory_store.py", "memory_linker.py"):
            shutil.copy2(os.path.join(ROOT, name), self.suite)
        shutil.copytree(os.path.join(ROOT, "memsuite"), os.path.join(self.suite, "memsuite"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        if os.path.isdir(os.path.join(ROOT, "data")):
            shutil.copytree(os.path.join(ROOT, "data"), os.path.join(self.suite, "data"))

    def test_an_updated_suite_is_not_served_by_the_old_resident(self):
        folder = self.folder("update")
        pid = self.started(folder)
        module = os.path.join(self.suite, "memsuite", "search", "recall.py")
        st = os.stat(module)
        os.utime(module, ns=(st.st_atime_ns, st.st_mtime_ns + 10 ** 9))
        deadline = time.monotonic() + 4  # hooks keep coming: it may never sit idle for its 5 s check
        while time.monotonic() < deadline:
            self.assertIn("4471", self.hook(folder, dict(FallBackTest.ask, session_id="u%f" % time.time())))
            try:
                os.kill(pid, 0)
            except OSError:
                break
        else:
            self.fail("the old resident still serves")


if __name__ == "__main__":
    unittest.main()
