"""The front page's tokens as you type: the box and its two views (``component``) and the route
that answers them at every key without a script (``route``).
"""
