/*
 * kernel/suites/suites.h - the suites main.c can run.
 */
#ifndef KERNEL_SUITES_SUITES_H
#define KERNEL_SUITES_SUITES_H

#include "kernel/cmdline.h"

void suite_pio(const struct tm_config *cfg);
void suite_exits(const struct tm_config *cfg);
void suite_virtio(const struct tm_config *cfg);
void suite_ide(const struct tm_config *cfg);

#endif
