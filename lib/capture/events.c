// SPDX-License-Identifier: GPL-2.0-only
/* Event names, as -e takes them: ringcap's own events and groups. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capture/backend.h"

int rc_parse_events(const char *spec, uint32_t *mask, char *bad, size_t badlen)
{
	const struct rc_schema *s = rc_builtin_schema();
	char *copy, *tok, *save = NULL;
	int err = 0;

	copy = strdup(spec);
	if (!copy)
		return -ENOMEM;
	*mask = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct rc_event_desc *ev = rc_schema__event_by_name(s, tok);

		if (!strcmp(tok, "syscalls"))
			*mask |= RC_EVENT_BIT(RC_EV_SYSCALL);
		else if (!strcmp(tok, "sched"))
			*mask |= RC_SCHED_EVENTS;
		else if (ev && ev->id < RC_EV_MAX && ev->id != RC_EV_SAMPLE && ev->id != RC_EV_OFFCPU &&
			 ev->id != RC_EV_STACK) /* -F, --off-cpu, -g make these; not the ledger's */
			*mask |= RC_EVENT_BIT(ev->id);
		else {
			snprintf(bad, badlen, "%s", tok);
			err = -EINVAL;
			break;
		}
	}
	free(copy);
	if (!err && !*mask) {
		snprintf(bad, badlen, "%s", spec);
		err = -EINVAL;
	}
	return err;
}
