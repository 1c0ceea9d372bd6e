"""Secrets out of text: API keys, tokens, passwords, private keys and
user:password@ in URLs replaced by [redacted].  Applied to everything the
suite sends out on its own (the SessionStart brief, prompt recall, entities,
the page, indexed transcripts) and to captured sessions: this is the one
list of what a secret looks like.

Every pattern is linear in its input: a pattern whose run can fail after
scanning (a token needing a '.' after it) may start only where that run
starts (a look-behind refusing the run's own characters), and a value that
may hold anything (a URL's password) is bounded in length.  bench/redact.py
times them on 1 MB adversarial lines against an ordinary one.

redact(text) -> text with secrets replaced by [redacted].
redact_start(text, chars) -> the start of a long text (to be shown clipped), redacted.
"""
import re

_SECRET_KEYS = (r"passw(?:or)?d|passwd|passphrase|pwd|pw|secret|token|api[_-]?key|apikey|access[_-]?key|"
                r"private[_-]?key|client[_-]?secret|credential|account[_-]?key|shared[_-]?access[_-]?key")
_SECRET_PATTERNS = [
    # private keys, whole (or to the end of the text when cut)
    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)",
    r"(?i)\b(?:authorization|proxy-authorization)\s*[:=]\s*(?:(?:bearer|basic|token|digest)\s+)?[^\s\"',;]+",
    r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{12,}",
    # well-known key prefixes (OpenAI, Anthropic, Stripe, GitHub, GitLab, Slack, AWS, Google,
    # Hugging Face, npm, PyPI, SendGrid, Shopify, DigitalOcean, Square, Mailgun, Twilio, Linear, age)
    r"\b(?:sk|pk|rk)-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{16,}",
    r"\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}",
    r"\bgh[pousr]_[A-Za-z0-9]{20,}", r"\bgithub_pat_[A-Za-z0-9_]{20,}",
    r"\bgl(?:pat|rt|dt|ptt)-[A-Za-z0-9_-]{16,}", r"\bxox[abposre]-[A-Za-z0-9-]{10,}", r"\bxapp-[A-Za-z0-9-]{10,}",
    r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", r"\bAIza[0-9A-Za-z_-]{30,}", r"(?<![\w.-])ya29\.[A-Za-z0-9_-]{20,}",
    r"\bhf_[A-Za-z0-9]{20,}", r"\bnpm_[A-Za-z0-9]{30,}", r"\bpypi-[A-Za-z0-9_-]{40,}",
    r"(?<![\w.-])SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}",
    r"\bshp(?:at|ss|ca|pa)_[A-Fa-f0-9]{32}", r"\bdop_v1_[a-f0-9]{64}", r"\bsq0(?:atp|csp)-[A-Za-z0-9_-]{20,}",
    r"\bkey-[0-9a-f]{32}\b", r"\b(?:SK|AC)[0-9a-f]{32}\b", r"\blin_api_[A-Za-z0-9]{32,}",
    r"\bAGE-SECRET-KEY-1[0-9A-Z]{50,}",
    r"(?<![\w.-])hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]{8,}",
    r"(?<![\w.-])discord(?:app)?\.com/api/webhooks/[0-9]+/[A-Za-z0-9_-]{20,}",
    # Discord bot tokens: id.timestamp.hmac
    r"(?<![\w.-])[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,}",
    r"(?<![\w-])eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",  # JWT
    # user:password@ in a URL (the user may be empty: redis://:pw@; the password may hold '/')
    r"(?<=://)[^/\s:@]{0,64}:(?!\d{1,5}/)[^\s@]{1,128}(?=@[\w.-]+(?:[:/?#\s\"')\]]|$))",
    # key = value, key: value, key is value, for secret-sounding keys; a quoted value may hold spaces
    r"(?i)(?<![A-Za-z0-9_])(?:[A-Za-z0-9_]*(?:" + _SECRET_KEYS + r")s?)[\"']?"
    r"(?:\s*[:=：]\s*|\s+(?:is|was)\s+|\s*(?:是|为)\s*)"
    r"(?:\"[^\"\r\n]{1,200}\"|'[^'\r\n]{1,200}'|[\"']?[^\s\"',;]{4,})",
    # long random-looking tokens: upper and lower case letters and digits, 32+ characters
    r"(?<![\w+/.-])(?=[A-Za-z0-9+/_-]*[A-Z])(?=[A-Za-z0-9+/_-]*[a-z])(?=[A-Za-z0-9+/_-]*\d)"
    r"[A-Za-z0-9+/_-]{32,}={0,2}(?![\w/.-])",
    # 32 hexadecimal digits (an API key's usual shape; a git hash has 40)
    r"(?<![\w-])(?=[0-9a-fA-F]{0,31}[a-fA-F])(?=[0-9a-fA-F]{0,31}[0-9])[0-9a-fA-F]{32}(?![\w-])",
    r"(?i)--?(?:password|passwd|pwd|token|secret|api-?key|access-key)[= ]\S{3,}",
    # passwords on command lines: curl -u user:pw, sshpass -p pw, mysql -ppw / -p pw
    r"(?<![\w-])(?:-u|--user)[ =]+[^\s:]{1,64}:\S+",
    r"\bsshpass\b[^\n]{0,100}?\s-p\s*\S+",
    r"\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n]{0,200}?\s-p\s*[^\s-]\S*",
    # the same in Chinese: 密码是 xxx, 密钥：xxx, 令牌 xxx, 密码hunter2
    r"(?:密码|口令|密钥|秘钥|令牌|私钥)(?:\s*(?:是|为|:|：|=)\s*[^\s，。,;；]{4,}|\s*[\x21-\x7e]{4,})",
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
        # a secret starts where an ASCII word does not go on (each pattern's own look-behind or \b
        # says so too), or at a Chinese key word or a '-': checked once, before the patterns, a
        # position inside a word costs one test instead of one per pattern
        _secret_re = (re.compile(key, re.S), re.compile("(?:(?<![A-Za-z0-9_])|(?=[-密口秘令私]))(?:%s)" % "|".join(
            ("(?i:%s)" % p[4:]) if p.startswith("(?i)") else "(?:%s)" % p for p in rest), re.S))
    for pattern in _secret_re:  # private keys first: a label before one must not hide its body
        text = pattern.sub("[redacted]", text)
    return text


def redact_start(text, chars):
    """redact() of about the first chars characters of text, for a text that
    will be shown clipped shorter: a longer one is cut first, at a space
    (so no secret is left half, to slip past its pattern), and costs what
    chars cost, not its length (a 1 MB line in a brief)."""
    if len(text) > chars:
        head = text[:chars]
        cut = max(head.rfind(" "), head.rfind("\t"))
        text = head[:cut] if cut > 0 else ""  # one unbroken run: nothing of it can be shown safely
    return redact(text)
