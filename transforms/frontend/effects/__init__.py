"""Effects: writes hidden in calls spelled as stores, helpers writing into the
arrays they are given rewritten, and the effects s2sad cannot follow
refused."""
