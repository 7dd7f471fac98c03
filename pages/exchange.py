"""Export & import: download the tokenizer in five formats; upload one to use it on every page."""

import base64
from functools import partial

import streamlit as st

from ui.exchange.files import (
    EXPORTS,
    IMPORT_PATTERNS,
    MAX_IMPORT_BYTES,
    MAX_IMPORT_MB,
    export_problems,
    file_stem,
    parse_import_specials,
    pick_upload,
    read_uploads,
    shown_pattern,
    sidebar_refusal,
    zip_bytes,
)
from ui.exchange.panel import (
    SIDEBAR_KEYS,
    family_download_buttons,
    family_downloads,
    loaded_table,
    sample_tokens,
)
from ui.kit.escape import md_escape
from ui.kit.families import BYTE_LEVEL, FAMILIES, family_of, family_title
from ui.kit.projector import projector_mode
from ui.kit.state import (
    FAMILY_PAGES,
    active_tokenizer,
    import_refusal,
    import_tokenizer,
    tokenizer_label,
    using_import,
    vocabulary_fact,
)
from ui.sidebar.panel import sidebar

MAX_ERROR_CHARS = 600  # a reader's message can quote megabytes of a hostile file

sidebar()


def _short(message: str) -> str:
    return message if len(message) <= MAX_ERROR_CHARS else message[:MAX_ERROR_CHARS] + "…"


def _of_another_family() -> bool:
    """Whether the session's imported file is of another family than the five formats above."""
    imported = st.session_state.get("import_info")
    return imported is not None and bool(sidebar_refusal(imported))


def read_import(changed: str) -> None:
    """Callback of the import widgets: read the uploaded file(s) and make them the tokenizer.

    ``changed`` is "files" (the uploader: read what was just added) or "options" (pattern or
    special tokens: read the last files again). On any problem the message is kept for the page
    and the current tokenizer stays.
    """
    ss = st.session_state
    uploads = ss.get("import_file") or []
    seen, last = ss.get("_import_seen", set()), ss.get("_import_last", set())
    ss["_import_seen"] = {f.file_id for f in uploads}
    ss["import_error"] = None
    files = [(f.name, f.getvalue()) for f in uploads]
    if changed == "files":
        new = [f.file_id not in seen for f in uploads]
        if not any(new):
            return  # a file was removed from the list: nothing new to read
        chosen = pick_upload(files, new)
    else:
        chosen = [i for i, f in enumerate(uploads) if f.file_id in last]
        if not chosen:
            return
    ss["_import_last"] = {uploads[i].file_id for i in chosen}
    datas = [files[i][1] for i in chosen]
    # before reading (a read's peak), once the files are within the size read_uploads says
    problem = (import_refusal(None, datas) if all(len(d) <= MAX_IMPORT_BYTES for d in datas)
               else None)
    if problem:
        ss["import_error"] = problem
        return
    try:
        specials = parse_import_specials(ss.get("import_specials", ""))
        with st.spinner("Reading… a 100 000-token tiktoken file takes a few seconds to recover"
                        " its merges."):
            imported = read_uploads([files[i] for i in chosen], special_tokens=specials,
                                    pattern=IMPORT_PATTERNS[ss["import_pattern"]])
    except ValueError as e:
        ss["import_error"] = _short(str(e))
        return
    except Exception as e:  # a hostile file must never become a traceback
        ss["import_error"] = _short(f"This file could not be read ({type(e).__name__}: {e}).")
        return
    problem = import_refusal(imported.tok)
    if problem:
        ss["import_error"] = problem
        return
    ss["import_info"] = imported
    # what a classroom room carries to re-read the same tokenizer (ui/classroom/panel.py), and
    # what the tab keeps over a reload (ui/sidebar/panel.py)
    ss["_import_source"] = {"files": [[files[i][0], base64.b64encode(files[i][1]).decode()]
                                      for i in chosen],
                            "specials": specials, "pattern": ss["import_pattern"]}
    import_tokenizer(imported.tok, imported.name)


st.title("Export & import")

# -- export ---------------------------------------------------------------------------------------
st.header("Export")
tok = active_tokenizer(FAMILIES)
if tok is not None and using_import() and _of_another_family():
    st.info("The sidebar's tokenizer is an imported file of another family than byte-level"
            " BPE: the downloads its family can be written as are under **Import**, below.")
elif tok is None:
    st.info("Nothing to export yet: train a tokenizer in the sidebar, or import one below.")
