"""The merge forest's layout, word trace and chart builders (ui/forest/trees.py, ui/forest/chart.py)."""

from __future__ import annotations

import doctest
import random
from collections import defaultdict

import pytest
from support import CORPORA, trained

import bpe_core
from bpe_core import BasicTokenizer
from bpe_core.merges import apply_merges
from ui.forest import trees as fo
from ui.forest.chart import (
    EDGE_COLUMNS,
    NODE_COLUMNS,
    edge_frame,
    node_frame,
    picked_id,
    tree_chart,
    vocab_frame,
    word_trace_frame,
)

# -- fixtures --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def classic():
    """The seeds' example: "aaabdaaabac" to 259 tokens gives aa=256, aaa=257, aaab=258."""
    tok = BasicTokenizer()
    tok.train("aaabdaaabac", 259)
    return tok


@pytest.fixture(scope="module")
def prose_tok():
    return trained("gpt4", CORPORA["prose"], 600)


@pytest.fixture(scope="module")
def cl100k():
    return bpe_core.load_pretrained("cl100k_base")


def longest_tokens(tok, n):
    return sorted(tok.vocab, key=lambda t: (-len(tok.vocab[t]), t))[:n]


def test_the_docstring_examples_hold():
    assert doctest.testmod(fo).failed == 0


# -- the layout invariants, checked on every forest below ------------------------------------------


def check_layout(tok, nodes, *, whole=True):
    """Every invariant the chart relies on; ``whole``: no tree was cut by the node cap."""
    children_of = defaultdict(list)
    for i, n in enumerate(nodes):
        if n.parent >= 0:
            children_of[n.parent].append(i)
    for i, n in enumerate(nodes):
        if n.run:
            # a chain node: one child, the token its merges started from, right under it
            assert n.left >= 0 and n.right == -1 and children_of[i] == [n.left]
            child = nodes[n.left]
            assert child.id == fo.chain_end(tok, n.id, n.run)
            assert child.depth == n.depth + 1 and child.x == n.x and child.tree == n.tree
        elif n.left >= 0:
            # an inner node has exactly two children, in order, which are its token's parents
            assert n.right >= 0
            assert sorted(children_of[i]) == [n.left, n.right]
            left, right = nodes[n.left], nodes[n.right]
            assert (left.id, right.id) == tok.parents[n.id]
            assert left.parent == right.parent == i
            assert left.depth == right.depth == n.depth + 1
            assert left.x < n.x < right.x
            assert n.x == (left.x + right.x) / 2  # centred over its children
            assert left.tree == right.tree == n.tree
        else:
            assert n.right == -1 and not children_of[i]
            if n.collapsed:
                assert n.id in tok.parents
            else:
                # a leaf is a byte (or a special token, which no merge made)
                assert n.id not in tok.parents
                assert len(tok.vocab[n.id]) == 1 or n.id in tok.special_tokens.values()
    # no two nodes overlap at one level: at least one leaf slot apart
    by_depth = defaultdict(list)
    for n in nodes:
        by_depth[n.depth].append(n.x)
    for xs in by_depth.values():
        xs.sort()
        assert all(b - a >= 1 for a, b in zip(xs, xs[1:], strict=False))
    # trees side by side, in order, not overlapping
    span = defaultdict(list)
    for n in nodes:
        span[n.tree].append(n.x)
    trees = sorted(span)
    assert trees == list(range(len(trees)))
    for a, b in zip(trees, trees[1:], strict=False):
        assert max(span[a]) < min(span[b])
    # every drawn node spells its token: its children's bytes (a chain node: its child's and
    # the pieces its merges add, on the side the chain grows)
    for t in {n.tree for n in nodes}:
        (root,) = [i for i, n in enumerate(nodes) if n.tree == t and n.parent == -1]
        assert spelled(tok, nodes, root) == tok.vocab[nodes[root].id]
    # the leaves of each tree, left to right, spell its root's bytes
    if whole and not any(n.run for n in nodes):
        for t in trees:
            tree = [n for n in nodes if n.tree == t]
            root = [n for n in tree if n.parent == -1]
            assert len(root) == 1
            leaves = sorted((n for n in tree if n.left == -1), key=lambda n: n.x)
            assert b"".join(tok.vocab[n.id] for n in leaves) == tok.vocab[root[0].id]


def spelled(tok, nodes, i):
    """The bytes the drawn sub-tree under node i stands for, checked on the way down."""
    n = nodes[i]
    if n.left < 0:
        return tok.vocab[n.id]
    if n.run:
        start = spelled(tok, nodes, n.left)
        whole = tok.vocab[n.id]
        side = fo.growth_side(tok, n.id)
        assert whole.startswith(start) if side == 0 else whole.endswith(start)
        piece = fo.run_piece(tok, n, nodes[n.left])
        assert len(piece) + len(start) == len(whole)
        return start + piece if side == 0 else piece + start
    return spelled(tok, nodes, n.left) + spelled(tok, nodes, n.right)


