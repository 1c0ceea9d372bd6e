"""Entities: the names notes mention (people, places, projects, terms) and how they
are found, in English and Chinese."""
import re
from collections import Counter

from ..text.chinese import CJK_CLASS, SURNAMES, ZH_FREE_CHARS, ZH_FUNCTION_WORDS, fold, fold_map, is_cjk
from ..text.markdown import mask_private
from ..text.redact import redact
from ..base.records import record
from ..text.tokenizer import STOPWORDS


# Bump when extract_entities changes what it finds: the stored mentions are
# then extracted again.
EXTRACTOR_VERSION = 12  # 12: a speaker's title left out (**Dr. Lin**); 11: a two-letter name after a title (Dr. Yu); 10: a name after a title (Dr. Lin); 9: more secret shapes redacted, <private> nested; 8: the folder's defined names, fewer fragments; 7: secrets redacted first; 6: names seldom seen apart, numeronyms, a folder's own two-character words

# Extraction

Mention = record("Mention", "kind key spelling")
Mention.__doc__ = "One entity occurrence: kind, normalised key, and the text as written."

_FILE_EXT = ("md|markdown|txt|toml|ya?ml|json|jsonl|xml|html?|css|scss|js|mjs|ts|tsx|jsx|py|"
             "rb|go|rs|java|kt|c|cc|cpp|h|hpp|sh|zsh|bash|fish|lua|vim|nvim|sql|csv|ini|"
             "conf|cfg|env|lock|log|pdf|png|jpe?g|gif|svg|zip|tar|gz")
_TLD = "com|dev|org|net|io|cn|ai|app|me|co|info|xyz|so|sh|page|site|blog|tech|cloud"
_URL_TAIL = r"[^\s<>()\[\]{}\"'`，。、；：！？（）【】《》]"
_SUFFIXES = ("系统|框架|工具|配置|优化|功能|方案|问题|文章|平台|服务|模型|算法|项目|插件|"
             "接口|数据库|脚本|流程|策略|模板|主题|页面|设置|环境|部署|迁移|备份")
_compiled = {}


def _re():
    """The extractor's patterns, compiled on first use (compiling them costs
    milliseconds that a plain search never needs).  In the list, earlier
    patterns win where matches overlap."""
    if not _compiled:
        cjk = CJK_CLASS
        _compiled.update(
            patterns=[
                ("url", re.compile(r"\bhttps?://" + _URL_TAIL + r"+|\bwww\.[a-z0-9-]+(?:\.[a-z0-9-]+)+"
                                   + _URL_TAIL + "*", re.I)),
                ("link", re.compile(r"\[\[([^\[\]|#\n]{1,80})(?:[#|][^\[\]\n]*)?\]\]")),
                ("code", re.compile(r"`([^`\n]{1,60})`")),
                ("tag", re.compile(r"(?<![\w#&/])#([A-Za-z" + cjk + r"][\w" + cjk + r"-]{0,40})")),
                ("mention", re.compile(r"(?<![\w.@])@([A-Za-z][\w-]{1,38})")),
                ("path", re.compile(r"(?<![\w/.~])((?:~|\.{1,2})?/(?:[\w.-]+/)*[\w.-]*[\w/]"
                                    r"|[\w-]+(?:/[\w.-]+)+\.(?:" + _FILE_EXT + r")"
                                    r"|[\w-]+\.(?:" + _FILE_EXT + r"))(?![\w/])")),
                ("url", re.compile(r"\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:" + _TLD + r")(?:/" + _URL_TAIL
                                   + r"*)?(?![\w.])", re.I)),
                ("code", re.compile(r"\b[A-Z]{1,5}-\d{2,}\b")),  # ticket and booking ids: KX-4471
                ("name", re.compile(r"\b(?:[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+|[a-z]+(?:[A-Z][a-z0-9]+)+)\b")),
                ("caps", re.compile(r"\b[A-Z][A-Z0-9]{1,9}\b")),
            ],
            capitalised=re.compile(r"\b[A-Z][a-z]+(?:[ -](?:(?:of|the|de|da|del|von|van|du|la|le)[ -]){0,2}"
                                   r"[A-Z][a-z]+){0,3}\b"),
            speaker=re.compile(r"^\s*\*\*([A-Z][\w .'-]{0,40}?)\*\*"),
            suffix_term=re.compile(r"([A-Za-z][A-Za-z0-9+#.]{0,15}|[" + cjk + r"]{2})(" + _SUFFIXES + ")"),
            cjk_run=re.compile("[" + cjk + "]+"),
            # letters and digits in one token: Vue3, H5, U2723QE, 5G, 4K
            mixed=re.compile(r"(?<![\w.-])(?:[A-Za-z]{2,12}\d+[A-Za-z\d]*|[A-Z]\d{1,3}[A-Z]?|[A-Za-z]\d{1,2}[a-z]{1,2}|\d{1,3}[A-Z]{1,2})(?![\w.-])"),
            # an acronym defined after its expansion: Google Search Console (GSC), 内容分发网络（CDN）
            defined=re.compile(r"((?:[A-Z][\w-]*[ ]+){1,6}[A-Z][\w-]*|[" + cjk + r"]{2,12})[ ]?[(（][ ]?"
                               r"([A-Z][A-Z0-9]{1,7})[ ]?[)）]"),
            place_suffix=re.compile("(?=[" + cjk + "]{2}(" + PLACE_SUFFIXES + "))"),
            roman=re.compile(r"^M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})$"),
            sentence_start=re.compile(r"^[\s>*#\-+\d.)]*"),
            title=re.compile(r"(?<![\w.])(?:%s)\.$" % "|".join(sorted(TITLES))),
        )
    return _compiled


