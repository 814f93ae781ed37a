"""trapmeterlib.system - host process plumbing: child processes, forked
runs, CPU pinning, private directories, host facts and exit statuses."""
