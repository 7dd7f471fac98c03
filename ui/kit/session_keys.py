"""Every key the app uses in ``st.session_state``, in one place: widget keys (a widget's value
lives under its key) and the values pages keep between runs. A key starting with ``_`` is the
app's own bookkeeping, never a widget. ``tests/ui/test_session_keys.py`` checks that the code uses
no key that is not listed here, and that every key listed here is used.
"""

from __future__ import annotations

import streamlit as st

# Sidebar widgets whose values must survive a page change. The same keyed widget on another page
# is a new widget to Streamlit and starts from its default, so every value is mirrored under
# "_keep_<key>" by an on_change callback (which runs before the script sees the new value) and
# the widget is re-seeded from the mirror on every run (ui/sidebar/panel.py).
KEPT = ("sample", "text", "family", "kind", "pattern", "vocab_size", "specials", "projector",
        "special_rule")
KEEP_PREFIX = "_keep_"
# of those, the ones the sidebar draws on every run, whatever the settings (undo_echo)
ALWAYS_DRAWN = ("sample", "text", "family", "vocab_size", "projector", "special_rule")


def keep(key: str, value: object = None) -> None:
    """Mirror a sidebar value under ``_keep_<key>`` (the widget's own, or ``value`` set with it).

    Call it before the sidebar is drawn in a run (from a callback, or from app.py): Streamlit
    refuses a new value for a widget already drawn.
    """
    ss = st.session_state
    if value is not None:
        ss[key] = value
    ss[KEEP_PREFIX + key] = ss[key]


ECHO = "_echo_guard"  # sidebar values the server just replaced: {key: (shown, new)}, and "fresh"


def guard_echo(shown: dict[str, object]) -> None:
    """The server has just replaced the sidebar's values (``shown``: what the browser shows until
    this run's widgets reach it). A rerun the browser asks for in between (a component's trigger)
    carries every widget's value as the browser shows it, and Streamlit takes those as the user's
    edits: the replaced values came back (a student who left a room got the room's text back,
    when the room watcher's poll, woken by the leave, reran the page before the leave's run was
    drawn: 3 of 9 runs of tests/browser/test_classroom_reload.py). ``undo_echo`` puts the new
    values back on such a run."""
    ss = st.session_state
    guard = {k: (v, ss.get(k)) for k, v in shown.items() if v != ss.get(k)}
    if guard:
        ss[ECHO] = {"fresh": True, "keys": guard}
    else:
        ss.pop(ECHO, None)


def undo_echo() -> bool:
    """At the start of a run, after the callbacks (the sidebar's ``_init``): a run whose values
    are all the replaced ones (``guard_echo``) is the browser's echo, and the new values come
    back (True); the guard stays until a run comes with the browser showing the new values (the
    run that replaced them does not count): any change from then on is the user's."""
    ss = st.session_state
    guard = ss.get(ECHO)
    if not guard:
        return False
    keys = guard["keys"]
    # an echo carries the replaced value of every widget drawn; those drawn only under some
    # settings (the split pattern, the special tokens) may have been left out
    drawn = [k for k in keys if k in ALWAYS_DRAWN] or list(keys)
    if (all(ss.get(k) == keys[k][0] for k in drawn)
            and all(ss.get(k) in keys[k] for k in keys)):
        for k, (_, new) in keys.items():
            ss[k] = ss[KEEP_PREFIX + k] = new
        return True
    if guard["fresh"]:
        guard["fresh"] = False
    else:
        ss.pop(ECHO)
    return False

