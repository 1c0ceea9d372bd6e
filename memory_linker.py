#!/usr/bin/env python3
"""How memories relate: entities, their co-occurrence graph, related memories,
graph pictures, and the `link.sh` CLI.

An entity is a thing notes mention by name: CamelCase names (OpenClaw),
ACRONYMS (RSS), `code`, #tags, @mentions, [[wiki links]], URLs, file paths,
people and places (capitalised words that recur mid-sentence), and Chinese
terms (phrases ending in 配置/优化/系统…, and phrases that recur across files).
One extractor finds them per chunk; the graph links two entities each time
they share a chunk.  The tables live in the store's index (SQLite, or
`.memory/links.json` with the JSON backend) and are brought up to date file
by file, from the store's own hashes, before every command.
"""
import math
import re
import sys
from collections import Counter, defaultdict

import memory_store as store_mod
from memory_store import Command, Opt, StoreError, UsageError, print_json, record

__all__ = ["extract_entities", "entity_key", "Mention", "LinkGraph", "Entity", "Related",
           "Appearance", "synced_graph", "entity_report", "related_report", "graph_json", "graph_dot",
           "graph_mermaid", "related_json", "main"]

# Bump when extract_entities changes what it finds: the stored mentions are
# then extracted again.
EXTRACTOR_VERSION = 4

# --------------------------------------------------------------------------
# Extraction
# --------------------------------------------------------------------------

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
        cjk = store_mod.CJK_CLASS
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
            mixed=re.compile(r"(?<![\w.-])(?:[A-Za-z]{2,12}\d+[A-Za-z\d]*|[A-Z]\d{1,3}[A-Z]?|\d{1,3}[A-Z]{1,2})(?![\w.-])"),
            # an acronym defined after its expansion: Google Search Console (GSC), 内容分发网络（CDN）
            defined=re.compile(r"((?:[A-Z][\w-]*[ ]+){1,6}[A-Z][\w-]*|[" + cjk + r"]{2,12})[ ]?[(（][ ]?"
                               r"([A-Z][A-Z0-9]{1,7})[ ]?[)）]"),
            place_suffix=re.compile("(?=[" + cjk + "]{2}(" + PLACE_SUFFIXES + "))"),
            roman=re.compile(r"^M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})$"),
            sentence_start=re.compile(r"^[\s>*#\-+\d.)]*"),
        )
    return _compiled


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
CJK_STOP_CHARS = store_mod.ZH_FREE_CHARS | frozenset("年月日号篇次")
# Common words that recur everywhere but name nothing.
CJK_STOP_WORDS = frozenset("""进行 包括 获得 成为 开始 使用 通过 因为 所以 可以 已经 需要 时候
什么 许多 非常 自己 认为 表示 进入 主要 其中 以及 由于 之后 之前 目前 完成 发现 方法 时间 现在
如果 虽然 但是 然后 还是 就是 这样 那样 怎么 为什么 今天 明天 昨天 最后 一起 问题 情况 方面 作为
继续 提供 出现 部分 相关 同时 其他 所有 一些 地方 注意 下次 整体 决定 想要 觉得 知道 希望 喜欢
代替 订好 分钟 小时 左右 大约 可能 应该 改成 直接 自动 默认 一起 上线 设置 记下""".split())
CJK_STOP_WORDS |= store_mod.ZH_FUNCTION_WORDS | frozenset("""工作 公司 版本 照片 地址 一共 换成 整理 晚饭
午饭 早饭 中午 上班 下班 开会 会议 加班 回家 出门 周末 假期 放假 请假 上午 下午 晚上 早上 今晚 明早 月底
月初 年底 年初 季度 每天 每周 每月 每年 本周 上周 下周 同事 朋友 家里 孩子 老婆 老公 爸妈 爸爸 妈妈
顺便 其实 终于 突然 记得 打算 准备 安排 确认 提醒 联系 讨论 沟通 反馈 测试 上线 发布 修改 更新 处理
购买 支付 转账 费用 价格 一直 一点 一下 几个 两个 三个 大家 别人 东西 事情 问题 结果 原因 情况 方案
幼儿园 医院 银行 公司 学校 机场 酒店 餐厅 超市 商场 公园 小区 大厦 广场 中心 集团 图书馆 博物馆 火车站""".split())
# Kinds kept only when they recur: capitalised words, Chinese phrases, names
# and place names, letter-digit tokens, and all-capital words (LGBTQ and API
# recur; a shouted "DOING" does not).
STATISTICAL_KINDS = ("cap", "phrase", "caps", "zhname", "zhplace", "mixed")
KIND_LABEL = {"cap": "name", "phrase": "term", "caps": "acronym", "zhname": "name", "zhplace": "place",
              "mixed": "term"}
KINDS = ("name", "place", "acronym", "code", "tag", "mention", "link", "url", "path", "term")

