"""The merge forest: every token as the binary tree of the merges that made it (no Streamlit here).

Every merged token has exactly two parents (``tok.parents[id] == (left, right)``), down to single
bytes, so a vocabulary is "a binary forest" (the seed tutorial's words). This module lays those
trees out for drawing and replays how the encoder walks them:

    tree_nodes(tok, id)          one token's tree, laid out: leaves left to right in byte order,
                                 every parent centred over its two children, y = depth
    token_tree(tok, id)          the same, drawn to fit a screen: long chains of merges become
                                 one node each, and only the levels that fit are drawn
    forest_layout(tok, ids)      several trees side by side, capped at ``max_nodes`` nodes
    word_trace(tok, word)        the merges ``encode`` applies to a word, lowest rank first
    find_token / vocab_rows      what the page's pickers need

A token that appears in several trees is drawn once per occurrence (a forest of trees, not a
DAG); the chart links the copies by their id.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import regex

from bpe_core.base import EncodeTrace, trace_merges  # noqa: F401 - trace_merges: read from here too
from ui.kit.escape import md_escape
from ui.kit.tables import SEARCH_BYTES, cell_bytes
from ui.kit.tokens_html import text_and_bytes, token_text  # noqa: F401 - token_text: read from here too

MAX_CHART_NODES = 2_000  # no chart gets more nodes than this
TREE_GAP = 1.0  # empty leaf slots between two trees of a forest
# One token's tree on the page fits a screen: at most this many nodes side by side at the bottom
# (leaves and cut nodes, about 30 px each) and this many levels (about 70 px each), unless the
# user asks for more levels.
TREE_LEAVES = 24
TREE_LEVELS = 10
# Long chains: a merge "adds a small piece" when the piece is at most 1/PIECE_SHARE of the token
# (one character onto a long word, say). A chain of such merges, all adding on the same side, is
# drawn as: its top merge, one "⋯ n merges" node for the middle (n >= MIN_RUN), and its last
# KEEP_BOTTOM merges, down to the token the chain grew from.
PIECE_SHARE = 4
MIN_RUN = 3
KEEP_BOTTOM = 2


# -- showing one token ---------------------------------------------------------------------------


# -- one tree --------------------------------------------------------------------------------------


class Node(NamedTuple):
    """One drawn node. Indices point into the list the node belongs to (-1: none)."""

    tree: int  # which tree of the forest (0 for a single tree)
    id: int  # the token id
    depth: int  # 0 for the root
    x: float  # leaves at consecutive positions, parents centred over their children
    parent: int  # index of the parent node, -1 for a root
    left: int  # index of the left child, -1 for a drawn leaf
    right: int  # index of the right child, -1 for a drawn leaf
    collapsed: bool  # a merged token drawn without its parents (the node cap cut the tree)
    run: int = 0  # > 0: this node stands for a chain of that many merges (its one child: `left`)


def tree_size(tok: Any, token_id: int) -> int:
    """How many nodes the whole tree of a token has: 2 × bytes − 1 (its leaves are its bytes).

    A special token is a tree of one node: it is not made by merges.
    """
    if token_id not in tok.parents:
        return 1
    return 2 * len(tok.vocab[token_id]) - 1


def level_sizes(tok: Any, token_id: int) -> list[int]:
    """Nodes of a token's tree at depth 0, 1, 2, …  (``len(...)`` is the tree's depth + 1)."""
    sizes = []
    level = [token_id]
    parents = tok.parents
    while level:
        sizes.append(len(level))
        level = [p for t in level if t in parents for p in parents[t]]
    return sizes


def fitting_depth(
    sizes: Sequence[int], max_nodes: int, max_levels: int | None = None
) -> int | None:
    """The deepest level to draw so that at most ``max_nodes`` nodes (and ``max_levels``
    levels) are drawn, from the nodes at each depth (``sizes``); None: all of them fit.

    >>> fitting_depth([1, 2, 4, 8], 7), fitting_depth([1, 2, 4, 8], 15), fitting_depth([1, 2], 9, 1)
    (2, None, 0)
    """
    total = 0
    for depth, size in enumerate(sizes):
        total += size
        if total > max_nodes or (max_levels is not None and depth >= max_levels):
            return max(depth - 1, 0)
    return None


def screen_depth(nodes: Sequence[Node], max_leaves: int, max_levels: int) -> int | None:
    """The deepest level of a laid-out tree to draw so that at most ``max_leaves`` nodes end
    it (leaves, and the nodes at the cut) and at most ``max_levels`` levels are drawn; None:
    the whole tree fits. (Cut at depth d, the tree ends in its leaves above d and all of its
    nodes at d.)"""
    at_depth = Counter(n.depth for n in nodes)
    leaves_at = Counter(n.depth for n in nodes if n.left < 0)
    leaves_above = 0
    for d in range(max(at_depth) + 1):
        if leaves_above + at_depth[d] > max_leaves or d >= max_levels:
            return max(d - 1, 0)
        leaves_above += leaves_at[d]
    return None


def depth_limit(tok: Any, token_id: int, max_nodes: int) -> int | None:
    """The deepest level to draw so that at most ``max_nodes`` nodes are drawn (None: all of it)."""
    return fitting_depth(level_sizes(tok, token_id), max_nodes)


def growth_side(tok: Any, token_id: int) -> int | None:
    """Which part of a merged token is the growing one, when its merge adds a small piece.

    0: the left part is long and the right part a small piece added onto it (at most a quarter
    of the token); 1: the other way round; None: a byte, or a merge of two comparable parts.

    >>> from bpe_core import BasicTokenizer
    >>> tok = BasicTokenizer(); tok.train("abcdefghijklmnop " * 9, 271)  # ab, abc, …, a…p
    >>> [tok.vocab[t] for t in tok.parents[270]], growth_side(tok, 270)
    ([b'abcdefghijklmno', b'p'], 0)
    >>> [tok.vocab[t] for t in tok.parents[257]], growth_side(tok, 257)  # c is a third of abc
    ([b'ab', b'c'], None)
    """
    pair = tok.parents.get(token_id)
    if pair is None:
        return None
    size = len(tok.vocab[token_id])
    for side in (0, 1):
        grown, piece = pair[side], pair[1 - side]
        if grown in tok.parents and len(tok.vocab[piece]) * PIECE_SHARE <= size:
            return side
    return None


def chain_run(tok: Any, token_id: int) -> int:
    """How many merges in a row, from this token down its growing part, add a small piece on
    the same side (0 when this token's own merge does not).

    >>> from bpe_core import BasicTokenizer
    >>> tok = BasicTokenizer(); tok.train("abcdefghijklmnop " * 9, 271)
    >>> chain_run(tok, 270), chain_run(tok, 258)  # a…p, a…o, …, abcd: each adds one letter
    (13, 1)
    """
    side = growth_side(tok, token_id)
    steps = 0
    t = token_id
    while side is not None and growth_side(tok, t) == side:
        steps += 1
        t = tok.parents[t][side]
    return steps


def chain_end(tok: Any, token_id: int, merges: int) -> int:
    """The token a chain of ``merges`` merges starts from: the growing part, ``merges`` times."""
    side = growth_side(tok, token_id)
    t = token_id
    for _ in range(merges):
        t = tok.parents[t][side]
    return t


def run_piece(tok: Any, node: Node, child: Node) -> bytes:
    """The bytes a chain node's merges add onto its child (on the right or on the left)."""
    whole, start = tok.vocab[node.id], tok.vocab[child.id]
    if growth_side(tok, node.id) == 0:
        return whole[len(start):]
    return whole[: len(whole) - len(start)]


def tree_nodes(
    tok: Any,
    token_id: int,
    *,
    tree: int = 0,
    x0: float = 0.0,
    offset: int = 0,
    max_depth: int | None = None,
    runs: bool = False,
) -> list[Node]:
    """The tree of one token, laid out (a tidy tree).

    Nodes come in pre-order (root, left subtree, right subtree), so the leaves come left to right
    in byte order; they get x = x0, x0 + 1, …, and every inner node sits at the midpoint of its
    two children. Two nodes at one depth have disjoint leaf ranges, so they are at least 1 apart.
    ``offset`` is added to every index (for nodes appended to a longer list); nodes deeper than
    ``max_depth`` are left out and their parents marked ``collapsed``.

    ``runs=True`` draws the middle of a long chain of merges (``chain_run``) as one node: below
    the chain's top merge, the merges that each add a small piece are drawn as one node
    (``run`` = how many, its only child where the chain started), except the last
    ``KEEP_BOTTOM``, so the learner still sees the top, the first steps and the bytes.

    >>> from bpe_core import BasicTokenizer
    >>> tok = BasicTokenizer(); tok.train("aaabdaaabac", 259)
    >>> [(n.id, n.depth, n.x) for n in tree_nodes(tok, 258)]  # doctest: +NORMALIZE_WHITESPACE
    [(258, 0, 2.125), (257, 1, 1.25), (256, 2, 0.5), (97, 3, 0.0), (97, 3, 1.0), (97, 2, 2.0),
     (98, 1, 3.0)]
    """
    parents = tok.parents
    ids: list[int] = []
    depth: list[int] = []
    parent: list[int] = []
    kids: list[list[int]] = []
    collapsed: list[bool] = []
    run: list[int] = []
    # (token, depth, parent index, merges this node stands for: 0, or a chain's middle)
    stack = [(token_id, 0, -1, 0)]
    while stack:  # iterative: a long token's tree may be deeper than Python's recursion limit
        t, d, p, merges = stack.pop()
        i = len(ids)
        ids.append(t)
        depth.append(d)
        parent.append(p)
        kids.append([])
        if p >= 0:
            kids[p].append(i)  # the left child is popped, and so appended, before the right one
        pair = parents.get(t)
        cut = pair is not None and max_depth is not None and d >= max_depth
        collapsed.append(cut)
        run.append(0 if cut else merges)
        if pair is None or cut:
            continue
        if merges:  # a chain's middle: one child, the token the chain grew from
            stack.append((chain_end(tok, t, merges), d + 1, i, 0))
            continue
        child_run = [0, 0]
        if runs:
            skip = chain_run(tok, t) - 1 - KEEP_BOTTOM  # all but this merge and the last few
            if skip >= MIN_RUN:
                child_run[growth_side(tok, t)] = skip
        stack.append((pair[1], d + 1, i, child_run[1]))
        stack.append((pair[0], d + 1, i, child_run[0]))
    x = [0.0] * len(ids)
    next_x = x0
    for i, k in enumerate(kids):
        if not k:
            x[i] = next_x
            next_x += 1
    for i in reversed(range(len(ids))):  # children come after their parent in pre-order
        if kids[i]:  # over the middle of its children (a chain node: over its one child)
            x[i] = (x[kids[i][0]] + x[kids[i][-1]]) / 2
    return [
        Node(
            tree,
            ids[i],
            depth[i],
            x[i],
            parent[i] + offset if parent[i] >= 0 else -1,
            kids[i][0] + offset if kids[i] else -1,
            kids[i][1] + offset if len(kids[i]) == 2 else -1,
            collapsed[i],
            run[i],
        )
        for i in range(len(ids))
    ]


def drawn_levels(nodes: Sequence[Node]) -> list[int]:
    """How many drawn nodes are at depth 0, 1, 2, … (``len(...)``: the drawn tree's height)."""
    sizes = Counter(n.depth for n in nodes)
    return [sizes[d] for d in range(max(sizes) + 1)] if sizes else []


# -- a forest --------------------------------------------------------------------------------------


class Forest(NamedTuple):
    """Trees side by side, and what did not fit under the node cap."""

    nodes: list[Node]
    roots: list[int]  # the token ids drawn, left to right (tree k is roots[k])
    left_out: list[int]  # the token ids asked for but not drawn
    left_out_nodes: int  # how many nodes their trees have
    cut_depth: int | None  # the first tree alone was too big: drawn down to this depth only
    full_size: int  # nodes of all the asked-for trees together


def forest_layout(
    tok: Any,
    roots: Sequence[int],
    *,
    max_nodes: int = MAX_CHART_NODES,
    gap: float = TREE_GAP,
    runs: bool = False,
) -> Forest:
    """Lay out the trees of ``roots`` left to right, stopping before ``max_nodes`` is passed.

    The trees are taken in the order given (most used first, say) until the next one would not
    fit; the rest are reported as left out. If the first tree alone is too big, its top levels
    are drawn (``cut_depth``), so a chart always shows something and never more than the cap.
    ``runs=True`` draws long chains as one node each (``tree_nodes``); sizes are then the
    nodes drawn.
    """
    if max_nodes < 1:
        raise ValueError(f"max_nodes must be at least 1, not {max_nodes}")
    nodes: list[Node] = []
    drawn: list[int] = []
    cut_depth = None
    x0 = 0.0
    if runs:
        sizes = [len(tree_nodes(tok, t, runs=True)) for t in roots]
    else:
        sizes = [tree_size(tok, t) for t in roots]
    for k, (t, size) in enumerate(zip(roots, sizes, strict=True)):
        if len(nodes) + size > max_nodes:
            if drawn:
                break
            if runs:
                cut_depth = fitting_depth(drawn_levels(tree_nodes(tok, t, runs=True)), max_nodes)
            else:
                cut_depth = depth_limit(tok, t, max_nodes)
        tree = tree_nodes(tok, t, tree=k, x0=x0, offset=len(nodes), max_depth=cut_depth,
                          runs=runs)
        nodes += tree
        drawn.append(t)
        x0 = max(n.x for n in tree) + 1 + gap
        if cut_depth is not None:
            break
    left_out = list(roots[len(drawn) :])
    return Forest(
        nodes, drawn, left_out, sum(sizes[len(drawn) :]), cut_depth, sum(sizes)
    )


def token_tree(
    tok: Any,
    token_id: int,
    *,
    runs: bool = True,
    levels: int | None = None,
    max_leaves: int = TREE_LEAVES,
    max_levels: int = TREE_LEVELS,
) -> Forest:
    """One token's tree drawn to fit a screen, as a one-tree ``Forest``.

    With ``runs`` the middles of long chains become one node each (``tree_nodes``). Then, if the
    tree is wider than ``max_leaves`` nodes at the bottom or taller than ``max_levels`` levels,
    only its top levels are drawn (``cut_depth``, ``screen_depth``; the nodes at the cut are
    ``collapsed``: their own trees are a click away). ``levels`` asks for that many levels
    instead (the page's "Levels drawn"), still at most ``MAX_CHART_NODES`` nodes.

    >>> from bpe_core import BasicTokenizer
    >>> tok = BasicTokenizer(); tok.train("abcdefghijklmnop " * 9, 271)  # ab, abc, …, a…p
    >>> tree = token_tree(tok, 270)
    >>> [(tok.vocab[n.id], n.run) for n in tree.nodes][:4]
    [(b'abcdefghijklmnop', 0), (b'abcdefghijklmno', 10), (b'abcde', 0), (b'abcd', 0)]
    >>> len(tree.nodes), len(tree_nodes(tok, 270)), tree.cut_depth is None
    (12, 31, True)
    """
    nodes = tree_nodes(tok, token_id, runs=runs)
    if levels is not None:
        cut_depth = fitting_depth(drawn_levels(nodes), MAX_CHART_NODES, max(levels, 1))
    else:
        cut_depth = screen_depth(nodes, max_leaves, max_levels)
    if cut_depth is not None:
        nodes = tree_nodes(tok, token_id, runs=runs, max_depth=cut_depth)
    return Forest(nodes, [token_id], [], 0, cut_depth, tree_size(tok, token_id))


def most_used(ids: Iterable[int], n: int | None = None) -> list[tuple[int, int]]:
    """``[(id, uses), …]``, most used first; equal counts in order of first appearance."""
    return Counter(ids).most_common(n)


def copies(nodes: Sequence[Node]) -> dict[int, int]:
    """How many times each token id is drawn: ids drawn more than once are shared sub-trees."""
    return Counter(n.id for n in nodes)


def token_depth(tok: Any) -> dict[int, int]:
    """The depth of every token's tree (0 for bytes and special tokens), for the whole vocabulary.

    Merges come in merge order, so a token's parents always have their depth already.
    """
    depth: dict[int, int] = {}
    get = depth.get
    for (a, b), idx in tok.merges.items():
        depth[idx] = 1 + max(get(a, 0), get(b, 0))
    return depth


DEFAULT_DEPTH = 6  # the page's first token has a tree at most this deep when it can


def default_token(tok: Any, ids: Sequence[int]) -> int:
    """A token worth showing first: a merged token that matters in the text, with a tree a
    learner can read.

    The rule: among the text's merged tokens whose tree is at most ``DEFAULT_DEPTH`` levels
    deep, the one covering the most bytes beyond one per use, ``uses × (bytes − 1)`` (the
    tokens it saves the text, against one token per byte); ties go to the shallower tree, then
    to the token met first. With no token that shallow, the shallowest merged token of the text
    (same score); with no merged token in the text, the same rule over the whole vocabulary with
    one use each; a vocabulary without merges gives its first token.

    (It used to be the deepest token of the text: on a CJK paragraph repeated 20 times, a
    whole clause of 165 bytes, 57 levels deep, drawn as a long diagonal chain.)

    >>> from bpe_core import BasicTokenizer
    >>> tok = BasicTokenizer(); tok.train("aaabdaaabac", 259)  # aa=256, aaa=257, aaab=258
    >>> default_token(tok, [256, 256, 98, 258])  # aa: 2 uses × 1 byte saved; aaab: 1 × 3
    258
    >>> default_token(tok, [256, 256, 256, 258])  # 3 = 3: the shallower tree
    256
    >>> default_token(tok, [97, 98])  # no merged token in the text: the vocabulary's
    258
    """
    depth = token_depth(tok)
    uses = Counter(t for t in ids if t in tok.parents) or Counter(dict.fromkeys(tok.parents, 1))
    if not uses:
        return next(iter(tok.vocab))
    vocab = tok.vocab
    order = {t: k for k, t in enumerate(uses)}  # first met first

    def rank(t: int) -> tuple:
        return (-uses[t] * (len(vocab[t]) - 1), depth[t], order[t])

    shallow = [t for t in uses if depth[t] <= DEFAULT_DEPTH]
    if shallow:
        return min(shallow, key=rank)
    lowest = min(depth[t] for t in uses)
    return min((t for t in uses if depth[t] == lowest), key=rank)


def count_of(tok: Any) -> dict[int, int]:
    """The pair count at the merge that made each token (empty for pretrained vocabularies)."""
    return {rec.id: rec.count for rec in getattr(tok, "history", ())}


# -- choosing a token ------------------------------------------------------------------------------


MAX_FIND_CHARS = 1_000  # a token id or a token's text typed on the page (the text is encoded)


def as_id(text: str) -> int | None:
    """The whole number written in ASCII digits, or None (``"²"`` or ``"٣"`` are text).

    >>> as_id("258"), as_id("²"), as_id("9" * 5000) is not None
    (258, None, True)
    """
    if not (text.isascii() and text.isdigit()):
        return None
    stripped = text.lstrip("0") or "0"
    return int(stripped) if len(stripped) <= 30 else 10**30  # no id is that large


class Lookup(NamedTuple):
    """What the user typed, resolved: one token id, or the tokens a text became."""

    id: int | None  # the token, when the input named exactly one
    pieces: list[int]  # the tokens the text became (one or more), [] for an id
    text: str  # the text that was encoded ("" for an id)


def find_token(tok: Any, query: str) -> Lookup | None:
    """Read a token id ("258") or a token's text ("the", or "\\"42\\"" for the text 42).

    Text is encoded: if it is one token, that token; else the tokens it became. A special
    token's text is that special token. None for an empty query; ValueError for an unknown id.
    """
    if not query:
        return None
    if len(query) > MAX_FIND_CHARS:
        raise ValueError(f"Type at most {MAX_FIND_CHARS:,} characters: a token id or a short text.")
    stripped = query.strip()
    token_id = as_id(stripped)
    if token_id is not None:
        if token_id not in tok.vocab:
            raise ValueError(
                f"No token has id {stripped[:30]}: this tokenizer's ids are 0 to"
                f" {max(tok.vocab):,}. To look up the text, put it in quotes:"
                f' "{stripped[:30]}".'
            )
        return Lookup(token_id, [], "")
    text = query
    if len(text) >= 2 and text[0] == text[-1] == '"':
        text = text[1:-1]
        if not text:
            return None
    if text in tok.special_tokens:
        return Lookup(tok.special_tokens[text], [tok.special_tokens[text]], text)
    pieces = tok.encode_ordinary(text)
    return Lookup(pieces[0] if len(pieces) == 1 else None, pieces, text)


def selected_row(state: Any, shown: Sequence[int]) -> int | None:
    """The token id of the row a table selection picked (``shown``: the ids listed), or None."""
    try:
        rows = state["selection"]["rows"]
    except (KeyError, TypeError):
        return None
    if rows and 0 <= rows[0] < len(shown):
        return shown[rows[0]]
    return None


VOCAB_ORDERS = ("longest first", "deepest first", "by id")


def vocab_order(tok: Any, order: str) -> tuple[list[int], list[str]]:
    """The vocabulary's ids in ``order`` and their lower-cased texts (for searching); the page
    keeps it (``ui.kit.state.vocabulary_fact``): sorting GPT-4o's vocabulary takes a moment."""
    vocab = tok.vocab
    if order == "longest first":
        ids = sorted(vocab, key=lambda t: (-len(vocab[t]), t))
    elif order == "deepest first":
        depth = token_depth(tok)
        ids = sorted(vocab, key=lambda t: (-depth.get(t, 0), t))
    else:
        ids = sorted(vocab)
    return ids, [vocab[t][:SEARCH_BYTES].decode("utf-8", "replace").casefold() for t in ids]


def vocab_rows(
    tok: Any, search: str = "", order: str = "longest first", limit: int = 1_000, *,
    ordered: tuple[list[int], list[str]] | None = None,
) -> tuple[list[dict], int]:
    """Rows of the vocabulary that match ``search``, in ``order``: ``(rows[:limit], matches)``.

    ``search`` matches the token's text anywhere, ignoring case; a number also matches that id
    (listed first). Each row: id, token (shown text), bytes (length), depth, step, count.
    """
    if order not in VOCAB_ORDERS:
        raise ValueError(f"order must be one of {VOCAB_ORDERS}, not {order!r}")
    ids, texts = vocab_order(tok, order) if ordered is None else ordered
    if search:
        needle = search.casefold()
        picked = [t for t, text in zip(ids, texts, strict=True) if needle in text]
    else:
        picked = ids
    exact = as_id(search.strip())
    if exact in tok.vocab:
        picked = [exact] + [t for t in picked if t != exact]
    vocab = tok.vocab
    depth = token_depth(tok)
    counts = count_of(tok)
    step_of = tok.step_of
    rows = [
        {
            "id": t,
            "token": token_text(shown) + more,
            "bytes": len(vocab[t]),
            "depth": depth.get(t, 0),
            "step": step_of.get(t, 0),
            "count": counts.get(t),
        }
        for t in picked[:limit]
        for shown, more in [cell_bytes(vocab[t])]
    ]
    return rows, len(picked)


# -- the word trace: how the encoder walks the forest --------------------------------------------


MAX_WORD_CHARS = 100
_WORD = regex.compile(r" ?[\p{L}\p{N}]+")


def longest_word(text: str, fallback: str = " tokenization") -> str:
    """A word of the text worth tracing: the longest of its first words (at most 30 characters)."""
    words = [w for w in _WORD.findall(text[:5_000]) if len(w) <= 30]
    return max(words, key=len) if words else fallback


def word_trace(tok: Any, word: str) -> EncodeTrace:
    """Every merge ``tok.encode_ordinary(word)`` makes, in the order it makes them, per chunk
    (``Tokenizer.trace``), for a word of at most ``MAX_WORD_CHARS`` characters."""
    if len(word) > MAX_WORD_CHARS:
        raise ValueError(
            f"The word is {len(word)} characters long; trace at most {MAX_WORD_CHARS}."
        )
    return tok.trace(word)


# -- sentences for the page (Markdown; token text escaped) ----------------------------------------

MAX_TREES = 500


def named(tok: Any, token_id: int) -> str:
    """A token for a Markdown sentence: “text” (id), the text escaped."""
    return f"“{md_escape(token_text(tok.vocab[token_id], 40))}” ({token_id})"


def describe_tree(tok: Any, token_id: int, forest: Forest) -> str:
    """One sentence under a token's tree: what made it, how big its tree is, what was cut."""
    token = tok.vocab[token_id]
    head = f"{named(tok, token_id)}: {len(token):,} byte{'s' * (len(token) != 1)}"
    if token_id not in tok.parents:
        if len(token) == 1:
            return head + ": a single byte, a leaf of every tree it is in."
        return head + ": a special token, added whole; no merge made it."
    a, b = tok.parents[token_id]
    depth = len(level_sizes(tok, token_id)) - 1
    out = (f"{head}, depth {depth}, {tree_size(tok, token_id):,} nodes. Made by merge "
           f"{tok.step_of[token_id]:,} of {tok.num_merges:,} from {named(tok, a)} + "
           f"{named(tok, b)}")
    count = count_of(tok).get(token_id)
    out += f", a pair seen {count:,}× when it was chosen." if count else "."
    chains = [n.run for n in forest.nodes if n.run]
    if chains:
        runs = ", ".join(f"{r:,}" for r in chains)
        out += (f" Collapsed: {len(chains)} chain{'s' * (len(chains) > 1)} of merges that each "
                f"add a small piece ({runs} merges) drawn as one purple node each; switch "
                "**Collapse chains** off to draw every merge.")
    if forest.cut_depth is not None:
        out += (f" Only its top {forest.cut_depth + 1} levels are drawn, to fit the screen: "
                "click an orange node to see its own tree, or raise **Levels drawn**.")
    return out + " Hover a node for its bytes; click one to see its tree; scroll to zoom."


def describe_forest(forest: Forest, distinct: int, step: int) -> str:
    """What the forest chart shows, and what it leaves out and how to see it."""
    drawn = len(forest.roots)
    merges = f"{step:,} merge{'s' if step != 1 else ''}"
    if distinct == 1:
        out = f"After {merges} the text has one token; its tree is drawn"
    else:
        trees = "the tree of the most used is" if drawn == 1 else \
            f"the trees of the {drawn:,} most used are"
        out = f"After {merges} the text has {distinct:,} different tokens; {trees} drawn"
    out += f" ({len(forest.nodes):,} node{'s' if len(forest.nodes) != 1 else ''})."
    asked = drawn + len(forest.left_out)
    if forest.left_out:
        out += (f" The next {len(forest.left_out):,} trees ({forest.left_out_nodes:,} nodes) are "
                f"left out: a chart gets at most {MAX_CHART_NODES:,} nodes. Ask for fewer "
                "**Trees** or fewer merges, or pick a token above to see its tree alone.")
    elif asked < distinct:
        rest = distinct - asked
        out += (f" {rest:,} less used token{'s are' if rest != 1 else ' is'} not asked for: "
                "raise **Trees**.")
    if forest.cut_depth is not None:
        out += f" The first tree is drawn down to depth {forest.cut_depth} only."
    chains = sum(1 for n in forest.nodes if n.run)
    if chains:
        out += (f" {chains:,} long chain{'s' * (chains > 1)} of merges "
                f"{'are' if chains > 1 else 'is'} drawn as one purple node each "
                "(**Collapse chains**).")
    shared = sum(1 for c in copies(forest.nodes).values() if c > 1)
    if shared:
        out += (f" {shared:,} token id{'s are' if shared > 1 else ' is'} drawn more than once "
                "(shared sub-trees): hover a node to outline every copy; click one to see its "
                "tree above.")
    return out


def describe_trace(tok: Any, trace: EncodeTrace) -> str:
    """The trace in one paragraph: bytes in, merges, tokens out."""
    n_bytes = sum(map(len, trace.start))
    out = ""
    if len(trace.chunks) > 1:
        parts = " | ".join(md_escape(token_text(c.encode("utf-8"))) for c in trace.chunks)
        out += (f"The split pattern cuts it into {len(trace.chunks)} chunks first ({parts}); "
                "merges never cross them. ")
    tokens = " | ".join(md_escape(token_text(tok.vocab[t])) for t in trace.final)
    out += (f"{n_bytes:,} bytes → {len(trace.steps):,} merge{'s' * (len(trace.steps) != 1)} → "
            f"{len(trace.final):,} "
            f"token{'s' * (len(trace.final) != 1)}: {tokens} (ids "
            f"{', '.join(map(str, trace.final))}).")
    return out
