"""AppTest tests of the merge-forest page (pages/forest.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest
from support import CORPORA, open_page

from ui.forest import trees as fo
from ui.kit.state import preset  # the presets are shared by sessions, not kept in session state

APP = str(Path(__file__).resolve().parents[2] / "app.py")
GPT4 = "Pretrained: GPT-4 (cl100k_base)"


def chart(at, key):
    """(spec, nodes frame, edges frame) of the Altair chart with this key."""
    (found,) = [c.proto for c in at.get("vega_lite_chart") if c.proto.id.endswith("-" + key)]
    frames = [pa.ipc.open_stream(d.data.data).read_pandas() for d in found.datasets]
    nodes = next(f for f in frames if "kind" in f.columns)
    edges = next(f for f in frames if "x2" in f.columns)
    return json.loads(found.spec), nodes, edges


def leaf_bytes(nodes) -> bytes:
    """The bytes of a drawn tree's leaves, left to right (from the chart's own data)."""
    leaves = nodes[nodes["kind"] != "merge"].sort_values("x")
    return b"".join(bytes.fromhex(h) for h in leaves["hex"])


def captions(at) -> str:
    return "\n".join(c.value for c in at.caption)


@pytest.fixture
def at():
    return open_page("pages/forest.py")


@pytest.fixture
def classic(at):
    """The page over the seeds' example: BasicTokenizer, "aaabdaaabac", 259 tokens."""
    at.text_area(key="text").input("aaabdaaabac").run()
    at.selectbox(key="kind").set_value("Train: no split (Basic)").run()
    at.number_input(key="vocab_size").set_value(259).run()
    at.button(key="train").click().run()
    assert not at.exception and not at.error
    assert at.session_state["tok"].num_merges == 3
    return at


def test_first_visit_shows_the_default_token_of_the_text(at):
    tok = at.session_state["tok"]
    spec, nodes, edges = chart(at, "forest_tree_chart")
    root = int(nodes["id"][0])
    assert root == fo.default_token(tok, tok.encode(at.text_area(key="text").value))
    assert at.text_input(key="forest_token").value == str(root)
    assert leaf_bytes(nodes) == tok.vocab[root]
    assert len(edges) == len(nodes) - 1
    assert spec["usermeta"]["embedOptions"]["renderer"] == "svg"
    assert f"({root}): {len(tok.vocab[root])} bytes" in captions(at)
    assert len(at.dataframe) == 2  # the vocabulary and the word trace
    assert not at.error and not at.warning


def test_typing_an_id_draws_the_classic_tree(classic):
    classic.text_input(key="forest_token").input("258").run()
    _, nodes, edges = chart(classic, "forest_tree_chart")
    assert list(nodes["id"]) == [258, 257, 256, 97, 97, 97, 98]
    assert list(nodes["label"]) == ["aaab", "aaa", "aa", "a", "a", "a", "b"]
    assert list(nodes["step"]) == [3, 2, 1, 0, 0, 0, 0]
    assert list(nodes["count"][:3]) == [2, 2, 4]
    assert nodes["depth"].max() == 3
    assert leaf_bytes(nodes) == b"aaab"
    assert list(zip(edges["parent_id"], edges["child_id"], strict=True))[:2] == [
        (258, 257), (258, 98)
    ]
    assert "merge 3 of 3" in captions(classic)


def test_typing_text_that_is_several_tokens_offers_them(classic):
    classic.text_input(key="forest_token").input("aaabd").run()
    assert not classic.exception
    assert "is not one token: it becomes 2" in classic.warning[0].value
    pieces = classic.selectbox(key="forest_piece")
    assert pieces.options == ["aaab  (id 258)", "d  (id 100)"]
    pieces.select_index(1).run()
    _, nodes, _ = chart(classic, "forest_tree_chart")
    assert list(nodes["id"]) == [100]
    assert classic.text_input(key="forest_token").value == "aaabd"  # what was typed stays
    classic.text_input(key="forest_token").input("aaa").run()  # one token: chosen at once
    assert list(chart(classic, "forest_tree_chart")[1]["id"]) == [257, 256, 97, 97, 97]


def test_unknown_id_says_so_and_keeps_the_tree(classic):
    before = list(chart(classic, "forest_tree_chart")[1]["id"])
    classic.text_input(key="forest_token").input("4000").run()
    assert not classic.exception
    assert "No token has id 4000" in classic.error[0].value
    assert list(chart(classic, "forest_tree_chart")[1]["id"]) == before


def test_a_token_of_the_text_can_be_picked(classic):
    picker = classic.selectbox(key="forest_from_text")
    assert picker.value is None
    # most used first: "aaab" twice, then "d", "a", "c"
    assert picker.options[0].startswith("aaab  (id 258) · 2×")
    picker.select_index(1).run()
    assert list(chart(classic, "forest_tree_chart")[1]["id"]) == [100]
    assert classic.text_input(key="forest_token").value == "100"


