"""Classroom: a teacher opens a room, students join with its code or link and follow the
teacher's text, tokenizer and step; the class quiz asks everyone to predict the next merge."""

import html

import streamlit as st

from ui.classroom import panel as cr
from ui.classroom import teacher_tools as tools
from ui.classroom.names import MAX_TYPED_NICKNAME
from ui.classroom.rooms import MAX_NICKNAME, RoomError, show_code
from ui.kit.charts import answers_chart
from ui.kit.escape import code_span, md_escape
from ui.kit.projector import explain
from ui.kit.state import active_tokenizer, projector_mode, tokenizer_label, trained_text
from ui.quiz import questions as qz
from ui.quiz.panel import text_after, text_after_merge
from ui.sidebar.panel import sidebar

sidebar()
ss = st.session_state

# The code on one line whatever the column's width (sized to the box: 9 characters of about
# 0.68 em); the link breaks anywhere but inside ?room=CODE (a nowrap span).
CODE_CSS = """<style>
.room-box { container-type: inline-size; }
.room-code { font: 700 min(5.5rem, 15cqi)/1.1 ui-monospace, monospace; letter-spacing: .08em;
  white-space: nowrap; }
.room-link, .room-link-other { font: 600 min(1.6rem, 4.5cqi)/1.3 ui-monospace, monospace; overflow-wrap: anywhere; }
.room-link .whole, .room-link-other .whole { white-space: nowrap; }
</style>"""

st.title("Classroom")
room = cr.membership()


def _quiz_question(tok, training):
    """The room's question for this session's tokenizer, or None (with a message) when there is
    none to ask."""
    quiz = cr.rooms().quiz(room["code"])
    if quiz is None:
        return None, None
    if tok is None or training is None or not qz.has_candidates(tok):
        st.info("The class quiz needs a tokenizer trained here: train one (a “Train: …” tokenizer "
                "in the sidebar), then start the quiz.")
        return quiz, None
    if quiz["k"] >= len(tok.history):
        st.info(f"This tokenizer has {len(tok.history):,} merges: there is no merge "
                f"{quiz['k'] + 1:,} to ask about.")
        return quiz, None
    return quiz, qz.make_question(tok, quiz["k"])


def _counts() -> None:
    """The teacher's live counts, read again every ANSWERS_POLL_S (only this fragment reruns):
    the students checking in now, and how many of them answered the question."""
    try:
        answers, students = cr.rooms().tally(room["code"])  # as the reveal counts them
        answered = len(answers)
        quiz = cr.rooms().quiz(room["code"])
    except cr.RoomError as e:
        st.warning(md_escape(str(e)))
        return
    cols = st.columns(2)
    cols[0].metric("Students", f"{students:,}")
    if quiz is not None:
        cols[1].metric("Answered", f"{answered} of {students}")


def _link_html(code_text: str) -> str:
    """The join link, breakable anywhere but inside ``?room=CODE``."""
    link = cr.join_link(room["code"])
    head, _, tail = link.rpartition("?")
    return (f'{html.escape(head)}<span class="whole">{html.escape("?" + tail)}</span>'
            if head else f'<span class="whole">{html.escape(link)}</span>')


def _clear_controls() -> None:
    """The lock and the two removals of many at once (a burst of scripted joins). Outside the
    list's fragment, which redraws every few seconds: a click here reruns the page, and the
    sidebar says what it did."""
    try:
        ss["room_lock"] = cr.rooms().locked(room["code"])
    except cr.RoomError as e:
        st.warning(md_escape(str(e)))
        return
    st.toggle("Lock the room", key="room_lock", on_change=tools.set_lock,
              help="No new student joins; members who reload come back.")
    admit, idle, others = st.columns(3)
    admit.button("Admit everyone here now", key="room_admit_all", on_click=tools.admit,
                 width="stretch", help="Your class: the two removals never remove an admitted "
                 "student, nor one who answered the quiz.")
    idle.button("Remove idle members", key="room_drop_idle", on_click=tools.remove_idle,
                width="stretch", help="Everyone not admitted whose page has not checked in for "
                f"{tools.IDLE_S:.0f} s (a closed tab, or a script that keeps no page open).")
    others.button("Remove everyone not admitted", key="room_drop_others",
                  on_click=tools.remove_unadmitted, width="stretch",
                  help="Joins that are not your class, even those that keep a page open: admit "
                  "your students (or let them answer) and lock the room first.")


def _members() -> None:
    """Who is here (nicknames; the anonymous numbered), each with a Remove button."""
    try:
        members = cr.rooms().members(room["code"], room["token"])
        admitted = cr.rooms().admitted(room["code"], room["token"])
    except cr.RoomError as e:
        st.warning(md_escape(str(e)))
        return
    if not members:
        st.caption("Nobody yet.")
        return
    for i, (sid, name) in enumerate(sorted(members.items(), key=lambda m: (not m[1], m[1]))):
        left, mid, right = st.columns([3, 1, 1], vertical_alignment="center")
        left.text(name or f"(anonymous {i + 1})")
        if sid in admitted:
            mid.caption("admitted")
        else:
            mid.button("Admit", key=f"room_admit_{i}", on_click=tools.admit, args=(sid,))
        right.button("Remove", key=f"room_remove_{i}", on_click=tools.remove_member, args=(sid,))