# Chinese names: a common surname and one or two characters.  Surnames that
# are mostly something else in running text (和, 于, 时, 成, 向...) are left out.
SURNAMES = frozenset("王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘蒋蔡余杜叶"
                     "程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金廖贾夏韦付方邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺"
                     "顾毛郝龚邵钱严覃武戴莫孔汤温康施牛樊葛邢齐乔伍庞颜倪庄聂章鲁岳翟殷詹欧耿焦俞柳"
                     "祝舒阮柯纪梅童凌毕季裴霍涂苗谷盛翁冉骆蓝游辛靳管柴鲍喻祁蒲滕饶牟艾穆卓缪褚窦戚岑")
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
    key = " ".join(store_mod.fold(text).split())
    if kind == "url":
        return key.rstrip("/")
    return key.lstrip("#@") or key


def extract_entities(text, cohesive=None):
    """Every entity mention in a piece of Markdown, in order of kind priority.
    cohesive(pair) says whether two Chinese characters are one word in this
    folder (a name of three characters, not two and a verb); without it, a
    name is two characters and a third that is no particle."""
    import unicodedata
    text = unicodedata.normalize("NFKC", store_mod.mask_private(text))  # ＳＤＫ -> SDK
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
    simplified = text.translate(store_mod.zh_tables()[0])  # 陳靜 is found as 陈静 (one character for one)
    for m in patterns["suffix_term"].finditer(simplified):
        if not (set(m.group(1)) & CJK_STOP_CHARS):
            claim("term", m.start(), m.end(), text[m.start():m.end()])
    for start, end, name in _capitalised_names(text):
        claim("cap", start, end, name)
    for kind, start, end, _ in _chinese_entities(simplified, cohesive):
        claim(kind, start, end, text[start:end])
    for start, end, _ in _cjk_phrases(simplified):
        if not any(s < end and start < e for s, e in taken):
            phrase = text[start:end]
            out.append(Mention("phrase", entity_key("phrase", phrase), phrase))
    return out


def _last_piece(run):
    """The end of a CJK run after its last particle (...设置了内容分发网络 -> 内容分发网络)."""
    cut = max((i for i, c in enumerate(run) if c in CJK_STOP_CHARS), default=-1)
    return run[cut + 1:]


def _chinese_entities(text, cohesive):
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
            found = None if taken[i] else _name_at(run, i, cohesive)
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
    if start < 0 or set(run[start:suffix_at]) & store_mod.ZH_FREE_CHARS:
        return None
    while start > 0 and suffix_at - start < 4 and cohesive and cohesive(run[start - 1:start + 1]):
        start -= 1
    return start


def _name_at(run, i, cohesive):
    """The Chinese name that starts at run[i], or None: a surname, then a
    character that is no particle, then one more when the two given
    characters bind as one word in this folder (李明轩; 李明 in 李明说)."""
    surname = run[i:i + 2] if run[i:i + 2] in COMPOUND_SURNAMES else run[i] if run[i] in SURNAMES else None
    if surname is None or (i > 0 and not _boundary_before(run, i)):
        return None
    rest = run[i + len(surname):]
    if not rest or rest[0] in CJK_STOP_CHARS:
        return None
    name = surname + rest[0]
    if name in NOT_NAMES or name in CJK_STOP_WORDS or _starts_function_word(rest):
        return None
    third = rest[1:2]
    if third and third not in CJK_STOP_CHARS and not _starts_function_word(rest[1:]) and (
            cohesive(rest[0] + third) if cohesive else False):
        name += third
    return name


NAME_PRECEDERS = frozenset("找约请陪接送带帮替叫见问跟和与给让被把向对同")


def _boundary_before(run, i):
    """Whether a name may start at run[i]: after a particle, a verb that takes
    a person (找, 约, 陪...) or a function word."""
    return run[i - 1] in CJK_STOP_CHARS or run[i - 1] in NAME_PRECEDERS or any(
        run[max(0, i - n):i] in store_mod.ZH_FUNCTION_WORDS for n in (2, 3))


def _starts_function_word(text):
    return any(text[:n] in store_mod.ZH_FUNCTION_WORDS for n in (2, 3, 4))


def _classify_code(span):
    """A backticked span: a URL or path is that kind; else code (short, not prose)."""
    if re.match(r"^https?://", span, re.I):
        return "url"
    if re.match(r"^(~|\.{1,2})?/", span) or re.match(r"^[\w.-]+/[\w./-]*$", span):
        return "path"
    if len(span.split()) > 4:
        return None
    return "code"


def _capitalised_names(text):
    """People, places and titles: capitalised words not at a sentence start."""
    for line_start, line in _lines_with_offsets(text):
        speaker = _re()["speaker"].match(line)
        if speaker and speaker.group(1).split()[0] not in CAPITAL_NOISE:
            yield line_start + speaker.start(1), line_start + speaker.end(1), speaker.group(1)
        for m in _re()["capitalised"].finditer(line):
            words = m.group(0).replace("-", " ").split()
            start = m.start()
            initial = _sentence_initial(line, start)
            # "Yep John" -> John; at a sentence start also "The Grand Canyon" -> Grand Canyon
            while words and (words[0] in CAPITAL_NOISE or (initial and words[0].lower() in store_mod.STOPWORDS)):
                start += len(words[0]) + 1
                words = words[1:]
            if not words or (len(words) == 1 and start == m.start() and initial):
                continue
            if len(words) == 1 and len(words[0]) < 3:
                continue
            name = " ".join(words)
            yield line_start + start, line_start + start + len(name), name


