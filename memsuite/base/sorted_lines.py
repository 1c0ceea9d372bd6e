"""Sorted "key<TAB>fields" lines found by binary search: the JSON index's terms
and the compiled word tables are read this way, a few lines per lookup."""
import os


class SortedLines:
    """Lines "key<TAB>..." sorted by key, in a bytes-like buffer (a memory
    map, or bytes): found by binary search, so a lookup reads a few lines."""

    def __init__(self, buf):
        self.buf = buf

    def _bounds(self, pos):
        """(start, end) of the line holding byte pos."""
        buf = self.buf
        start = buf.rfind(b"\n", 0, pos) + 1
        end = buf.find(b"\n", pos)
        return start, (len(buf) if end < 0 else end)

    def _key(self, start, end):
        tab = self.buf.find(b"\t", start, end)
        return self.buf[start:tab if tab >= 0 else end]

    def lower_bound(self, key):
        """The offset of the first line whose key is >= key."""
        lo, hi = 0, len(self.buf)
        while lo < hi:
            start, end = self._bounds((lo + hi) // 2)
            if start < lo:  # the middle fell in a line before lo: move to the next line
                start, end = self._bounds(lo)
            if self._key(start, end) < key:
                lo = end + 1
            else:
                hi = start
        return lo

    def get(self, key):
        """The fields of the line with this key (after it), or None."""
        key = key.encode("utf-8", "surrogatepass")
        at = self.lower_bound(key)
        if at >= len(self.buf):
            return None
        start, end = self._bounds(at)
        if self._key(start, end) != key:
            return None
        return self.buf[start:end].decode("utf-8", "surrogatepass").split("\t")[1:]

    def starting_with(self, prefix):
        """[(key, fields)] of the lines whose key starts with prefix."""
        prefix_bytes = prefix.encode("utf-8", "surrogatepass")
        at, out = self.lower_bound(prefix_bytes), []
        while at < len(self.buf):
            start, end = self._bounds(at)
            if not self.buf[start:end].startswith(prefix_bytes):
                break
            key, *fields = self.buf[start:end].decode("utf-8", "surrogatepass").split("\t")
            out.append((key, fields))
            at = end + 1
        return out


def map_file(path):
    """A read-only memory map of a file (bytes for an empty one)."""
    import mmap
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
