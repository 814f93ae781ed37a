"""trapmeterlib.system - host process plumbing: child processes, forked
runs, CPU pinning, private directories, host facts, the host-wide KVM
lock (the exit statuses live in values/exitstatus.py)."""
