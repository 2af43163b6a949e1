/* A file served from disk, as one request sees it (see disk_file.h). */
#include "common/answer/disk_file.h"

#include "common/base/span.h"

#define NS_PER_S 1000000000ull

STATIC_ASSERT(sizeof(struct disk_stat) == 32, "disk_stat layout");

void disk_file_view(const struct cached_file *f, const struct disk_stat *st, uint64_t now_s,
		    unsigned page, char *out, struct cached_file *view)
{
	struct text_span type = {f->head, f->type_len};
	struct text_span fields = {f->head + f->type_len, f->fields_len};
	*view = *f;
	view->body = 0;
	view->size = st->size;
	view->mtime = disk_served_mtime(st, now_s);
	if (page != ERROR_PAGE_NONE) {
		view->etag = 0;
		view->etag_len = 0;
		view->head = out;
		view->head_len = (uint16_t)render_page_head(out, page, type, st->size, fields,
							    FILE_HEAD_FORM);
		return;
	}
	uint64_t ns = (uint64_t)st->mtime_s * NS_PER_S + st->mtime_ns; /* as a loaded file's */
	size_t n = file_validators_render(out, view, st->size, ns, st->inode);
	file_head_render(out + n, view, type, fields);
}