elif family_of(tok) != BYTE_LEVEL:  # SentencePiece, word BPE: the files of its own family
    st.write(f"The tokenizer in the sidebar: **{tokenizer_label()}**. Files are made when you"
             " press a button.")
    family_download_buttons(tok, file_stem(tokenizer_label(plain=True)), SIDEBAR_KEYS)
else:
    stem = file_stem(tokenizer_label())
    st.write(f"The tokenizer in the sidebar: **{tokenizer_label()}**. Files are made"
             " when you press a button.")
    # about 2 s for o200k (does every token encode to itself?): once per tokenizer
    problems = vocabulary_fact("export problems", tok, lambda: export_problems(tok))
    for export in EXPORTS:
        what, button = st.columns([3, 2], vertical_alignment="center")
        what.markdown(f"**{export.title}**: {export.what}")
        if problems[export.key]:
            button.warning(problems[export.key], icon="🚫")
        else:
            button.download_button(f"Download {export.title}", partial(export.make, tok),
                                   file_name=stem + export.suffix, mime=export.mime,
                                   key=export.key, on_click="ignore", icon="⬇️")
    st.download_button("Download every format that fits, as one .zip",
                       partial(zip_bytes, tok, stem), file_name=stem + ".zip",
                       mime="application/zip", key="export_zip", on_click="ignore",
                       type="primary", icon="📦")

# -- import ---------------------------------------------------------------------------------------
st.header("Import")
st.write(
    "Upload a minbpe `.model`, a Hugging Face `tokenizer.json`, tiktoken ranks, or a GPT-2 style"
    " `vocab.json` together with its `merges.txt`; or a file of another family of BPE: a"
    " sentencepiece `tokenizer.model` or a Llama-shaped `tokenizer.json` (SentencePiece),"
    " subword-nmt's codes or CLIP's merges (word BPE), Mistral's `tekken.json`. The format is"
    " read from the content, and the page says which family it is. A file that cannot be read"
    " leaves the current tokenizer as it is."
)
st.write(
    "tiktoken ranks hold neither the split pattern nor the special tokens, and GPT-2 files hold"
    " no split pattern: upload the **bpe-lab sidecar** saved with them (`….bpe-lab.json`, from"
    " the downloads above or `bpe_core`'s save methods) in the same upload, or give them"
    " below. Nothing is guessed. The sidecar also brings back the merge history."
)
# side by side; stacked on a projector, where a select would cut its value
pattern_col, specials_col = (st.container(), st.container()) if projector_mode() else st.columns(2)
pattern_col.selectbox(
    "Split pattern for tiktoken and GPT-2 files", list(IMPORT_PATTERNS), key="import_pattern",
    on_change=read_import, args=("options",),
    help="These files do not store the split pattern; their bpe-lab sidecar does, and so do"
         " .model and tokenizer.json files.",
)
specials_col.text_input(
    "Special tokens for tiktoken files (token=id, comma-separated)", key="import_specials",
    placeholder="<|endoftext|>=100257, or none", on_change=read_import, args=("options",),
    help="tiktoken files do not store special tokens (their bpe-lab sidecar does); write none"
         " if the file has none. Other formats store them; this is ignored for them.",
)
st.file_uploader(
    f"Tokenizer file(s), up to {MAX_IMPORT_MB} MB each", accept_multiple_files=True,
    key="import_file", on_change=read_import, args=("files",), max_upload_size=MAX_IMPORT_MB,
)

ss = st.session_state
if ss.get("import_error"):
    st.error(f"Not imported: {md_escape(ss['import_error'])} The current tokenizer is kept.")
imported = ss.get("import_info")
if imported is not None and (ss.get("imported") or (None,))[0] is imported.tok:
    other_family = sidebar_refusal(imported)  # SentencePiece, word BPE, CLIP, tekken.json
    st.subheader("Loaded")
    loaded_table(imported)
    if not other_family:
        st.code(shown_pattern(imported.tok) or "(no split pattern)", language=None,
                wrap_lines=True)
    for note in imported.notes:
        st.caption(md_escape(note))
    sample_tokens(imported)
    if other_family:
        family_downloads(imported)
    if using_import() and other_family:
        st.success(f"The {FAMILY_PAGES} pages now use this tokenizer: the sidebar's"
                   " **Tokenizer** says *Imported file*. The pages of byte-level BPE only say"
                   " so by name. Choose another one in the sidebar to go back.")
    elif using_import():
        st.success("Every page now uses this tokenizer: the sidebar's **Tokenizer** says"
                   " *Imported file*. Pick another one there to go back.")
    else:
        st.info(md_escape(f"The imported tokenizer is kept: choose its family"
                          f" ({family_title(imported.tok)}) and Imported file as the sidebar's"
                          " Tokenizer to use it again."))
