"""Bytes & decoding: characters as UTF-8 bytes, what decode does with stray bytes, ids to text."""

import streamlit as st

from ui.decoding.utf8 import (
    MAX_CHARS_TABLE,
    MAX_IDS_INPUT_CHARS,
    bytes_frame,
    chars_frame,
    chars_html,
    chars_summary,
    decode_ids,
    decoded_html,
    decodings,
    first_ids,
    ids_frame,
    parse_hex,
)
from ui.kit.projector import explain
from ui.kit.special_rule import SHORT
from ui.kit.state import (
    active_tokenizer,
    allowed_special,
    current_text,
    family_stop,
    special_rule,
    tokenizer_label,
)
from ui.sidebar.panel import sidebar

MAX_TEXT_SHOWN = 100_000

sidebar()

st.title("Bytes & decoding")
family_stop()  # byte-level BPE only: another family is refused by name
explain(
    "A byte-level tokenizer never sees characters: it sees the UTF-8 bytes of the text. "
    "Here are the bytes of each character, what happens to bytes that are not valid UTF-8, "
    "and a box that turns token ids back into text."
)

chars_tab, stray_tab, ids_tab = st.tabs(["Characters → bytes", "Stray bytes", "Ids → text"])

with chars_tab:
    text = current_text()
    explain(
        "UTF-8 writes a character below U+0080 as one byte `0xxxxxxx`. Any other character "
        "starts with a **lead byte** that says how many bytes it takes (`110xxxxx`: 2, "
        "`1110xxxx`: 3, `11110xxx`: 4), followed by **continuation bytes** `10xxxxxx`. "
        "Below, the marker bits come before the bar `|` (and are highlighted in the cards); "
        "the `x` bits after it, read in order, are the code point. "
        "`€` is U+20AC: `1110|0010 10|000010 10|101100`, and `0010 000010 101100` is 0x20AC.",
        "How UTF-8 writes a character",
    )
    if not text:
        st.info("The text is empty: paste some text in the sidebar or pick a sample.")
    else:
        start = st.number_input("Start at character", min_value=0, max_value=len(text) - 1,
                                value=0, step=100, key="bytes_start")
        start = min(int(start), len(text) - 1)
        window = text[start : start + MAX_CHARS_TABLE]
        st.caption(chars_summary(window) + " Runs of plain ASCII are summed up in one card; "
                   "every other character has its own card with its bytes.")
        body, covered = chars_html(text, start)
        st.html(body)
        frame = chars_frame(text, start)
        with st.expander(f"Every character, one row each ({len(frame):,})"):
            st.dataframe(frame, hide_index=True, key="bytes_chars")
        rest = len(text) - start
        if covered < len(window):
            st.caption(f"Cards for characters {start:,} to {start + covered:,}, the table for "
                       f"{len(window):,} of the {rest:,} characters from {start:,} on; move the "
                       "start to see more.")
        elif rest > len(window):
            st.caption(f"Cards and table rows for {len(window):,} of the {rest:,} characters "
                       f"from {start:,} on; move the start to see more.")

with stray_tab:
    st.markdown(
        "A **continuation byte** (`10xxxxxx`, 0x80–0xBF) only means something after a lead "
        "byte. On its own, as in the seed's `b'\\x80abc'`, it belongs to no character: "
        "`errors=\"strict\"` raises `UnicodeDecodeError`, `\"replace\"` puts U+FFFD (�) in its "
        "place, `\"backslashreplace\"` writes it as `\\x80`. A byte-level tokenizer can produce "
        "such bytes (a token may hold half a character), which is why `decode` defaults to "
        "`errors=\"replace\"`."
    )
    hex_text = st.text_input("Bytes in hex", value="80 61 62 63", key="bytes_hex",
                             help="Pairs of hex digits: 80 61 62 63, 0x80 0x61, or \\x80\\x61.")
    try:
        data = parse_hex(hex_text)
    except ValueError as e:
        st.error(str(e))
    else:
        if not data:
            st.info("Type some bytes in hex, e.g. 80 61 62 63.")
        else:
            results = decodings(data)
            for errors, shown in results.items():
                st.markdown(f'`data.decode("utf-8", errors="{errors}")`')
                st.code(shown, language=None, wrap_lines=True)
            st.dataframe(bytes_frame(data), hide_index=True, key="bytes_stray")

with ids_tab:
    tok = active_tokenizer()
    if tok is None:
        st.info("Press **Train** in the sidebar (or pick a pretrained tokenizer) to decode ids.")
    else:
        st.caption(f"Decoding with {tokenizer_label()}; its ids are 0..{max(tok.vocab):,}.")

        def _fill() -> None:
            try:
                st.session_state["bytes_ids"] = str(first_ids(tok, current_text(),
                                                              allowed_special=allowed_special()))
            except ValueError as e:  # a custom split pattern can time out on this text
                st.session_state["_bytes_fill_error"] = str(e)

        st.button("Fill in the ids of the text's first tokens", key="bytes_fill", on_click=_fill,
                  help=f"The sidebar's text, {SHORT[special_rule()]} (the sidebar's choice).")
        if st.session_state.get("_bytes_fill_error"):
            st.error(st.session_state.pop("_bytes_fill_error"))
        pasted = st.text_area("Token ids", key="bytes_ids", placeholder="[15339, 1917]",
                              max_chars=MAX_IDS_INPUT_CHARS,
                              help="Separated by commas, spaces or brackets. Ctrl+Enter applies.")
        if pasted.strip():
            try:
                decoded = decode_ids(tok, pasted)
            except ValueError as e:
                st.error(str(e))
                st.stop()
            if decoded.note:
                st.info(decoded.note)
            if decoded.problems:
                st.warning(f"{len(decoded.problems):,} of the pieces were left out: not whole "
                           "numbers, or ids this tokenizer does not have.")
                st.dataframe(decoded.problems_frame(), hide_index=True, key="bytes_problems")
            st.markdown(f"**{len(decoded.ids):,} ids → {len(decoded.data):,} bytes**; "
                        "bytes that are not valid UTF-8 are shown in hex on red:")
            body, left_out = decoded_html(decoded.data)
            st.html(body)
            if left_out:
                st.caption(f"Showing the first {len(decoded.data) - left_out:,} of "
                           f"{len(decoded.data):,} bytes.")
            st.markdown('`decode(ids, errors="replace")`:')
            shown = decoded.text
            st.code(shown[:MAX_TEXT_SHOWN], language=None, wrap_lines=True)
            if len(shown) > MAX_TEXT_SHOWN:
                st.caption(f"Showing the first {MAX_TEXT_SHOWN:,} of {len(shown):,} characters.")
            with st.expander("Each id"):
                st.dataframe(ids_frame(tok, decoded.ids), hide_index=True, key="bytes_each")
