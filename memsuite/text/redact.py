"""Secrets out of text: API keys, tokens, passwords, private keys and
user:password@ in URLs replaced by [redacted].  Applied to everything the
suite sends out on its own (the SessionStart brief, prompt recall, entities,
the page, indexed transcripts) and to captured sessions.

redact(text) -> text with secrets replaced by [redacted].
"""
import re

_SECRET_PATTERNS = [
    # private keys, whole (or to the end of the text when cut)
    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)",
    r"(?i)\b(?:authorization|proxy-authorization)\s*[:=]\s*(?:(?:bearer|basic|token|digest)\s+)?[^\s\"',;]+",
    r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{12,}",
    r"\b(?:sk|pk|rk)-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{16,}",
    r"\bgh[pousr]_[A-Za-z0-9]{20,}", r"\bgithub_pat_[A-Za-z0-9_]{20,}",
    r"\bglpat-[A-Za-z0-9_-]{16,}", r"\bxox[abposr]-[A-Za-z0-9-]{10,}",
    r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", r"\bAIza[0-9A-Za-z_-]{30,}",
    r"\bhf_[A-Za-z0-9]{20,}", r"\bnpm_[A-Za-z0-9]{30,}", r"\b[rs]k_live_[A-Za-z0-9]{16,}",
    r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",  # JWT
    r"(?<=://)[^/\s:@]+:[^/\s@]+(?=@)",  # user:password@ in a URL
    # key = value, key: value, --password value, for secret-sounding keys
    r"(?i)(?<![A-Za-z0-9])(?:[A-Za-z0-9_]*(?:passw(?:or)?d|passwd|pwd|secret|token|api[_-]?key|apikey|"
    r"access[_-]?key|private[_-]?key|client[_-]?secret|credential)s?)[\"']?(?:\s*[:=：]\s*|\s+(?:is|was)\s+|\s*(?:是|为)\s*)[\"']?"
    r"[^\s\"',;]{4,}",
    # long random-looking tokens: upper and lower case letters and digits, 32+ characters
    r"(?<![\w/.-])(?=[A-Za-z0-9+/_-]*[A-Z])(?=[A-Za-z0-9+/_-]*[a-z])(?=[A-Za-z0-9+/_-]*\d)"
    r"[A-Za-z0-9+/_-]{32,}={0,2}(?![\w/.-])",
    r"(?i)--?(?:password|passwd|pwd|token|secret|api-?key|access-key)[= ]\S{3,}",
    # the same in Chinese: 密码是 xxx, 密钥：xxx, 令牌 xxx
    r"(?:密码|口令|密钥|秘钥|令牌|私钥)\s*(?:是|为|:|：|=)\s*[^\s，。,;；]{4,}",
    # a secret another tool already masked, its first 6 and last 4 characters kept
    # (OpenClaw's transcripts: sk-ant…2345); a digit, - or _ tells it from "really…okay"
    r"(?<![\w…])(?=[\w+/=.:-]{0,5}[\d_-]|[\w+/=.:-]{6}…[\w+/=.-]{0,3}[\d_-])[\w+/=.:-]{6}…[\w+/=.-]{4}(?![\w…])",
]
_secret_re = None


def redact(text):
    """text with every secret-looking piece replaced by [redacted]."""
    global _secret_re
    if _secret_re is None:
        key, rest = _SECRET_PATTERNS[0], _SECRET_PATTERNS[1:]
        _secret_re = (re.compile(key, re.S), re.compile("|".join(
            ("(?i:%s)" % p[4:]) if p.startswith("(?i)") else "(?:%s)" % p for p in rest), re.S))
    for pattern in _secret_re:  # private keys first: a label before one must not hide its body
        text = pattern.sub("[redacted]", text)
    return text