def _sentence_initial(line, pos):
    before = _re()["sentence_start"].sub("", line[:pos]).rstrip()
    return not before or before[-1] in '.!?:;"“”(（[*—–'


def _lines_with_offsets(text):
    offset = 0
    for line in text.split("\n"):
        yield offset, line
        offset += len(line) + 1


def _cjk_phrases(text):
    """Chinese phrases cut at stop characters; the candidates for recurring terms
    are each phrase of 2-6 characters and its 2- and 3-character ends."""
    for m in _re()["cjk_run"].finditer(text):
        run, base, piece_start = m.group(0), m.start(), 0
        for i in range(len(run) + 1):
            if i == len(run) or run[i] in CJK_STOP_CHARS:
                piece = run[piece_start:i]
                for offset, candidate in _phrase_candidates(piece):
                    yield base + piece_start + offset, base + piece_start + offset + len(candidate), candidate
                piece_start = i + 1


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


# --------------------------------------------------------------------------
# Mention rows: what the store keeps for the linker (see the link tables in
# memory_store.py): (path, ordinal, key, kind, spelling, count) per chunk.
# --------------------------------------------------------------------------

def file_mentions(path, chunks, cohesive=None):
    """Mention rows of a file from its chunks [(ordinal, text)]."""
    rows = []
    for ordinal, text in chunks:
        counts = Counter((m.key, m.kind, m.spelling) for m in extract_entities(text, cohesive))
        rows.extend((path, ordinal, key, kind, spelling, n) for (key, kind, spelling), n in counts.items())
    return rows


# --------------------------------------------------------------------------
# The graph: sync, entities, related memories, pictures
# --------------------------------------------------------------------------

Entity = record("Entity", "key name kind chunks files mentions expansion")
Entity.__doc__ = ("An entity: its key, most frequent spelling, kind, how widely it is mentioned, "
                  "and for an acronym the words it stands for (or None).")


def _without_fragments(entities):
    """Leave out Chinese terms that are part of a longer entity mentioned
    nearly as often (明轩 of 李明轩, 点地图 of 提交站点地图)."""
    chinese = [e for e in entities.values() if e.kind in ("term", "name", "place") and store_mod.is_cjk(e.key[:1])]
    out = dict(entities)
    for e in chinese:
        for longer in chinese:
            if len(longer.key) > len(e.key) and e.key in longer.key and longer.chunks >= 0.7 * e.chunks \
                    and e.kind == "term":
                out.pop(e.key, None)
                break
    return out
Appearance = record("Appearance", "id path start_line end_line heading date snippet count")
Related = record("Related", "id path start_line end_line heading date score shared snippet")
Related.__doc__ = "A memory related to a target, with the entities they share (names)."

