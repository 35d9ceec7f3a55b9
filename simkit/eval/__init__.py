"""simkit.eval"""
