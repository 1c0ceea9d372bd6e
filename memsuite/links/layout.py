"""Graph layout for the memory page: pure functions, standard library only.

spring_layout places nodes by a Fruchterman-Reingold spring embedder whose
repulsion only looks at nearby nodes (a grid of cells), so 2,000 nodes take
seconds in pure Python rather than minutes.  It uses no randomness: nodes
start on a golden-angle spiral in breadth-first order (linked nodes start
near each other), so the same graph always gives the same picture.

separate pushes apart circles that still overlap; place_labels decides, for
each label, from which zoom level on it can be drawn without covering
another label or a node.
"""
import math
import unicodedata

__all__ = ["backbone", "spring_layout", "separate", "fit", "text_width", "place_labels"]

_GOLDEN = math.pi * (3.0 - math.sqrt(5.0))
REPULSION, GRAVITY, CUTOFF = 1.0, 0.05, 2.0


def _bfs_order(n, adj):
    """Nodes in breadth-first order, component by component; the caller's
    order (most important first) breaks ties."""
    seen, order = [False] * n, []
    for start in range(n):
        if seen[start]:
            continue
        seen[start] = True
        queue, head = [start], 0
        while head < len(queue):
            v = queue[head]
            head += 1
            for u, _ in sorted(adj[v], key=lambda uw: (-uw[1], uw[0])):
                if not seen[u]:
                    seen[u] = True
                    queue.append(u)
        order.extend(queue)
    return order


def backbone(n, edges, keep=3):
    """The links that shape the picture: each node's `keep` strongest (ties:
    the more important other end).  Notes that mention many things at once
    make cliques, which springs crush into a ball; their backbone spreads
    out, and every link is still drawn."""
    mine = [[] for _ in range(n)]
    for e in edges:
        i, j, w = e
        if i != j:
            mine[i].append((-w, j, e))
            mine[j].append((-w, i, e))
    kept = set()
    for v in range(n):
        mine[v].sort(key=lambda t: (t[0], t[1]))
        kept.update((min(e[0], e[1]), max(e[0], e[1]), e[2]) for _, _, e in mine[v][:keep])
    return sorted(kept)


def spring_layout(n, edges, iterations=None, core=400):
    """[(x, y)] for nodes 0..n-1 linked by edges [(i, j, weight)], in layout
    units (about one per node).  Nodes are given most important first.
    Deterministic.

    Each connected part is laid out on its own, scaled to an area that grows
    with its node count, and the parts are packed side by side, biggest
    first: a folder's main web of links gets the room it needs, and lone
    entities fill the gaps instead of a wide ring around it."""
    if n == 0:
        return []
    if n == 1:
        return [(0.0, 0.0)]
    edges = backbone(n, edges)
    adj = [[] for _ in range(n)]
    for i, j, w in edges:
        if i != j:
            adj[i].append((j, w))
            adj[j].append((i, w))
    comps = _components(n, adj)
    if len(comps) == 1:
        return _connected(n, adj, edges, iterations, core)
    comp_of = [0] * n
    local = [0] * n
    for c, members in enumerate(comps):
        for i, v in enumerate(members):
            comp_of[v], local[v] = c, i
    sub_edges = [[] for _ in comps]
    for i, j, w in edges:
        sub_edges[comp_of[i]].append((local[i], local[j], w))
    parts = []
    for c, members in enumerate(comps):
        m = len(members)
        sub_adj = [[] for _ in range(m)]
        for i, j, w in sub_edges[c]:
            sub_adj[i].append((j, w))
            sub_adj[j].append((i, w))
        pts = _connected(m, sub_adj, sub_edges[c], iterations, core) if m > 1 else [(0.0, 0.0)]
        parts.append(_normalised(pts))
    out = [None] * n
    for c, (ox, oy) in enumerate(_pack([(w, h) for _, w, h in parts])):
        for v, (x, y) in zip(comps[c], parts[c][0]):
            out[v] = (ox + x, oy + y)
    return out


def _components(n, adj):
    """Connected parts (lists of nodes, each in breadth-first order), the
    biggest first; ties: the one holding the more important node."""
    order = _bfs_order(n, adj)
    seen, comps = [False] * n, []
    for v in order:
        if seen[v]:
            continue
        members, queue = [], [v]
        seen[v] = True
        while queue:
            u = queue.pop()
            members.append(u)
            for x, _ in adj[u]:
                if not seen[x]:
                    seen[x] = True
                    queue.append(x)
        comps.append(sorted(members))
    comps.sort(key=lambda c: (-len(c), c[0]))
    return comps