if room is None:
    explain(
        "Teach a class on everyone's own screen: open a room, show its code on the projector, and "
        "the students' apps follow yours (the text, the tokenizer, the step, and your page if you "
        "say so). The class quiz asks everyone to predict the next merge and shows the answers."
    )
    teach, join = st.columns(2)
    with teach:
        st.header("Teach")
        st.write("The room shares the sidebar's text and tokenizer as they are now, and follows "
                 "what you change. Only this browser tab can change the room (another tab can "
                 "take over, explicitly).")
        st.button("Open a room", key="room_open", type="primary", on_click=cr.open_room)
        with st.expander("Teach a room you opened (your teacher phrase)", key="room_back_box",
                         expanded=bool(ss.get("_room_back_error"))):
            st.text_input("Your room's code", key="room_back_code", max_chars=40,
                          placeholder="ABCD-EFGH")
            st.text_input("Teacher phrase", key="room_back_phrase", max_chars=60,
                          type="password", placeholder="XXXX-XXXX-XXXX")
            st.button("Teach this room again", key="room_back", on_click=cr.come_back_from_form)
            if ss.get("_room_back_error"):
                st.error(md_escape(ss["_room_back_error"]))
    with join:
        st.header("Join")
        st.write("Your own text and tokenizer are put aside and come back when you leave.")
        st.text_input("Room code", key="room_code", max_chars=40, placeholder="ABCD-EFGH")
        # the field takes a long paste; the name is cut at MAX_NICKNAME graphemes, and said so
        st.text_input(f"Nickname (optional, up to {MAX_NICKNAME} characters: only your teacher "
                      "sees it)", key="room_nickname", max_chars=MAX_TYPED_NICKNAME)
        st.button("Join", key="room_join", type="primary", on_click=cr.join_from_form)
        if ss.get("_room_join_error"):  # beside the form, where the code was typed
            st.error(md_escape(ss["_room_join_error"]))
    cr.show_message()
    st.stop()

cr.show_message()
code = show_code(room["code"])

def teacher_view(room, current, tok, training) -> None:
    """The room's code and link for the projector, the follow-page switch, the class quiz."""
    left, right = st.columns([3, 2])
    with left:
        st.html(CODE_CSS + f'<div class="room-box"><div>Join code</div>'
                f'<div class="room-code">{html.escape(code)}</div><div>or open</div>'
                f'<div class="room-link">{_link_html(code)}</div></div>')
        others = cr.network_links(room["code"])
        if others:
            st.caption("This browser reached the app by a name only this machine knows: students "
                       "open one of this machine's network addresses instead.")
            st.html(CODE_CSS + "".join(f'<div class="room-box"><div class="room-link-other">'
                                       f'{html.escape(u.rpartition("?")[0])}<span class="whole">'
                                       f'{html.escape("?" + u.rpartition("?")[2])}</span></div>'
                                       f'</div>' for u in others))
    with right:
        st.fragment(_counts, run_every=cr.ANSWERS_POLL_S)()
        ss["room_follow_page"] = room["follow_page"]
        st.toggle("Students follow my page", key="room_follow_page", on_change=cr.set_follow_page,
                  help="Off: they follow your text, tokenizer and step on the page they chose.")
        st.caption(f"Shared: **{tokenizer_label()}** on the sidebar's text, step "
                   f"{current.state.get('step', 0):,}. Students who want to explore on their own "
                   "switch following off in their sidebar.")
        st.button("Close the room", key="room_close", on_click=cr.close_room,
                  help="Every student gets their own text and tokenizer back.")
    with st.expander("Who is here", expanded=False, key="room_members"):
        _clear_controls()
        st.fragment(_members, run_every=cr.ANSWERS_POLL_S * 5)()
    with st.expander("Your teacher phrase: come back from any tab or device (keep it private)",
                     expanded=False, key="room_phrase_box"):
        st.write("Write it down. With the room's code it makes you this room's teacher again in "
                 "any tab or on any device (**Classroom** → **Teach a room you opened**), after "
                 "a closed tab, a crash or a restart of the classroom's store. Students never see "
                 "it; the tab that teaches until then stops.")
        try:
            st.code(cr.teacher_phrase.teacher_phrase(cr.rooms(), room["code"], room["token"]),
                    language=None)
        except RoomError as e:
            st.warning(md_escape(str(e)))
    if ss.get("_room_teacher_link") == "offer":
        with st.expander("Your teacher link: come back from another device (keep it private)",
                         expanded=False, key="room_teacher_link_box"):
            st.write("This tab comes back to the room by itself after a reload, and another tab "
                     "of this browser can take over. To teach from another device, open this "
                     "link there: it works once, and the device that opens it teaches from then "
                     "on (this tab stops). It is shown once: keep it off the projector, and out "
                     "of the students' hands.")
            if st.button("Show my teacher link once", key="room_teacher_link_show"):
                st.code(cr.teacher_link(room["code"], room["token"], room["tab"]), language=None)
                ss["_room_teacher_link"] = "shown"

    st.header("Class quiz: predict the next merge")
    quiz, question = _quiz_question(tok, training)
    if quiz is None:
        if tok is None or training is None or not qz.has_candidates(tok):
            st.info("The class quiz needs a tokenizer trained here: choose a “Train: …” "
                    "tokenizer in the sidebar and press **Train**.")
            st.stop()
        n = len(tok.history)
        start = min(max(ss.get("step", 0), 0), n - 1) + 1
        st.number_input("Ask about merge", min_value=1, max_value=n, value=start,
                        key="room_quiz_k", help="The class sees the text after the merges "
                        "before it and guesses which pair this merge joins.")
        st.button("Start the class quiz", key="room_quiz_start", type="primary",
                  on_click=lambda: tools.quiz_start(ss["room_quiz_k"] - 1))
        st.stop()
    if question is None:
        st.button("End the quiz", key="room_quiz_stop", on_click=tools.quiz_stop)
        st.stop()
    k = quiz["k"]
    text_col, ask_col = st.columns([3, 2])
    with text_col:
        steps = text_after(tok, training, k, projector_mode())
    with ask_col:
        st.markdown(f"**Which pair does merge {k + 1} join?**")
        for option in question.options:
            st.markdown("- " + code_span(option.label))
        b = st.columns(3)
        b[0].button("Reveal", key="room_quiz_reveal", type="primary", on_click=tools.quiz_reveal,
                    disabled=quiz["revealed"], width="stretch")
        b[1].button("Next ▶", key="room_quiz_next", on_click=tools.quiz_start, args=(k + 1,),
                    disabled=k + 1 >= len(tok.history), width="stretch")
        b[2].button("End the quiz", key="room_quiz_stop", on_click=tools.quiz_stop, width="stretch")
    if quiz["revealed"]:
        answers = cr.rooms().answers(room["code"], room["token"])
        frame = qz.tally(question, [a["pair"] for a in answers])
        with ask_col:
            st.altair_chart(answers_chart(frame), key="room_answers_chart", width="stretch")
            right = int(frame.loc[frame["right"], "answers"].sum())
            st.success(f"{right} of {len(answers)} answers right. "
                       + qz.judge(question, question.answer).message.removeprefix("**Right!** "))
            named = sorted({a["nickname"] for a in answers if a["nickname"]})
            if named:
                st.caption("Answered: " + md_escape(", ".join(named)))
        text_after_merge(steps, tok, k, projector_mode())