# -- one tree --------------------------------------------------------------------------------------


def test_tree_of_258_is_the_classic_answer(classic):
    assert classic.parents == {256: (97, 97), 257: (256, 97), 258: (257, 98)}
    nodes = fo.tree_nodes(classic, 258)
    # pre-order: 258 -> (257 -> (256 -> (97, 97), 97), 98)
    assert [n.id for n in nodes] == [258, 257, 256, 97, 97, 97, 98]
    assert [(nodes[n.left].id, nodes[n.right].id) for n in nodes if n.left >= 0] == [
        (257, 98),
        (256, 97),
        (97, 97),
    ]
    assert max(n.depth for n in nodes) == 3
    leaves = sorted((n for n in nodes if n.left == -1), key=lambda n: n.x)
    assert [n.x for n in leaves] == [0, 1, 2, 3]
    assert b"".join(classic.vocab[n.id] for n in leaves) == b"aaab"
    assert [n.depth for n in leaves] == [3, 3, 2, 1]
    assert [n.x for n in nodes if n.left >= 0] == [2.125, 1.25, 0.5]
    check_layout(classic, nodes)


def test_a_byte_and_a_special_token_are_one_node_trees():
    tok = BasicTokenizer()
    tok.train("aaabdaaabac", 259)
    tok.register_special_tokens({"<|end|>": 300})
    for token_id in (97, 300):
        (node,) = fo.tree_nodes(tok, token_id)
        assert (node.depth, node.x, node.parent, node.left, node.right) == (0, 0.0, -1, -1, -1)
        assert fo.tree_size(tok, token_id) == 1


def test_every_trained_token_tree_keeps_the_invariants(prose_tok):
    for token_id in prose_tok.vocab:
        nodes = fo.tree_nodes(prose_tok, token_id)
        assert len(nodes) == fo.tree_size(prose_tok, token_id)
        assert sum(fo.level_sizes(prose_tok, token_id)) == len(nodes)
        assert max(n.depth for n in nodes) == fo.token_depth(prose_tok).get(token_id, 0)
        check_layout(prose_tok, nodes)


def test_long_gpt4_tokens_have_deep_trees_down_to_bytes(cl100k):
    deepest = max(fo.token_depth(cl100k).values())
    assert deepest >= 8
    deep = [t for t, d in fo.token_depth(cl100k).items() if d == deepest]
    for token_id in deep + longest_tokens(cl100k, 5):
        nodes = fo.tree_nodes(cl100k, token_id)
        assert len(nodes) == 2 * len(cl100k.vocab[token_id]) - 1
        check_layout(cl100k, nodes)
        # cl100k numbers its bytes in its own order: the leaves are its byte ids
        assert all(cl100k.byte_ids[cl100k.vocab[n.id][0]] == n.id for n in nodes if n.left < 0)


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
def test_every_preset_draws_its_deepest_tokens_and_traces_like_encode(name, cl100k):
    tok = cl100k if name == "cl100k_base" else bpe_core.load_pretrained(name)
    depth = fo.token_depth(tok)
    deepest = sorted(depth, key=lambda t: (-depth[t], t))[:3]
    forest = fo.forest_layout(tok, deepest + longest_tokens(tok, 3))
    assert forest.left_out == []
    check_layout(tok, forest.nodes)
    for word in [" tokenization", " externalToEVAOnly", "/******", " 1234567", "日本語", " naïve"]:
        assert fo.word_trace(tok, word).final == tok.encode_ordinary(word)


# -- forests and the node cap ----------------------------------------------------------------------


def test_a_forest_lays_trees_side_by_side_and_marks_shared_ids(prose_tok):
    ids = prose_tok.encode(CORPORA["prose"][:3000])
    roots = [t for t, _ in fo.most_used(ids, 40)]
    forest = fo.forest_layout(prose_tok, roots)
    assert forest.roots == roots and forest.left_out == [] and forest.cut_depth is None
    check_layout(prose_tok, forest.nodes)
    assert [n.id for n in forest.nodes if n.parent == -1] == roots
    shared = {t: c for t, c in fo.copies(forest.nodes).items() if c > 1}
    assert shared  # bytes at least appear in several trees
    assert sum(fo.copies(forest.nodes).values()) == len(forest.nodes)