TITLES = frozenset("Dr Mr Mrs Ms Mx Prof".split())  # before a name, with a point that ends no sentence
ACRONYM_NOISE = frozenset("""OK I A AM PM TV ID OS UI US UK EU AD BC THE AND OR BUT NOT
NO YES YEP WOW LOL OMG BTW FYI ASAP TODO FIXME NOTE PS OH HI HEY GB MB KB TB GHZ MHZ
IS IT IN ON AT TO OF BY AS IF SO DO GO BE WE HE MY ME UP""".split())
CAPITAL_NOISE = frozenset("""I I'm Hey Hi Hello Thanks Thank Wow Yeah Yes No Oh Ok Okay Sure
Sounds Great Good Nice Cool Awesome Really Well Also Just Maybe Here There This That These
Those What When Where Why How Who Which Monday Tuesday Wednesday Thursday Friday Saturday
Sunday Mon Tue Tues Wed Thu Thur Fri Sat Sun January February March April May June July
August September October November December Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec
Today Tomorrow Yesterday Image Photo Session Day Note Notes Todo Done Fix Lesson Cause
Reading Misc Name Projects Preferences Travel Memory Yep Yup Nope Bye Woah Whoa Aww Aw Haha
Hah Hmm Ah Dear Congrats Congratulations Happy Sorry Last Next Oops Gosh Omg Lol Btw""".split())
# Characters that rarely sit inside a Chinese term; phrases are cut at them.
CJK_STOP_CHARS = ZH_FREE_CHARS | frozenset("年月日号篇次")
# Common words that recur everywhere but name nothing.
CJK_STOP_WORDS = frozenset("""进行 包括 获得 成为 开始 使用 通过 因为 所以 可以 已经 需要 时候
什么 许多 非常 自己 认为 表示 进入 主要 其中 以及 由于 之后 之前 目前 完成 发现 方法 时间 现在
如果 虽然 但是 然后 还是 就是 这样 那样 怎么 为什么 今天 明天 昨天 最后 一起 问题 情况 方面 作为
继续 提供 出现 部分 相关 同时 其他 所有 一些 地方 注意 下次 整体 决定 想要 觉得 知道 希望 喜欢
代替 订好 分钟 小时 左右 大约 可能 应该 改成 直接 自动 默认 一起 上线 设置 记下""".split())
CJK_STOP_WORDS |= ZH_FUNCTION_WORDS | frozenset("""工作 公司 版本 照片 地址 一共 换成 整理 晚饭
午饭 早饭 中午 上班 下班 开会 会议 加班 回家 出门 周末 假期 放假 请假 上午 下午 晚上 早上 今晚 明早 月底
月初 年底 年初 季度 每天 每周 每月 每年 本周 上周 下周 同事 朋友 家里 孩子 老婆 老公 爸妈 爸爸 妈妈
顺便 其实 终于 突然 记得 打算 准备 安排 确认 提醒 联系 讨论 沟通 反馈 测试 上线 发布 修改 更新 处理
购买 支付 转账 费用 价格 一直 一点 一下 几个 两个 三个 大家 别人 东西 事情 问题 结果 原因 情况 方案
幼儿园 医院 银行 公司 学校 机场 酒店 餐厅 超市 商场 公园 小区 大厦 广场 中心 集团 图书馆 博物馆 火车站""".split())
# Kinds kept only when they recur: capitalised words, Chinese phrases, names
# and place names, letter-digit tokens, and all-capital words (LGBTQ and API
# recur; a shouted "DOING" does not).
STATISTICAL_KINDS = ("cap", "capstart", "phrase", "caps", "zhname", "zhplace", "mixed")
KIND_LABEL = {"cap": "name", "capstart": "name", "phrase": "term", "caps": "acronym", "zhname": "name", "zhplace": "place",
              "mixed": "term"}
