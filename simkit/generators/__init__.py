"""simkit.generators"""