def test_the_node_cap_leaves_out_whole_trees_and_says_how_many(prose_tok):
    roots = longest_tokens(prose_tok, 60)
    sizes = [fo.tree_size(prose_tok, t) for t in roots]
    cap = sum(sizes[:7]) + 1  # room for seven trees, not eight
    forest = fo.forest_layout(prose_tok, roots, max_nodes=cap)
    assert forest.roots == roots[:7]
    assert forest.left_out == roots[7:]
    assert forest.left_out_nodes == sum(sizes[7:])
    assert forest.full_size == sum(sizes)
    assert len(forest.nodes) == sum(sizes[:7]) <= cap
    check_layout(prose_tok, forest.nodes)


def test_a_tree_too_big_alone_is_cut_by_depth(cl100k):
    (token_id,) = longest_tokens(cl100k, 1)
    full = fo.tree_size(cl100k, token_id)
    assert full > 100
    forest = fo.forest_layout(cl100k, [token_id, 97], max_nodes=40)
    assert len(forest.nodes) <= 40
    assert forest.roots == [token_id] and forest.left_out == [97]
    assert forest.cut_depth is not None
    cut = [n for n in forest.nodes if n.collapsed]
    assert cut and all(n.depth == forest.cut_depth for n in cut)
    assert max(n.depth for n in forest.nodes) == forest.cut_depth
    check_layout(cl100k, forest.nodes, whole=False)
    # the cut nodes and leaves still spell the token, left to right
    ends = sorted((n for n in forest.nodes if n.left == -1), key=lambda n: n.x)
    assert b"".join(cl100k.vocab[n.id] for n in ends) == cl100k.vocab[token_id]


def test_a_gpt4_forest_of_a_text_stays_under_the_default_cap(cl100k):
    ids = cl100k.encode_ordinary(CORPORA["prose"])
    roots = [t for t, _ in fo.most_used(ids)]
    forest = fo.forest_layout(cl100k, roots)
    assert len(forest.nodes) <= fo.MAX_CHART_NODES
    assert forest.left_out  # the corpus has far more than 2 000 nodes of trees
    assert len(forest.nodes) + forest.left_out_nodes == forest.full_size
    check_layout(cl100k, forest.nodes)
    text = fo.describe_forest(forest, len(roots), cl100k.num_merges)
    assert f"{len(forest.left_out):,} trees" in text and "2,000 nodes" in text


def test_forest_layout_rejects_a_cap_below_one(classic):
    with pytest.raises(ValueError, match="max_nodes"):
        fo.forest_layout(classic, [258], max_nodes=0)


def test_most_used_breaks_ties_by_first_appearance():
    assert fo.most_used([5, 3, 3, 7, 5, 9]) == [(5, 2), (3, 2), (7, 1), (9, 1)]
    assert fo.most_used([5, 3, 3, 7, 5, 9], 2) == [(5, 2), (3, 2)]


def test_default_token_saves_the_text_most_bytes_among_readable_trees(classic):
    # uses × (bytes - 1): aa 3 × 1 = 3 against aaab 1 × 3 = 3: the shallower aa
    assert fo.default_token(classic, [256, 256, 256, 258, 98]) == 256
    assert fo.default_token(classic, [256, 256, 258, 98]) == 258  # 2 against 3
    assert fo.default_token(classic, [97, 98]) == 258  # no merged token: the vocabulary's
    assert fo.default_token(classic, []) == 258
    bare = BasicTokenizer()
    bare.train("ab", 256)  # no merges at all
    assert fo.default_token(bare, [97, 98]) == 0


# -- long chains: a repeated CJK paragraph, and the deepest tokens of GPT-4o -----------------------

# 54 characters without punctuation: after 20 copies, the whole clause is one token
CJK_CLAUSE = ("字节对编码是一种把文本切成词元的方法它从单个字节开始一次又一次地把最常见的相邻一对"
              "合并成一个新的词元就是这样")
CJK_TEXT = (CJK_CLAUSE + "，直到词表达到预定的大小。同一段话重复很多次以后，整句话都会变成一个"
            "很长的词元。\n") * 20


@pytest.fixture(scope="module")
def cjk_tok():
    return trained("gpt4", CJK_TEXT, 1024)


def test_a_repeated_cjk_paragraph_makes_a_deep_chain_that_is_no_longer_the_default(cjk_tok):
    tok = cjk_tok
    ids = tok.encode(CJK_TEXT)
    depth = fo.token_depth(tok)
    # the case: the deepest token of the text is the whole clause, a chain of merges
    deepest = max(dict.fromkeys(ids), key=lambda t: depth.get(t, 0))
    assert tok.vocab[deepest] == CJK_CLAUSE.encode()
    assert len(tok.vocab[deepest]) == 162 and depth[deepest] >= 57
    assert ids.count(deepest) == 20
    # the default now: a merged token of the text with a shallow tree; here "。\n", used 20 times
    chosen = fo.default_token(tok, ids)
    assert depth[chosen] <= fo.DEFAULT_DEPTH
    assert tok.vocab[chosen] == "。\n".encode() and ids.count(chosen) == 20


