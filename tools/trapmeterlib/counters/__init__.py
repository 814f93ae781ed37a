"""trapmeterlib.counters - measured exits: KVM's statistics over QMP, perf
tracepoints, and the per-case exit counts built from them."""
