"""The sidebar every page draws first (``panel.sidebar``): the text, the tokenizer's settings,
Train, and a classroom room's part. It sits above the features it shows (the classroom's room
panel) and below the pages; the kit (``ui/kit``) holds the session's state it writes.
"""
