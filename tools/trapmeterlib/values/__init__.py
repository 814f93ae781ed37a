"""trapmeterlib.values - the bottom floor: what every other package
shares and nothing here imports from them.  The exit statuses and the
rules that turn a boot's evidence into one (exitstatus.py), the error
base every exception of the tool derives from (errors.py), the figure
rule (figure.py), the guest's record schema (records.py, resultform.py)
and the one "is this a JSON number" predicate (numbers.py)."""
