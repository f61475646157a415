/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A tracefs instance of ringcap's own, instances/ringcap-PID: a trace
 * buffer and event enables apart from the top level's and other tools'.
 * Made and removed here, with its files' paths and writes; an instance
 * left by a ringcap that was killed is removed by the next.
 */
#ifndef RINGCAP_TRACEFS_INSTANCE_H
#define RINGCAP_TRACEFS_INSTANCE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#define RC_TRACEFS_INSTANCE_NAME "ringcap-" /* and the pid */

/**
 * struct rc_tracefs_instance - an instance made by this process
 * @path: its directory
 * @made: made by rc_tracefs_instance__make(), and not yet removed
 */
struct rc_tracefs_instance {
	char path[PATH_MAX];
	bool made;
};

/**
 * rc_tracefs_instance__make() - make this process's instance
 * @in: zeroed
 *
 * One left by an earlier ringcap that had our pid is made anew.
 *
 * Return: 0, or -errno (said).
 */
int rc_tracefs_instance__make(struct rc_tracefs_instance *in);

/* Remove the instance if made (a failure is said, with what to do). */
void rc_tracefs_instance__remove(struct rc_tracefs_instance *in);

/* The path of the instance's @file into @out (@len bytes): 0 or -ENAMETOOLONG. */
int rc_tracefs_instance__path(const struct rc_tracefs_instance *in, char *out, size_t len,
			      const char *file);

/**
 * rc_tracefs_instance__write() - write @val to the instance's @file
 * @in: the instance
 * @file: relative to it
 * @val: the text
 * @append: O_APPEND, to add to a list as >> does; else the file is replaced
 *
 * Return: 0, or -errno (said).
 */
int rc_tracefs_instance__write(const struct rc_tracefs_instance *in, const char *file,
			       const char *val, bool append);

/*
 * Remove the instances of ringcap processes that are gone (killed before
 * they could remove their own); returns how many.
 */
int rc_tracefs__clean_instances(void);

#endif /* RINGCAP_TRACEFS_INSTANCE_H */
