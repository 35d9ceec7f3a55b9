"""simkit.assets"""
