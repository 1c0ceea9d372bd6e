"""What kind of answer a question asks for, and whether a text holds one:
a time for "when" (什么时候, 哪天, when: dates.asks_when and holds_time),
an amount for "how much" (多少钱, 单价, how much, price: a sum with its
currency or unit), a number of seven digits or more for a phone or a
tracking number (电话, 手机号, phone, number), who someone is for "who is X" (X是谁, what does X do:
a line that says what X is, "Kenji Watanabe (SRE on my team)", "- 小周：
表妹", "Grace is a ...").  A hit that holds the kind of thing asked for
answers better than one that only shares the question's words."""
import re

from ..text.chinese import fold
from ..text.tokenizer import STOPWORDS
from .dates import asks_when, holds_time

_AMOUNT_CUES = ("多少", "价", "费", "多贵", "how much", "price", "cost", "fee")  # (no pattern compiled without one)
_AMOUNT_ASKED = (r"多少钱|多少块|多少元|价格|价钱|单价|费用|多贵|花了多少|付了多少|掏了多少"
                 r"|\bhow much\b|\bprice[sd]?\b|\bcosts?\b|\bfees?\b")
CURRENCY = r"元|块|万|rmb|usd|eur|gbp|cny|twd|ntd|sgd|hkd|jpy|dollars?|euros?|pounds?|bucks|刀|欧|镑|円|日元|美元|港币"
_AMOUNT = (r"[¥$€£]\s?\d|\d\s?(?:" + CURRENCY + r")|\b(?:rmb|usd|eur|gbp|cny|twd|ntd|sgd|hkd)\s?\d"
           r"|\d\s?/\s?(?:次|月|年|人|晚|小时|天|个|件|hr|h|hour|month|year|night|day)\b")


_CODE_ASKED = (r"电话|手机号|手机是?多少|号码|单号|联系方式|\b(?:phone|mobile|cell)\b|\btracking (?:numbers?|no|codes?)\b"
               r"|\bnumbers?\b(?! of\b)")  # (the number of guests is a count)
CODE = r"\+?\d[\d \-.()]{5,}\d"  # a phone number, an account or a tracking number: seven digits or more
_NOT_CODES = (r"(?<!\d)(?:19|20)\d\d\s?[-/.年]\s?\d{1,2}\s?[-/.月]\s?\d{1,2}(?!\d)"  # 2026-11-20, 2026年11月20
              r"|(?<!\d)\d{1,2}[-/.]\d{1,2}[-/.](?:19|20)\d\d(?!\d)"  # 20.11.2026
              r"|(?<!\d)(?:19|20)\d\d\s?[-–~]\s?(?:19|20)\d\d(?!\d)"  # 2019-2023
              r"|(?<!\d)\d{1,2}[:.]\d\d(?![\d.:])")  # 09:30, 17.00 (a clock)
_COUNT = r"\d{1,3}(?:[ ,]\d{3})+|\d+\.\d+"  # 1 000 000 steps, 3.14159: a count or a measure, no code


def asks_code(query):
    """Whether a question asks for a number to call or to quote (电话, 手机号,
    单号, phone, number, tracking; as words: not headphones, cello)."""
    return re.search(_CODE_ASKED, fold(query).lower()) is not None


def codes_in(text):
    """The numbers of seven digits or more a text says, however spaced
    (+86 138 1762 4490, 6734 9902, AWB 4829 1056 37), as written: not a
    date, a year's range, a clock time, a count in thousands or a decimal."""
    text = re.sub(_NOT_CODES, " ", text)
    return [m.group(0) for m in re.finditer(CODE, text)
            if sum(c.isdigit() for c in m.group(0)) >= 7 and not re.fullmatch(_COUNT, m.group(0).strip())]


def holds_code(text):
    """Whether a text's lines (headings left out) say a number to quote (codes_in)."""
    return any(codes_in(line) for line in text.split("\n") if not line.lstrip().startswith("#"))


def asks_amount(query):
    """Whether a question asks how much something costs (多少钱, 单价, how much, price)."""
    folded = fold(query).lower()
    return any(cue in folded for cue in _AMOUNT_CUES) and re.search(_AMOUNT_ASKED, folded) is not None


def holds_amount(text):
    """Whether a text says an amount: a number with its currency or unit
    (¥120, 4500 元, 0.35/次, 95 EUR), headings left out."""
    lines = [line for line in text.split("\n") if not line.lstrip().startswith("#")]
    return re.search(_AMOUNT, fold("\n".join(lines)).lower()) is not None


_WHO_EN = r"^\s*(?:who(?:'s|\s+is|\s+was)\s+(.+?)|what\s+does\s+(.+?)\s+do(?:\s+for\s+(?:a\s+)?(?:living|work))?)\s*[?.!？！。]*\s*$"
_WHO_ZH = (r"^(?:谁是|誰是)(.+?)[啊呀呢？?。]*$|^(.+?)(?:是谁|是誰|是干什么的|是幹什麼的|是做什么的|是做什麼的|是做啥的|"
           r"做什么工作|做什麼工作|是干嘛的|是边个|係邊個|系边个)[？?啊呀呢。]*$")


def asks_who(query):
    """The name a question asks about ("Who is Kenji?", "What does Grace do?",
    "小周是谁"), or None."""
    if not ("who" in query.lower() or "what does" in query.lower() or any(c in query for c in "谁誰边邊做干幹")):
        return None
    m = re.match(_WHO_EN, query.strip(), re.I) or re.match(_WHO_ZH, query.strip())
    name = next((g for g in m.groups() if g), None) if m else None
    if not name or len(name.strip()) > 40 or name.split()[0].lower() in STOPWORDS:
        return None  # (who was at the meeting, what does it do: no name)
    return name.strip()


def says_who(name):
    """A test of whether a text's line says what name is: the name (and a
    surname after it) followed by a description in brackets, after a colon
    or a dash, or by "is"/"是" (a comma is as often a list's)."""
    pattern = re.compile(r"(?:^|[\s*_(（\-])" + re.escape(fold(name).lower()) +
                         r"(?:\s+[a-z]+)?\s*(?:[(（:：—–]|\s-\s|\s+(?:is|was)\s|是|係)")
    return lambda text: any(pattern.search(fold(line).lower()) for line in text.split("\n")
                            if not line.lstrip().startswith("#"))


_NOW = (r"\b(?:now|nowadays|currently|current|these days|still|anymore|at the moment)\b"
        r"|现在|目前|如今|而家|依家|眼下|当前|这阵子")  # (not 宜家: IKEA as often as "now")


def asks_now(query):
    """Whether a question asks how things stand now ("Who's my manager now?",
    "Do I still...", 现在, 目前, Cantonese 而家): the newest statement
    of a thing answers it, not the first one written down."""
    return re.search(_NOW, fold(query).lower()) is not None


def answer_test(query):
    """A test of whether a text holds what the question asks for (a time, an
    amount, who someone is), or None when it asks for none of them."""
    if asks_when(query):
        return holds_time
    if asks_amount(query):
        return holds_amount
    if asks_code(query):
        return holds_code
    name = asks_who(query)
    return says_who(name) if name else None
