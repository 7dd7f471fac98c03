"""Check your BPE: bring the output of your own implementation; the page trains the reference
with the same inputs and shows where the two part, and the likely mistake (``bpe_core.check``)."""

import hashlib

import streamlit as st

from bpe_core import check
from ui import check_view as cv
from ui.choices import parse_specials
from ui.escape import md_escape
from ui.state import current_text, derived, sidebar

MAX_MERGES_ASKED = 2_000  # the vocabulary size the page offers: 256 + specials + this
DEMO_NAMES = {m.key: m.title for m in check.MISTAKES}

sidebar()
ss = st.session_state

st.title("Check your BPE")
st.write(
    "Wrote your own BPE trainer (the seeds' `get_stats` and `merge`, minbpe, or CS336's "
    "`train_bpe`)? Run it on the text and settings below and bring its output here. The page "
    "trains the reference with the same inputs and shows whether your merges match, the first "
    "merge where they part, both pairs with their counts at that step, and the most likely "
    "cause, found by replaying your merges against known mistakes."
)

# -- the task: a text and the settings ----------------------------------------------------------

st.header("1. The task")
source = st.radio("Text", ["The sidebar's text", "A text of my own"], horizontal=True,
                  key="check_source")
if source == "A text of my own":
    text = st.text_area("Your text", height=150, max_chars=check.MAX_CHECK_CHARS,
                        key="check_text")
else:
    text = current_text()
if not text.strip():
    st.info("The text is empty: paste a text (or pick a sample in the sidebar).")
    st.stop()

cols = st.columns(4)
pattern_label = cols[0].selectbox("Split pattern", list(cv.PATTERNS), key="check_pattern")
specials_text = cols[1].text_input("Special tokens", value="<|endoftext|>", key="check_specials",
                                   help="Comma-separated. The text is cut at them before counting,"
                                        " and they count in the vocabulary size (as CS336).")
try:
    specials = parse_specials(specials_text)
except ValueError as e:
    st.error(md_escape(str(e)))
    st.stop()
least = 256 + len(specials)
vocab_size = cols[2].number_input("Vocabulary size", min_value=least,
                                  max_value=least + MAX_MERGES_ASKED, value=least + 44,
                                  key="check_vocab")
rule_label = cols[3].selectbox("Ties go to", list(cv.RULE_LABELS), key="check_rule")
settings = {"pattern": cv.PATTERNS[pattern_label], "vocab_size": int(vocab_size),
            "special_tokens": list(specials), "tie_rule": cv.RULE_LABELS[rule_label]}
settings_key = (settings["pattern"], int(vocab_size), specials, settings["tie_rule"])

left, right = st.columns([1, 3])
left.download_button("Download the text", text.encode("utf-8", "replace"),
                     file_name="bpe-lab-text.txt", mime="text/plain", key="check_download")
right.code(cv.settings_call("bpe-lab-text.txt", int(vocab_size), specials, pattern_label,
                            rule_label), language="python", wrap_lines=True)
st.caption(f"{len(text):,} characters, {len(text.encode('utf-8', 'replace')):,} bytes: "
           f"{int(vocab_size) - least:,} merges to make.")

# -- your output ---------------------------------------------------------------------------------

st.header("2. Your output")
how = st.radio("Bring it as", ["Paste", "Upload files"], horizontal=True, key="check_how")
data, name, vocab_file = None, "", None
report = None  # what checking the learner's merges found, when they gave some
if how == "Paste":
    pasted = st.text_area(
        "Your merges", height=180, key="check_paste",
        placeholder="merges = [(b' ', b't'), (b'h', b'e'), ...]   or   {(104, 101): 256, ...}"
                    "   or a minbpe .model   or lines of a merges.txt",
        help="Python literals are read as data, never run. CS336: paste `vocab = {...}` and "
             "`merges = [...]`, or just the merges.")
    data = pasted if pasted.strip() else None
else:
    uploads = st.file_uploader(
        "Your files", accept_multiple_files=True, key="check_files",
        type=["model", "txt", "json", "py", "tiktoken", "vocab", "bpe"],
        help="A minbpe .model, CS336's merges.txt (with its vocab.json), a tokenizer.json, a "
             ".tiktoken file, or a .py/.txt of Python literals.")
    if uploads:
        if len(uploads) > 2:
            st.error("Upload one file, or a merges file and its vocab.json.")
            st.stop()
        files = {u.name: u.getvalue() for u in uploads}
        vocabs = [n for n in files if n.endswith(".json") and len(files) == 2]
        if vocabs:
            vocab_file = files.pop(vocabs[0])
        name, data = next(iter(files.items()))

if data is None:
    st.info("Paste or upload your implementation's merges to check them.")
