"""Run the whole test suite on every core: `python3 tests/run.py`.

The same tests as `python3 -m unittest discover -s tests`, split among one
worker process per core (at most 4): test classes are dealt out, the slowest
first, using the times of the last run (kept in ~/.cache/memory-suite), so the
workers finish together.  Prints unittest's own closing lines ("Ran N tests",
"OK" or "FAILED (...)"); exit code 0 only when every worker passed.

    python3 tests/run.py                 # everything
    python3 tests/run.py test_search     # some modules (or module.Class)
    python3 tests/run.py --workers 1     # one process, as discover does
"""
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

TESTS = os.path.dirname(os.path.abspath(__file__))
TIMES = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
                     "memory-suite", "test-times.json")


def test_classes(names):
    """{"module.Class": number of test methods} for the named modules (all when none)."""
    sys.path.insert(0, TESTS)
    loader = unittest.TestLoader()
    suite = loader.loadTestsFromNames(names) if names else loader.discover(TESTS)
    found = {}

    def walk(s):
        for t in s:
            if isinstance(t, unittest.TestSuite):
                walk(t)
            else:
                key = type(t).__module__ + "." + type(t).__name__
                found[key] = found.get(key, 0) + 1
    walk(suite)
    return found


def deal(classes, workers, last_times):
    """Buckets of class names, the slowest first into the least loaded bucket."""
    cost = {c: last_times.get(c, 0.3 * n) for c, n in classes.items()}  # unknown: 0.3 s a method
    buckets = [[0.0, []] for _ in range(workers)]
    for c in sorted(cost, key=cost.get, reverse=True):
        least = min(buckets, key=lambda b: b[0])
        least[0] += cost[c]
        least[1].append(c)
    return [names for _, names in buckets if names]


def read_times():
    try:
        with open(TIMES, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def save_times(times):
    try:
        os.makedirs(os.path.dirname(TIMES), exist_ok=True)
        with open(TIMES, "w", encoding="utf-8") as f:
            json.dump(times, f)
    except OSError:
        pass  # a read-only home only loses the balance of the next run


def run_worker(names, times_file):
    """In a worker: run these classes, unittest's output on stderr, each class's time to times_file."""
    sys.path.insert(0, TESTS)
    suite = unittest.TestLoader().loadTestsFromNames(names)
    spent = {}

    class TimedResult(unittest.TextTestResult):
        def startTest(self, test):
            self._started = time.perf_counter()
            super().startTest(test)

        def stopTest(self, test):
            key = type(test).__module__ + "." + type(test).__name__
            spent[key] = spent.get(key, 0.0) + time.perf_counter() - self._started
            super().stopTest(test)

    result = unittest.TextTestRunner(resultclass=TimedResult).run(suite)
    with open(times_file, "w", encoding="utf-8") as f:
        json.dump({"spent": spent, "ran": result.testsRun, "failures": len(result.failures),
                   "errors": len(result.errors), "skipped": len(result.skipped),
                   "expected_failures": len(result.expectedFailures),
                   "unexpected_successes": len(result.unexpectedSuccesses)}, f)
    return 0 if result.wasSuccessful() else 1


def start_workers(buckets, tmp):
    procs = []
    for i, names in enumerate(buckets):
        out = os.path.join(tmp, "w%d.json" % i)
        log = open(os.path.join(tmp, "w%d.log" % i), "w+", encoding="utf-8")
        proc = subprocess.Popen([sys.executable, __file__, "--worker", out] + names,
                                cwd=os.path.dirname(TESTS), stdout=log, stderr=subprocess.STDOUT)
        procs.append((proc, out, log))
    return procs


def closing_lines(totals, seconds):
    extra = ["%s=%d" % (k, totals[k]) for k in ("failures", "errors", "skipped", "expected_failures",
                                                 "unexpected_successes") if totals[k]]
    ok = not (totals["failures"] or totals["errors"] or totals["unexpected_successes"])
    verdict = ("OK" if ok else "FAILED") + (" (%s)" % ", ".join(extra) if extra else "")
    return "-" * 70 + "\nRan %d tests in %.3fs\n\n%s\n" % (totals["ran"], seconds, verdict), ok


def main(argv):
    if argv[:1] == ["--worker"]:
        return run_worker(argv[2:], argv[1])
    workers = min(os.cpu_count() or 1, 4)
    if argv[:1] == ["--workers"]:
        workers, argv = max(1, int(argv[1])), argv[2:]
    started = time.perf_counter()
    classes = test_classes(argv)
    last = read_times()
    totals = dict.fromkeys(("ran", "failures", "errors", "skipped", "expected_failures",
                            "unexpected_successes"), 0)
    failed_workers = 0
    with tempfile.TemporaryDirectory(prefix="memtests-") as tmp:
        for n, (proc, out, log) in enumerate(start_workers(deal(classes, workers, last), tmp), 1):
            code = proc.wait()
            log.seek(0)
            text = log.read()
            log.close()
            try:
                with open(out, encoding="utf-8") as f:
                    report = json.load(f)
            except (OSError, ValueError):
                report = {"spent": {}, "errors": 1}  # the worker died before it could report
            if code or report.get("errors") or report.get("failures"):
                failed_workers += 1
                sys.stderr.write(text)  # the worker's own account of what failed
            for k in totals:
                totals[k] += report.get(k, 0)
            sys.stderr.write("worker %d: %d tests, %s, done after %.1f s\n" % (
                n, report.get("ran", 0), "ok" if not (code or report.get("errors") or report.get("failures"))
                else "FAILED", time.perf_counter() - started))
            last.update(report["spent"])
    save_times(last)
    lines, ok = closing_lines(totals, time.perf_counter() - started)
    sys.stderr.write(lines)
    return 0 if ok and not failed_workers else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