def test_the_clause_chain_is_drawn_as_one_node_and_still_spells_the_clause(cjk_tok):
    tok = cjk_tok
    (clause,) = [t for t, b in tok.vocab.items() if b == CJK_CLAUSE.encode()]
    full = fo.tree_nodes(tok, clause)
    assert len(full) == 2 * 162 - 1  # what the page used to draw: 323 nodes, 87 levels
    tree = fo.token_tree(tok, clause)
    assert tree.cut_depth is None
    chains = [n for n in tree.nodes if n.run]
    assert len(chains) == 1 and chains[0].depth == 1
    # the root's own merge is drawn, then "⋯ n merges", then the last two steps of the chain
    assert chains[0].run == fo.chain_run(tok, clause) - 1 - fo.KEEP_BOTTOM >= 40
    assert len(tree.nodes) <= 30 and len(fo.drawn_levels(tree.nodes)) <= fo.TREE_LEVELS
    check_layout(tok, tree.nodes)
    said = fo.describe_tree(tok, clause, tree)
    assert f"Collapsed: 1 chain of merges that each add a small piece ({chains[0].run} merges)" in said
    assert "**Collapse chains** off" in said
    # without collapsing, the same tree is cut to the levels that fit, and says so
    plain = fo.token_tree(tok, clause, runs=False)
    assert not any(n.run for n in plain.nodes)
    assert len(fo.drawn_levels(plain.nodes)) == fo.TREE_LEVELS == plain.cut_depth + 1
    assert "Only its top 10 levels are drawn" in fo.describe_tree(tok, clause, plain)
    check_layout(tok, plain.nodes, whole=False)
    # asking for more levels draws more, never past the chart's cap
    deep = fo.token_tree(tok, clause, runs=False, levels=40)
    assert len(fo.drawn_levels(deep.nodes)) == 40 and len(deep.nodes) <= fo.MAX_CHART_NODES
    everything = fo.token_tree(tok, clause, runs=False, levels=1_000)
    assert everything.cut_depth is None and len(everything.nodes) == len(full)


def test_chain_nodes_in_the_chart_say_how_many_merges_and_what_they_add(cjk_tok):
    tok = cjk_tok
    (clause,) = [t for t, b in tok.vocab.items() if b == CJK_CLAUSE.encode()]
    tree = fo.token_tree(tok, clause)
    frame = node_frame(tok, tree.nodes)
    row = frame[frame["kind"] == "chain"].iloc[0]
    (chain,) = [n for n in tree.nodes if n.run]
    assert row["label"] == f"⋯ {chain.run} merges" and row["merges"] == chain.run
    start = tok.vocab[tree.nodes[chain.left].id]
    added = CJK_CLAUSE.encode()[len(start):] if fo.growth_side(tok, chain.id) == 0 else None
    assert added and row["sub"] == "+ " + fo.token_text(added, 12)
    assert frame["merges"].isna().sum() == len(frame) - 1
    edges = edge_frame(tok, tree.nodes)
    assert len(edges) == len(tree.nodes) - 1
    assert list(edges["side"]).count("chain") == 1


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_the_deepest_and_longest_gpt_tokens_open_trees_that_fit_a_screen(name, cl100k):
    tok = cl100k if name == "cl100k_base" else bpe_core.load_pretrained(name)
    depth = fo.token_depth(tok)
    deepest = sorted(depth, key=lambda t: (-depth[t], t))[:20]
    spaces = tok.encode_ordinary(" " * 80)[0]  # the longest run of spaces
    equals = max((t for t in tok.vocab if set(tok.vocab[t]) == {ord("=")}), key=lambda t:
                 len(tok.vocab[t]))
    assert len(tok.vocab[spaces]) >= 64 and len(tok.vocab[equals]) >= 16
    for token_id in deepest + longest_tokens(tok, 20) + [spaces, equals]:
        tree = fo.token_tree(tok, token_id)
        # at most 24 nodes side by side at the bottom, 47 in all, 10 levels
        assert sum(1 for n in tree.nodes if n.left < 0) <= fo.TREE_LEAVES == 24
        assert len(tree.nodes) <= 47 and len(fo.drawn_levels(tree.nodes)) <= 10
        check_layout(tok, tree.nodes, whole=tree.cut_depth is None)
    # GPT-4o's deepest token (81 bytes, depth 10): 161 nodes in full, its top 7 levels drawn
    # (8 levels would end in 25 nodes side by side)
    if name == "o200k_base":
        top = deepest[0]
        assert fo.tree_size(tok, top) == 161 and depth[top] == 10
        tree = fo.token_tree(tok, top)
        assert len(tree.nodes) == 33 and tree.cut_depth == 6
        assert sum(1 for n in tree.nodes if n.left < 0) == 17


