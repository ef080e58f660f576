"""Nested functions and lambdas: lifted to helpers taking what they capture,
inlined where they change their outer function's state, specialised where
they are passed to a helper."""
