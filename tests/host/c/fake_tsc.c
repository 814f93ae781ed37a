/*
 * tests/host/c/fake_tsc.c - the fake clock's state (see fake_tsc.h).
 */
#include "tests/host/c/fake_tsc.h"

bool fake_tsc_on;
u64 fake_tsc_now;
u64 fake_tsc_read_cost;