def test_a_forest_of_the_repeated_paragraph_collapses_its_chains(cjk_tok):
    tok = cjk_tok
    roots = [t for t, _ in fo.most_used(tok.encode(CJK_TEXT))]
    plain = fo.forest_layout(tok, roots)
    compact = fo.forest_layout(tok, roots, runs=True)
    assert compact.roots == plain.roots == roots and not compact.left_out
    assert len(compact.nodes) < len(plain.nodes) // 3
    assert compact.full_size == len(compact.nodes)
    check_layout(tok, compact.nodes)
    check_layout(tok, plain.nodes)
    chains = sum(1 for n in compact.nodes if n.run)
    assert chains >= 4  # the clauses
    said = fo.describe_forest(compact, len(roots), tok.num_merges)
    assert f"{chains} long chains of merges are drawn as one purple node each" in said
    assert "purple" not in fo.describe_forest(plain, len(roots), tok.num_merges)
    # a tight cap still draws the first tree, cut by depth
    tight = fo.forest_layout(tok, roots, runs=True, max_nodes=10)
    assert len(tight.nodes) <= 10 and tight.roots == roots[:1] and tight.cut_depth is not None
    check_layout(tok, tight.nodes, whole=False)


# -- showing a token and choosing one --------------------------------------------------------------


def test_token_text_shows_whitespace_and_invalid_bytes_in_hex():
    assert fo.token_text(b" the\n") == "·the↵"
    assert fo.token_text("é".encode()[:1]) == "⟨c3⟩"
    assert fo.token_text(b"ab\xe2\x80") == "ab⟨e2 80⟩"
    assert fo.token_text(b"\x00") == "\\u0000"
    assert fo.token_text(b"abcdefghijklmnop", 5) == "abcd…"


def test_find_token_reads_ids_text_and_quoted_numbers(classic, cl100k):
    assert fo.find_token(classic, "258") == fo.Lookup(258, [], "")
    assert fo.find_token(classic, " 97 ").id == 97
    assert fo.find_token(classic, "aaab") == fo.Lookup(258, [258], "aaab")
    assert fo.find_token(classic, "aaabc") == fo.Lookup(None, [258, 99], "aaabc")
    assert fo.find_token(classic, "") is None
    assert fo.find_token(cl100k, '"42"').id == cl100k.encode_ordinary("42")[0]
    assert fo.find_token(cl100k, "<|endoftext|>").id == 100257
    assert fo.find_token(cl100k, " hello world").pieces == cl100k.encode_ordinary(" hello world")
    with pytest.raises(ValueError, match="No token has id 999"):
        fo.find_token(classic, "999")


def test_vocab_rows_search_order_and_limit(classic, prose_tok, cl100k):
    rows, matched = fo.vocab_rows(classic, "", "longest first")
    assert matched == 259 and [r["id"] for r in rows[:3]] == [258, 257, 256]
    assert rows[0] == {"id": 258, "token": "aaab", "bytes": 4, "depth": 3, "step": 3, "count": 2}
    rows, matched = fo.vocab_rows(classic, "AA", "by id")
    assert [r["id"] for r in rows] == [256, 257, 258] and matched == 3
    rows, _ = fo.vocab_rows(classic, "98", "deepest first")
    assert rows[0]["id"] == 98  # a number finds its id first
    rows, matched = fo.vocab_rows(prose_tok, "", "deepest first", limit=10)
    assert len(rows) == 10 and matched == prose_tok.vocab_size
    assert [r["depth"] for r in rows] == sorted((r["depth"] for r in rows), reverse=True)
    rows, matched = fo.vocab_rows(cl100k, "tokeniz", "longest first", limit=5)
    assert matched > 5 and all("tokeniz" in r["token"].lower() for r in rows)
    assert all(r["count"] is None for r in rows)  # pretrained: no training counts
    with pytest.raises(ValueError, match="order"):
        fo.vocab_rows(classic, "", "sideways")


def test_vocab_frame_drops_the_count_column_for_pretrained(classic, cl100k):
    assert list(vocab_frame(fo.vocab_rows(classic)[0]).columns) == [
        "id", "token", "bytes", "depth", "step", "count"
    ]
    assert str(vocab_frame(fo.vocab_rows(classic)[0])["count"].dtype) == "Int64"
    assert "count" not in vocab_frame(fo.vocab_rows(cl100k, limit=3)[0]).columns


