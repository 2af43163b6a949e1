// Site pages for the answer's tests: the --error-page of one status and the --fallback
// (common/answer/site.h's struct site_pages), the other statuses without a page.
#ifndef APOLLOD_TEST_UNIT_SITE_PAGES_H
#define APOLLOD_TEST_UNIT_SITE_PAGES_H

#include "common/answer/site.h"

// page (NULL: none) answers status id, fallback (NULL: none) the misses it applies to.
inline struct site_pages PagesWith(const struct cached_file *page, const struct cached_file *fallback,
				   unsigned id = ERROR_PAGE_404)
{
	struct site_pages p = {};
	p.error[id] = page;
	p.fallback = fallback;
	return p;
}

#endif // APOLLOD_TEST_UNIT_SITE_PAGES_H
