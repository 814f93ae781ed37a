"""One module per `trapmeter` command (run, parse, compare, lava-job,
import-lava), each with its add_parser(sub, fmt) and command(args);
common.py holds what several of them share. cli.py dispatches."""
