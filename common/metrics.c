/* /metrics rendering (see metrics.h). */
#include "common/metrics.h"

/* "name " for every counter, in FOR_EACH_COUNTER order. */
static const struct text_span metric_names[COUNTER_COUNT] = {
#define METRIC_NAME(name) {LITERAL(#name " ")},
	FOR_EACH_COUNTER(METRIC_NAME)
#undef METRIC_NAME
};

/* A counter's value as /metrics reports it: requests_total is derived (counters.h). */
static uint64_t metric_value(enum counter_id id)
{
	if (id != C_requests_total)
		return counter_read(id);
	uint64_t answered = 0;
#define ADD_STATUS(name) answered += counter_read(C_##name);
	FOR_EACH_STATUS_COUNTER(ADD_STATUS)
#undef ADD_STATUS
	return answered;
}

struct rendered_response build_metrics(char *out, enum conn_form form)
{
	char *body = out + METRICS_HEAD_RESERVE;
	char *p = body;
	for (int id = 0; id < COUNTER_COUNT; id++) {
		p = copy_span(p, metric_names[id].text, metric_names[id].len);
		p += u64_to_dec(metric_value((enum counter_id)id), p);
		*p++ = '\n';
	}
	size_t body_len = (size_t)(p - body);
	size_t type_len = sizeof(METRICS_CONTENT_TYPE) - 1;
	size_t head_len = head_200_len(type_len, body_len, form);
	char *head = body - head_len;
	render_head_200(head, METRICS_CONTENT_TYPE, type_len, body_len, form);

	struct rendered_response r = {
		.bytes = head,
		.head_len = (uint32_t)head_len,
		.total_len = (uint32_t)(head_len + body_len),
	};
	return r;
}