def test_the_forest_grows_with_the_step(classic):
    for k, roots in [(0, [97, 98, 100, 99]), (1, [97, 256, 98, 100, 99]),
                     (2, [257, 98, 100, 97, 99]), (3, [258, 100, 97, 99])]:
        classic.slider(key="forest_step").set_value(k).run()
        _, nodes, _ = chart(classic, "forest_chart")
        assert list(nodes["id"][nodes["depth"] == 0]) == roots, k
        assert nodes["step"].max() <= k
        assert f"After {k} merge{'s' if k != 1 else ''} " in captions(classic)
    # every tree appears once and its leaves spell its root
    assert list(nodes["uses"].dropna()) == [2, 1, 1, 1]


def test_the_step_comes_from_the_step_through_page_when_it_was_moved(classic):
    assert classic.slider(key="forest_step").value == 3
    classic.session_state["step"] = 1
    classic.run()
    assert classic.slider(key="forest_step").value == 1
    _, nodes, _ = chart(classic, "forest_chart")
    assert nodes["step"].max() == 1
    classic.slider(key="forest_step").set_value(2).run()  # its own slider still works
    assert chart(classic, "forest_chart")[1]["step"].max() == 2
    assert classic.session_state["step"] == 2  # and the step-through page follows it


def test_forest_settings_survive_a_page_change(classic):
    classic.slider(key="forest_step").set_value(1).run()
    classic.number_input(key="forest_n").set_value(2).run()
    classic.text_input(key="forest_word").input("aab").run()
    classic.switch_page("pages/overview.py").run()
    classic.switch_page("pages/forest.py").run()
    assert not classic.exception
    assert classic.slider(key="forest_step").value == 1
    assert classic.number_input(key="forest_n").value == 2
    assert classic.text_input(key="forest_word").value == "aab"
    _, nodes, _ = chart(classic, "forest_chart")
    assert list(nodes["id"][nodes["depth"] == 0]) == [97, 256]


def test_forest_by_merge_step_puts_each_node_at_its_step(classic):
    classic.radio(key="forest_levels").set_value("step").run()
    spec, nodes, _ = chart(classic, "forest_chart")
    assert list(nodes["y"]) == list(nodes["step"].astype(float))
    assert spec["layer"][1]["encoding"]["y"]["axis"]["title"] == "merge step"


def test_word_trace_shows_each_merge_with_its_rank(classic):
    classic.text_input(key="forest_word").input("aaabdaaab").run()
    trace = classic.dataframe[-1].value
    assert list(trace["pair"]) == ["a + a", "a + a", "aa + a", "aa + a", "aaa + b", "aaa + b"]
    assert list(trace["rank"]) == [1, 1, 2, 2, 3, 3]
    assert trace["tokens after"].iloc[-1] == "aaab | d | aaab"
    assert "9 bytes → 6 merges → 3 tokens" in classic.markdown[-1].value


def test_gpt4_deepest_token_fits_the_screen_and_opens_fully_on_request(at):
    at.selectbox(key="kind").set_value(GPT4).run()
    assert not at.exception
    tok = preset("cl100k_base")
    depth = fo.token_depth(tok)
    token_id = max(tok.vocab, key=lambda t: (depth.get(t, 0), len(tok.vocab[t])))
    at.text_input(key="forest_token").input(str(token_id)).run()
    _, nodes, _ = chart(at, "forest_tree_chart")
    assert int(nodes["id"][0]) == token_id
    # 80 bytes, depth 10: 159 nodes in full; the top levels that fit are drawn, the cut in orange
    assert len(nodes) <= 2 * fo.TREE_LEAVES - 1 and nodes["depth"].max() < depth[token_id]
    assert "cut" in set(nodes["kind"])
    assert leaf_bytes(nodes) == tok.vocab[token_id]  # the cut nodes and the leaves spell it
    assert "raise **Levels drawn**" in captions(at)
    at.number_input(key="forest_depth").set_value(20).run()
    _, nodes, edges = chart(at, "forest_tree_chart")
    assert nodes["depth"].max() == depth[token_id] >= 8
    assert len(nodes) == 2 * len(tok.vocab[token_id]) - 1 and len(edges) == len(nodes) - 1
    assert leaf_bytes(nodes) == tok.decode_single_token_bytes(token_id)
    assert set(nodes["kind"]) == {"merge", "byte"}
    assert nodes["count"].isna().all()  # a pretrained vocabulary has no training counts


def test_gpt4_token_with_invalid_utf8_shows_hex(at):
    at.selectbox(key="kind").set_value(GPT4).run()
    at.text_input(key="forest_token").input("  ").run()  # something else first
    tok = preset("cl100k_base")
    broken = next(t for t in sorted(tok.parents) if fo.token_text(tok.vocab[t]).startswith("⟨")
                  and len(tok.vocab[t]) >= 2)
    at.text_input(key="forest_token").input(str(broken)).run()
    _, nodes, _ = chart(at, "forest_tree_chart")
    assert nodes["label"][0].startswith("⟨")
    assert leaf_bytes(nodes) == tok.vocab[broken]


