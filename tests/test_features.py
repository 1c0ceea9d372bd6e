"""The fitted scorer's inputs (search/features.py, issue 36 item 1) and its
fitting script (data/fit-ranker.py): each candidate's features say what it
holds of the query, and the fit learns which of them tell a right chunk."""
import importlib.util
import json
import os
import random
import tempfile
import unittest

from helpers import ROOT, SyncedMemory
from memsuite.search.features import FEATURES


def three_sets(fr, dump, n):
    """The records of three made-up sets a, b and c of n questions, each dumped by dump(folder, name, n, seed)."""
    with tempfile.TemporaryDirectory() as tmp:
        for k, name in enumerate(("a", "b", "c")):
            dump(tmp, name, n, k)
        return fr.load(tmp)


def fit_ranker():
    spec = importlib.util.spec_from_file_location("fit_ranker", os.path.join(ROOT, "data", "fit-ranker.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class CandidateFeaturesTest(SyncedMemory):
    files = {
        "memory/2026-03-01.md": "# 2026-03-01\n\n- 张伟的电话是 13812345678。\n\n## 别的\n\n- 天气很好。\n",
        "memory/2026-03-02.md": "# 2026-03-02\n\n- 李娜的电话换了，新号码还没记。\n",
        "memory/2026-03-03.md": "# 2026-03-03\n\n- 张伟下周去杭州出差。\n",
        "memory/2026-03-04.md": "# 2026-03-04\n\n- Kafka: the queue between the billing service and reports.\n",
    }

    def features(self, query):
        import memory_search
        hits = memory_search.search(self.store, query, min_score=0)
        _, _, rows = hits.ranked
        return {rows[k].path: dict(zip(FEATURES, v)) for k, v in hits.features().items()}

    def test_every_feature_is_a_number_in_the_unit_range(self):
        for query in ("张伟的电话", "Kafka queue", "2026年3月3日 杭州", "what happened with the billing reports"):
            for path, feats in self.features(query).items():
                self.assertEqual(len(feats), len(FEATURES))
                for name, value in feats.items():
                    self.assertTrue(0.0 <= value <= 1.0, (query, path, name, value))

    def test_holding_the_whole_query_in_one_line_beats_holding_part(self):
        feats = self.features("张伟的电话")
        whole, part = feats["memory/2026-03-01.md"], feats["memory/2026-03-03.md"]
        self.assertGreater(whole["held"], part["held"])
        self.assertGreater(whole["proximity"], part["proximity"])

    def test_the_frame_without_the_topic_is_marked(self):
        feats = self.features("张伟的电话")
        self.assertEqual(feats["memory/2026-03-02.md"]["frame_only"], 1.0)  # someone else's phone
        self.assertEqual(feats["memory/2026-03-01.md"]["frame_only"], 0.0)

    def test_a_line_labelled_by_a_query_word(self):
        feats = self.features("Kafka queue")
        self.assertEqual(feats["memory/2026-03-04.md"]["label"], 1.0)

    def test_the_day_a_question_names(self):
        feats = self.features("2026年3月3日 张伟")
        self.assertEqual(feats["memory/2026-03-03.md"]["asked_day"], 1.0)
        self.assertEqual(feats["memory/2026-03-01.md"]["asked_day"], 0.0)

    def test_the_newest_file_among_the_candidates(self):
        feats = self.features("张伟")
        self.assertGreater(feats["memory/2026-03-03.md"]["newest"], feats["memory/2026-03-01.md"]["newest"])


class FitRankerTest(unittest.TestCase):
    """The fit on made-up dumps: one feature tells the right candidate, the
    others are noise; the rules' order (the recorded rank) is random."""

    def dump(self, folder, name, n, seed):
        rng = random.Random(seed)
        signal = FEATURES.index("proximity")
        with open(os.path.join(folder, name + ".jsonl"), "w", encoding="utf-8") as f:
            for i in range(n):
                right = rng.randrange(10)
                cands = []
                for j, rank in enumerate(rng.sample(range(10), 10)):
                    feats = [rng.random() * 0.5 for _ in FEATURES]
                    feats[FEATURES.index("chat_turn")] = float(i % 4 < 2)
                    feats[signal] = 0.6 + 0.4 * rng.random() if j == right else 0.6 * rng.random()
                    cands.append([feats, int(j == right), int(j == right), rank])
                f.write(json.dumps({"set": name, "split": "tune" if i % 2 else "held", "query": "q%d" % i,
                                    "cands": cands}) + "\n")

    def test_the_fit_learns_the_telling_feature_and_beats_a_random_order(self):
        fr = fit_ranker()
        data = three_sets(fr, self.dump, 40)
        with tempfile.TemporaryDirectory() as tmp:
            columns = list(range(len(FEATURES)))
            table = fr.lodo(data, columns, "tune")
            for name, (rules, model, tops) in table.items():
                self.assertGreater(model["MRR"], rules["MRR"] + 0.2, name)
                self.assertEqual(len(tops), 20)
            betas = fr.fit_regimes([data[s] for s in sorted(data)], columns)
            weights = dict(zip(FEATURES, betas["question"]))
            self.assertEqual(max(weights, key=weights.get), "proximity")
            path = os.path.join(tmp, "ranker.txt")
            fr.write(path, columns, betas, data, "test")
            with open(path, encoding="utf-8") as f:
                lines = [line for line in f if not line.startswith("#")]
            self.assertEqual(len(lines), len(FEATURES) + 1)  # every feature and the bias
            self.assertEqual(lines[-1].split("\t")[0], "bias")

    def test_the_fit_without_numpy_agrees(self):
        fr = fit_ranker()
        rng = random.Random(7)
        X = [[rng.random(), rng.random(), 1.0] for _ in range(300)]
        y = [int(row[0] + 0.2 * rng.random() > 0.6) for row in X]
        w = [1.0 / len(X)] * len(X)
        plain = fr._fit_plain(X, y, w, iterations=400, rate=5.0)
        self.assertGreater(plain[0], 1.0)  # the feature that tells
        self.assertLess(abs(plain[1]), plain[0] / 3)  # the noise


class FitTreesTest(unittest.TestCase):
    """The boosted trees on made-up dumps where what tells the right
    candidate depends on a gate: in a chat turn one feature does, in a
    question another; the rules' order (the recorded rank) is random."""

    def dump(self, folder, name, n, seed):
        rng = random.Random(seed)
        turn, by_turn, by_question = (FEATURES.index(f) for f in ("chat_turn", "file", "heading"))
        with open(os.path.join(folder, name + ".jsonl"), "w", encoding="utf-8") as f:
            for i in range(n):
                right, is_turn = rng.randrange(8), i % 4 < 2
                cands = []
                for j, rank in enumerate(rng.sample(range(8), 8)):
                    feats = [rng.random() for _ in FEATURES]
                    feats[turn] = float(is_turn)
                    telling = by_turn if is_turn else by_question
                    feats[telling] = 0.7 + 0.3 * rng.random() if j == right else 0.7 * rng.random()
                    cands.append([feats, int(j == right), int(j == right), rank])
                f.write(json.dumps({"set": name, "split": "tune" if i % 2 else "held", "query": "q%d" % i,
                                    "cands": cands}) + "\n")

    def test_the_trees_learn_the_gate_and_beat_a_random_order(self):
        try:
            import numpy  # noqa: F401  (fitting needs it; the search never does)
        except ImportError:
            self.skipTest("numpy is not installed")
        fr = fit_ranker()
        data = three_sets(fr, self.dump, 80)
        columns = list(range(len(FEATURES)))
        for loss in sorted(fr.LOSSES):
            table = fr.lodo_trees(data, columns, "tune", {"trees": 20, "depth": 2, "shrink": 0.3, "loss": loss})
            for name, (rules, model, _) in table.items():
                self.assertGreater(model["MRR"], rules["MRR"] + 0.3, (loss, name))
        model = fr.fit_trees([data[s] for s in sorted(data)], columns, {"trees": 5, "depth": 2})
        def splits(tree):
            return [tree[0]] + splits(tree[2]) + splits(tree[3]) if isinstance(tree, list) else []
        used = [f for tree in model["trees"] for f in splits(tree)]
        for name in ("chat_turn", "file", "heading"):  # the gate and what tells on each side of it
            self.assertIn(FEATURES.index(name), used)

    def test_the_written_trees_score_a_candidate_in_plain_python(self):
        try:
            import numpy  # noqa: F401
        except ImportError:
            self.skipTest("numpy is not installed")
        import contextlib
        import io
        fr = fit_ranker()
        with tempfile.TemporaryDirectory() as tmp:
            for k, name in enumerate(("a", "b")):
                self.dump(tmp, name, 40, k)
            path = os.path.join(tmp, "trees.json")
            with contextlib.redirect_stdout(io.StringIO()) as out:
                fr.main(["--dumps", tmp, "--trees", "3", "--split", "tune", "--stack", "--write", path])
            with open(path, encoding="utf-8") as f:
                model = json.load(f)
            cand = fr.load(tmp)["a"][0]["cands"][0]
        self.assertIn("| a |", out.getvalue())  # the left-out table
        self.assertEqual(len(model["trees"]), 4)  # the base rate and three trees
        self.assertEqual(model["features"][-1], fr.STACK)
        self.assertIsInstance(fr.tree_score(model, fr.stacked(cand)), float)

    def test_a_tree_sends_a_value_at_its_threshold_left(self):
        fr = fit_ranker()
        tree = [1, 0.5, [0, 0.2, -1.0, 2.0], 3.0]
        self.assertEqual(fr.tree_value(tree, [0.1, 0.5]), -1.0)
        self.assertEqual(fr.tree_value(tree, [0.3, 0.4]), 2.0)
        self.assertEqual(fr.tree_value(tree, [0.3, 0.6]), 3.0)
        self.assertEqual(fr.tree_score({"trees": [tree, 0.25]}, [0.3, 0.6]), 3.25)


if __name__ == "__main__":
    unittest.main()


class ReliabilityTableTest(unittest.TestCase):
    """bench/calibration.py's reliability table: each band of top-hit scores
    and the share of it that is right, per half."""

    def test_each_band_counts_its_own_questions(self):
        import sys
        sys.path.insert(0, os.path.join(ROOT, "bench"))
        import calibration
        answerable = [("tune", True, 0.42), ("tune", False, 0.45), ("tune", False, 0.47), ("held", True, 0.95),
                      ("held", True, 1.0), ("tune", True, 0.05)]
        rows = {line.split(" |")[0].strip("| "): line for line in calibration.reliability("x", answerable).split("\n")
                if line.startswith("| 0.")}
        self.assertIn("0.333 (3)", rows["0.4-0.5"])  # one of three right
        self.assertIn("1.000 (2)", rows["0.9-1.0"])  # a score of 1 is in the top band
        self.assertIn("1.000 (1)", rows["0.0-0.1"])
        self.assertEqual(rows["0.5-0.6"].count("-"), 3)  # no question there, in either half
