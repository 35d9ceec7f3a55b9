"""simkit.renderers"""