class LinkGraph:
    """The entity graph of a MemoryStore (call sync() before reading).
    Entities in more than params.common_entity_share of the chunks say
    little about relatedness (and would make every lookup touch most of the
    index); params.same_day_weight favours memories of one batch of work."""

    def __init__(self, store, params=None):
        self.store = store
        self.params = params or store.params
        self.links = store.links(EXTRACTOR_VERSION)
        self._entities = None

    # --- sync ----------------------------------------------------------------
    def sync(self):
        """Re-extract the files whose content changed since the last sync:
        (changed, removed).  A write that fails (full disk, busy index) raises
        StoreError and leaves the last good graph."""
        current = {p: state.hash for p, state in self.store.known_files().items() if state.hash}
        known = self.links.known_files()
        changes = []
        cohesive = self._cohesion()
        for path, digest in sorted(current.items()):
            if known.get(path) != digest:
                chunks = [(c.ordinal, c.text) for c in self.store.chunks_of(path)]
                changes.append((path, digest, file_mentions(path, chunks, cohesive)))
        removed = [p for p in known if p not in current]
        changes.extend((p, None, []) for p in removed)
        if changes:
            try:
                self.links.apply(changes)
            except Exception as exc:
                raise store_mod.write_failure(exc, self.store.index_dir) or exc
            self._entities = None
        return [c[0] for c in changes if c[1] is not None], removed

    def _cohesion(self):
        """cohesive(pair): whether two characters are one word in the folder as
        it is now (the search's test, store_mod.binds, on its frequencies)."""
        n_docs, cache = self.store.chunk_count(), {}

        def cohesive(pair):
            if pair not in cache:
                dfs = self.store.doc_freqs([pair, pair[0], pair[1]])
                cache[pair] = store_mod.binds(pair, dfs, n_docs, self.params.word_cohesion)
            return cache[pair]
        return cohesive

    # --- entities ------------------------------------------------------------
    def entities(self):
        """{key: Entity} of every accepted entity."""
        if self._entities is None:
            spellings = defaultdict(Counter)
            for key, spelling, kind, n in self.links.spelling_rows():
                spellings[key][(kind, spelling)] += n
            out = {}
            for key, chunks, files, mentions in self.links.entity_rows():
                forms = {f: n for f, n in spellings.get(key, {}).items() if f[0] != "expansion"}
                if not forms:
                    continue
                explicit = any(kind not in STATISTICAL_KINDS for kind, _ in forms)
                chinese = all(kind in ("zhname", "zhplace") for kind, _ in forms)
                if not explicit and (chunks < 2 if chinese else files < 2):
                    continue  # a statistical candidate that does not recur
                (kind, name), _ = max(forms.items(), key=_display_rank)
                name = {"tag": "#", "mention": "@"}.get(kind, "") + name
                expansions = [s for (k, s), _ in spellings[key].most_common() if k == "expansion"]
                out[key] = Entity(key, name, KIND_LABEL.get(kind, kind), chunks, files, mentions,
                                  expansions[0] if expansions else None)
            out = _without_fragments(out)
            self._entities = out
        return self._entities

    def spellings(self):
        """{key: [every spelling seen]}."""
        out = defaultdict(list)
        for key, spelling, _, _ in self.links.spelling_rows():
            out[key].append(spelling)
        return out

    def find(self, name):
        """The entity called `name` (any case, with or without #/@), or StoreError
        naming the closest matches."""
        entities = self.entities()
        raw = name.strip()
        for kind in ("name", "url"):
            key = entity_key(kind, raw)
            if key in entities:
                return entities[key]
        by_name = {e.name.casefold(): e for e in entities.values()}
        if raw.casefold() in by_name:
            return by_name[raw.casefold()]
        import difflib
        names = sorted({e.name for e in entities.values()})
        close = difflib.get_close_matches(raw, names, n=3, cutoff=0.6) or \
            [n for n in names if raw.casefold() in n.casefold()][:3]
        hint = (" (did you mean %s?)" % " or ".join(close)) if close else ""
        raise StoreError("unknown entity %r%s" % (raw, hint))

    def idf(self, entity):
        n = max(self.store.chunk_count(), 1)
        return math.log(1.0 + n / max(entity.chunks, 1))

    # --- lookups ---------------------------------------------------------------
    def appearances(self, entity, limit=20):
        """Where an entity appears, newest first (undated files last)."""
        counts = {(p, o): n for _, p, o, n in self.links.mentions_of([entity.key])}
        rows = self._rows(counts)
        spellings = [entity.name] + [entity.key.lstrip("#@")]
        out = []
        for (p, o), row in rows.items():
            out.append(Appearance(store_mod.cite(p, row.start_line, row.end_line), p, row.start_line, row.end_line, row.heading,
                                  row.date, _line_with(row.text, spellings), counts[(p, o)]))
        out.sort(key=lambda a: (a.date is not None, a.date or "", a.path, -a.start_line), reverse=True)
        return out[:limit]

    def neighbours(self, entity, limit=10):
        """[(Entity, weight)]: the entities most often in the same chunk as this one."""
        entities = self.entities()
        refs = [(p, o) for _, p, o, _ in self.links.mentions_of([entity.key])]
        counts = Counter()
        for keys in self.links.keys_in_chunks(refs).values():
            counts.update(k for k in keys if k in entities and k != entity.key)
        out = [(entities[k], w) for k, w in counts.items()]
        out.sort(key=lambda ew: (-ew[1], -ew[0].chunks, ew[0].name))
        return out[:limit]

    def links_among(self, keys):
        """[(Entity, Entity, chunks shared)] for every linked pair of the given entities."""
        entities = self.entities()
        chunks = defaultdict(set)
        for key, p, o, _ in self.links.mentions_of(keys):
            chunks[key].add((p, o))
        ordered = sorted(chunks)
        out = []
        for i, a in enumerate(ordered):
            for b in ordered[i + 1:]:
                shared = len(chunks[a] & chunks[b])
                if shared:
                    out.append((entities[a], entities[b], shared))
        out.sort(key=lambda e: (-e[2], e[0].name, e[1].name))
        return out

    def _rows(self, chunk_refs):
        """{(path, ordinal): StoredChunk} for chunk references."""
        by_path = defaultdict(set)
        for p, o in chunk_refs:
            by_path[p].add(o)
        out = {}
        for p, ordinals in by_path.items():
            for row in self.store.chunks_of(p):
                if row.ordinal in ordinals:
                    out[(p, row.ordinal)] = row
        return out

    def resolve_target(self, target):
        """A chunk id 'path#n', a citation 'path:31-44' or a file path ->
        (path, [ordinals]).  ValueError for a malformed reference."""
        path, first, last = store_mod.parse_reference(target)
        path = path.replace("\\", "/")
        if path.startswith("./"):
            path = path[2:]
        store_mod.safe_join(self.store.root, path)
        rows = self.store.chunks_of(path)
        if not rows:
            raise StoreError("no memory file %r in the index" % path)
        if first == "#":
            if last not in {r.ordinal for r in rows}:
                raise StoreError("no chunk %s (the file has %d chunks, #0-#%d)" % (target, len(rows), len(rows) - 1))
            return path, [last]
        if first is not None:
            ordinals = sorted(r.ordinal for r in rows if r.start_line <= last and r.end_line >= first)
            if not ordinals:
                raise StoreError("no indexed text at %s" % target)
            return path, ordinals
        return path, sorted(r.ordinal for r in rows)

    def related(self, target, limit=5, scoring="overlap"):
        """Memories sharing entities with a chunk ('path#n'), lines ('path:31-44')
        or a file, best first."""
        path, ordinals = self.resolve_target(target)
        whole_file = store_mod.parse_reference(target)[1] is None
        return self.related_to_chunks([(path, o) for o in ordinals], limit, scoring, exclude_file=whole_file)

    def related_to_chunks(self, chunks, limit=5, scoring="overlap", exclude_file=False):
        """Chunks sharing entities with the given ones.  Scored by the idf-weighted
        share of the target's entities they contain ("overlap"; measured better
        than weighted Jaccard on LoCoMo multi-hop, see bench/linker.py)."""
        entities = self.entities()
        own = set()
        for p, o in chunks:
            own.update(k for k, _, _, _ in self.links.mentions_in(p, o) if k in entities)
        if not own:
            return []
        n = max(self.store.chunk_count(), 1)
        weight = {k: self.idf(entities[k]) for k in own}
        useful = [k for k in own if entities[k].chunks <= max(50, self.params.common_entity_share * n)] \
            or list(own)
        targets = set(chunks)
        target_rows = self._rows(targets)
        shared = defaultdict(set)
        for key, p, o, _ in self.links.mentions_of(useful):
            if (p, o) in targets or (exclude_file and p in {t[0] for t in targets}):
                continue
            shared[(p, o)].add(key)
        scored = {ref: sum(weight[k] for k in keys) for ref, keys in shared.items()}
        pool = sorted(scored, key=lambda r: (-scored[r], r))[:max(50, limit * 5)]
        rows = self._rows(pool)
        total_own = sum(weight.values())
        results = []
        for ref in pool:
            row = rows.get(ref)
            if row is None or _overlaps(row, target_rows.values()):
                continue
            if scoring == "jaccard":
                theirs = {k for k, _, _, _ in self.links.mentions_in(*ref) if k in entities}
                union = total_own + sum(self.idf(entities[k]) for k in theirs - own)
                score = scored[ref] / union if union else 0.0
            else:
                score = scored[ref] / total_own
            bonus = self.params.same_day_weight
            if bonus and _same_day(row, target_rows.values()):
                score = (score + bonus) / (1 + bonus)
            names = [entities[k].name for k in sorted(shared[ref], key=lambda k: (-weight[k], k))]
            results.append(Related(store_mod.cite(ref[0], row.start_line, row.end_line), ref[0], row.start_line, row.end_line,
                                   row.heading, row.date, round(score, 4), names,
                                   _line_with(row.text, names)))
        results.sort(key=lambda r: (-r.score, r.path, r.start_line))
        return results[:limit]

    def related_to_hits(self, hits, limit=3):
        """Memories linked to search hits by shared entities, not already among them."""
        seen = {(h.path, h.start_line, h.end_line) for h in hits}
        out = []
        for hit in hits[:3]:
            ordinals = [c.ordinal for c in self.store.chunks_of(hit.path)
                        if store_mod.ranges_overlap(c.start_line, c.end_line, hit.start_line, hit.end_line)]
            for r in self.related_to_chunks([(hit.path, o) for o in ordinals], limit=limit * 2):
                if (r.path, r.start_line, r.end_line) in seen or any(o.id == r.id for o, _ in out):
                    continue
                if _overlaps(r, hits):
                    continue
                out.append((r, hit.id))
        out.sort(key=lambda rh: -rh[0].score)
        return out[:limit]

    # --- tables and pictures ---------------------------------------------------
    def table(self, top=None, kind=None):
        ents = [e for e in self.entities().values() if kind is None or e.kind == kind]
        ents.sort(key=lambda e: (-e.chunks, -e.mentions, e.name))
        return ents[:top] if top else ents

    def strongest_links(self, top=10, among=60):
        """The strongest links among the `among` most mentioned entities."""
        return self.links_among([e.key for e in self.table(among)])[:top]

    def subgraph(self, entity=None, depth=1, top=15):
        """(nodes [Entity], edges [(Entity, Entity, weight)]) for a picture.

        Around an entity: breadth-first to `depth`, the `top` strongest
        neighbours at each step.  Without one: the `top` most mentioned
        entities and the links among them."""
        entities = self.entities()
        if entity is None:
            nodes = {e.key for e in self.table(top)}
        else:
            nodes, frontier = {entity.key}, [entity]
            for _ in range(depth):
                nxt = []
                for e in frontier:
                    for other, _ in self.neighbours(e, limit=top):
                        if other.key not in nodes and len(nodes) < top:
                            nodes.add(other.key)
                            nxt.append(other)
                frontier = nxt
        edges = _backbone(self.links_among(nodes), entity.key if entity else None)
        return [entities[k] for k in sorted(nodes, key=lambda k: (-entities[k].chunks, k))], edges


