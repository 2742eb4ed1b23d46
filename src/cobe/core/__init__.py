"""The bottom layer every package may use: errors, the result-row type, optional dependencies."""