def _normalised(pts):
    """(points moved to start at 0, 0 and scaled to about 2 units of area
    per node, width, height)."""
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    w, h = max(xs) - min(xs), max(ys) - min(ys)
    m = len(pts)
    if m == 1 or w * h <= 1e-9:
        scale = 1.0 if max(w, h) <= 1e-9 else math.sqrt(m) / max(w, h)
    else:
        scale = math.sqrt(2.0 * m / (w * h))
    x0, y0 = min(xs), min(ys)
    pts = [((x - x0) * scale, (y - y0) * scale) for x, y in pts]
    return pts, w * scale, h * scale


def _pack(sizes, pad=1.2):
    """Top-left corners for boxes (w, h), biggest first, on a skyline about
    as wide as the total area's square root: each box goes where it sits
    lowest, leftmost on a tie."""
    cells = [(int(math.ceil(w + pad)), h + pad) for w, h in sizes]
    width = max(max(c[0] for c in cells), int(math.ceil(math.sqrt(sum(c[0] * c[1] for c in cells) * 2.2))))
    sky = [0.0] * width
    out = []
    for cw, ch in cells:
        best = None
        for x in range(0, width - cw + 1):
            y = max(sky[x:x + cw])
            if best is None or y < best[0] - 1e-9:
                best = (y, x)
        y, x = best
        for k in range(x, x + cw):
            sky[k] = y + ch
        out.append((float(x), y))
    return out


def _connected(n, adj, edges, iterations, core):
    """The layout of one connected part (see spring_layout).

    Above `core` nodes, the first `core` are laid out first; the others then
    start around their strongest placed link, in breadth-first order, and a
    short, cool run settles everything: a few seconds for 2,000 nodes."""
    if n == 1:
        return [(0.0, 0.0)]
    if n > core:
        inner = [(i, j, w) for i, j, w in edges if i < core and j < core]
        placed = spring_layout(core, inner, iterations)
        grow = math.sqrt(n / float(core))  # room for the others between the core's nodes
        xs = [p[0] * grow for p in placed] + [0.0] * (n - core)
        ys = [p[1] * grow for p in placed] + [0.0] * (n - core)
        done = [v < core for v in range(n)]  # queued or placed
        placed = [v < core for v in range(n)]
        children = [0] * n
        queue = [v for v in range(core, n) if any(u < core for u, _ in adj[v])]
        for v in queue:
            done[v] = True
        head = 0
        while head < len(queue):
            v = queue[head]
            head += 1
            near = [(w, -u, u) for u, w in adj[v] if placed[u]]  # the node that queued it, at least
            anchor = max(near)[2]  # around its strongest placed link, each in its own place
            c = children[anchor] = children[anchor] + 1
            a, rr = c * _GOLDEN, 0.9 * math.sqrt(c)
            xs[v], ys[v] = xs[anchor] + rr * math.cos(a), ys[anchor] + rr * math.sin(a)
            placed[v] = True
            for u, _ in sorted(adj[v], key=lambda uw: (-uw[1], uw[0])):
                if not done[u]:
                    done[u] = True
                    queue.append(u)
        return _relax(xs, ys, adj, edges, iterations or 30, 0.6)
    xs, ys = [0.0] * n, [0.0] * n
    for rank, v in enumerate(_bfs_order(n, adj)):
        r = math.sqrt(rank + 0.5)
        xs[v], ys[v] = r * math.cos(rank * _GOLDEN), r * math.sin(rank * _GOLDEN)
    if iterations is None:
        iterations = max(60, min(300, int(30000 / (n + len(edges) / 4.0 + 1))))
    return _relax(xs, ys, adj, edges, iterations, math.sqrt(n) * 0.25)