_KIND_RANK = {"name": 5, "cap": 5, "link": 4, "term": 4, "phrase": 4, "caps": 3, "acronym": 3,
              "url": 2, "path": 2, "mention": 1, "tag": 1, "code": 0}


def _display_rank(form):
    """Which spelling names an entity: the most frequent; on a tie the proper
    name over the tag or code form, capitals over lower case."""
    (kind, spelling), count = form
    return count, _KIND_RANK.get(kind, 0), spelling != spelling.lower(), spelling


def _same_day(row, targets):
    """Written the same day (same date, or the same undated file) as a target."""
    return any((row.date is not None and row.date == t.date) or row.path == t.path for t in targets)


def _backbone(edges, centre=None, per_node=3):
    """Keep a picture readable: each node's strongest few links (all of the centre's)."""
    kept, degree = [], Counter()
    for a, b, w in edges:
        if centre in (a.key, b.key) or (degree[a.key] < per_node and degree[b.key] < per_node):
            kept.append((a, b, w))
            degree[a.key] += 1
            degree[b.key] += 1
    return kept


def _overlaps(row, others):
    return any(o.path == row.path and store_mod.ranges_overlap(o.start_line, o.end_line, row.start_line, row.end_line)
               for o in others)


def _line_with(text, needles, width=160):
    """The first line of text containing one of the needles (else the first line), cut to width."""
    all_lines = text.split("\n")
    lines = [all_lines[i].strip() for i in store_mod.content_lines(all_lines)]
    if not lines:
        return ""
    lowered = [n.casefold() for n in needles if n]
    line = next((l for l in lines if any(n in l.casefold() for n in lowered)), lines[0])
    return line if len(line) <= width else line[:width - 1] + "…"