KINDS = ("name", "place", "acronym", "code", "tag", "mention", "link", "url", "path", "term")

# Chinese names: a common surname and one or two characters.  Surnames that
# are mostly something else in running text (和, 于, 时, 成, 向...) are left out.
COMPOUND_SURNAMES = frozenset("欧阳 司马 上官 诸葛 东方 皇甫 令狐 慕容 尉迟 长孙 夏侯 端木 公孙 宇文 司徒 南宫".split())
# Everyday words that start with a surname character: never names.
NOT_NAMES = frozenset("""周末 周围 周边 周年 周期 周一 周二 周三 周四 周五 周六 周日 高兴 高铁 高速 高中 高级 高端
高度 高温 方便 方法 方面 方案 方向 方式 马上 马路 黄色 黄金 金额 金融 钱包 林业 江湖 江边 程序 程度 孙子 曾经
夏天 夏季 秦朝 宋朝 唐朝 许多 许可 任何 任务 沈阳 姜汤 潘多拉 万一 康复 温度 温暖 温州 施工 齐全 严重 严格
武器 武汉 龙虾 雷雨 苏州 杜绝 叶子 陆续 范围 毛巾 毛病 孔子 汤圆 贺卡 顾客 邵阳 钟点 钟头 罗马 谢谢 章节
袁州 潘家 邓州 曹操 彭州 田地 董事 余额 冯唐 蒋介 蔡司 吕布 丁香 任性 姚明 卢浮 崔健 谭咏 汪汪 廖廖 贾府
韦小 付款 付费 付出 邹城 孟买 熊猫 秦岭 邱比 尹天 薛定 闫肃 段落 侯门 史上 陶瓷 黎明 郝建 龚琳 邵东 钱塘
戴着 莫非 莫名 孔雀 汤匙 牛奶 牛肉 樊篱 葛优 邢台 乔木 伍佰 庞大 颜色 倪萍 庄园 聂耳 鲁迅 岳父 岳母 翟欣
殷勤 欧洲 耿直 焦虑 焦点 俞敏 柳树 祝福 舒服 舒适 阮经 柯南 纪念 纪录 梅花 童年 童装 凌晨 毕业 季度 季节
裴勇 霍乱 涂料 苗条 谷歌 盛夏 翁婿 冉冉 骆驼 蓝色 蓝牙 游戏 游泳 游客 辛苦 靳东 管理 管道 柴油 鲍鱼 喻体
祁连 蒲公 滕王 饶了 牟利 艾灸 穆斯 卓越 缪斯 褚时 窦娥 戚风 岑参 王者 王国 李子 张开 张贴 刘海 陈列 陈旧
杨树 赵州 吴越 徐徐 孙悟 马克 朱红 胡同 胡子 胡说 郭德 何时 何必 何况 何处 高手 林子 罗列 郑重 梁山 谢绝
宋体 唐人 许愿 韩国 韩剧 冯小 邓紫 曹县 彭湃 曾国 肖像 田园 董卿 袁隆 潘金 蒋勤""".split())
PLACES = frozenset("""北京 上海 天津 重庆 广州 深圳 杭州 苏州 南京 成都 武汉 西安 长沙 郑州 济南 青岛 大连 沈阳
哈尔滨 长春 石家庄 太原 呼和浩特 合肥 福州 厦门 南昌 南宁 海口 三亚 贵阳 昆明 拉萨 兰州 西宁 银川 乌鲁木齐
宁波 温州 无锡 常州 佛山 东莞 珠海 中山 惠州 汕头 泉州 烟台 威海 徐州 扬州 绍兴 嘉兴 台州 金华 洛阳 桂林
丽江 大理 香港 澳门 台北 台中 台南 高雄 新竹 桃园 基隆 花莲 垦丁 九份 淡水 北海道 东京 大阪 京都 奈良 横滨
名古屋 冲绳 首尔 釜山 济州岛 新加坡 曼谷 清迈 普吉岛 吉隆坡 巴厘岛 悉尼 墨尔本 伦敦 巴黎 纽约 洛杉矶 旧金山
西雅图 温哥华 多伦多 柏林 罗马 米兰 巴塞罗那 迪拜 广东 浙江 江苏 福建 四川 湖南 湖北 河南 河北 山东 山西
陕西 安徽 江西 云南 贵州 广西 海南 甘肃 青海 宁夏 新疆 西藏 内蒙古 黑龙江 吉林 辽宁 台湾 日本 韩国 美国
英国 法国 德国 泰国 越南 马来西亚 澳大利亚 加拿大 西湖 外滩 南山 福田 罗湖 宝安 龙岗 前海 蛇口 浦东 陆家嘴
中关村 望京 三里屯 后海 鼓浪屿 黄山 泰山 峨眉山 九寨沟 张家界 大梅沙 小梅沙""".split())
# Endings of places and organisations (海月花园, 招商银行, 南山区, 桃园机场).
PLACE_SUFFIXES = ("路|街|大道|广场|公园|花园|小区|大厦|机场|车站|火车站|地铁站|医院|银行|大学|中学|小学|学校|幼儿园|"
                  "酒店|宾馆|餐厅|饭店|商场|超市|书店|咖啡馆|影院|体育馆|博物馆|图书馆|中心|公司|集团|寺|区|县|市|镇")


