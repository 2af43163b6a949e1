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

	char digits[U64_DEC_MAX];
	size_t ndigits = u64_to_dec(body_len, digits);
	const struct text_span *suffix = &dynamic_head_suffix[form];
	size_t head_len = sizeof(DYNAMIC_200_HEAD_PREFIX) - 1 + ndigits + suffix->len;
	char *head = body - head_len;
	char *h = copy_span(head, LITERAL(DYNAMIC_200_HEAD_PREFIX));
	h = copy_span(h, digits, ndigits);
	copy_span(h, suffix->text, suffix->len);

	struct rendered_response r = {
		.bytes = head,
		.head_len = (uint32_t)head_len,
		.total_len = (uint32_t)(head_len + body_len),
	};
	return r;
}
