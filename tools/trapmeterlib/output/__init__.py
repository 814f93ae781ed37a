"""trapmeterlib.output - what the tool shows and writes: the figure rule
(figure.py) every output follows, the table and results.json, JUnit,
plots, and the comparison's renderings."""