def entity_key(kind, text):
    """The normalised identity of an entity: case-insensitive, so OpenClaw,
    OPENCLAW, `openclaw`, #openclaw and [[OpenClaw]] are one entity; folded
    as the search folds (陳靜 is 陈静, ＳＤＫ is SDK)."""
    key = " ".join(fold(text).split())
    if kind == "url":
        return key.rstrip("/")
    return key.lstrip("#@") or key


def extract_entities(text, cohesive=None, names=frozenset()):
    """Every entity mention in a piece of Markdown, in order of kind priority.
    cohesive(pair) says whether two Chinese characters are one word in this
    folder (a name of three characters, not two and a verb); without it, a
    name is two characters and a third that is no particle.  names: the
    Chinese names the folder defines (defined_names): the longest one that
    starts where a name does is that name (张伟明, not 张伟; 李娜, not 李娜安)."""
    import unicodedata
    text = unicodedata.normalize("NFKC", redact(mask_private(text)))  # ＳＤＫ -> SDK; a secret is no entity
    patterns = _re()
    taken = []  # spans already claimed by a stronger pattern
    out = []

    def claim(kind, start, end, spelling):
        if any(s < end and start < e for s, e in taken):
            return
        taken.append((start, end))
        spelling = spelling.strip()
        if kind == "url":
            spelling = spelling.rstrip(".,;:!?)'\"")
        if not spelling:
            return
        if kind == "code":
            kind = _classify_code(spelling)
            if kind is None:
                return
        if kind == "caps" and (spelling in ACRONYM_NOISE or patterns["roman"].match(spelling)
                                  or sum(c.isalpha() for c in spelling) < 2):
            return
        out.append(Mention(kind, entity_key(kind, spelling), spelling))

    for m in patterns["defined"].finditer(text):
        expansion, acronym = m.group(1), m.group(2)
        latin = expansion[0].isascii()
        if not latin or "".join(w[0] for w in expansion.split()).upper() == acronym:
            if not latin:  # the Chinese words right before the bracket
                expansion = _last_piece(expansion)
            claim("acronym", m.start(2), m.end(2), acronym)
            out.append(Mention("expansion", entity_key("acronym", acronym), expansion.strip()))
    for kind, pattern in patterns["patterns"]:
        for m in pattern.finditer(text):
            group = 1 if pattern.groups else 0
            claim(kind, m.start(group), m.end(group), m.group(group))
    for m in patterns["mixed"].finditer(text):
        claim("mixed", m.start(), m.end(), m.group(0))
    simplified = text.translate(fold_map())  # 陳靜 is found as 陈静 (one character for one)
    for m in patterns["suffix_term"].finditer(simplified):
        counted = _counted(m.group(1))  # 类|小工具: 类 counts kinds, the term starts after it
        start = m.start() + counted
        if not (set(m.group(1)) & CJK_STOP_CHARS) and not _cut_word(simplified, start, m.end(), cohesive, counted):
            claim("term", start, m.end(), text[start:m.end()])
    for start, end, name, kind in _capitalised_names(text):
        claim(kind, start, end, name)
    for kind, start, end, _ in _chinese_entities(simplified, cohesive, names):
        claim(kind, start, end, text[start:end])
    for start, end, _ in _cjk_phrases(simplified, cohesive):
        if not any(s < end and start < e for s, e in taken) and not _cut_word(simplified, start, end, cohesive):
            phrase = text[start:end]
            out.append(Mention("phrase", entity_key("phrase", phrase), phrase))
    return out