# --------------------------------------------------------------------------
# Pictures: DOT (Graphviz), Mermaid, JSON
# --------------------------------------------------------------------------

KIND_COLOURS = {"name": "#dbe8fb", "term": "#dcf2dc", "acronym": "#fff2c2", "code": "#ececec",
                "tag": "#f9dcef", "mention": "#f9dcef", "link": "#e6e0f8", "url": "#ffffff",
                "path": "#ffffff"}


def graph_json(nodes, edges):
    return {"nodes": [{"id": e.key, "name": e.name, "kind": e.kind, "chunks": e.chunks, "files": e.files}
                      for e in nodes],
            "edges": [{"source": a.key, "target": b.key, "weight": w} for a, b, w in edges]}


def graph_dot(nodes, edges):
    """Graphviz DOT: node size by how often an entity is mentioned, edge width by shared chunks."""
    def q(text):
        return '"%s"' % text.replace("\\", "\\\\").replace('"', '\\"')
    top = max([e.chunks for e in nodes] or [1])
    heaviest = max([w for _, _, w in edges] or [1])
    out = ["graph memory {",
           '  graph [layout=neato, overlap=false, splines=true, fontname="sans-serif"];',
           '  node [shape=box, style="rounded,filled", fontname="sans-serif", color="#8899aa"];',
           '  edge [color="#7a8a9a"];']
    for e in nodes:
        size = 10 + 8 * e.chunks / top
        label = '"%s\\n%s · %d"' % (q(e.name)[1:-1], e.kind, e.chunks)
        out.append("  %s [label=%s, fillcolor=%s, fontsize=%.0f];" % (
            q(e.key), label, q(KIND_COLOURS.get(e.kind, "#ffffff")), size))
    for a, b, w in edges:
        out.append("  %s -- %s [penwidth=%.1f, label=%s];" % (q(a.key), q(b.key), 1 + 3.0 * w / heaviest,
                                                              q(str(w))))
    out.append("}")
    return "\n".join(out) + "\n"


def graph_mermaid(nodes, edges):
    """Mermaid flowchart (renders in GitHub, Obsidian and most Markdown viewers)."""
    ids = {e.key: "n%d" % i for i, e in enumerate(nodes)}

    def label(text):
        return text.replace('"', "#quot;").replace("[", "#91;").replace("]", "#93;")
    out = ["graph LR"]
    for e in nodes:
        out.append('  %s["%s · %d"]:::%s' % (ids[e.key], label(e.name), e.chunks, e.kind))
    for a, b, w in edges:
        out.append("  %s ---|%d| %s" % (ids[a.key], w, ids[b.key]))
    for kind in sorted({e.kind for e in nodes}):
        out.append("  classDef %s fill:%s,stroke:#8899aa" % (kind, KIND_COLOURS.get(kind, "#ffffff")))
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------
# CLI: link.sh
# --------------------------------------------------------------------------

