"""The live classroom: rooms in a key-value store (``rooms``, over ``store``), the route a
student's browser polls and the teacher's view posts to (``route``), the watcher in every
sidebar (``component``), and the classroom's part of a session and its sidebar (``panel``).
"""
