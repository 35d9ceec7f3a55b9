"""simkit.adapters"""
