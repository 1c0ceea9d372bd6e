"""The Porter stemmer (M.F. Porter, 1980), for lower-case ASCII words, after
the irregular forms no suffix rule undoes (went, bought, children: irregular.py)."""

from .irregular import BASE_FORM


# --- Porter stemmer (M.F. Porter, 1980), for lower-case ASCII words ---------

def stem(word):
    """Reduce an English word to its Porter stem (an irregular form: its base's); other words pass unchanged."""
    if len(word) <= 2 or not word.isascii() or not word.isalpha():
        return word
    word = BASE_FORM.get(word, word)
    w = _step1ab(word)
    w = _step1c(w)
    w = _replace_suffix(w, _STEP2, _STEP2_ENDS)
    w = _replace_suffix(w, _STEP3, _STEP3_ENDS)
    w = _step4(w)
    return _step5(w)


def _is_consonant(w, i):
    c = w[i]
    if c in "aeiou":
        return False
    if c == "y":
        return i == 0 or not _is_consonant(w, i - 1)
    return True


_VOWELS_TO_V = str.maketrans("abcdefghijklmnopqrstuvwxz", "vcccvcccvcccccvcccccvcccc")  # y kept


def _form(s):
    """s as 'c' (consonant) and 'v' (vowel) letters: a y is a vowel after a
    consonant, a consonant first or after a vowel.  Translating first keeps
    the per-letter loop to words holding a y."""
    form = s.translate(_VOWELS_TO_V)
    if "y" not in form:
        return form
    out = list(form)
    for i, c in enumerate(out):
        if c == "y":
            out[i] = "c" if i == 0 or out[i - 1] == "v" else "v"
    return "".join(out)


def _measure(s):
    """m in Porter's [C](VC)^m[V]: how many vowel-consonant runs s has (each
    ends where a vowel is followed by a consonant)."""
    return _form(s).count("vc")


def _has_vowel(s):
    return "v" in _form(s)


def _ends_double_consonant(s):
    return len(s) >= 2 and s[-1] == s[-2] and _is_consonant(s, len(s) - 1)


def _ends_cvc(s):
    return (len(s) >= 3 and _is_consonant(s, len(s) - 3)
            and not _is_consonant(s, len(s) - 2)
            and _is_consonant(s, len(s) - 1) and s[-1] not in "wxy")


def _step1ab(w):
    if w.endswith("sses") or w.endswith("ies"):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith("ss"):
        w = w[:-1]
    if w.endswith("eed"):
        if _measure(w[:-3]) > 0:
            w = w[:-1]
        return w
    for suffix in ("ed", "ing"):
        if w.endswith(suffix) and _has_vowel(w[:-len(suffix)]):
            w = w[:-len(suffix)]
            if w.endswith(("at", "bl", "iz")):
                return w + "e"
            if _ends_double_consonant(w) and w[-1] not in "lsz":
                return w[:-1]
            if _measure(w) == 1 and _ends_cvc(w):
                return w + "e"
            return w
    return w


def _step1c(w):
    if w.endswith("y") and _has_vowel(w[:-1]):
        return w[:-1] + "i"
    return w


_STEP2 = (("ational", "ate"), ("tional", "tion"), ("enci", "ence"), ("anci", "ance"),
          ("izer", "ize"), ("bli", "ble"), ("alli", "al"), ("entli", "ent"), ("eli", "e"),
          ("ousli", "ous"), ("ization", "ize"), ("ation", "ate"), ("ator", "ate"),
          ("alism", "al"), ("iveness", "ive"), ("fulness", "ful"), ("ousness", "ous"),
          ("aliti", "al"), ("iviti", "ive"), ("biliti", "ble"), ("logi", "log"))
_STEP3 = (("icate", "ic"), ("ative", ""), ("alize", "al"), ("iciti", "ic"),
          ("ical", "ic"), ("ful", ""), ("ness", ""))
_STEP4 = ("al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment",
          "ent", "ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize")
_STEP2 = tuple(sorted(_STEP2, key=lambda p: -len(p[0])))
_STEP3 = tuple(sorted(_STEP3, key=lambda p: -len(p[0])))
_STEP4 = tuple(sorted(_STEP4, key=len, reverse=True))
_STEP2_ENDS = tuple(suffix for suffix, _ in _STEP2)
_STEP3_ENDS = tuple(suffix for suffix, _ in _STEP3)


def _replace_suffix(w, rules, endings):
    if not w.endswith(endings):  # most words end in none of them: one test in C
        return w
    for suffix, replacement in rules:
        if w.endswith(suffix):
            base = w[:-len(suffix)]
            return base + replacement if _measure(base) > 0 else w
    return w


def _step4(w):
    if not w.endswith(_STEP4):
        return w
    for suffix in _STEP4:
        if w.endswith(suffix):
            base = w[:-len(suffix)]
            if _measure(base) > 1 and (suffix != "ion" or base.endswith(("s", "t"))):
                return base
            return w
    return w


def _step5(w):
    if w.endswith("e"):
        base = w[:-1]
        m = _measure(base)
        if m > 1 or (m == 1 and not _ends_cvc(base)):
            w = base
    if w.endswith("ll") and _measure(w) > 1:
        w = w[:-1]
    return w