SESSION_KEYS: dict[str, str] = {
    # -- the sidebar, shared by every page (ui/sidebar/panel.py) --
    "projector": "toggle: projector mode",
    "nav": "container: the sidebar's navigation (ui/kit/navigation.py; no value)",
    "nav_close": "component: closes the sidebar after a page change on a phone (no value)",
    "sample": "selectbox: the sample text (None: the user's own text)",
    "text": "text area: the text every page shows",
    "upload": "file uploader: a .txt/.md file for the text",
    "special_rule": "radio: special-token text in the text read as text or as special tokens",
    "notice": "a note about the text (cut, not UTF-8) or the link",
    "_echo_guard": "sidebar values the server just replaced (a student who left a room: their"
                   " own work), put back on a rerun that echoes the old ones (guard_echo)",
    "_cut_corpus": "the file a cut text came from (my-text.txt for a paste): the sidebar offers"
                   " the bpe-lab train command for all of it",
    "_cut_note_": "prefix (_cut_note_<box's key>): what ui.kit.state.cut_to cut from a box's text",
    "family": "selectbox: the family of BPE (ui.kit.families: byte-level, sentencepiece, word)",
    "_family_chosen": "a family was just chosen in the sidebar: train it on this run",
    "family_source": "selectbox: under a SentencePiece or word-BPE family with a file of it"
                     " imported, the file or a tokenizer trained on the text (the kind says which)",
    "tokens_family_ids": "toggle: the Tokens page draws a SentencePiece tokenizer's ids",
    "forest_family_piece": "selectbox: the Merge forest's piece for a SentencePiece or word-BPE"
                           " tokenizer",
    "forest_family_table": "table: the text's merged pieces (Merge forest, SentencePiece or word"
                           " BPE)",
    "family_step": "slider: Step through merges' step for a SentencePiece or word-BPE tokenizer",
    "kind": "selectbox: the tokenizer (a KINDS label)",
    "pattern": "text input: the custom split pattern",
    "vocab_size": "number input: the vocabulary size",
    "specials": "text input: special tokens",
    "train": "button: Train",
    "stop": "button: stop training",
    "tok": "the session's trained tokenizer",
    "tok_settings": "the Settings it was trained with",
    "tok_text": "the text it was trained on",
    "train_memo": "trained tokenizers by (text digest, settings), a few",
    "imported": "(tokenizer, file name) from the Export & import page",
    "step": "the merge step the Step through and Merge forest pages show (in the link)",
    "_link_read": "the link's query was read (once per session)",
    "_link_step": "the step the session's link named (the Merge forest opens there)",
    "_first_training_tried": "the first visit trained by itself once",
    "lesson_keeper": "component: keeps the tab's lesson in its sessionStorage for a reload"
                     " (its triggers: kept, resend)",
    "lesson_step_keeper": "component: keeps Step through's step in the tab for a reload",
    "_lesson_asked": "the session has taken the lesson a reload left in the tab",
    "_lesson_session": "this session's id for the lesson keeper (a new one reads the tab again)",
    "_lesson_sent": "the digests of the texts handed to the tab (each is sent once)",
    "_lesson_restored": "(text, settings) of the tokenizer to train again after a reload",
    "_lesson_later": "what the tab kept, held for a join link's page until it has joined its room",
    "_keep_": "prefix: the sidebar's values mirrored across pages (KEPT below)",
    "_derived": "the one cache of what the session derives from (tokenizer, text)",
    "_digest": "(text, its SHA-256): the last text hashed",
    "_import_source": "the last import's files and options (what a classroom room carries)",
    # -- the classroom (ui/classroom/panel.py, pages/classroom.py) --
    "_room": "the room this session is in: code, role, token (teacher) or student id",
    "_room_version": "the room's version a following student has taken",
    "_room_state": "the room's count of changes other than the step, as taken",
    "_room_shared": "what the teacher's session last shared",
    "_room_saved": "a student's own text and tokenizer, put aside until they leave",
    "_room_answer": "(quiz id, pair): this student's answer",
    "_room_message": "(kind, text): a room message to show once",
    "_room_link_tried": "the ?room= code already tried (a refused link is not retried)",
    "_room_taken": "the sidebar as a following student last took it from the room",
    "_room_quiz_seen": "the quiz question a student was sent to the Classroom page for",
    "_page": "the running page's script (what a teacher's room shares)",
    "_room_down": "the room store did not answer this session's last run",
    "_room_bulk_removed": "(tool, monotonic time, count) of the teacher's last bulk removal: a"
                          " click's callback run again finds nothing and keeps the count",
    "_room_found_tried": "the teacher key (kept by the browser, or a teacher link) tried",
    "_room_keys_saved": "'forget': the browser drops its kept teacher key on the next run",
    "_room_teacher_link": "'offer' / 'shown': the teacher link, offered once",
    "_room_quiz": "the teacher's quiz as last set (to put a lost room back)",
    "_room_join_error": "the Join form's refusal, shown beside it",
    "_room_elsewhere": "{code, token}: a room another tab of this browser teaches (take over?)",
    "_room_elsewhere_seen": "the key of another tab's room the watcher last told of ('' none)",
    "_room_elsewhere_recheck": "True: that room's teaching tab was not live; the watcher asks"
                               " again",
    "_room_take_over": "True: the next run takes over the room of _room_elsewhere",
    "_room_lost": "what this tab is told after another tab took its room over (kept until then)",
    "_room_back_error": "the teacher-phrase form's refusal, shown beside it",
    "_room_come_back": "(code, phrase): the next run teaches that room again, if the phrase fits",
    "_step_from": "the step the stepping view's move was made from (a classroom's publish)",
    "room_back_box": "expander: teach a room you opened, with its teacher phrase",
    "room_back_code": "text input: the room's code, to teach it again",
    "room_back_phrase": "text input: the teacher phrase", "room_back": "button",
    "room_phrase_box": "expander: the teacher's own phrase, to come back with",
    "room_take_over": "button: this tab takes over teaching from another tab",
    "room_lock": "toggle: the teacher locks the room", "room_drop_idle": "button",
    "room_drop_others": "button: remove everyone not admitted",
    "room_admit_all": "button: admit everyone here now",
    "room_remove_": "button (room_remove_<i>): the teacher removes a member",
    "room_admit_": "button (room_admit_<i>): the teacher admits a member",
    "room_teacher_link_box": "expander: the teacher link",
    "room_teacher_link_show": "button: show the teacher link once",
    "room_open": "button", "room_code": "text input: join code",
    "room_nickname": "text input: nickname", "room_join": "button",
    "room_follow": "toggle: a student follows the teacher", "room_leave": "button",
    "room_watch": "the room watcher: the browser's teacher key, a member's check-ins and pulse",
    "room_follow_page": "toggle: students follow the teacher's page", "room_close": "button",
    "room_members": "expander: who is here", "room_quiz_k": "number input: the merge asked",
    "room_quiz_start": "button", "room_quiz_reveal": "button", "room_quiz_next": "button",
    "room_quiz_stop": "button", "room_quiz_guess": "radio: a student's pair",
    "room_quiz_send": "button", "room_answers_chart": "chart: the class's answers",
    # -- Start here (pages/overview.py) --
    "overview_ids_box": "container: the trained ids, scrolled by keyboard too",
    "merges_table": "dataframe: the merges",
    "front_box": "component: the text box whose tokens show as you type (its state: text)",
    "front_text": "the text typed in the front page's box",
    "_front_seed": "a number that changes when the box must start again from the sidebar's text",
    "_front_seed_of": "the sidebar text the box last started from",
    "_front_seq": "the number of the newest typed text the page has (the box numbers its texts)",
    "_front_route": "this session's key for the front page's route (ui/front/route.py)",
    "front_steps": "component: the merge slider on the typed text (its state: step)",
    "front_step": "the step the front page's merge slider was left at",
    # -- Tokens --
    "tokens_view": "radio: tokens or chunks",
    "tokens_colour": "radio: colour mode",
    "tokens_whitespace": "toggle: show whitespace",
    "tokens_ids": "toggle: ids instead of text",
    "tokens_large": "toggle: large tokens",
    # -- Step through merges --
    "step_prev": "button", "step_next": "button",
    "step_prev_change": "button", "step_next_change": "button",
    "step_play": "toggle: play", "step_speed": "select slider: play speed",
    "step_why": "expander toggle: why this merge", "step_chart": "chart",
    "step_metric": "radio: tokens or compression", "step_heldout": "selectbox: held-out text",
    "step_quiz": "toggle: the quiz",
    "step_instant": "toggle: step in the browser (on) or on the server",
    "step_component": "the in-browser stepping view (its step, sent when the user stops)",
    "merge_search": "text input: search the merges", "merge_table": "dataframe: the merges",
    "_stepspage_n": "merges of the shown tokenizer (the slider's end)",
    "_step_seq": "the in-browser stepping view's last move the server heard (its number)",
    "_stepspage_stop_play": "play reached the end",
    "_stepspage_table_steps": "the steps of the rows the merges table shows",
    # -- the quiz (ui/quiz/panel.py: the lesson and Step through) --
    "quiz_guess": "radio: the pair guessed", "quiz_reveal": "button", "quiz_next": "button",
    "quiz_restart": "button", "quiz_show_counts": "toggle: show pair counts",
    "quiz_k": "the merge asked", "quiz_score": "Score", "quiz_verdict": "the last Verdict",
    "quiz_revealed": "the answer is shown", "quiz_problem": "a message to show once",
    "_quiz_tok": "the tokenizer the quiz follows", "_quiz_start": "the step it was moved to",
    # -- Merge forest --
    "forest_token": "text input: a token id or text", "forest_step": "slider: step k",
    "forest_levels": "radio: levels by depth or step", "forest_n": "number input: trees",
    "forest_piece": "selectbox: a piece of the text", "forest_from_text": "selectbox: a token",
    "forest_search": "text input: search the vocabulary",
    "forest_vocab_order": "radio: vocabulary order", "forest_vocab": "dataframe: vocabulary",
    "forest_chart": "chart: a tree", "forest_tree_chart": "chart: the forest",
    "forest_word": "text input: the word to trace", "forest_trace": "dataframe: the trace",
    "_forest_chosen": "(tokenizer id, token) chosen by default",
    "_forest_outside_step": "a message: the token is made after step k",
    "_forest_step_for": "the tokenizer the forest's step slider follows",
    "_forest_vocab_ids": "the ids of the vocabulary rows shown",
    "forest_open": "a token id another page sets before switching here; taken once",
    "forest_chains": "toggle: collapse long chains of merges into one node",
    "forest_depth": "number input: levels of the token tree drawn (None: as many as fit)",
    # -- Check your BPE --
    "check_source": "radio: the sidebar's text or one's own", "check_text": "text area",
    "check_pattern": "selectbox: split pattern", "check_specials": "text input",
    "check_vocab": "number input: vocabulary size", "check_rule": "selectbox: tie rule",
    "check_download": "download button: the text",
    "check_paste": "text area: the learner's merges",
    "check_file": "file uploader: the learner's merges (a new upload replaces the last)",
    "check_vocab_json": "file uploader: the vocab.json of an uploaded merges.txt",
    "_check_task_from": "the sidebar's settings the check's task last followed",
    "_check_inputs": "fingerprints of the paste and the upload, as last seen",
    "_check_latest": "which of paste and upload is checked (the newest)",
    "check_side_by_side": "dataframe: merges around the difference",
    "check_step": "dataframe: the pairs at the difference",
    "check_diagnoses": "dataframe: other mistakes", "check_sentence": "text input",
    "check_ids": "text input: the learner's ids", "check_zoo": "selectbox: a mistake",
    "check_zoo_show": "button: show the mistake", "check_zoo_table": "dataframe: the demo",
    "_check_demo": "the bug zoo's mistake being shown",
    # -- Variants of BPE --
    "variants_ties": "toggle: the other tie rules", "variants_min_freq": "number input",
    "variants_max_bytes": "number input", "variants_as_text": "toggle: special tokens as text, added after",
    "variants_summary": "dataframe: the variants", "variants_pick": "selectbox: a variant",
    "variants_candidates": "dataframe: the pairs where it parts", "variants_chart": "chart",
    "variants_sentence": "text input: the sentence the encoders show",
    "variants_dropout": "slider: dropout p", "variants_samples": "number input: samples",
    "variants_seed": "number input: seed", "variants_encoders": "dataframe: the encoders",
    # -- Superwords and fair merges (pages/beyond.py) --
    "beyond_variant": "radio: SuperBPE, BoundlessBPE or parity-aware BPE",
    "beyond_transition": "slider: SuperBPE's transition, a share of the merges",
    "beyond_train": "button: train again after a stop", "beyond_stop": "button: stop training",
    "beyond_result": "(what was trained for, the tokenizers or comparison): the last training",
    "beyond_summary": "dataframe: SuperBPE or BoundlessBPE against classical BPE",
    "beyond_download": "download button: SuperBPE's or BoundlessBPE's tokenizer.json",
    "beyond_step": "button: step through SuperBPE's merges (it becomes the session's tokenizer)",
    "beyond_chart": "chart: compression against merges",
    "beyond_curve_table": "dataframe: the chart as a table",
    "beyond_parity_kind": "radio: parity-aware BPE's variant (plain, hybrid, moving window)",
    "beyond_parity_summary": "dataframe: Gini and all tokens, both ways",
    "beyond_parity_table": "dataframe: the language tax before and after",
    # -- Compare with GPT --
    "compare_which": "multiselect: tokenizers",
    "compare_layout": "radio", "compare_marks": "selectbox",
    "compare_ws": "checkbox: whitespace",
    "compare_whole": "checkbox: draw the whole text, not its first bytes",
    # -- Export & import --
    "export_zip": "download button: every format", "import_file": "file uploader",
    "import_pattern": "selectbox: split pattern for an import",
    "import_specials": "text input: special tokens for an import",
    "import_error": "the last import's error", "import_info": "the last import's notes",
    "import_summary": "dataframe: what was imported",
    "import_sample": "text input: the sample text an imported file's tokens are shown on",
    "export_spm_model": "download button: an imported SentencePiece model as tokenizer.model",
    "export_spm_hf": "download button: an imported SentencePiece model as tokenizer.json",
    "export_word_codes": "download button: imported word BPE as subword-nmt codes",
    "export_clip_merges": "download button: imported CLIP merges as merges.txt",
    "export_clip_vocab": "download button: imported CLIP merges' vocab.json",
    "sidebar_export_spm_model": "download button: the sidebar's SentencePiece model as "
                                "tokenizer.model",
    "sidebar_export_spm_hf": "download button: the sidebar's SentencePiece model as "
                             "tokenizer.json",
    "sidebar_export_word_codes": "download button: the sidebar's word BPE as subword-nmt codes",
    "_import_seen": "the uploads already read", "_import_last": "the last upload's names",
    # -- Bytes & decoding --
    "bytes_chars": "dataframe: characters", "bytes_each": "toggle", "bytes_fill": "button",
    "bytes_hex": "text input: hex bytes", "bytes_ids": "text area: ids",
    "bytes_problems": "dataframe", "bytes_start": "number input", "bytes_stray": "dataframe",
    "_bytes_fill_error": "why filling the ids box failed",
    # -- Language tax --
    "languages_which": "multiselect: tokenizers", "languages_own": "text area: your own texts",
    "languages_chart": "chart: cost relative to English",
    "languages_table_for": "selectbox: which tokenizer's table",
    "languages_table": "dataframe: one tokenizer's costs",
    "languages_sentence": "selectbox: the story's sentence read in every language",
    "languages_train": "button: train English-only vs all languages",
    "languages_trained": "the (vocab size, pattern) the comparison was last asked for",
    "languages_comparison_chart": "chart: the comparison",
    "languages_comparison": "dataframe: the comparison",
    # -- Numbers --
    "numbers_range": "radio: 0-999 or the years", "numbers_space": "toggle: a leading space",
    "numbers_heatmap": "chart: token counts per tokenizer",
    "numbers_own": "text input: the user's own number",
    "numbers_groups": "dataframe: digit groups", "numbers_rules": "dataframe: the digit rules",
    "numbers_train": "button: train with the digit presets",
    "numbers_presets_for": "(text digest, vocab size) the preset comparison was asked for",
    "numbers_presets": "dataframe: the presets compared",
    "numbers_presets_heatmap": "chart: 0-999 under the trained presets",
    "numbers_use_pick": "selectbox: the digit rule for the sidebar",
    "numbers_use": "button: use that rule in the sidebar",
    "numbers_used": "the digit rule last put in the sidebar",
    # -- Vocabulary health --
    "health_pattern": "selectbox: the split pattern to check against",
    "health_summary": "dataframe: tokens of each kind",
    "health_search_": "prefix: text input, search one kind's list",
    "health_table_": "prefix: dataframe, one kind's tokens (single-row selection)",
    "health_open_": "prefix: button, open the selected token's tree in the Merge forest",
    # -- Report card --
    "report_card": "dataframe: bytes per token", "report_chart": "chart",
    "report_text": "selectbox: the report text shown", "report_measure": "button: time again",
    "report_speed": "dataframe: MB/s and time for 1 TB",
    "report_text_box": "container: the report text, scrolled by keyboard too",
    # -- Lesson --
    "lesson_step": "radio: the lesson's step", "lesson_mode": "radio: lesson or quiz",
    "lesson_prev": "button", "lesson_next": "button", "lesson_real": "toggle: real text",
    "lesson_pair": "selectbox: the pair to merge by hand", "lesson_merges": "slider: merges",
    "lesson_word": "text input: the word to encode", "lesson_ids": "text input: ids to decode",
    "lesson_pairs_chart": "chart", "lesson_ratio_chart": "chart", "lesson_counts_chart": "chart",
    # -- Chat tokens --
    "chat_count": "number input: how many messages", "chat_role_": "prefix: selectbox, a role",
    "chat_name_": "prefix: text input, a message's name", "chat_text_": "prefix: text area, a message",
    "chat_format": "radio: harmony, ChatML or your tokenizer",
    "chat_counts": "dataframe: tokens per message", "chat_ids": "toggle: ids instead of text",
}
