"""Forward mode: each statement followed by its tangent."""
