/* /metrics rendering (see metrics.h). */
#include "common/metrics.h"

/* "name " for every counter, in FOR_EACH_COUNTER order. */
static const struct text_span metric_names[COUNTER_COUNT] = {
#define METRIC_NAME(name) {LITERAL(#name " ")},
	FOR_EACH_COUNTER(METRIC_NAME)
#undef METRIC_NAME
};

struct rendered_response build_metrics(char *out, enum conn_form form)
{
	char *body = out + METRICS_HEAD_RESERVE;
	char *p = body;
	for (int id = 0; id < COUNTER_COUNT; id++) {
		p = copy_span(p, metric_names[id].text, metric_names[id].len);
		p += u64_to_dec(counter_read((enum counter_id)id), p);
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
