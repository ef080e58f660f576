"""Containers: container arguments flattened to their leaves, lists, tuples,
dicts, records and comprehensions made into variables, arrays and loops, a
has_aux function's aux made a tuple."""
