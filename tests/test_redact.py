"""Redaction (issue 39): one list of secret shapes, each format tested on its
own, ordinary prose left alone, and every pattern linear in its input (a
run that a pattern could rescan from each of its characters costs no more,
as a ratio to an ordinary line of the same length, than a generous bound)."""
import unittest

from helpers import best_time
from memsuite.text.redact import redact

# (text, the secret part that must not survive)
FORMATS = [
    ("https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/abcdefghijklmnopqrstuvwx", "abcdefghijklmnopqrstuvwx"),
    ("SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123456789abcdefg", "abcdefghijklmnopqrstuv"),
    ("token ya29.a0AfH6SMBxyzabcdefghijklmnop", "a0AfH6SMBxyzabcdefghijklmnop"),
    ("bot MTA4NzY1NDMyMTAxMjM0NTY3OA.GhIjKl.abcdefghijklmnopqrstuvwxyz0123", "abcdefghijklmnopqrstuvwxyz0123"),
    ("rk_test_abcdefghijklmnop1234", "abcdefghijklmnop1234"),
    ("sk_live_abcdefghijklmnop1234", "abcdefghijklmnop1234"),
    ("redis://:hunter2pw@localhost:6379", "hunter2pw"),
    ("https://bob:pa/ss/word@example.com/x", "pa/ss/word"),
    ("https://bob:pa55w0rd@example.com/x", "pa55w0rd"),
    ('password="my secret pass phrase"', "my secret pass phrase"),
    ("passphrase: tango-foxtrot", "tango-foxtrot"),
    ("pw: hunter22", "hunter22"),
    ("curl -u admin:hunter22 https://example.com", "hunter22"),
    ("sshpass -p hunter22 ssh host", "hunter22"),
    ("mysql -u root -phunter22 shop", "hunter22"),
    ("the key 0123456789abcdef0123456789abcdef", "0123456789abcdef0123456789abcdef"),
    ("密码hunter22", "hunter22"),
    ("我的密码是 abc12345", "abc12345"),
    ("WiFi密码是12345678", "12345678"),
    ("key sk-proj-abcdefghijklmnopqrstuvwx1234", "abcdefghijklmnopqrstuvwx"),
    ("sk-ant-api03-abcdefghijklmnopqrstuvwx", "abcdefghijklmnopqrstuvwx"),
    ("token=ghp_abcdefghijklmnopqrstuvwxyz012345", "abcdefghijklmnopqrstuvwxyz"),
    ("glpat-abcdefghijklmnopqrst", "abcdefghijklmnopqrst"),
    ("xoxb-123456789012-abcdefghij", "abcdefghij"),
    ("AWS AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    ("AIzaSyAbcdefghijklmnopqrstuvwxyz0123456", "SyAbcdefghijklmnopqrstuvwxyz"),
    ("hf_abcdefghijklmnopqrstuvwxyz", "abcdefghijklmnopqrstuvwxyz"),
    ("npm_abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijklmnopqrstuvwxyz"),
    ("pypi-AgEIcHlwaS5vcmcCJGabcdefghijklmnopqrstuvwxyz0123", "AgEIcHlwaS5vcmcCJGabcdefghijklmnop"),
    ("shpat_0123456789abcdef0123456789abcdef", "0123456789abcdef0123456789abcdef"),
    ("key-0123456789abcdef0123456789abcdef", "0123456789abcdef0123456789abcdef"),
    ("Authorization: Basic dXNlcjpwYXNz", "dXNlcjpwYXNz"),
    ("Bearer abcdefghijklmnop", "abcdefghijklmnop"),
    ("eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.SflKxwRJSMeKKF2QT4", "SflKxwRJSMeKKF2QT4"),
    ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----", "b3BlbnNzaC1rZXk"),
    ("mysql --password hunter2", "hunter2"),
]

ORDINARY = ["the token budget is 500", "passwords should be rotated", "a secret recipe for 饺子",
            "Authorization is handled by the gateway", "git commit 0123456789abcdef0123456789abcdef01234567",
            "https://example.com:8080/a/b@c", "sort -u names.txt", "really…okay, wait… what",
            "密码管理器很好用", "ssh -p 2222 host"]


class FormatsTest(unittest.TestCase):
    def test_each_format_is_redacted(self):
        for text, secret in FORMATS:
            out = redact(text)
            self.assertIn("[redacted]", out, text)
            self.assertNotIn(secret, out, text)

    def test_each_format_inside_a_sentence(self):
        for text, secret in FORMATS:
            out = redact("before it, %s, and after" % text)
            self.assertNotIn(secret, out, text)
            self.assertTrue(out.startswith("before it,"), out)

    def test_ordinary_text_stays(self):
        for text in ORDINARY:
            self.assertEqual(redact(text), text)


# runs a backtracking pattern could rescan from each of their characters
ADVERSARIAL_UNITS = ["_", "x_", "+", "a-", "://a:", "://:b", "eyJ-", "SG.", "M", "-u a", "sshpass ", "mysql ",
                     "密码", "password ", "pw \"", "0a-", "a…", "hooks.slack.com/services/"]


class LinearTest(unittest.TestCase):
    """Not a timing assertion: a ratio between two lines of the same length in
    one run; a pattern rescanning a run is hundreds of times slower at 50 KB."""
    SIZE = 50000
    BOUND = 25

    def test_adversarial_runs_cost_like_an_ordinary_line(self):
        n = self.SIZE
        ordinary = ("the quick brown fox jumps over the lazy dog " * (n // 44 + 1))[:n]
        base = max(best_time(lambda: redact(ordinary)), 1e-4)
        for unit in ADVERSARIAL_UNITS:
            line = (unit * (n // len(unit) + 1))[:n]
            ratio = best_time(lambda: redact(line), runs=1) / base
            self.assertLess(ratio, self.BOUND, (unit, ratio))


if __name__ == "__main__":
    unittest.main()