def _relax(xs, ys, adj, edges, iterations, temp):
    """Fruchterman-Reingold steps from the given positions, cooling from temp."""
    n = len(xs)
    heaviest = max([w for _, _, w in edges] or [1])
    springs = [(i, j, 1.0 + math.log(w) / math.log(heaviest + 1.0) if heaviest > 1 else 1.0)
               for i, j, w in edges if i != j]
    degree = [1.0 + len(a) for a in adj]
    root = [math.sqrt(d) for d in degree]
    cutoff = CUTOFF
    c2 = cutoff * cutoff
    for it in range(iterations):
        dx, dy = [0.0] * n, [0.0] * n
        grid = {}
        for v in range(n):
            grid.setdefault((int(math.floor(xs[v] / cutoff)), int(math.floor(ys[v] / cutoff))), []).append(v)
        for (cx, cy), members in grid.items():
            near = []
            for gx in (cx - 1, cx, cx + 1):
                for gy in (cy - 1, cy, cy + 1):
                    near.extend(grid.get((gx, gy), ()))
            for v in members:
                xv, yv, fx, fy, rv = xs[v], ys[v], 0.0, 0.0, root[v] * 0.5
                for u in near:
                    ex = xv - xs[u]
                    ey = yv - ys[u]
                    d2 = ex * ex + ey * ey
                    if d2 >= c2 or u == v:
                        continue
                    if d2 < 1e-9:  # two nodes on one spot: part them by index
                        ex, ey, d2 = (1e-3 if v > u else -1e-3), 0.0, 1e-6
                    f = REPULSION * rv * root[u] / d2
                    fx += ex * f
                    fy += ey * f
                dx[v] += fx
                dy[v] += fy
        for i, j, s in springs:
            ex, ey = xs[i] - xs[j], ys[i] - ys[j]
            d = math.sqrt(ex * ex + ey * ey) or 1e-6
            ex, ey = ex * s, ey * s
            dx[i] -= ex
            dy[i] -= ey
            dx[j] += ex
            dy[j] += ey
        # gravity keeps components and lone nodes from drifting away: a
        # constant pull (not one growing with distance, which crushes the centre)
        mx, my = sum(xs) / n, sum(ys) / n
        for v in range(n):
            ex, ey = xs[v] - mx, ys[v] - my
            d = math.sqrt(ex * ex + ey * ey)
            if d > 1e-9:
                g = GRAVITY * degree[v] / d
                dx[v] -= ex * g
                dy[v] -= ey * g
        for v in range(n):
            d = math.sqrt(dx[v] * dx[v] + dy[v] * dy[v])
            if d > 0:
                step = min(d, temp) / d
                xs[v] += dx[v] * step
                ys[v] += dy[v] * step
        temp = max(0.02, temp * (1.0 - 3.0 / iterations) if it < iterations * 0.8 else temp * 0.9)
    return list(zip(xs, ys))


def fit(points, width, height, margin, stretch=1.5):
    """Scale and centre points into a width x height box.  One axis may be
    stretched up to `stretch` times the other to fill the box (more room for
    labels in a wide window)."""
    if not points:
        return []
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    sx = (x1 - x0) / (width - 2 * margin) or 1e-9
    sy = (y1 - y0) / (height - 2 * margin) or 1e-9
    span = max(sx, sy)
    sx, sy = max(sx, span / stretch), max(sy, span / stretch)
    ox = (width - (x1 - x0) / sx) / 2.0
    oy = (height - (y1 - y0) / sy) / 2.0
    return [(ox + (x - x0) / sx, oy + (y - y0) / sy) for x, y in points]


