"""The Chinese rules: script folding (traditional = simplified), function words, and
which character pairs bind into words."""
import math
import os
import unicodedata


CJK_CLASS = "\u3040-\ud7ff\uf900-\ufaff\U00020000-\U00033fff"  # the same, for str patterns


SUITE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # above memsuite/text/
ZH_TABLE = os.path.join(SUITE_DIR, "data", "zh-variants.txt")
_zh = {}


def zh_table_stamp():
    """A checksum of the Chinese table (0 if missing): part of an index's
    settings, since folding depends on it."""
    return _characters()[2]


def fold_map():
    """str.translate's table from traditional to simplified characters
    (data/zh-variants.txt, derived from OpenCC's dictionaries), empty if the
    file is missing."""
    if "map" not in _zh:
        source, target, _ = _characters()
        _zh["map"] = _FoldMap(source, target)
    return _zh["map"]


def regional_words():
    """{regional word: mainland word} (資料庫 -> 数据库) from the same table."""
    return dict(line.split(" ", 1) for line in _table_lines()[2:] if " " in line)


class _FoldMap(dict):
    """A translate table filled as characters are met: building all of its
    ~4,000 entries up front would cost every query half a millisecond."""

    def __init__(self, source, target):
        dict.__init__(self)
        self.source, self.target = source, target

    def __missing__(self, code):
        at = self.source.find(chr(code))
        value = self[code] = ord(self.target[at]) if at >= 0 else code
        return value


def _characters():
    """(traditional characters, their simplified ones, the table's checksum),
    compiled once (compiled.py)."""
    if "chars" not in _zh:
        from ..base.compiled import compiled

        def build():
            import zlib
            try:
                with open(ZH_TABLE, "rb") as f:
                    stamp = zlib.crc32(f.read())
            except OSError:
                stamp = 0
            lines = _table_lines()
            if len(lines) < 2 or len(lines[0]) != len(lines[1]):
                return "", "", stamp  # no table: traditional and simplified are then told apart
            return lines[0], lines[1], stamp
        _zh["chars"] = compiled("zh-characters", [ZH_TABLE], build)
    return _zh["chars"]


def _table_lines():
    try:
        with open(ZH_TABLE, encoding="utf-8") as f:
            return [line.rstrip("\n") for line in f if not line.startswith("#")]
    except OSError:
        return []


