/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libringcap: capture engine, capture file format and decoding.
 *
 * Conventions (libbpf's): functions return 0, a count, or a negative errno;
 * constructors return NULL and set errno. The library never writes to
 * stdout and never exits; it logs through the callback set with
 * rc_set_print().
 *
 * Objects (a writer, a reader, a session, a schema of one's own) are not
 * locked: use each from one thread at a time. What an accessor returns
 * belongs to its object, and lives until the object is freed unless its
 * comment says otherwise.
 */
#ifndef RINGCAP_H
#define RINGCAP_H

/*
 * The public surface: the public headers of each layer, in the layers'
 * order. cmd/ includes these and no other header of lib/; each layer's
 * other headers are its own, or for the layers above it.
 */
#include "util/log.h"
#include "util/mem.h"
#include "util/strbuf.h"
#include "util/file.h"
#include "util/httpd.h"
#include "format/records.h"
#include "format/schema.h"
#include "format/counters.h"
#include "format/meta.h"
#include "format/stats.h"
#include "format/aux.h"
#include "format/writer.h"
#include "format/reader.h"
#include "format/set.h"
#include "decode/decode.h"
#include "decode/ledger.h"
#include "decode/summary.h"
#include "decode/profile.h"
#include "decode/filter.h"
#include "decode/hist.h"
#include "decode/auxsum.h"
#include "symbol/symbol.h"
#include "capture/session.h"
#include "output/output.h"
#include "output/json.h"
#include "output/flamegraph.h"
#include "output/pprof.h"
#include "output/prom.h"
#include "output/pipeline.h"
#include "output/parallel.h"
#include "output/clickhouse.h"
#include "output/clickhouse_http.h"

#endif /* RINGCAP_H */