def _cut_word(text, start, end, cohesive, after_only=False):
    """Whether text[start:end] begins or ends inside a word of the folder: its
    first Chinese character binds to the one before it (户积分 of 客户积分,
    通再优化 of 沟通再优化), or its last to the one after it (服务 of 服务器)."""
    if cohesive is None:
        return False
    before = text[start - 1:start + 1] if start > 0 and not after_only else ""
    after = text[end - 1:end + 1] if end < len(text) else ""
    return any(len(pair) == 2 and is_cjk(pair) and cohesive(pair) for pair in (before, after))


def _last_piece(run):
    """The end of a CJK run after its last particle (...设置了内容分发网络 -> 内容分发网络)."""
    cut = max((i for i, c in enumerate(run) if c in CJK_STOP_CHARS), default=-1)
    return run[cut + 1:]


def _chinese_entities(text, cohesive, names=frozenset()):
    """(kind, start, end, word) of the names and places in the CJK runs of text:
    places first (a gazetteer of cities and regions, then words ending as
    places do: 海月花园, 招商银行), then people (a surname and one or two
    characters)."""
    patterns = _re()
    for m in patterns["cjk_run"].finditer(text):
        run, base = m.group(0), m.start()
        found = [("place", i, i + n) for i in range(len(run)) for n in (2, 3, 4, 5)
                 if i + n <= len(run) and run[i:i + n] in PLACES]
        for p in patterns["place_suffix"].finditer(run):
            start = _place_start(run, p.start(1), cohesive)
            if start is not None:
                found.append(("zhplace", start, p.end(1)))
        taken = [False] * len(run)
        for kind, start, end in sorted(found, key=lambda f: (f[1] - f[2], f[1])):  # the longest first
            if not any(taken[start:end]):
                taken[start:end] = [True] * (end - start)
                yield kind, base + start, base + end, run[start:end]
        i = 0
        while i < len(run):
            found = None if taken[i] else _name_at(run, i, cohesive, names)
            if found and not any(taken[i:i + len(found)]):
                yield "zhname", base + i, base + i + len(found), found
                i += len(found)
            else:
                i += 1


