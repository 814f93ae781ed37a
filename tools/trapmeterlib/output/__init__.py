"""What trapmeter shows and writes: the figure rule (figure.py) that every
table, results file and report follows."""
