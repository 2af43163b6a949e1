/* /metrics: the counters as Prometheus text, rendered with its head into one buffer so
 * head and body leave in a single write. */
#ifndef APOLLOD_COMMON_METRICS_H
#define APOLLOD_COMMON_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "common/counters.h"
#include "common/responses.h"
#include "common/span.h"
#include "common/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

/* Longest body: every line "name SP value LF" with a 20-digit value. */
#define METRICS_LINE_MAX(name) (sizeof(#name) - 1 + 1 + U64_DEC_MAX + 1) +
#define METRICS_BODY_MAX (FOR_EACH_COUNTER(METRICS_LINE_MAX) 0)
#define METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
/* Room for the head in front of the body. */
#define METRICS_HEAD_RESERVE HEAD_200_MAX(sizeof(METRICS_CONTENT_TYPE) - 1)
#define METRICS_BUFFER_SIZE 1536
STATIC_ASSERT(METRICS_HEAD_RESERVE + METRICS_BODY_MAX <= METRICS_BUFFER_SIZE,
	      "the largest /metrics response fits its buffer");

/* Where build_metrics put the response. */
struct rendered_response {
	const char *bytes;  /* first byte of the head, inside the caller's buffer */
	uint32_t head_len;
	uint32_t total_len; /* head + body */
};

/* Renders the full /metrics response (head and body) into out, which must hold
 * METRICS_BUFFER_SIZE bytes, with the Connection header of `form`. The body is written
 * first, after METRICS_HEAD_RESERVE bytes, then the head so that it ends exactly where the
 * body starts: nothing moves.
 * Returns where the response starts and its lengths; the bytes lie in out. */
struct rendered_response build_metrics(char *out, enum conn_form form);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_METRICS_H */