def _place_start(run, suffix_at, cohesive):
    """Where the name before a place ending starts (向日葵|幼儿园 in
    送小满去向日葵幼儿园): two characters, and more to the left while each
    binds to the next (up to four)."""
    start = suffix_at - 2
    if start < 0 or set(run[start:suffix_at]) & ZH_FREE_CHARS:
        return None
    while start > 0 and suffix_at - start < 4 and cohesive and cohesive(run[start - 1:start + 1]):
        start -= 1
    return start


def _name_at(run, i, cohesive, names=frozenset()):
    """The Chinese name that starts at run[i], or None: a surname, then a
    character that is no particle, then one more when the two given
    characters bind as one word in this folder (李明轩; 李明 in 李明说); a
    name the folder defines wins (the longest that fits)."""
    surname = run[i:i + 2] if run[i:i + 2] in COMPOUND_SURNAMES else run[i] if run[i] in SURNAMES else None
    if surname is None or (i > 0 and not _boundary_before(run, i)):
        return None
    defined = next((run[i:i + n] for n in (4, 3, 2) if run[i:i + n] in names), "")
    rest = run[i + len(surname):]
    if not rest or rest[0] in CJK_STOP_CHARS:
        return defined or None
    name = surname + rest[0]
    if name in NOT_NAMES or name in CJK_STOP_WORDS or _starts_function_word(rest):
        return defined or None
    third = rest[1:2]
    if third and third not in CJK_STOP_CHARS and not _starts_function_word(rest[1:]) and (
            cohesive(rest[0] + third) if cohesive else False) and not (
            defined and len(rest) > 2 and (rest[1:3] in _common_words() or cohesive(rest[1:3]))):
        # 李娜|安排, 张伟|汇报 where the folder names 李娜 and 张伟: the third character starts a word
        name += third
    return defined if len(defined) > len(name) else name


NAME_PRECEDERS = frozenset("找约请陪接送带帮替叫见问跟和与给让被把向对同")


def _boundary_before(run, i):
    """Whether a name may start at run[i]: after a particle, a verb that takes
    a person (找, 约, 陪...) or a function word."""
    return run[i - 1] in CJK_STOP_CHARS or run[i - 1] in NAME_PRECEDERS or any(
        run[max(0, i - n):i] in ZH_FUNCTION_WORDS for n in (2, 3))


def _starts_function_word(text):
    return any(text[:n] in ZH_FUNCTION_WORDS for n in (2, 3, 4))


# compiled on first use (by re): a lookup of what the index holds needs neither
_QUANTITY = r"^[<>~≈]?\d[\d.,]*\s*(?:[kmgtp]i?b|b|bytes?|k|ms|s|sec|min|h|px|%|x)?$"
_BARE_FOLDER = r"^\.?[\w-]+/$"


def _classify_code(span):
    """A backticked span: a URL or path is that kind; else code (short, not prose)."""
    if re.match(r"^https?://", span, re.I):
        return "url"
    if re.match(_QUANTITY, span, re.I) or re.match(_BARE_FOLDER, span):
        return None  # `1MB`, `200 ms`; `memory/`, `src/`: an amount or a folder word, no entity
    if re.match(r"^(~|\.{1,2})?/", span) or re.match(r"^[\w.-]+/[\w./-]*$", span):
        return "path"
    if len(span.split()) > 4:
        return None
    return "code"


