/* Messages for the operator (see console.h). */
#include "common/base/console.h"

#include "common/base/errno_text.h"
#include "common/base/text_out.h"

void console_fail(const char *step, const char *subject, size_t subject_len, long err)
{
	char line[CONSOLE_LINE_MAX];
	char reason[ERRNO_TEXT_MAX];
	/* The subject gives way first: the reason always fits after it. */
	struct text_out o = {line, line + sizeof(line) - sizeof(reason) - sizeof(": \n")};
	put_cstr(&o, "apollod: ");
	put_cstr(&o, step);
	if (subject_len) {
		put_cstr(&o, " ");
		put(&o, subject, subject_len);
	}
	o.end = line + sizeof(line);
	put_cstr(&o, ": ");
	put(&o, reason, errno_text(err, reason));
	put_cstr(&o, "\n");
	write_stderr(line, (size_t)(o.p - line));
}

void console_file_problem(const char *flag, const char *path, uint32_t line, const char *why,
			  long err)
{
	char digits[U64_DEC_MAX];
	char reason[ERRNO_TEXT_MAX];
	write_stderr(LITERAL("apollod: "));
	write_stderr(flag, cstr_len(flag));
	write_stderr(LITERAL(" "));
	write_stderr(path, cstr_len(path));
	if (line) {
		write_stderr(LITERAL(":"));
		write_stderr(digits, u64_to_dec(line, digits));
	}
	write_stderr(LITERAL(": "));
	write_stderr(why, cstr_len(why));
	if (err) {
		write_stderr(LITERAL(": "));
		write_stderr(reason, errno_text(err, reason));
	}
	write_stderr(LITERAL("\n"));
}
