"""Check your BPE: bring the output of your own implementation; the page trains the reference
with the same inputs and shows where the two part, and what explains it (``bpe_lab.check``)."""

import streamlit as st

from bpe_lab import check
from ui.check import findings as cv
from ui.kit.choices import MAX_PASTE_CHARS, parse_specials
from ui.kit.escape import md_escape
from ui.kit.projector import projector_mode
from ui.kit.state import current_text, cut_note, cut_to, derived
from ui.sidebar.panel import sidebar

MAX_MERGES_ASKED = 2_000  # the vocabulary size the page offers: 256 + specials + this
DEMO_NAMES = {m.key: m.title for m in check.MISTAKES}
SHOW = {"cause": st.warning, "causes": st.warning, "closest": st.info,
        "another tie rule": st.info, "unknown": st.info}

sidebar()
ss = st.session_state

st.title("Check your BPE")
st.write(
    "Wrote your own BPE trainer (the seeds' `get_stats` and `merge`, minbpe, or CS336's "
    "`train_bpe`)? Run it on the text and settings below and bring its output here. The page "
    "trains the reference with the same inputs and shows whether your merges match, the first "
    "merge where they part, both pairs with their counts at that step, and which known mistake "
    "explains how many of your merges, found by replaying them."
)

# -- the task: a text and the settings (from the sidebar's, until changed here) -----------------

st.header("1. The task")
source = st.radio("Text", ["The sidebar's text", "A text of my own"], horizontal=True,
                  key="check_source")
if source == "A text of my own":
    text = st.text_area("Your text", height=150, max_chars=MAX_PASTE_CHARS, key="check_text",
                        on_change=cut_to, args=("check_text", check.MAX_CHECK_CHARS),
                        help=f"The check reads at most {check.MAX_CHECK_CHARS:,} characters.")
    if cut_note("check_text"):
        st.info(cut_note("check_text"))
else:
    text = current_text()
if not text.strip():
    st.info("The text is empty: paste a text (or pick a sample in the sidebar).")
    st.stop()

imported = ss.get("imported")
task = cv.task_from_sidebar(ss.get("kind"), ss.get("pattern"), ss.get("vocab_size"),
                            ss.get("specials"), getattr(imported[0], "pattern", None) if imported else None)
follow = ss.get("_check_task_from") != task  # the sidebar changed: the task follows it
for key, value in (("check_pattern", task.pattern_label), ("check_specials", task.specials),
                   ("check_vocab", task.vocab_size),
                   ("check_rule", next(iter(cv.RULE_LABELS)))):
    if follow or key not in ss:
        ss[key] = value
ss["_check_task_from"] = task
patterns = cv.pattern_options(task.custom)
if ss["check_pattern"] not in patterns:
    ss["check_pattern"] = task.pattern_label

# four settings side by side; stacked on a projector, where a select would cut its value
cols = [st.container() for _ in range(4)] if projector_mode() else st.columns(4)
pattern_label = cols[0].selectbox("Split pattern", list(patterns), key="check_pattern",
                                  help="The sidebar's, until you pick another here.")
specials_text = cols[1].text_input("Special tokens", key="check_specials",
                                   help="Comma-separated; empty for none. The text is cut at them"
                                        " before counting, and they count in the vocabulary size"
                                        " (as CS336).")
try:
    specials = parse_specials(specials_text)
except ValueError as e:
    st.error(md_escape(str(e)))
    st.stop()
least = 256 + len(specials)
ss["check_vocab"] = min(max(int(ss["check_vocab"]), least), least + MAX_MERGES_ASKED)
vocab_size = cols[2].number_input("Vocabulary size", min_value=least,
                                  max_value=least + MAX_MERGES_ASKED, key="check_vocab")
rule_label = cols[3].selectbox("Ties go to", list(cv.RULE_LABELS), key="check_rule")
settings = {"pattern": patterns[pattern_label], "vocab_size": int(vocab_size),
            "special_tokens": list(specials), "tie_rule": cv.RULE_LABELS[rule_label]}
settings_key = (settings["pattern"], int(vocab_size), specials, settings["tie_rule"])

left, right = st.columns([1, 3])
left.download_button("Download the text", text.encode("utf-8", "replace"),
                     file_name="bpe-lab-text.txt", mime="text/plain", key="check_download")
right.code(cv.settings_call("bpe-lab-text.txt", int(vocab_size), specials, pattern_label,
                            rule_label), language="python", wrap_lines=True)
st.caption(f"{len(text):,} characters, {len(text.encode('utf-8', 'replace')):,} bytes: "
           f"{int(vocab_size) - least:,} merges to make.")

# -- your output: the newest paste or upload is the one checked ---------------------------------

