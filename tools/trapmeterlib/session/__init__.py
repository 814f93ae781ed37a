"""trapmeterlib.session - a run as a value and the runner that boots it:
plan (RunPlan, the options checked once), runner (Runner: one plan's
boots, with QEMU, the counters, the backend and the temporary files) and
record (the results.json a run builds)."""
