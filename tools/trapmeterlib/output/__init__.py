"""trapmeterlib.output - what the tool writes: the table and results.json,
JUnit, plots, and the comparison's renderings."""