st.header("2. Your output")
pasted = st.text_area(
    "Paste your merges", height=180, key="check_paste",
    placeholder="merges = [(b' ', b't'), (b'h', b'e'), ...]   or   {(104, 101): 256, ...}"
                "   or a minbpe .model   or lines of a merges.txt",
    help="Python literals are read as data, never run. CS336: paste `vocab = {...}` and "
         "`merges = [...]`, or just the merges.")
upload = st.file_uploader(
    "…or upload your merges file", key="check_file",
    type=["model", "txt", "json", "py", "tiktoken", "vocab", "bpe"],
    help="A minbpe .model, CS336's merges.txt, a tokenizer.json, a .tiktoken file, or a .py/.txt "
         "of Python literals. A new upload replaces the previous one.")
vocab_upload = st.file_uploader(
    "its vocab.json (with a merges.txt only)", key="check_vocab_json", type=["json"])
vocab_file = vocab_upload.getvalue() if vocab_upload is not None else None
inputs = {
    "paste": cv.fingerprint(pasted if pasted.strip() else None),
    "upload": cv.fingerprint(upload.getvalue() if upload is not None else None,
                             getattr(upload, "file_id", None), upload and upload.name,
                             cv.fingerprint(vocab_file)),
}
chosen = cv.newest(inputs, ss.get("_check_inputs", {}), ss.get("_check_latest"))
ss["_check_inputs"], ss["_check_latest"] = inputs, chosen
data, name = None, ""
if chosen == "paste":
    data = pasted
    vocab_file = None  # a vocab.json goes with an uploaded merges.txt
elif chosen == "upload":
    data, name = upload.getvalue(), upload.name
if all(inputs.values()):
    checked = f"the upload {name}" if chosen == "upload" else "the pasted text"
    st.caption(md_escape(f"Checking {checked}: the newest of your paste and your upload."))

report = None  # what checking the learner's merges found, when they gave some
if data is None:
    st.info("Paste or upload your implementation's merges to check them.")
else:
    key = ("check", cv.fingerprint(data), cv.fingerprint(vocab_file), name, settings_key)

    def run_check():
        try:
            mine = check.read_merges(data, name, vocab=vocab_file)
            return mine, check.check_merges(mine, text, **settings), None
        except ValueError as e:
            return None, None, str(e)

    with st.spinner("Training the reference and replaying the known mistakes…"):
        mine, report, problem = derived(key, check, text, run_check, by_rule=False)
    if problem:
        st.error(md_escape(problem))
    else:
        st.caption(md_escape(check.learner_words(mine, name)))
        for note in mine.notes:
            st.caption(md_escape(check.note_words(note)))
        other_pattern = check.pattern_words(mine, settings["pattern"])
        if other_pattern is not None:
            st.warning(md_escape(other_pattern))
        comparison = report.comparison
        (st.success if comparison.matches else st.error)(
            md_escape(check.comparison_words(comparison, cv.spell)))
        reference = check.merge_pairs(report.reference)
        st.dataframe(cv.side_by_side(mine.merges, reference, comparison.first_difference),
                     hide_index=True, key="check_side_by_side")
        if report.explanation is not None:
            st.subheader(f"Merge {report.explanation.step:,}: why they part")
            st.markdown(md_escape(check.step_words(report.explanation, cv.spell)))
            st.dataframe(cv.step_frame(report.explanation), hide_index=True,
                         key="check_step")
            st.caption("Counts in the reference's tokens just before that merge.")
        said = check.check_verdict(report, cv.spell)
        if said.text:
            st.subheader(said.heading)
            SHOW[said.kind](md_escape(said.text))
            if said.diagnosis is not None:
                st.markdown(f"**What you see:** {md_escape(said.diagnosis.mistake.symptom)}")
                st.markdown(f"**The idea of the fix:** {md_escape(said.diagnosis.mistake.fix)}")
            if report.diagnoses:
                with st.expander("The known mistakes that explain part or all of your merges"):
                    st.dataframe(cv.diagnoses_frame(report.diagnoses), hide_index=True,
                                 key="check_diagnoses")

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
                                        lambda: check.train_reference(text, **settings),
                                        by_rule=False)
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
            md_escape(check.comparison_words(shown.comparison, cv.spell)))
        st.dataframe(cv.side_by_side(demo.merges, check.merge_pairs(shown.reference),
                                     shown.comparison.first_difference),
                     hide_index=True, key="check_zoo_table")
        if shown.explanation is not None:
            st.markdown(md_escape(check.step_words(shown.explanation, cv.spell)))
        said = check.check_verdict(shown, cv.spell)
        if said.text:
            st.caption(md_escape(f"{said.heading}: {said.text}"))
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