def test_gpt4_forest_of_a_long_text_is_capped_and_says_what_it_left_out(at):
    at.selectbox(key="kind").set_value(GPT4).run()
    at.text_area(key="text").input(CORPORA["prose"]).run()
    at.number_input(key="forest_n").set_value(fo.MAX_TREES).run()
    assert not at.exception
    _, nodes, _ = chart(at, "forest_chart")
    assert len(nodes) <= fo.MAX_CHART_NODES
    said = captions(at)
    assert "are left out: a chart gets at most 2,000 nodes" in said
    assert "drawn more than once (shared sub-trees)" in said
    # the roots are the most used tokens, most used first
    tok = preset("cl100k_base")
    expected = [t for t, _ in fo.most_used(tok.encode_ordinary(CORPORA["prose"]))]
    roots = list(nodes["id"][nodes["depth"] == 0])
    assert roots == expected[: len(roots)]


def test_gpt4_word_trace_ends_with_encode(at):
    at.selectbox(key="kind").set_value(GPT4).run()
    at.text_input(key="forest_word").input(" tokenization").run()
    tok = preset("cl100k_base")
    ids = tok.encode_ordinary(" tokenization")
    said = at.markdown[-1].value
    assert said.endswith(f"(ids {', '.join(map(str, ids))}).")
    ranks = list(at.dataframe[-1].value["rank"])
    assert ranks == sorted(ranks) and ranks


def test_markup_in_typed_text_is_escaped(classic):
    classic.text_input(key="forest_token").input("<b>**x**</b>").run()
    said = classic.warning[0].value
    assert "<b>" not in said and "**" not in said and "\\<b\\>" in said


def test_chosen_token_survives_a_page_change(classic):
    classic.text_input(key="forest_token").input("257").run()
    classic.switch_page("pages/overview.py").run()
    classic.switch_page("pages/forest.py").run()
    assert not classic.exception
    assert classic.text_input(key="forest_token").value == "257"
    assert int(chart(classic, "forest_tree_chart")[1]["id"][0]) == 257


# a paragraph repeated 20 times: its long clause becomes one token, a chain of 80-odd merges
CJK_CLAUSE = ("字节对编码是一种把文本切成词元的方法它从单个字节开始一次又一次地把最常见的相邻一对"
              "合并成一个新的词元就是这样")
CJK_TEXT = (CJK_CLAUSE + "，直到词表达到预定的大小。同一段话重复很多次以后，整句话都会变成一个"
            "很长的词元。\n") * 20


def test_a_link_opens_a_long_chain_drawn_compactly(at):
    at.text_area(key="text").input(CJK_TEXT).run()
    at.number_input(key="vocab_size").set_value(1024).run()
    at.button(key="train").click().run()
    assert not at.exception and not at.error
    tok = at.session_state["tok"]
    _, nodes, _ = chart(at, "forest_tree_chart")
    assert tok.vocab[int(nodes["id"][0])] == "。\n".encode()  # the default: short and used 20×
    (clause,) = [t for t, b in tok.vocab.items() if b == CJK_CLAUSE.encode()]
    # another page links here: ss["forest_open"] = a token id, then switch_page
    at.switch_page("pages/overview.py").run()
    at.session_state["forest_open"] = clause
    at.switch_page("pages/forest.py").run()
    assert not at.exception and not at.warning
    assert "forest_open" not in at.session_state  # taken once
    assert at.text_input(key="forest_token").value == str(clause)
    _, nodes, edges = chart(at, "forest_tree_chart")
    assert int(nodes["id"][0]) == clause
    chain = nodes[nodes["kind"] == "chain"]
    assert len(chain) == 1 and chain["label"].iloc[0].endswith(" merges")
    assert len(nodes) <= 30 and nodes["depth"].max() < 10  # 323 nodes and 87 levels in full
    assert "Collapsed: 1 chain of merges" in captions(at)
    # switched off: every merge, but only the levels that fit, the cut ones orange
    at.toggle(key="forest_chains").set_value(False).run()
    _, nodes, _ = chart(at, "forest_tree_chart")
    assert "chain" not in set(nodes["kind"]) and "cut" in set(nodes["kind"])
    assert nodes["depth"].max() == fo.TREE_LEVELS - 1
    # a link to an id this vocabulary does not have says so and keeps the tree
    at.session_state["forest_open"] = 50_000
    at.run()
    assert not at.exception
    assert "Token 50000 is not in this vocabulary" in at.warning[0].value
    assert int(chart(at, "forest_tree_chart")[1]["id"][0]) == clause


def test_the_forest_opens_at_all_merges_even_after_the_step_page():
    """The step page starts at merge 1; the forest does not follow that start, only a move."""
    at = open_page("pages/steps.py")
    assert at.session_state["step"] == 1
    at.switch_page("pages/forest.py").run()
    assert not at.exception
    n = at.session_state["tok"].num_merges
    assert n == 256
    assert at.slider(key="forest_step").value == n
    _, nodes, _ = chart(at, "forest_chart")
    assert nodes["step"].max() > 1  # the trees hold merges made after step 1


def test_the_forest_opens_at_the_links_step():
    at = open_page("pages/forest.py", query={"sample": "english", "step": "7"})
    assert at.slider(key="forest_step").value == 7
    _, nodes, _ = chart(at, "forest_chart")
    assert nodes["step"].max() <= 7