# Chinese words that carry grammar, questions or time rather than a topic
# (the counterpart of STOPWORDS): a query gives its weight to its other
# words, and the linker lists none of them as entities.
ZH_FUNCTION_WORDS = frozenset("""
什么时候 什么 为什么 怎么样 怎么 怎样 哪里 哪儿 哪个 哪些 哪家 在哪 在哪里 是谁 是什么 多少 几点 几个
几号 几月 几天 多久 多长 有没有 是不是 能不能 要不要 会不会 的话 还是 或者 以及 然后 因为 所以
但是 可是 不过 如果 虽然 已经 一下 一点 一些 一个 这个 那个 这些 那些 这里 那里 这样 那样 自己
我们 你们 他们 她们 它们 大家 上次 下次 这次 那次 最近 之前 之后 以前 以后 现在 当时 今天 明天
昨天 前天 后天 今年 去年 明年 上周 下周 这周 本周 上个月 下个月 这个月 早上 上午 中午 下午 晚上
今晚 昨晚 时候 可以 应该 需要 可能 一直 一起 还有 就是 只是 也是 都是 不是 没有 一定 非常 特别
比较 其实 当然 怎么办 叫什么 干什么 做什么 去哪 去哪里 哪天 哪一天 谁的 给谁 和谁 跟谁
去哪儿 在哪儿 这儿 那儿 一会儿 一点儿
而家 几多 边个 边度 点样 做咩 系咪 有冇 嗰次 嗰个 呢个 呢次 我哋 你哋 佢哋 寻日 琴日 听日
""".split())  # (the last line: written Cantonese, folded: 而家 now, 幾多 how many, 邊個 who, 點樣 how)
ZH_FUNCTION_CHARS = frozenset("的了吗呢吧啊呀么哦嗯之其嘅啲咗喺嘢唔冇佢嗰咩嚟㗎囉喎吖噉")
# A question's frame: what it asks about its topic (an attribute: 电话, 名字,
# 生日) or how it asks (来着, 怎么样, 还记得).  A query's frame weighs less
# than its topic, and a hit holding its frame but none of its topic (another
# person's phone) does not score as an answer.  English frame words are
# listed as the tokenizer's stems.
ZH_FRAME_WORDS = frozenset("""
名字 叫什么名字 什么名字 电话 电话号码 电话号 号码 手机号 手机号码 联系方式 联系电话 生日 地址 邮箱 邮箱地址
年龄 身高 家乡 老家 职业 来着 是多少 怎么样啊 怎么样 还记得 记得 知道 告诉我 请问 是哪里 哪里人 情况
""".split())
EN_FRAME_WORDS = frozenset("name phone number birthdai address email ag call rememb".split())
# Characters that attach to words without forming one with them (particles,
# pronouns, common verbs): 李明说 is 李明 + 说, never a longer name.
# The commonest Chinese surnames: a word starting with one may be a person's name.
SURNAMES = frozenset("王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘蒋蔡余杜叶"
                     "程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金廖贾夏韦付方邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺"
                     "顾毛郝龚邵钱严覃武戴莫孔汤温康施牛樊葛邢齐乔伍庞颜倪庄聂章鲁岳翟殷詹欧耿焦俞柳"
                     "祝舒阮柯纪梅童凌毕季裴霍涂苗谷盛翁冉骆蓝游辛靳管柴鲍喻祁蒲滕饶牟艾穆卓缪褚窦戚岑")

ZH_FREE_CHARS = frozenset("的了是在和与及或等就也还又很太更最把被将对从向为以于让给着过"
                          "我你他她它们这那哪些个不没有要会能可想去来到说看问叫跟带"
                          "啊吧呢吗呀哦嗯么之其所而且但并则即每各该此至约第")


def function_spans(run):
    """For each character of a CJK run (folded), whether it lies in a
    function word (longest match first) or is a function character."""
    marked, i = [False] * len(run), 0
    while i < len(run):
        for size in (4, 3, 2):
            if i + size <= len(run) and run[i:i + size] in ZH_FUNCTION_WORDS:
                marked[i:i + size] = [True] * size
                i += size
                break
        else:
            marked[i] = run[i] in ZH_FUNCTION_CHARS
            i += 1
    return marked


def frame_spans(run):
    """For each character of a CJK run (folded), whether it lies in one of
    the question-frame words (longest match first) that stands as a word: at
    an edge of the run, or beside a function word or another frame word on
    one side at least (生日 in 李明的生日 or 李明生日, not in 出生日期)."""
    fn = function_spans(run)
    found, i = [], 0
    while i < len(run):
        for size in (6, 5, 4, 3, 2):
            if i + size <= len(run) and run[i:i + size] in ZH_FRAME_WORDS:
                found.append((i, i + size))
                i += size
                break
        else:
            i += 1
    marked = [False] * len(run)
    ends = {e for _, e in found}
    starts = {s for s, _ in found}
    for s, e in found:
        left = s == 0 or fn[s - 1] or s in ends
        right = e == len(run) or fn[e] or e in starts
        if left or right:
            marked[s:e] = [True] * (e - s)
    return marked


