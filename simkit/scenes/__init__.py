"""simkit.scenes"""
