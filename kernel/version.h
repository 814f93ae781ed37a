/* kernel/version.h - version and dump schema of this build. */
#ifndef KERNEL_VERSION_H
#define KERNEL_VERSION_H

#define TM_VERSION "0.1.0"
#define TM_SCHEMA 2	/* 2: the status is sealed in a counted record */

#endif