def open_graph(args):
    """(store, graph), both synced; the caller closes the store."""
    store = store_mod.cli_store(args)
    try:
        store.refresh()
        graph = synced_graph(store)
    except BaseException:
        store.close()
        raise
    return store, graph


def entity_json(e):
    out = {"name": e.name, "kind": e.kind, "chunks": e.chunks, "files": e.files, "mentions": e.mentions}
    if e.expansion:
        out["expansion"] = e.expansion
    return out


def cmd_build(args):
    store_mod.no_words(args)
    store, graph = open_graph(args)
    try:
        ents = graph.table()
        by_kind = Counter(e.kind for e in ents)
        summary = {"files": len(store.known_files()), "chunks": store.chunk_count(),
                   "entities": len(ents), "by_kind": dict(by_kind.most_common()),
                   "top_entities": [entity_json(e) for e in ents[:10]],
                   "top_links": [{"a": a.name, "b": b.name, "weight": w} for a, b, w in graph.strongest_links(10)]}
    finally:
        store.close()
    if args.json:
        print_json(summary)
        return 0
    out = sys.stdout.write
    kinds = ", ".join("%d %s" % (n, k) for k, n in by_kind.most_common())
    out("Linked %s, %s: %s (%s)\n" % (store_mod.plural(summary["files"], "file"),
                                       store_mod.plural(summary["chunks"], "chunk"),
                                       store_mod.plural(len(ents), "entity", "entities"), kinds or "none"))
    if not summary["files"]:
        out("Nothing to link in %s; point --dir or MEMORY_DIR at the folder that holds your notes.\n"
            % store.root)
    if ents:
        out("\nMost mentioned:\n")
        for e in ents[:10]:
            out("  %s %-8s %3d chunks, %d files\n" % (store_mod.pad(e.name, 28), e.kind, e.chunks, e.files))
    if summary["top_links"]:
        out("\nStrongest links (chunks shared):\n")
        for link in summary["top_links"]:
            out("  %s — %s  %d\n" % (link["a"], link["b"], link["weight"]))
    return 0


def synced_graph(store):
    """The LinkGraph of a store, its links brought up to date (a failed write
    leaves the last good graph, with a warning)."""
    graph = LinkGraph(store)
    try:
        graph.sync()
    except StoreError as exc:
        store.warn("warning: %s; links may be stale" % exc)
    return graph


def entity_report(graph, name, limit=20):
    """(Entity, [Appearance], [(Entity, weight)]) and the same as JSON-ready data."""
    entity = graph.find(name)
    places = graph.appearances(entity, limit)
    neighbours = graph.neighbours(entity, 10)
    return (entity, places, neighbours), dict(entity_json(entity), appears=[
        {"id": a.id, "path": a.path, "start_line": a.start_line, "end_line": a.end_line,
         "heading": a.heading, "date": a.date, "snippet": a.snippet, "count": a.count} for a in places],
        related_entities=[dict(entity_json(e), weight=w) for e, w in neighbours])


def related_report(graph, target, limit=5):
    """([Related], JSON-ready data) for a chunk id, citation or file."""
    try:
        results = graph.related(target, limit)
    except ValueError as exc:
        raise UsageError(str(exc))
    return results, {"target": target, "results": [related_json(r) for r in results]}


def cmd_entity(args):
    if not " ".join(args.words).strip():
        raise UsageError("entity needs a NAME (try: link.sh entities)")
    store, graph = open_graph(args)
    try:
        (entity, places, neighbours), data = entity_report(graph, " ".join(args.words), args.limit or 20)
    finally:
        store.close()
    if args.json:
        print_json(data)
        return 0
    colour = store_mod.use_colour()
    bold, dim, off = ("\033[1m", "\033[2m", "\033[0m") if colour else ("", "", "")
    out = sys.stdout.write
    kind = entity.kind + (", " + entity.expansion if entity.expansion else "")
    out("%s%s%s (%s): %s in %s\n" % (bold, entity.name, off, kind, store_mod.plural(entity.chunks, "chunk"),
                                     store_mod.plural(entity.files, "file")))
    out("\nAppears in (newest first):\n")
    for a in places:
        out("  %s:%d-%d  %s%s%s\n     %s\n" % (a.path, a.start_line, a.end_line, dim, a.heading, off, a.snippet))
    if entity.chunks > len(places):
        out("  … and %d more (use --limit)\n" % (entity.chunks - len(places)))
    if neighbours:
        out("\nOften with: %s\n" % ", ".join("%s (%d)" % (e.name, w) for e, w in neighbours))
    return 0


