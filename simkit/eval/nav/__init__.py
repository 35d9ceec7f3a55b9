"""Closed-loop evaluation of sound-guided navigation: metrics (SR, SPL, SoftSPL, NE, OS, TL),
baseline policies (oracle, random, sound), the waypoint -> action conversion and the runner."""