def _capitalised_names(text):
    """People, places and titles: (start, end, name, kind) of capitalised
    words, not a lone word at a sentence start ("Went home", "See you")
    unless it is marked: in a heading (## Atlas) it may still be any word,
    kind "capstart", which counts only for a word the folder also writes so
    elsewhere; in bold on its own (**Atlas**) it is a name ("cap")."""
    for line_start, line in _lines_with_offsets(text):
        speaker = _re()["speaker"].match(line)
        if speaker and speaker.group(1).split()[0] not in CAPITAL_NOISE:
            title = re.match(r"(?:%s)\.\s+(?=\S)" % "|".join(sorted(TITLES)), speaker.group(1))  # **Dr. Lin**: Lin
            at = speaker.start(1) + (title.end() if title else 0)
            yield line_start + at, line_start + speaker.end(1), line[at:speaker.end(1)], "cap"
        heading = line.lstrip().startswith("#")
        for m in _re()["capitalised"].finditer(line):
            words = m.group(0).replace("-", " ").split()
            start = m.start()
            initial = _sentence_initial(line, start)
            # "Yep John" -> John; at a sentence start also "The Grand Canyon" -> Grand Canyon
            while words and (words[0] in CAPITAL_NOISE or (initial and words[0].lower() in STOPWORDS)):
                start += len(words[0]) + 1
                words = words[1:]
            if words and words[-1] in TITLES and line[start + len(" ".join(words)):][:1] == ".":
                words = words[:-1]  # "Saw Dr. Lin": the title belongs to the next name, not this one
            if not words or (len(words) == 1 and len(words[0]) < 3
                             and not _re()["title"].search(line[:start].rstrip())):  # (Dr. Yu: a name of two)
                continue
            kind = "cap"
            if len(words) == 1 and start == m.start() and initial:
                if words[0].lower() in STOPWORDS:
                    continue
                bold = line[max(0, start - 2):start] in ("**", "__") \
                    and line[start + len(words[0]):start + len(words[0]) + 2] in ("**", "__")
                if not (bold or heading):
                    continue  # measured: in chat, "See", "Game" open sentences and recur
                kind = "cap" if bold and not heading else "capstart"
            name = " ".join(words)
            yield line_start + start, line_start + start + len(name), name, kind


def _sentence_initial(line, pos):
    before = _re()["sentence_start"].sub("", line[:pos]).rstrip()
    if _re()["title"].search(before):  # "Dr. Lin": a title's point ends no sentence
        return False
    return not before or before[-1] in '.!?:;"“”(（[*—–'


def _lines_with_offsets(text):
    offset = 0
    for line in text.split("\n"):
        yield offset, line
        offset += len(line) + 1


def _cjk_phrases(text, cohesive=None):
    """Chinese phrases cut at stop characters; the candidates for recurring terms
    are each phrase of 2-6 characters and its 2- and 3-character ends, and
    the folder's own two-character words (see _own_words)."""
    common = _common_words()
    for m in _re()["cjk_run"].finditer(text):
        run, base, piece_start = m.group(0), m.start(), 0
        for i in range(len(run) + 1):
            if i == len(run) or run[i] in CJK_STOP_CHARS:
                piece = run[piece_start:i]
                # a cut inside an everyday word (线上变|更 of 变更): the candidates at that edge are fragments
                cut_start = piece_start > 0 and run[piece_start - 1:piece_start + 1] in common
                cut_end = i < len(run) and i > 0 and run[i - 1:i + 1] in common
                for offset, candidate in _phrase_candidates(piece) + _own_words(piece, cohesive):
                    if (cut_start and offset == 0) or (cut_end and offset + len(candidate) == len(piece)) \
                            or _is_fragment(candidate, common):
                        continue
                    yield base + piece_start + offset, base + piece_start + offset + len(candidate), candidate
                piece_start = i + 1


def _is_fragment(candidate, common):
    """An everyday word and a place word (上线前, 会议后), or a number and a
    unit of time or count (二周, 三次): no term of its own."""
    if candidate[-1] in LOCATIVES and (candidate[:-1] in common or candidate[:-1] in CJK_STOP_WORDS):
        return True
    if _counted(candidate):
        return True
    return candidate[0] in NUMERALS and all(c in NUMERALS or c in COUNT_UNITS for c in candidate[1:])


NUMERALS = frozenset("一二三四五六七八九十两几半百千万零每")
COUNT_UNITS = frozenset("周天月年日次个号点分秒期遍回趟")
MEASURE_CHARS = frozenset("类种个些款套份项件条")  # they count kinds and pieces: 几个类|小工具


