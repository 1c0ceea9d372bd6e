"""tests/run.py: the suite split among workers, unittest's closing lines."""
import importlib.util
import os
import unittest


def load_runner():
    """tests/run.py by its path (bench/run.py shadows the name once a test puts bench/ on sys.path)."""
    spec = importlib.util.spec_from_file_location("tests_run", os.path.join(os.path.dirname(__file__), "run.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


run = load_runner()


class DealTest(unittest.TestCase):
    def test_the_slowest_classes_go_to_the_least_loaded_worker(self):
        classes = {"a.Slow": 1, "a.Mid": 1, "b.Quick": 1, "b.Quicker": 1}
        times = {"a.Slow": 10.0, "a.Mid": 6.0, "b.Quick": 3.0, "b.Quicker": 2.0}
        buckets = run.deal(classes, 2, times)
        self.assertEqual(sorted(map(sorted, buckets)), [["a.Mid", "b.Quick", "b.Quicker"], ["a.Slow"]])

    def test_unknown_classes_are_costed_by_their_methods_and_none_is_lost(self):
        classes = {"m.C%d" % i: i + 1 for i in range(7)}
        buckets = run.deal(classes, 3, {})
        self.assertEqual(sorted(c for b in buckets for c in b), sorted(classes))
        self.assertEqual(len(buckets), 3)
        self.assertIn("m.C6", buckets[0])  # the biggest first

    def test_more_workers_than_classes_starts_no_empty_worker(self):
        self.assertEqual(run.deal({"m.C": 2}, 4, {}), [["m.C"]])


class ClosingLinesTest(unittest.TestCase):
    def totals(self, **kw):
        base = dict.fromkeys(("ran", "failures", "errors", "skipped", "expected_failures",
                              "unexpected_successes"), 0)
        base.update(kw)
        return base

    def test_a_passing_run_ends_as_unittest_does(self):
        text, ok = run.closing_lines(self.totals(ran=12, skipped=2), 3.5)
        self.assertTrue(ok)
        self.assertIn("Ran 12 tests in 3.500s", text)
        self.assertTrue(text.endswith("\nOK (skipped=2)\n"))

    def test_a_failure_or_error_fails_the_run(self):
        for kw in ({"failures": 1}, {"errors": 2}, {"unexpected_successes": 1}):
            text, ok = run.closing_lines(self.totals(ran=5, **kw), 1.0)
            self.assertFalse(ok)
            self.assertIn("FAILED (", text)


if __name__ == "__main__":
    unittest.main()