else:
    digest = hashlib.sha256(data.encode("utf-8", "replace") if isinstance(data, str)
                            else data).hexdigest()
    vocab_digest = hashlib.sha256(vocab_file).hexdigest() if vocab_file else None
    key = ("check", digest, vocab_digest, name, settings_key)

    def run_check():
        try:
            mine = check.read_merges(data, name, vocab=vocab_file)
            return mine, check.check_merges(mine, text, **settings), None
        except ValueError as e:
            return None, None, str(e)

    with st.spinner("Training the reference and replaying the known mistakes…"):
        mine, report, problem = derived(key, check, text, run_check)
    if problem:
        st.error(md_escape(problem))
    else:
        st.caption(md_escape(f"Read {len(mine.merges):,} merges{' from ' + name if name else ''}"
                             f": {mine.format}."))
        for note in mine.notes:
            st.caption(md_escape(note))
        comparison = report.comparison
        if comparison.matches:
            st.success(md_escape(comparison.summary))
        else:
            st.error(md_escape(comparison.summary))
        reference = check.merge_pairs(report.reference)
        st.dataframe(cv.side_by_side(mine.merges, reference, comparison.first_difference),
                     hide_index=True, key="check_side_by_side")
        if report.explanation is not None:
            st.subheader(f"Merge {report.explanation.step:,}: why they part")
            st.markdown(md_escape(report.explanation.summary))
            st.dataframe(cv.step_frame(report.explanation), hide_index=True,
                         key="check_step")
            st.caption("Counts in the reference's tokens just before that merge.")
        if report.diagnoses:
            best = report.diagnoses[0]
            st.subheader("Most likely cause")
            st.warning(f"**{md_escape(best.mistake.title)}**: {md_escape(best.detail)}.")
            st.markdown(f"**What you see.** {md_escape(best.mistake.symptom)}")
            st.markdown(f"**The idea of the fix.** {md_escape(best.mistake.fix)}")
            if len(report.diagnoses) > 1:
                with st.expander("Other mistakes that explain part of your merges"):
                    st.dataframe(cv.diagnoses_frame(report.diagnoses[1:]), hide_index=True,
                                 key="check_diagnoses")
        elif not comparison.matches:
            st.info("None of the known mistakes gives your merges: compare the pairs above with "
                    "your counts at that step.")

# -- your encoder ----------------------------------------------------------------------------------

st.header("3. Your encoder")
st.write("Encode a sentence with your `encode` and the reference's merges, and paste the ids.")
sentence = st.text_input("Sentence", value="the cat sat on the mat, and it's 1984.",
                         max_chars=1_000, key="check_sentence")
ids_text = st.text_input("Your ids", key="check_ids", placeholder="[256, 97, 98] or 256 97 98")
if sentence and ids_text.strip():
    try:
        if report is not None:  # the check above trained it already
            reference_tok = report.reference
        else:
            with st.spinner("Training the reference…"):
                reference_tok = derived(("check reference", settings_key), check, text,
                                        lambda: check.train_reference(text, **settings))
        result = check.diagnose_encoding(reference_tok, sentence, ids_text)
    except ValueError as e:
        st.error(md_escape(str(e)))
    else:
        (st.success if result.matches else st.error)(md_escape(result.summary))
        for mistake in result.mistakes:
            st.warning(f"**{md_escape(mistake.title)}.** {md_escape(mistake.symptom)} "
                       f"*The idea of the fix:* {md_escape(mistake.fix)}")
        st.caption(f"The reference's ids: {result.expected}")

# -- the bug zoo -----------------------------------------------------------------------------------

st.header("The bug zoo")
st.write("The mistakes this page knows, each as a one-click demo: what a learner sees, and the "
         "idea of the fix.")
picked = st.selectbox("Mistake", list(DEMO_NAMES), format_func=DEMO_NAMES.get, key="check_zoo")
mistake = check.MISTAKES_BY_KEY[picked]
st.markdown(f"**What you see.** {md_escape(mistake.symptom)}")
st.markdown(f"**The idea of the fix.** {md_escape(mistake.fix)}")
if st.button("Show it", key="check_zoo_show"):
    ss["_check_demo"] = picked
if ss.get("_check_demo") == picked:
    if mistake.stage == "training":
        demo = check.zoo_demo(picked)
        shown = check.check_merges(demo.merges, demo.text, **demo.settings)
        st.caption(md_escape(f"On the text “{demo.text[:120]}…”: {demo.detail}."))
        (st.success if shown.comparison.matches else st.error)(
            md_escape(shown.comparison.summary))
        st.dataframe(cv.side_by_side(demo.merges, check.merge_pairs(shown.reference),
                                     shown.comparison.first_difference),
                     hide_index=True, key="check_zoo_table")
        if shown.explanation is not None:
            st.markdown(md_escape(shown.explanation.summary))
        if shown.diagnoses:
            st.caption(md_escape("Diagnosed as: " + shown.diagnoses[0].summary))
    else:
        tok = check.train_reference(mistake.demo_text, pattern=cv.PATTERNS["GPT-2 (CS336)"],
                                    vocab_size=256 + 30)
        sentence = mistake.demo_text.split(".")[0]
        wrong = check.encode_with_mistake(picked, tok, sentence)
        shown = check.diagnose_encoding(tok, sentence, wrong)
        st.caption(md_escape(f"“{sentence}”, 30 merges learned on the demo text."))
        st.error(md_escape(shown.summary))
        st.caption(f"With the mistake: {wrong}")
        st.caption(f"BPE: {shown.expected}")
