"""trapmeterlib.output - what the tool shows and writes, every figure by
the rule of values/figure.py: the table and results.json, JUnit, the HTML
report and its figures, and the comparison's renderings."""