def pair_binds(pair, dfs, n_docs, threshold, together=None):
    """Whether two CJK characters recur together as one word does in this
    folder: the pair is in two chunks or more, and its pointwise mutual
    information, log(N df(ab) / (df(a) df(b))) from document frequencies,
    reaches threshold (李明轩: 明轩 binds; 李明说: 明说 does not), or, when
    together is given, the rarer character is seldom seen without the other
    (a together share of its chunks hold the pair: in a folder of three
    notes that all name 张伟明, PMI is 0 but 伟明 is one word); a doubled character binds when a
    fifth of its chunks hold it doubled (王娟娟)."""
    df = dfs.get(pair, 0)
    if df < 2 or set(pair) & ZH_FREE_CHARS:
        return False
    first, second = dfs.get(pair[0], 1), dfs.get(pair[1], 1)
    if pair[0] == pair[1]:  # a doubled character (娟娟): bound when it is often doubled
        return df >= 0.2 * first
    if math.log(float(n_docs) * df / (first * second)) >= threshold:
        return True
    return together is not None and df >= together * min(first, second)


def fold(text):
    """Text as the tokenizer reads it: NFKC (full-width ＳＤＫ -> SDK), lower
    case, traditional Chinese characters as simplified (帳號 -> 账号).  The
    script folding is one character for one, but NFKC is not ('ﬁ' -> 'fi',
    '㍻' -> '平成'): code that needs offsets into the text folds it a
    character at a time (snippets._fold_per_char)."""
    if text.isascii():
        return text.lower()
    return unicodedata.normalize("NFKC", text).lower().translate(fold_map())


def is_cjk_char(c):
    return "\u3040" <= c <= "\ud7ff" or "\uf900" <= c <= "\ufaff" or "\U00020000" <= c <= "\U00033fff"


def is_cjk(text):
    """Whether text is made of CJK characters only (the tokenizer's CJK runs)."""
    return bool(text) and all(is_cjk_char(c) for c in text)


# Everyday words (data/zh-common-words.txt, from jieba's dictionary): where a
# query's words meet.  张伟的手机号 is 张伟 的 手机 号: 的手 and 机号 are no
# words, and a note holding them (林志豪的手機號碼) shares only the frame.

ZH_WORDS = os.path.join(SUITE_DIR, "data", "zh-common-words.txt")


def common_words():
    """{first character: '\\nrest\\nrest\\n'} of the everyday words, compiled
    once (a dict of strings loads in a millisecond; a set of 56,000 words
    would cost a cold query fifty)."""
    if "words" not in _zh:
        from ..base.compiled import compiled

        def build():
            by_first = {}
            try:
                with open(ZH_WORDS, encoding="utf-8") as f:
                    for line in f:
                        word = line.strip()
                        if len(word) >= 2 and word[0] != "#":
                            by_first.setdefault(word[0], []).append(word[1:])
            except OSError:
                return {}
            return {c: "\n%s\n" % "\n".join(rest) for c, rest in by_first.items()}
        _zh["words"] = compiled("zh-words", [ZH_WORDS], build)
    return _zh["words"]


def is_word(text):
    """Whether text is an everyday word, a function word or a frame word."""
    if text in ZH_FUNCTION_WORDS:
        return True
    rest = common_words().get(text[0])
    return rest is not None and "\n%s\n" % text[1:] in rest


def word_breaks(run):
    """For each pair of neighbouring characters of a CJK run (folded),
    whether a word boundary lies between them: no everyday word of the run
    spans both, and one of them belongs to a word (an everyday or function
    word, or a function or free character) that ends or starts there (手机|号,
    钢琴|课, 来|杭州).  Characters no word holds (names, places: 张伟, 杭州)
    stay together."""
    n = len(run)
    inside = [False] * n  # the character lies in a word of the run
    spans = [False] * max(n - 1, 0)  # a word spans characters i and i + 1
    for i in range(n - 1):
        for size in (4, 3, 2):
            if i + size <= n and is_word(run[i:i + size]):
                inside[i:i + size] = [True] * size
                spans[i:i + size - 1] = [True] * (size - 1)
    for i, c in enumerate(run):
        inside[i] = inside[i] or c in ZH_FUNCTION_CHARS or c in ZH_FREE_CHARS
    return [not spans[i] and (inside[i] or inside[i + 1]) for i in range(n - 1)]