# -- the word trace --------------------------------------------------------------------------------


def test_trace_of_aaab_is_three_merges_in_rank_order(classic):
    trace = fo.word_trace(classic, "aaab")
    assert trace.start == [[97, 97, 97, 98]]
    assert [(s.left, s.right, s.new, s.rank, s.position, s.tokens) for s in trace.steps] == [
        (97, 97, 256, 1, 0, (256, 97, 98)),
        (256, 97, 257, 2, 0, (257, 98)),
        (257, 98, 258, 3, 0, (258,)),
    ]
    assert trace.final == [258]


def test_trace_merges_every_occurrence_left_to_right_before_the_next_rank(classic):
    # "aaaa": (a, a) twice, left to right, then nothing else applies
    events = fo.trace_merges([97, 97, 97, 97], classic.merges)
    assert events == [(97, 97, 256, 0, (256, 97, 97)), (97, 97, 256, 1, (256, 256))]


@pytest.mark.parametrize("kind", ["basic", "gpt2", "gpt4", "gpt4o"])
def test_trace_ends_where_encode_ends(kind):
    tok = trained(kind, CORPORA["prose"][:8000], 400)
    words = CORPORA["prose"][8000:12000].split(" ")
    for word in [" " + w for w in words[:300]] + ["", "x", " don't!", "é\u0301 ok"]:
        word = word[: fo.MAX_WORD_CHARS]
        trace = fo.word_trace(tok, word)
        assert trace.final == tok.encode_ordinary(word), word
        for chunk in range(len(trace.chunks)):
            ranks = [s.rank for s in trace.steps if s.chunk == chunk]
            assert ranks == sorted(ranks)  # the encoder never goes back to an earlier merge


def test_trace_ends_where_gpt4_encode_ends(cl100k):
    text = CORPORA["prose"][:6000] + " tokenization 🇫🇷 naïve   \n\n\tx=1234567"
    for word in [w[: fo.MAX_WORD_CHARS] for w in text.split(" ")] + [" tokenization"]:
        trace = fo.word_trace(cl100k, word)
        assert trace.final == cl100k.encode_ordinary(word), word
        assert all(s.rank == cl100k.step_of[s.new] for s in trace.steps)


def test_trace_merges_agrees_with_apply_merges_on_random_lists(prose_tok):
    rng = random.Random(7)
    alphabet = list(b"aeiou thsnr")
    for _ in range(300):
        ids = [rng.choice(alphabet) for _ in range(rng.randint(0, 90))]  # both apply_merges paths
        events = fo.trace_merges(list(ids), prose_tok.merges)
        final = list(events[-1][4]) if events else ids
        assert final == apply_merges(list(ids), prose_tok.merges)


def test_word_trace_refuses_a_long_word(classic):
    with pytest.raises(ValueError, match="at most 100"):
        fo.word_trace(classic, "a" * 101)


def test_trace_frame_lists_pairs_ids_ranks_and_tokens_after(classic):
    frame = word_trace_frame(classic, fo.word_trace(classic, "aaab"))
    assert list(frame["pair"]) == ["a + a", "aa + a", "aaa + b"]
    assert list(frame["ids"]) == ["97 + 97", "256 + 97", "257 + 98"]
    assert list(frame["rank"]) == [1, 2, 3]
    assert list(frame["tokens after"]) == ["aa | a | b", "aaa | b", "aaab"]


# -- chart data ------------------------------------------------------------------------------------


def test_node_frame_of_258_has_text_ids_steps_and_counts(classic):
    nodes = fo.tree_nodes(classic, 258)
    frame = node_frame(classic, nodes, uses={258: 2})
    assert list(frame.columns) == NODE_COLUMNS
    assert list(frame["id"]) == [258, 257, 256, 97, 97, 97, 98]
    assert list(frame["label"]) == ["aaab", "aaa", "aa", "a", "a", "a", "b"]
    assert list(frame["hex"])[:2] == ["61 61 61 62", "61 61 61"]
    assert list(frame["step"]) == [3, 2, 1, 0, 0, 0, 0]
    # the pair counts when each merge was chosen: aa 4 times, then aaa and aaab twice
    assert list(frame["count"][:3]) == [2, 2, 4] and frame["count"][3:].isna().all()
    assert list(frame["kind"]) == ["merge"] * 3 + ["byte"] * 4
    assert list(frame["copies"]) == [1, 1, 1, 3, 3, 3, 1]
    assert list(frame["y"]) == [0, -1, -2, -3, -3, -2, -1]
    assert frame["uses"][0] == 2 and frame["uses"][1:].isna().all()
    assert list(frame["sub"])[:3] == ["258 · step 3 · ×2", "257 · step 2 · ×2", "256 · step 1 · ×4"]
    by_step = node_frame(classic, nodes, levels="step")
    assert list(by_step["y"]) == [3, 2, 1, 0, 0, 0, 0]
    with pytest.raises(ValueError, match="levels"):
        node_frame(classic, nodes, levels="height")


