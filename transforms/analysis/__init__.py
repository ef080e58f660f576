"""Analyses of normalised code the later stages ask: the kind of every
variable, activity, which values may exist, aliasing, how loops read and
write, which shapes never change, loop nests and affine index forms."""
