/* kernel/version.h - version and dump schema of this build. */
#ifndef KERNEL_VERSION_H
#define KERNEL_VERSION_H

#define TM_VERSION "0.1.0"
#define TM_SCHEMA 4	/* 2: the status is sealed in a counted record; 3: compact result lines;
			 * 4: rounds after the first as short "round" records */

#endif
