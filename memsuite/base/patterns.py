"""Regular expressions shared by the lower layers, compiled on first use."""
import re


# CJK stretches found in UTF-8 bytes: a str class of the CJK ranges costs
# ~2 ms to compile (every process would pay it), this one ~0.2 ms.  CJK is
# U+3040-U+D7FF (kana, Han, Yi, Hangul...), U+F900-U+FAFF and U+20000-U+33FFF.
_LAZY_PATTERNS = {
    "cjk_bytes": (rb"((?:\xe3[\x81-\xbf][\x80-\xbf]|[\xe4-\xed][\x80-\xbf][\x80-\xbf]"
                  rb"|\xef[\xa4-\xab][\x80-\xbf]|\xf0[\xa0-\xb3][\x80-\xbf][\x80-\xbf])+)", 0),
    # one CJK character (chinese.is_cjk_char's, surrogates left out), in UTF-8 bytes
    "cjk_char_bytes": (rb"\xe3[\x81-\xbf][\x80-\xbf]|[\xe4-\xec][\x80-\xbf][\x80-\xbf]|\xed[\x80-\x9f][\x80-\xbf]"
                       rb"|\xef[\xa4-\xab][\x80-\xbf]|\xf0[\xa0-\xb3][\x80-\xbf][\x80-\xbf]", 0),
    "date": (r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)", 0),
    "line_break": (r"\r\n|\r|\n", 0),
    # a <private> tag opening (group 1 empty) or closing (group 1 "/") a block; blocks nest
    "private_tag": (r"<\s*(?:(/)\s*private\s*|private(?:\s[^<>]{0,200})?)>", re.I),
    "heading": (r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t#]*$", 0),
    "fence": (r"^ {0,3}(`{3,}|~{3,})", 0),
    # digit groups joined by single dashes, dots or spaces; an optional +country
    # code, or an (area code) first: +86 138 0013 8000, (021) 6234-5678
    "number": (r"(?<![\w.+-])(\+)?(?:\((\d{1,5})\) ?)?(\d+(?:[-. ]\d+)*)(?![\w-])", re.A),
    "iso_date": (r"\d{4}-\d{2}-\d{2}", 0),
    # what agents wrap around injected text: <system-reminder>...</system-reminder>, <command-name>
    # (a block's body stops at the next opening tag: an opening never closed is not scanned again)
    "agent_tags": (r"<(system-reminder|command-[a-z-]+|local-command-[a-z-]+)>(?:(?!<\1>).)*?</\1>", re.S),
}
_compiled = {}


def pattern(name):
    """A regular expression of _LAZY_PATTERNS, compiled on first use: compiling
    them all would cost every cold query milliseconds most never need."""
    found = _compiled.get(name)
    if found is None:
        found = _compiled[name] = re.compile(*_LAZY_PATTERNS[name])
    return found