def test_edge_frame_joins_each_parent_to_its_two_children(classic):
    nodes = fo.tree_nodes(classic, 258)
    frame = node_frame(classic, nodes)
    edges = edge_frame(classic, nodes)
    assert list(edges.columns) == EDGE_COLUMNS
    assert len(edges) == len(nodes) - 1
    assert list(zip(edges["parent_id"], edges["child_id"], edges["side"], strict=True)) == [
        (258, 257, "left"), (258, 98, "right"),
        (257, 256, "left"), (257, 97, "right"),
        (256, 97, "left"), (256, 97, "right"),
    ]
    points = set(zip(frame["x"], frame["y"], strict=True))
    for e in edges.itertuples():
        assert (e.x, e.y) in points and (e.x2, e.y2) in points
        assert e.y2 == e.y - 1


def test_special_and_cut_nodes_have_their_own_kind(cl100k):
    forest = fo.forest_layout(cl100k, [100257])
    assert list(node_frame(cl100k, forest.nodes)["kind"]) == ["special"]
    (token_id,) = longest_tokens(cl100k, 1)
    forest = fo.forest_layout(cl100k, [token_id], max_nodes=20)
    kinds = set(node_frame(cl100k, forest.nodes)["kind"])
    assert kinds == {"merge", "cut"}


def test_tree_chart_carries_the_frames_marks_tooltips_and_selections(classic):
    nodes = fo.tree_nodes(classic, 258)
    frame, edges = node_frame(classic, nodes), edge_frame(classic, nodes)
    spec = tree_chart(frame, edges, title="aaab", svg=True).to_dict()
    marks = [layer["mark"]["type"] for layer in spec["layer"]]
    assert marks == ["rule", "circle", "text", "text"]
    data = spec["datasets"]
    node_rows = data[spec["layer"][1]["data"]["name"]]
    edge_rows = data[spec["layer"][0]["data"]["name"]]
    assert [r["id"] for r in node_rows] == [258, 257, 256, 97, 97, 97, 98]
    assert [r["label"] for r in node_rows] == ["aaab", "aaa", "aa", "a", "a", "a", "b"]
    assert [(r["x"], r["y"], r["x2"], r["y2"]) for r in edge_rows][0] == (2.125, 0.0, 1.25, -1.0)
    circle = spec["layer"][1]["encoding"]
    assert [t["field"] for t in circle["tooltip"]] == [
        "id", "text", "hex", "step", "count", "depth", "copies", "uses", "merges"
    ]
    assert circle["color"]["scale"]["domain"] == ["byte", "merge"]
    assert spec["layer"][2]["encoding"]["text"]["field"] == "label"
    assert spec["layer"][3]["encoding"]["text"]["field"] == "sub"
    assert {p["name"] for p in spec["params"]} == {"pick", "same", "zoom"}
    zoom = next(p for p in spec["params"] if p["name"] == "zoom")
    assert zoom["bind"] == "scales"
    assert spec["usermeta"]["embedOptions"]["renderer"] == "svg"
    assert spec["title"] == "aaab"
    # the same frames give the same spec: a rerun does not make a new chart
    assert tree_chart(frame, edges, title="aaab", svg=True).to_dict() == spec


def test_every_text_of_the_charts_is_12_px_or_more(prose_tok):
    """On a phone the chart is as wide as the screen: Vega's 10 px labels were too small to read
    (issue 34). Labels, sublabels, the legend and the step axis, in both charts."""
    ids = prose_tok.encode(CORPORA["prose"][:2000])
    forest = fo.forest_layout(prose_tok, [t for t, _ in fo.most_used(ids, 25)])
    for levels, sublabels in (("depth", True), ("step", False)):
        frame = node_frame(prose_tok, forest.nodes, levels=levels)
        spec = tree_chart(frame, edge_frame(prose_tok, forest.nodes, levels=levels),
                          levels=levels, sublabels=sublabels).to_dict()
        texts = [layer["mark"]["fontSize"] for layer in spec["layer"]
                 if layer["mark"]["type"] == "text"]
        assert len(texts) == (2 if sublabels else 1) and min(texts) >= 12, texts
        legend = spec["layer"][1]["encoding"]["color"]["legend"]
        assert legend["labelFontSize"] >= 12
        axis = spec["layer"][1]["encoding"]["y"].get("axis")
        if levels == "step":
            assert axis["labelFontSize"] >= 12 and axis["titleFontSize"] >= 12


