"""trapmeterlib.backends - what runs beside or instead of a local QEMU:
DPDK testpmd as the vhost-user backend, LAVA jobs and their results."""
