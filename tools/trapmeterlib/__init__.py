"""trapmeter host runner: boots the guest kernel under QEMU, collects and
validates its COM1 dump, prints a table and writes results.json.

The package is split so that the pure parts (dump parsing, status decisions,
report rendering) can be unit-tested without QEMU."""

TOOL_VERSION = "0.1.0"