def cmd_related(args):
    if len(args.words) != 1:
        raise UsageError("related takes one chunk id (file.md#5), citation (file.md:31-44) or file path")
    store, graph = open_graph(args)
    try:
        results, data = related_report(graph, args.words[0], args.limit or 5)
    finally:
        store.close()
    if args.json:
        print_json(data)
        return 0
    out = sys.stdout.write
    if not results:
        out("Nothing shares entities with %s.\n" % args.words[0])
    for i, r in enumerate(results, 1):
        out("%d. %.2f  %s:%d-%d  %s\n   via %s\n   %s\n" % (i, r.score, r.path, r.start_line, r.end_line,
                                                         r.heading, ", ".join(r.shared), r.snippet))
    return 0


def related_json(r, **extra):
    return dict({"id": r.id, "path": r.path, "start_line": r.start_line, "end_line": r.end_line,
                 "heading": r.heading, "score": r.score, "shared": r.shared, "snippet": r.snippet}, **extra)


def cmd_entities(args):
    store_mod.no_words(args)
    store, graph = open_graph(args)
    try:
        ents = graph.table(args.top or 30, args.kind)
    finally:
        store.close()
    if args.json:
        print_json({"entities": [entity_json(e) for e in ents]})
        return 0
    sys.stdout.write("%s %-8s %6s %6s\n" % (store_mod.pad("entity", 32), "kind", "chunks", "files"))
    for e in ents:
        sys.stdout.write("%s %-8s %6d %6d\n" % (store_mod.pad(e.name, 32), e.kind, e.chunks, e.files))
    return 0


def cmd_graph(args):
    store_mod.no_words(args)
    store, graph = open_graph(args)
    try:
        centre = graph.find(args.entity) if args.entity else None
        nodes, edges = graph.subgraph(centre, args.depth or 1, args.top or 15)
    finally:
        store.close()
    fmt = "json" if args.json else (args.format or "mermaid")
    if fmt == "json":
        print_json(graph_json(nodes, edges))
    else:
        sys.stdout.write((graph_dot if fmt == "dot" else graph_mermaid)(nodes, edges))
    return 0


def cmd_help(args):
    """No known command: say which ones there are (link.sh --help shows them all)."""
    names = ", ".join(k for k in COMMANDS if k)
    if args.words:
        raise UsageError("unknown command %r (commands: %s)" % (args.words[0], names))
    raise UsageError("a command is needed: %s" % names)


LINK_HELP = """commands:
  link.sh build                      sync the entity graph and summarise it
  link.sh entity OpenClaw            where an entity appears, and what it appears with
  link.sh related 2026-02-20.md#5    memories sharing entities with a chunk, lines
                                     (2026-02-20.md:9-13) or a whole file
  link.sh entities [--kind term]     the entity table
  link.sh graph --entity OpenClaw --format dot | dot -Tsvg > graph.svg

Every command syncs the index first and accepts --dir DIR and --json.
exit codes: 0 ok, 1 runtime error (e.g. unknown entity), 2 usage error."""

_COMMON = store_mod.COMMON_OPTS
_LIMIT = Opt(("--limit", "-n"), "limit", "N", store_mod.to_positive_int, "how many to show")
COMMANDS = {
    None: Command(_COMMON, "link.sh COMMAND [options]",
                  "How memories connect: entities and the memories that share them.", cmd_help,
                  True, LINK_HELP),
    "build": Command(_COMMON, "link.sh build [--json]", "Sync the entity graph and summarise it.",
                     cmd_build, False),
    "entity": Command(_COMMON + [_LIMIT], "link.sh entity NAME [--limit N] [--json]",
                      "Where an entity appears (newest first) and what it appears with.", cmd_entity),
    "related": Command(_COMMON + [_LIMIT], "link.sh related ID|CITATION|PATH [--limit N] [--json]",
                       "Memories sharing entities with a chunk (file.md#5), lines (file.md:9-13) "
                       "or a whole file (file.md).", cmd_related),
    "entities": Command(_COMMON + [
        Opt(("--top",), "top", "N", store_mod.to_positive_int, "how many (default 30)"),
        Opt(("--kind",), "kind", "KIND", store_mod.to_choice(*KINDS), "only this kind: " + ", ".join(KINDS))],
        "link.sh entities [--top N] [--kind KIND] [--json]", "The entity table, most mentioned first.",
        cmd_entities, False),
    "graph": Command(_COMMON + [
        Opt(("--entity",), "entity", "NAME", str, "centre the picture on an entity"),
        Opt(("--depth",), "depth", "N", store_mod.to_positive_int, "steps out from --entity (default 1)"),
        Opt(("--top",), "top", "N", store_mod.to_positive_int,
            "entities in the picture, the centre included (default 15)"),
        Opt(("--format",), "format", "FMT", store_mod.to_choice("dot", "mermaid", "json"),
            "dot (Graphviz), mermaid (default) or json")],
        "link.sh graph [--entity NAME] [--depth N] [--top N] [--format dot|mermaid|json]",
        "Draw the entity graph.", cmd_graph, False),
}




def main(argv=None):
    return store_mod.run_cli(argv, COMMANDS, "link")


if __name__ == "__main__":
    sys.exit(main())
