"""simkit.sims"""