def student_view(room, tok, training) -> None:
    """Where the student is, and the class quiz when the teacher runs one."""
    st.markdown(f"You are in room **{code}**"
                + (f" as **{md_escape(room['nickname'])}**" if room.get("nickname") else "")
                + (": your app follows the teacher." if room["following"] else
                   ": you are exploring on your own (switch **Follow the teacher** on in the sidebar "
                   "to go back)."))
    quiz, question = _quiz_question(tok, training)
    if quiz is None:
        st.info("No question right now: when your teacher starts the class quiz, it appears here.")
        st.stop()
    if question is None:
        st.stop()
    k = quiz["k"]
    mine = cr.my_answer(quiz["id"])  # as the room counts it: a reload keeps it
    text_col, ask_col = st.columns([3, 2])
    with text_col:
        steps = text_after(tok, training, k, projector_mode())
    with ask_col:
        labels = {o.label: o.pair for o in question.options}
        if ss.get("room_quiz_guess") not in labels:  # a new question, or a reload: the answer
            ss["room_quiz_guess"] = next((o.label for o in question.options
                                          if mine is not None and tuple(o.pair) == mine), None)
        st.radio(f"Which pair does merge {k + 1} join?", list(labels), index=None,
                 key="room_quiz_guess", disabled=quiz["revealed"], format_func=code_span)
        st.button("Send my answer", key="room_quiz_send", type="primary",
                  disabled=quiz["revealed"], on_click=lambda: cr.answer(
                      quiz["id"], labels.get(ss.get("room_quiz_guess"))))
        if mine and not quiz["revealed"]:
            st.info("Answer sent: " + code_span(next(o.label for o in question.options
                                                     if tuple(o.pair) == mine))
                    + ". Wait for the reveal (you may still change it).")
        if quiz["revealed"]:
            if mine:
                verdict = qz.judge(question, mine)
                (st.success if verdict.correct else st.warning)(verdict.message)
            else:
                st.info("You did not answer this one. "
                        + qz.judge(question, question.answer).message.removeprefix("**Right!** "))
    if quiz["revealed"]:
        text_after_merge(steps, tok, k, projector_mode())


try:
    current = cr.rooms().room(room["code"])
    if current is None:
        st.info("This room has ended.")
        st.stop()
    if room["role"] == "teacher":
        teacher_view(room, current, active_tokenizer(), trained_text())
    else:
        student_view(room, active_tokenizer(), trained_text())
except RoomError as e:  # the store did not answer
    st.error(md_escape(str(e)))
