/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RINGCAP_HEADER_H
#define RINGCAP_HEADER_H

#include "format/format.h"
#include "format/ftpage.h"
#include "format/meta.h"

/* A parsed file header; owns every string and table it points to. */
struct rc_parsed_header {
	struct rc_meta meta;
	struct rc_schema schema;
	uint16_t by_id[RC_MAX_EVENT_ID + 1]; /* event id -> index + 1 in schema.events */
	struct rc_ft_idmap ft_ids;	     /* from the "ftrace_id" notes (v1.4) */
};

int rc_parse_header(struct rc_parsed_header *h, const void *buf, size_t len, char *err,
		    size_t errlen);
void rc_parsed_header__free(struct rc_parsed_header *h);

/* Serialise the file header block payload for @meta. */
int rc_format__header(struct rc_strbuf *sb, const struct rc_meta *meta);

#endif