def test_forest_chart_by_step_has_an_axis_and_no_sublabels(prose_tok):
    ids = prose_tok.encode(CORPORA["prose"][:2000])
    forest = fo.forest_layout(prose_tok, [t for t, _ in fo.most_used(ids, 25)])
    frame = node_frame(prose_tok, forest.nodes, levels="step")
    spec = tree_chart(frame, edge_frame(prose_tok, forest.nodes, levels="step"),
                      levels="step", sublabels=False).to_dict()
    assert [layer["mark"]["type"] for layer in spec["layer"]] == ["rule", "circle", "text"]
    assert spec["layer"][1]["encoding"]["y"]["axis"]["title"] == "merge step"
    node_rows = spec["datasets"][spec["layer"][1]["data"]["name"]]
    assert len(node_rows) == len(forest.nodes)
    assert [r["y"] for r in node_rows] == [prose_tok.step_of.get(n.id, 0) for n in forest.nodes]
    # projector mode: the axis's numbers and title 1.6 times their 12 px
    large = tree_chart(frame, edge_frame(prose_tok, forest.nodes, levels="step"), levels="step",
                       sublabels=False, large=True).to_dict()
    axis = large["layer"][1]["encoding"]["y"]["axis"]
    assert (axis["labelFontSize"], axis["titleFontSize"]) == pytest.approx((19.2, 19.2))


def test_selected_row_maps_a_table_selection_to_the_listed_id():
    shown = [462, 420, 349]
    assert fo.selected_row({"selection": {"rows": [1], "columns": []}}, shown) == 420
    assert fo.selected_row({"selection": {"rows": [], "columns": []}}, shown) is None
    assert fo.selected_row({"selection": {"rows": [5]}}, shown) is None
    assert fo.selected_row(None, shown) is None


def test_picked_id_reads_a_chart_selection():
    assert picked_id({"selection": {"pick": [{"id": 258}]}}) == 258
    assert picked_id({"selection": {"pick": []}}) is None
    assert picked_id({"selection": {}}) is None
    assert picked_id(None) is None


# -- sentences -------------------------------------------------------------------------------------


def test_descriptions_escape_token_text_and_name_the_merge(classic):
    text = fo.describe_tree(classic, 258, fo.forest_layout(classic, [258]))
    assert "“aaab” (258): 4 bytes, depth 3, 7 nodes" in text
    assert "merge 3 of 3 from “aaa” (257) + “b” (98), a pair seen 2×" in text
    assert "a single byte" in fo.describe_tree(classic, 97, fo.forest_layout(classic, [97]))
    tok = BasicTokenizer()
    tok.train("<b>**x**</b> " * 20, 270)
    markup = max(tok.vocab, key=lambda t: len(tok.vocab[t]))
    said = fo.describe_tree(tok, markup, fo.forest_layout(tok, [markup]))
    assert "<b>" not in said and "**" not in said and "\\<b\\>" in said
    assert fo.md_escape("[a](javascript:x) $x$ :red[y]") == (
        "\\[a\\]\\(javascript\\:x\\) \\$x\\$ \\:red\\[y\\]"
    )


def test_describe_trace_names_chunks_and_the_final_tokens(prose_tok):
    trace = fo.word_trace(prose_tok, " don't")
    said = fo.describe_trace(prose_tok, trace)
    assert "chunks first" in said  # the GPT-4 split cuts "'t" off
    assert said.endswith(f"(ids {', '.join(map(str, prose_tok.encode(' don' + chr(39) + 't')))}).")


def test_the_forest_caption_says_one_of_a_thing_in_the_singular():
    tok = BasicTokenizer()
    tok.train("aaabdaaabac", 259)  # the seeds' example: aa, aaa, aaab (ids 256, 257, 258)
    one = fo.describe_forest(fo.forest_layout(tok, [258]), 1, 3)
    # aaab: 258 -> 257 + b, 257 -> 256 + a, 256 -> a + a: "a" is drawn three times, no other id twice
    assert one.startswith("After 3 merges the text has one token; its tree is drawn (7 nodes).")
    assert "1 token id is drawn more than once" in one
    two = fo.describe_forest(fo.forest_layout(tok, [256, 257]), 3, 1)
    assert two.startswith("After 1 merge the text has 3 different tokens; the trees of the 2 "
                          "most used are drawn (8 nodes).")
    assert "2 token ids are drawn more than once" in two  # 256 and "a"
    assert "1 less used token is not asked for" in two
