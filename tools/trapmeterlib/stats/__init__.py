"""trapmeterlib.stats - pure statistics: boot-to-boot intervals, the
compare verdicts, the sequential A/B test, precision and the cost fits."""
