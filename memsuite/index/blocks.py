"""The block format the SQLite and PostgreSQL indexes share: a file's lines, eight
at a time, stored compressed with their analysed units; its heading trails once."""

from .records import join_units, split_units

BLOCK_KEY = 1 << 24  # a block's row id: file id * BLOCK_KEY + block number


def pack_block(lines, units):
    """BLOCK_LINES lines and their analysed units, compressed together: a CJK
    run repeats the text, so zlib stores it almost for free."""
    import zlib
    data = "\n".join(lines) + "\0" + join_units(units)
    return zlib.compress(data.encode("utf-8", "surrogatepass"), 6)


def unpack_block(blob):
    """(lines, units) of a block."""
    import zlib
    text, units = zlib.decompress(blob).decode("utf-8", "surrogatepass").rsplit("\0", 1)
    return text.split("\n"), split_units(units)


def pack_headings(pairs):
    """A file's distinct heading trails with their units, stored once per file
    (a chunk names its trail by position)."""
    import zlib
    return zlib.compress("\n".join("%s\0%s" % pair for pair in pairs).encode("utf-8", "surrogatepass"), 6)


def unpack_headings(blob):
    import zlib
    return [tuple(item.split("\0")) for item in zlib.decompress(blob).decode("utf-8", "surrogatepass").split("\n")]