def separate(points, radii, pad=1.0, rounds=30):
    """Points moved apart until no two circles (radius + pad) overlap, or
    `rounds` passes have been made.  Deterministic (fixed pair order)."""
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    n = len(xs)
    if n < 2:
        return list(zip(xs, ys))
    cell = 2 * (max(radii) + pad)
    for _ in range(rounds):
        moved = False
        grid = {}
        for v in range(n):
            grid.setdefault((int(xs[v] // cell), int(ys[v] // cell)), []).append(v)
        for v in range(n):
            cx, cy = int(xs[v] // cell), int(ys[v] // cell)
            for gx in (cx - 1, cx, cx + 1):
                for gy in (cy - 1, cy, cy + 1):
                    for u in grid.get((gx, gy), ()):
                        if u <= v:
                            continue
                        need = radii[v] + radii[u] + pad
                        ex, ey = xs[u] - xs[v], ys[u] - ys[v]
                        d2 = ex * ex + ey * ey
                        if d2 >= need * need:
                            continue
                        d = math.sqrt(d2)
                        if d < 1e-6:
                            ex, ey, d = 1.0, 0.0, 1.0
                        push = (need - d) / 2.0
                        ux, uy = ex / d * push, ey / d * push
                        xs[u] += ux
                        ys[u] += uy
                        xs[v] -= ux
                        ys[v] -= uy
                        moved = True
        if not moved:
            break
    return list(zip(xs, ys))


def text_width(text, size):
    """Estimated width of text at a font size: wide (CJK) characters one em,
    capitals and wide letters 0.7, narrow ones 0.3, others 0.56."""
    w = 0.0
    for c in text:
        if unicodedata.east_asian_width(c) in "WF":
            w += 1.0
        elif c in "iljtfI.,:;'|!()[] ":
            w += 0.3
        elif c.isupper() or c in "mwMW@%#":
            w += 0.7
        else:
            w += 0.56
    return w * size


def _add_box(grid, cell, box):
    """box: (x0, y0, x1, y1, owner): a node's number for its circle, -1 for a label."""
    x0, y0, x1, y1 = box[:4]
    for gx in range(int(x0 // cell), int(x1 // cell) + 1):
        for gy in range(int(y0 // cell), int(y1 // cell) + 1):
            grid.setdefault((gx, gy), []).append(box)


def place_labels(points, radii, widths, height, levels=6, gap=4.0, first=0, bounds=None):
    """[(level, side)] per node, nodes given most important first.

    A label is `widths[i]` x `height` screen pixels, drawn beside its node
    (side 1: right, -1: left, 2: below, -2: above) at a constant screen
    size, so at zoom 2**(first + level) it covers that much less of the
    picture.  Its level is the first at which it fits without touching a
    label already placed or another node's circle; the most important nodes
    (the first twelfth) may cover smaller dots, never a label or a more
    important node.  A label placed at one level still fits at every higher
    one (all boxes shrink towards their anchors).  Level None: it never fits
    (shown on hover only).  bounds (x0, y0, x1, y1): labels stay inside."""
    n = len(points)
    out = [(None, 1)] * n
    important = max(12, n // 12)
    for level in range(levels):
        s = 1.0 / (2.0 ** (level + first))
        h = height * s
        cell = max(8.0, 60.0 * s)
        grid = {}
        for v in range(n):
            x, y = points[v]
            r = radii[v]
            _add_box(grid, cell, (x - r, y - r, x + r, y + r, v))
        for v in range(n):
            lv, side = out[v]
            if lv is not None:
                _add_box(grid, cell, _label_box(points[v], radii[v], widths[v] * s, h, gap * s, side) + (-1,))
        for v in range(n):
            if out[v][0] is not None:
                continue
            boxes = [(side, _label_box(points[v], radii[v], widths[v] * s, h, gap * s, side))
                     for side in (1, -1, 2, -2)]
            # a free place; else, for the most important nodes, a place that
            # covers no label and no more important node (only small dots)
            if bounds:
                boxes = [(side, box) for side, box in boxes if box[0] >= bounds[0] and box[1] >= bounds[1]
                         and box[2] <= bounds[2] and box[3] <= bounds[3]]
            found = next((side for side, box in boxes if not _hits(grid, cell, box, v, n)), None)
            if found is None and v < important:
                small = 0.7 * radii[v]
                found = next((side for side, box in boxes
                              if not _hits(grid, cell, box, v, v, radii, small)), None)
            if found is not None:
                out[v] = (level, found)
                _add_box(grid, cell, dict(boxes)[found] + (-1,))
    return out


def _label_box(point, r, w, h, gap, side):
    x, y = point
    if side == 2:  # below, centred
        return (x - w / 2.0, y + r + gap * 0.25, x + w / 2.0, y + r + gap * 0.25 + h)
    if side == -2:  # above
        return (x - w / 2.0, y - r - gap * 0.25 - h, x + w / 2.0, y - r - gap * 0.25)
    if side > 0:
        return (x + r + gap * 0.5, y - h / 2.0, x + r + gap * 0.5 + w, y + h / 2.0)
    return (x - r - gap * 0.5 - w, y - h / 2.0, x - r - gap * 0.5, y + h / 2.0)


def _hits(grid, cell, box, own, below, radii=None, small=0.0):
    """Whether box touches a label (owner -1) or another node's circle; the
    circles of nodes numbered `below` or more count only when bigger than
    `small` (radii given)."""
    x0, y0, x1, y1 = box
    for gx in range(int(x0 // cell), int(x1 // cell) + 1):
        for gy in range(int(y0 // cell), int(y1 // cell) + 1):
            for b in grid.get((gx, gy), ()):
                owner = b[4]
                if owner == own or (owner >= below and (radii is None or radii[owner] <= small)):
                    continue
                if b[0] < x1 and x0 < b[2] and b[1] < y1 and y0 < b[3]:
                    return True
    return False