def _counted(chars):
    """Whether CJK text starts with a measure word that is no word with the
    next character (类|小工具; not 项目, 条件, 类型)."""
    return len(chars) >= 2 and chars[0] in MEASURE_CHARS and is_cjk(chars[:2]) and chars[:2] not in _common_words()


def _phrase_candidates(piece):
    """A piece of 3-6 characters between particles, and its 3-character ends
    (two-character words that recur are mostly everyday words)."""
    seen = set()
    if 3 <= len(piece) <= 6:
        seen.add((0, piece))
    if len(piece) > 3:
        seen.add((0, piece[:3]))
        seen.add((len(piece) - 3, piece[-3:]))
    return sorted(c for c in seen if c[1] not in CJK_STOP_WORDS)


def _own_words(piece, cohesive):
    """(offset, word) of the two-character words of a piece that bind as one
    word in this folder and that a general dictionary does not list as an
    everyday word (飞书, 闲鱼; not 周末, 同事): a product, a team, a term."""
    if cohesive is None:
        return []
    common = _common_words()
    inside = [False] * len(piece)  # characters of an everyday longer word (公室 of 办公室)
    for size in (3, 4):
        for i in range(len(piece) - size + 1):
            if piece[i:i + size] in common:
                inside[i:i + size] = [True] * size
    return [(i, piece[i:i + 2]) for i in range(len(piece) - 1)
            if piece[i:i + 2] not in common and piece[i:i + 2] not in CJK_STOP_WORDS
            and not (inside[i] and inside[i + 1]) and piece[i + 1] not in LOCATIVES
            and piece[i] not in SURNAMES  # names are _name_at's (周杰 of 周杰伦)
            and not _starts_function_word(piece[i:]) and cohesive(piece[i:i + 2])]


LOCATIVES = frozenset("里上中内外下前后边旁")  # 群里 is "in the group", no word of its own


_COMMON = []


def _common_words():
    """The everyday two-character words of data/zh-common-words.txt (from
    jieba's dictionary, MIT License), read once."""
    if not _COMMON:
        import os
        from ..files.sources import SUITE_DIR
        with open(os.path.join(SUITE_DIR, "data", "zh-common-words.txt"), encoding="utf-8") as f:
            _COMMON.append(frozenset(line.strip() for line in f if line.strip() and line[0] != "#"))
    return _COMMON[0]


_DEFINITION = None


def defined_names(texts):
    """The Chinese names a folder defines: a list item or line that starts
    with a surname and one to three characters, then a colon or a bracket
    (a People list: '- 张伟明：后端工程师', '- **李娜娜** (运维)')."""
    global _DEFINITION
    if _DEFINITION is None:
        # The name is a line's first run of non-ASCII characters (what comes
        # before and after it is ASCII), CJK checked below: a class of the CJK
        # ranges costs ~30M instructions to compile, every `link.sh` call.
        # Folded text has ':' and '(' for '：' and '（'.
        _DEFINITION = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)])?[ \t]*(?:\*\*|__)?([^\x00-\x7f]{2,4})"
                                 r"(?:\*\*|__)?[ \t]*[:(]", re.M)
    found = set()
    for text in texts:
        for m in _DEFINITION.finditer(fold(text)):
            name = m.group(1)
            surname = name[:2] if name[:2] in COMPOUND_SURNAMES else name[:1]
            if is_cjk(name) and (surname in SURNAMES or surname in COMPOUND_SURNAMES) and len(name) > len(surname) \
                    and name not in NOT_NAMES and name not in CJK_STOP_WORDS:
                found.add(name)
    return frozenset(found)


# Mention rows: what the store keeps for the linker (see index/link_tables.py):
# (path, ordinal, key, kind, spelling, count) per chunk.

def file_mentions(path, chunks, cohesive=None, names=frozenset()):
    """Mention rows of a file from its chunks [(ordinal, text)]."""
    rows = []
    for ordinal, text in chunks:
        counts = Counter((m.key, m.kind, m.spelling) for m in extract_entities(text, cohesive, names))
        rows.extend((path, ordinal, key, kind, spelling, n) for (key, kind, spelling), n in counts.items())
    return rows
